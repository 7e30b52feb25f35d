//! Lays out the policy state of a model: every call path whose policy keeps state (a breaker, a
//! budget, a bulkhead, or jitter to draw) gets one state per instance of its caller — each
//! caller process runs its own copy of the policy, as a client library would. A bulkhead is
//! kept apart, in `Layout::bulkheads`: each path's own, or one per caller instance for all of
//! that caller's paths naming the same `pool`.

use crate::engine::kernel::rng::stream;
use crate::engine::kernel::state::{NO_PATH, PolicyState};
use crate::model::{CallSpec, Model};
use cascade_policy::Nanos;
use cascade_policy::bulkhead::Bulkhead;
use cascade_policy::path::{PathPolicies, PathStreams};
use std::collections::BTreeMap;

/// The bulkhead state of a model's calls: waiters are (call, attempt) pairs, attempt 0 for a
/// call waiting for a permit around its whole retry loop.
pub type Bulkheads = Vec<Bulkhead<(crate::engine::kernel::arena::Ref, u32)>>;

/// A named pool of one caller, for its metrics: `<kind>.<name>.pool.<pool>`, and its
/// bulkhead in each caller instance.
pub struct NamedPool {
    pub prefix: String,
    pub instances: Vec<u32>,
}

/// The policy states of a model.
pub struct Layout {
    pub states: Vec<PolicyState>,
    /// For each call spec, the index of its first state (`NO_PATH` for none).
    pub base: Vec<u32>,
    /// Per edge, the sum of its adaptive limits' initial values (the `limit_mean` level).
    pub initial_limits: Vec<u64>,
    /// Every bulkhead, indexed by `PolicyState::bulkhead`.
    pub bulkheads: Bulkheads,
    /// The named pools, in caller then name order.
    pub pools: Vec<NamedPool>,
}

pub fn build(model: &Model) -> Layout {
    let mut states = Vec::new();
    let mut base = vec![NO_PATH; model.call_specs];
    let mut initial_limits = vec![0; model.edges.len()];
    // Two call paths on one edge (a service calling the same callee twice) draw apart.
    let mut seen_on_edge = vec![0u32; model.edges.len()];
    let mut pools = Pools::new(model);
    let warmup = model.warmup;
    for (spec, callers) in model.specs_with_callers() {
        if !keeps_state(spec) {
            continue;
        }
        base[spec.id] = u32::try_from(states.len()).expect("fewer than 4 billion policy states");
        let edge = &model.edges[spec.edge].name;
        let path = seen_on_edge[spec.edge];
        seen_on_edge[spec.edge] += 1;
        for caller in 0..callers {
            let mut state = new_state(model, spec, &state_name(edge, path, caller));
            state.bulkhead = pools.bulkhead_of(spec, caller, warmup);
            if let Some(l) = &state.limit {
                initial_limits[spec.edge] += u64::from(l.limit());
            }
            states.push(state);
        }
    }
    Layout {
        states,
        base,
        initial_limits,
        bulkheads: pools.bulkheads,
        pools: pools.named.into_values().collect(),
    }
}

/// Hands out bulkheads: a new one for a path of its own, the caller instance's one for a
/// named pool.
struct Pools {
    /// Per call spec, its caller's metric prefix (`client.web`, `service.api`).
    caller_of: Vec<String>,
    bulkheads: Bulkheads,
    named: BTreeMap<(String, String), NamedPool>,
}

impl Pools {
    fn new(model: &Model) -> Pools {
        let mut caller_of = vec![String::new(); model.call_specs];
        for caller in model.callers() {
            for spec in caller.calls {
                caller_of[spec.id] = crate::metrics::names::caller(caller.kind, caller.name);
            }
        }
        Pools {
            caller_of,
            bulkheads: Vec::new(),
            named: BTreeMap::new(),
        }
    }

    fn bulkhead_of(&mut self, spec: &CallSpec, caller: u32, warmup: u64) -> Option<u32> {
        let cfg = spec.policy.bulkhead()?;
        let next = u32::try_from(self.bulkheads.len()).expect("fewer than 4 billion bulkheads");
        let Some(name) = cfg.pool() else {
            self.bulkheads.push(Bulkhead::new(cfg.clone()));
            return Some(next);
        };
        let who = &self.caller_of[spec.id];
        let pool = self
            .named
            .entry((who.clone(), name.to_string()))
            .or_insert_with(|| NamedPool {
                prefix: crate::metrics::names::pool(who, name),
                instances: Vec::new(),
            });
        // The pool's settings agree on every path (checked when compiled): the first made
        // serves them all.
        match pool.instances.get(caller as usize) {
            Some(&shared) => Some(shared),
            None => {
                pool.instances.push(next);
                self.bulkheads
                    .push(Bulkhead::measured_from(cfg.clone(), Nanos(warmup)));
                Some(next)
            }
        }
    }
}

/// The name of a path's state in one caller instance, which seeds its random streams
/// (`new_state`): `edge.<edge>/<n>#<caller>`, `n` counting the edge's paths that keep state.
pub(in crate::engine) fn state_name(edge: &str, path: u32, caller: u32) -> String {
    format!("edge.{edge}/{path}#{caller}")
}

/// The `n` of `spec` in `state_name`, as `build` counts it; `None` for a path without state.
/// For the trace only: it walks the model.
pub(in crate::engine) fn path_number(model: &Model, spec: &CallSpec) -> Option<u32> {
    let stateful = (model.specs_with_callers().into_iter())
        .filter(|(s, _)| s.edge == spec.edge && keeps_state(s));
    let n = stateful.map(|(s, _)| s.id).position(|id| id == spec.id)?;
    u32::try_from(n).ok()
}

fn keeps_state(spec: &CallSpec) -> bool {
    let p = &spec.policy;
    p.retry().is_some()
        || p.breaker().is_some()
        || p.bulkhead().is_some()
        || p.throttle().is_some()
        || p.limit().is_some()
        || p.rate_limit().is_some()
        || p.hedge().is_some()
        || p.failure_accrual().is_some()
}

pub(in crate::engine) fn new_state(model: &Model, spec: &CallSpec, name: &str) -> PolicyState {
    // One breaker and one accrual record per callee instance slot, where the policy keeps
    // them per host; the policy crate lays the state out (`PathPolicies::new`).
    let instances = model.services[spec.to].instance_slots();
    let streams = PathStreams {
        throttle: stream(model.seed, name, "throttle"),
        limit: stream(model.seed, name, "limit"),
        jitter: stream(model.seed, name, "jitter"),
        accrual: stream(model.seed, name, "accrual"),
    };
    PathPolicies::new(&spec.policy, instances, streams)
}
