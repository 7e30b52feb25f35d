//! How a simulation is built from a model: each client's and service instance's state with
//! its own named random streams (so adding one leaves the others' draws as they were), the
//! policy layout, the recorder, and the first events (arrivals, faults, lifecycles).

use super::arena::Arena;
use super::event_queue::EventQueue;
use super::rng::stream;
use super::simulation::Simulation;
use super::state::*;
use crate::metrics::rate_keys::RateKeys;
use crate::metrics::recorder::Recorder;
use crate::model::{CallSpec, Load, Model, Rule};

impl Simulation {
    /// A simulation of `model`, its clients started and its faults and lifecycles scheduled.
    pub fn new(model: Model) -> Simulation {
        let seed = model.seed;
        let slots = crate::metrics::slots::MetricSlots::of(&model);
        let clients = (model.clients.iter().enumerate())
            .map(|(index, c)| ClientState {
                arrival_rng: stream(seed, &format!("client.{}", c.name), "arrivals"),
                think_rng: stream(seed, &format!("client.{}", c.name), "think"),
                rate_cursor: 0,
                last_arrival: 0.0,
                mix_rng: stream(seed, &format!("client.{}", c.name), "mix"),
                criticality: c.criticality,
                // A client without a mix records on its own slot, which is never changed.
                origin: index as u32,
            })
            .collect();
        let services: Vec<ServiceState> = model
            .services
            .iter()
            .enumerate()
            .map(|(index, s)| {
                let keys = (s.rate_limit.as_ref()).map(|r| RateKeys::of(&slots, r.key));
                ServiceState {
                    plain_dispatch: crate::engine::service::dispatch::plain_dispatch(s),
                    screens_arrivals: crate::engine::service::jobs::screens_arrivals(s),
                    instances: (0..s.instance_slots())
                        .map(|i| InstanceState {
                            busy: 0,
                            queue: std::collections::VecDeque::new(),
                            cancelled_in_queue: 0,
                            work_rng: stream(seed, &format!("service.{}#{i}", s.name), "work"),
                            codel: s.codel.as_ref().map(cascade_policy::codel::Codel::new),
                            operation_busy: if s.partitioned {
                                vec![0; s.operations.len() + 1]
                            } else {
                                Vec::new()
                            },
                            working: 0,
                            owed: std::collections::VecDeque::new(),
                        })
                        .collect(),
                    balancer_rng: stream(seed, &format!("service.{}", s.name), "balancer"),
                    next_rr: 0,
                    outlier: s.outlier.clone().map(|o| {
                        cascade_policy::outlier::Outlier::new(o, s.instance_slots() as usize)
                    }),
                    // MetricSlots past the instances of the start hold none yet (autoscaling).
                    down: crate::engine::balancer::down::Down::new(
                        (0..s.instance_slots())
                            .map(|i| {
                                if i < s.instances {
                                    0
                                } else {
                                    crate::engine::platform::lifecycle::ABSENT
                                }
                            })
                            .collect(),
                    ),
                    least: (s.balancer == crate::model::BalancerKind::LeastOutstanding
                        && s.instance_slots() > 1)
                        .then(|| {
                            Box::new(crate::engine::balancer::least::LeastTree::new(
                                s.instance_slots(),
                            ))
                        }),
                    life: s.orchestration.as_ref().map(|o| {
                        Box::new(crate::engine::platform::lifecycle::Life::new(&model, s, o))
                    }),
                    ramp: s.slow_start.as_ref().map(|c| {
                        Box::new(crate::engine::balancer::slow_start::Ramp::new(
                            c,
                            s.instance_slots(),
                        ))
                    }),
                    rate_buckets: s.rate_limit.as_ref().map_or_else(Vec::new, |r| {
                        let full = r.limiter.start(cascade_policy::Nanos::ZERO);
                        let keys = keys.as_ref().map_or(1, RateKeys::count);
                        vec![full; r.buckets(s.instance_slots(), keys)]
                    }),
                    rate_keys: keys.as_ref().map_or(1, RateKeys::count),
                    rate_key_of: keys.map_or_else(Vec::new, |k| k.of_origin),
                    branches: s
                        .plans()
                        .enumerate()
                        .map(|(operation, plan)| {
                            let mut options = 0;
                            plan.branches
                                .iter()
                                .enumerate()
                                .map(|(step, b)| {
                                    b.as_ref().map(|b| BranchState {
                                        p: b.p().unwrap_or(1.0),
                                        rng: stream(
                                            seed,
                                            &format!("service.{}", s.name),
                                            &b.stream,
                                        ),
                                        faults: branch_faults(&model, index, operation, step),
                                        option_base: {
                                            let base = options;
                                            if let Rule::Choose { until, .. } = &b.rule {
                                                options += until.len() as u32;
                                            }
                                            base
                                        },
                                    })
                                })
                                .collect()
                        })
                        .collect(),
                }
            })
            .collect();
        let edge_rngs = model
            .edges
            .iter()
            .map(|e| stream(seed, &format!("edge.{}", e.name), "latency"))
            .collect();
        let layout = crate::engine::caller::policy_state::build(&model);
        let mut rec = Recorder::new(&model);
        rec.track_pools(
            layout.bulkheads.len(),
            (layout.pools.iter()).map(|p| (p.prefix.as_str(), p.instances.as_slice())),
        );
        for (level, &initial) in rec.limits.iter_mut().zip(&layout.initial_limits) {
            let mut unused = 0;
            level.add(0, initial as i64, &mut unused);
        }
        let faults = crate::engine::faults::per_request::FaultIndex::new(&model);
        let any_least = services.iter().any(|s| s.least.is_some());
        let mut sim = Simulation {
            any_least,
            metric_slot_base: slots.service_base,
            client_metric_slot_base: slots.client_base,
            faults,
            policies: layout.states,
            path_base: layout.base,
            bulkheads: layout.bulkheads,
            pools: layout.pools,
            now: 0,
            end: model.end(),
            event_queue: EventQueue::default(),
            calls: Arena::default(),
            jobs: Arena::default(),
            ops: Arena::default(),
            clients,
            services,
            edge_rngs,
            rec,
            extra_users: Vec::new(),
            segments: Vec::new(),
            tried_hosts: Default::default(),
            pool_holds: Default::default(),
            trace: None,
            instant_at: u64::MAX,
            instant_events: 0,
            instant_limit: super::watchdog::instant_limit(&model),
            work_bound: super::work_bound::WorkBound::of(&model),
            stopped: None,
            observer: None,
            events: 0,
            specs: specs_by_id(&model)
                .into_iter()
                .chain(crate::engine::platform::probes::probe_specs(&model))
                .collect(),
            model,
        };
        sim.start_clients();
        sim.schedule_fault_events();
        sim.start_lifecycles();
        sim
    }

