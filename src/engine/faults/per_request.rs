//! Applying faults on the hot path: where a request meets an active fault, the fault answers,
//! slows the work, swallows the request, or holds the queue (stalls, capacity cuts). The
//! faults' own moments (a crash, an instance back, a stall over) are in `events.rs`.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::rng::{Stream, stream};
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::{Event, NO_RETRY_AFTER};
use crate::model::fault::{Effect, Fault, Target};
use crate::model::latency::scale_ns;
use crate::model::{Model, Outcome};
use cascade_policy::random::unit;

/// Which faults can touch each service and each edge, and each fault's random stream.
pub struct FaultIndex {
    /// Faults acting on a service's arrivals or work (latency, errors, outage, crash).
    by_service: Vec<Vec<u32>>,
    by_edge: Vec<Vec<u32>>,
    /// Stalls and capacity cuts per service: they hold its queue.
    pub(in crate::engine) holds: Vec<Vec<u32>>,
    /// Per service: whether any fault targets it, one of its instances, or an edge into it,
    /// or the platform may refuse its arrivals (`Service::orchestration`).
    touched: Vec<bool>,
    /// Per service: whether work drawn there may be slowed (a latency or crash fault on it,
    /// or a cold start of its orchestration): `slowed_work`'s one check.
    slows_work: Vec<bool>,
    rngs: Vec<Stream>,
}

impl FaultIndex {
    /// Whether messages on the call's edge arrive at once: no network latency and no fault on
    /// it, as on most edges. Checked where the spec is at hand, before `network_delay`.
    #[inline(always)]
    pub(in crate::engine) fn instant_network(&self, spec: &crate::model::CallSpec) -> bool {
        spec.latency.is_none() && self.by_edge[spec.edge].is_empty()
    }

    pub fn new(model: &Model) -> FaultIndex {
        let mut by_service = vec![Vec::new(); model.services.len()];
        // One more than the edges: the edge of the probes' call specs (`probes.rs`), which
        // nothing touches.
        let mut by_edge = vec![Vec::new(); model.edges.len() + 1];
        let mut holds = vec![Vec::new(); model.services.len()];
        for (i, f) in model.faults.iter().enumerate() {
            let i = i as u32;
            match (f.target, &f.effect) {
                // Acts on a step's draws (`BranchState::faults`), not on arrivals.
                (_, Effect::Branch { .. }) => {}
                (
                    Target::Service(s) | Target::Instance(s, _),
                    Effect::Stall | Effect::Capacity(_),
                ) => holds[s].push(i),
                (Target::Service(s) | Target::Instance(s, _), _) => by_service[s].push(i),
                (Target::Edge(e), _) => {
                    // A pair's edge with operations is the sum of its operations' edges, which
                    // the calls record on: the fault acts on each of them.
                    by_edge[e].push(i);
                    for (p, part) in model.edges.iter().enumerate() {
                        if part.total == Some(e) {
                            by_edge[p].push(i);
                        }
                    }
                }
                (Target::Client(_), _) => {}
            }
        }
        // Named by what the fault is, not its place in the file, so adding a fault before it
        // leaves its draws alone; identical faults are told apart by how many came before.
        let rngs = model
            .faults
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let twin = model.faults[..i]
                    .iter()
                    .filter(|g| g.target == f.target && (g.start, g.end) == (f.start, f.end))
                    .count();
                let target = match f.target {
                    Target::Service(s) => model.services[s].name.clone(),
                    Target::Instance(s, i) => format!("{}#{i}", model.services[s].name),
                    Target::Edge(e) => model.edges[e].name.clone(),
                    Target::Client(c) => model.clients[c].name.clone(),
                };
                let name = match twin {
                    0 => format!("fault.{target}.{}.{}", f.start, f.end),
                    n => format!("fault.{target}.{}.{}.{n}", f.start, f.end),
                };
                stream(model.seed, &name, "draws")
            })
            .collect();
        let slows_work = (0..model.services.len())
            .map(|s| {
                !by_service[s].is_empty()
                    || model.services[s]
                        .orchestration
                        .as_ref()
                        .is_some_and(|o| o.cold_start > 0)
            })
            .collect();
        let touched = (0..model.services.len())
            .map(|s| {
                model.services[s].orchestration.is_some()
                    || !by_service[s].is_empty()
                    || model
                        .edges
                        .iter()
                        .enumerate()
                        .any(|(e, edge)| edge.to == s && !by_edge[e].is_empty())
            })
            .collect();
        FaultIndex {
            by_service,
            by_edge,
            holds,
            touched,
            slows_work,
            rngs,
        }
    }
}

