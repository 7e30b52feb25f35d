//! Lays out the policy state of a model: every call path whose policy keeps state (a breaker, a
//! budget, a bulkhead, or jitter to draw) gets one state per instance of its caller — each
//! caller process runs its own copy of the policy, as a client library would.

use super::rng::stream;
use super::state::{NO_SLOT, PolicyState};
use crate::model::{BreakerScope, CallSpec, Model};
use crate::policy::breaker::Breaker;
use crate::policy::budget::Budget;
use crate::policy::bulkhead::Bulkhead;
use crate::policy::limit::Limiter;

/// The policy states of a model.
pub struct Layout {
    pub states: Vec<PolicyState>,
    /// For each call spec, the index of its first state (`NO_SLOT` for none).
    pub base: Vec<u32>,
    /// Per edge, the sum of its adaptive limits' initial values (the `limit_mean` level).
    pub initial_limits: Vec<u64>,
}

pub fn build(model: &Model) -> Layout {
    let mut states = Vec::new();
    let mut base = vec![NO_SLOT; model.call_specs];
    let mut initial_limits = vec![0; model.edges.len()];
    // Two call paths on one edge (a service calling the same callee twice) draw apart.
    let mut seen_on_edge = vec![0u32; model.edges.len()];
    for (spec, callers) in model.specs_with_callers() {
        if !keeps_state(spec) {
            continue;
        }
        base[spec.id] = u32::try_from(states.len()).expect("fewer than 4 billion policy states");
        let edge = &model.edges[spec.edge].name;
        let path = seen_on_edge[spec.edge];
        seen_on_edge[spec.edge] += 1;
        for caller in 0..callers {
            let state = new_state(model, spec, &format!("edge.{edge}/{path}#{caller}"));
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
    }
}

fn keeps_state(spec: &CallSpec) -> bool {
    let p = &spec.policy;
    p.retry.is_some()
        || p.breaker.is_some()
        || p.bulkhead.is_some()
        || p.throttle.is_some()
        || p.limit.is_some()
        || p.hedge.is_some()
        || p.failure_accrual.is_some()
}

fn new_state(model: &Model, spec: &CallSpec, name: &str) -> PolicyState {
    let p = &spec.policy;
    let breakers = match &p.breaker {
        None => Vec::new(),
        Some(b) => {
            let n = if b.scope == BreakerScope::Instance {
                model.services[spec.to].instances
            } else {
                1
            };
            (0..n).map(|_| Breaker::new(b.config.clone())).collect()
        }
    };
    PolicyState {
        breakers,
        budget: p.budget.as_ref().map(Budget::new),
        bulkhead: p.bulkhead.clone().map(Bulkhead::new),
        jitter_rng: stream(model.seed, name, "jitter"),
        throttle: p
            .throttle
            .as_ref()
            .map(crate::policy::throttle::Throttle::new),
        throttle_rng: stream(model.seed, name, "throttle"),
        limit: p.limit.as_ref().map(Limiter::new),
        limit_rng: stream(model.seed, name, "limit"),
        accrual: match &p.failure_accrual {
            Some(_) => vec![Default::default(); model.services[spec.to].instances as usize],
            None => Vec::new(),
        },
        accrual_rng: stream(model.seed, name, "accrual"),
        hedge: p
            .hedge
            .as_ref()
            .map(|h| crate::policy::hedge::LatencyTracker::new(h.period)),
        hedge_budget: p.hedge.as_ref().and_then(|h| h.budget).map(|ratio| {
            Budget::new(&crate::policy::budget::BudgetConfig::Ratio {
                ratio,
                min_per_s: 0.0,
                window: 10_000_000_000,
            })
        }),
    }
}