    /// The first events: outlier sweeps, each open client's first arrival, and each
    /// closed-loop user's start.
    fn start_clients(&mut self) {
        for (s, svc) in self.model.services.iter().enumerate() {
            if let Some(o) = &svc.outlier {
                self.event_queue
                    .push(o.interval().0, Event::OutlierSweep(s as u32));
            }
        }
        for c in 0..self.model.clients.len() {
            match &self.model.clients[c].load {
                Load::Open { .. } => self.schedule_arrival(c as u32),
                Load::Closed { users, think, .. } => {
                    // Users start spread over one think time rather than all at once.
                    for user in 0..*users {
                        let t = think.sample(&mut self.clients[c].think_rng);
                        self.event_queue.push(
                            t,
                            Event::UserStart {
                                client: c as u32,
                                user,
                            },
                        );
                    }
                }
            }
        }
    }
}

/// Every call spec of the model (clients', services' steps', fallbacks'), indexed by id: one
/// lookup on the hot path instead of a walk through clients, services and steps.
fn specs_by_id(model: &Model) -> Vec<CallSpec> {
    let all = model
        .clients
        .iter()
        .flat_map(|c| c.calls())
        .chain(model.services.iter().flat_map(|s| s.calls()))
        .chain(&model.fallbacks);
    let mut specs: Vec<Option<CallSpec>> = vec![None; model.call_specs];
    for spec in all {
        specs[spec.id] = Some(spec.clone());
    }
    specs
        .into_iter()
        .map(|s| s.expect("call spec ids are dense"))
        .collect()
}

/// The `branch` faults on step `step` of operation `operation` (0: the service's own plan) of
/// service `service`.
fn branch_faults(model: &Model, service: usize, operation: usize, step: usize) -> Vec<u32> {
    use crate::model::fault::{Effect, Target};
    (model.faults.iter().enumerate())
        .filter(|(_, f)| {
            f.target == Target::Service(service)
                && usize::from(f.operation) == operation
                && matches!(f.effect, Effect::Branch { step: at, .. } if at == step)
        })
        .map(|(i, _)| i as u32)
        .collect()
}