/// What an active fault does to an arriving request.
enum Intercept {
    Answer {
        outcome: Outcome,
        after: u64,
        retry_after: Option<u64>,
        /// The service itself answers (an `errors` fault), so the refusal costs it work.
        by_service: bool,
    },
    Swallow,
}

impl Simulation {
    /// Lets the faults on the job's service, instance and edge act on its arrival. Returns true
    /// when a fault took the request (answered or swallowed it), so the service never sees it.
    #[inline]
    pub(in crate::engine) fn fault_intercepts(
        &mut self,
        jr: Ref,
        service: usize,
        instance: u32,
    ) -> bool {
        self.faults.touched[service] && self.fault_acts(jr, service, instance)
    }

    fn fault_acts(&mut self, jr: Ref, service: usize, instance: u32) -> bool {
        if self.services[service].life.is_some() && self.refused_by_platform(jr, service, instance)
        {
            // No process listens (or none is ready and the balancer refuses): a connection
            // refused, whatever the faults.
            let job = self.jobs.get_mut(jr).expect("arriving job");
            job.state = crate::engine::kernel::state::JobState::Replying;
            job.outcome = Outcome::Unavailable;
            job.retry_after = NO_RETRY_AFTER;
            self.send_reply(jr);
            return true;
        }
        let job = self.jobs.get(jr).expect("arriving job");
        let edge = spec_of(&self.specs, job.spec).edge;
        let now = self.now;
        let (by_service, by_edge) = (&self.faults.by_service[service], &self.faults.by_edge[edge]);
        if by_service.is_empty() && by_edge.is_empty() {
            return false;
        }
        let candidates = by_service.iter().chain(by_edge).copied();
        let mut hit = None;
        for i in candidates {
            let f: &Fault = &self.model.faults[i as usize];
            if !f.active(now)
                || !(matches!(f.target, Target::Edge(_)) || f.hits_service(service, instance))
                || (f.operation != 0 && f.operation != job.operation)
            {
                continue;
            }
            let refused = Intercept::Answer {
                outcome: Outcome::Refused,
                after: 0,
                retry_after: None,
                by_service: false,
            };
            match f.effect {
                Effect::Outage { blackhole } | Effect::Crash { blackhole, .. } => {
                    hit = Some(if blackhole {
                        Intercept::Swallow
                    } else {
                        refused
                    })
                }
                Effect::Errors {
                    rate,
                    error,
                    retry_after,
                    latency,
                } => {
                    let u = unit(&mut self.faults.rngs[i as usize]);
                    if u < rate * f.intensity(now) {
                        hit = Some(Intercept::Answer {
                            outcome: error,
                            after: latency,
                            retry_after,
                            by_service: true,
                        });
                    }
                }
                Effect::Latency(_)
                | Effect::Stall
                | Effect::Capacity(_)
                | Effect::Overload { .. }
                | Effect::Branch { .. } => {}
            }
            if hit.is_some() {
                break;
            }
        }
        match hit {
            None => false,
            Some(Intercept::Swallow) => {
                // Never answered: the caller's timeout (or deadline) ends the attempt.
                let acc = self.jobs.get(jr).expect("intercepted job").metric_slot as usize;
                self.rec.services[acc].unanswered += 1;
                self.free_job(jr);
                true
            }
            Some(Intercept::Answer {
                outcome,
                after,
                retry_after,
                by_service,
            }) => {
                let job = self.jobs.get_mut(jr).expect("arriving job");
                job.state = crate::engine::kernel::state::JobState::Replying;
                job.outcome = outcome;
                job.retry_after = retry_after.unwrap_or(NO_RETRY_AFTER);
                if by_service && self.refusal_costs(service) {
                    self.owe_refusal(jr, service, instance as usize, after);
                    return true;
                }
                match after {
                    0 => self.send_reply(jr),
                    d => self.event_queue.push(now + d, Event::Answer(jr)),
                }
                true
            }
        }
    }

    /// A drawn work time, slowed by the latency faults active on this instance and by the cold
    /// start of an instance back from a crash.
    #[inline(always)]
    pub(in crate::engine) fn slowed_work(
        &mut self,
        service: usize,
        instance: u32,
        operation: u16,
        work: u64,
    ) -> u64 {
        if !self.faults.slows_work[service] {
            return work;
        }
        self.slowed_work_by_faults(service, instance, operation, work)
    }

    #[inline(never)]
    fn slowed_work_by_faults(
        &mut self,
        service: usize,
        instance: u32,
        operation: u16,
        work: u64,
    ) -> u64 {
        let now = self.now;
        let mut work = work;
        for &i in &self.faults.by_service[service] {
            let f = &self.model.faults[i as usize];
            if !f.hits_service(service, instance) || (f.operation != 0 && f.operation != operation)
            {
                continue;
            }
            match &f.effect {
                Effect::Latency(s) if f.active(now) => {
                    work = s.apply(work, f.intensity(now), &mut self.faults.rngs[i as usize]);
                }
                Effect::Crash {
                    cold_start,
                    cold_factor,
                    ..
                } if now >= f.end && now - f.end < *cold_start => {
                    work = scale_ns(work, *cold_factor);
                }
                _ => {}
            }
        }
        if let Some(factor) = self.cold_factor(service, instance) {
            work = scale_ns(work, factor);
        }
        work
    }

    /// A drawn network delay on an edge, slowed by the latency faults active on it.
    #[inline]
    pub(in crate::engine) fn slowed_network(&mut self, edge: usize, delay: u64) -> u64 {
        if self.faults.by_edge[edge].is_empty() {
            return delay;
        }
        let now = self.now;
        let mut delay = delay;
        for &i in &self.faults.by_edge[edge] {
            let f = &self.model.faults[i as usize];
            if let Effect::Latency(s) = &f.effect
                && f.active(now)
            {
                delay = s.apply(delay, f.intensity(now), &mut self.faults.rngs[i as usize]);
            }
        }
        delay
    }

    /// Whether an instance may start work now, with `busy` workers taken: a stall holds it,
    /// and a capacity cut lowers its number of workers.
    #[inline(always)]
    pub(in crate::engine) fn may_start(&self, service: usize, instance: u32, busy: u32) -> bool {
        let workers = self.model.services[service].workers;
        if self.faults.holds[service].is_empty() {
            return busy < workers;
        }
        self.may_start_held(service, instance, busy, workers)
    }

    #[cold]
    fn may_start_held(&self, service: usize, instance: u32, busy: u32, workers: u32) -> bool {
        let now = self.now;
        let mut left = workers;
        for &i in &self.faults.holds[service] {
            let f = &self.model.faults[i as usize];
            if !f.active(now) || !f.hits_service(service, instance) {
                continue;
            }
            match &f.effect {
                Effect::Stall => return false,
                Effect::Capacity(cut) => {
                    left = left.min(cut.workers_left(workers, f.intensity(now)));
                }
                _ => {}
            }
        }
        busy < left
    }
}
