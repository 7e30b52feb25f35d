//! A new process has policy state of its own anew: at a liveness restart (the same instance,
//! so its callers' view of it carries on) and in an instance the autoscaler adds (a new host,
//! so its callers' per-host states of it, a breaker per instance and failure accrual, and its
//! service's outlier record of the slot start fresh too). Levels the old state held (open
//! breakers, a limit) are given back, so the edge's time-averages stay exact.

use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::NO_PATH;
use crate::model::BreakerScope;
use cascade_policy::breaker::{Breaker, State};

impl Simulation {
    /// Instance `i` of service `s` is a new host: fresh state of its own, in its callers and
    /// at its balancer.
    pub(in crate::engine) fn fresh_policy_state(&mut self, s: usize, i: u32) {
        self.fresh_own_state(s, i);
        self.fresh_host_state(s, i);
    }

    /// The policy state of instance `i`'s own calls, as a new process has it.
    pub(in crate::engine) fn fresh_own_state(&mut self, s: usize, i: u32) {
        let own: Vec<usize> = self.model.services[s]
            .calls()
            .flat_map(|c| {
                std::iter::once(c.id).chain(c.fallback.map(|f| self.model.fallbacks[f].id))
            })
            .collect();
        for id in own {
            let base = self.path_base[id];
            if base != NO_PATH {
                self.fresh_path(id, base + i);
            }
        }
    }

    /// What instance `i`'s callers and its balancer know of it as a host, forgotten.
    fn fresh_host_state(&mut self, s: usize, i: u32) {
        let now = self.now;
        let specs = self.model.specs_with_callers();
        let mut callee_paths = Vec::new();
        for (spec, callers) in &specs {
            let base = self.path_base[spec.id];
            if base != NO_PATH && spec.to == s {
                callee_paths.extend((0..*callers).map(|k| (spec.id, base + k)));
            }
        }
        drop(specs);
        for (id, path) in callee_paths {
            let spec = &self.specs[id];
            let (edge, per_host) = (
                spec.edge,
                spec.policy
                    .breaker()
                    .is_some_and(|b| b.scope() == BreakerScope::Instance),
            );
            let state = &mut self.policies[path as usize];
            if per_host {
                let old = std::mem::replace(
                    &mut state.breakers[i as usize],
                    Breaker::new(
                        self.specs[id]
                            .policy
                            .breaker()
                            .expect("a breaker")
                            .config()
                            .clone(),
                    ),
                );
                give_back_breaker(&mut self.rec, edge, now, &old);
            }
            if let Some(host) = state.accrual.get_mut(i as usize) {
                *host = Default::default();
            }
        }
        if let Some(detector) = self.services[s].outlier.as_mut()
            && detector.forget(i as usize)
        {
            let acc = &mut self.rec.services[s];
            self.rec.levels[s]
                .ejected
                .add(now, -1, &mut acc.ejected_area);
        }
    }

    /// Policy state `path` of call spec `id` as a new process has it: its machines anew
    /// (`policy_state::new_state`), its random streams and bulkhead kept.
    fn fresh_path(&mut self, id: usize, path: u32) {
        let now = self.now;
        let spec = &self.specs[id];
        let edge = spec.edge;
        let fresh = super::policy_state::new_state(&self.model, spec, "fresh");
        let state = &mut self.policies[path as usize];
        for old in std::mem::replace(&mut state.breakers, fresh.breakers) {
            give_back_breaker(&mut self.rec, edge, now, &old);
        }
        if let (Some(new), Some(old)) = (fresh.limit.as_ref(), state.limit.as_ref()) {
            let delta = i64::from(new.limit()) - i64::from(old.limit());
            self.rec.limits[edge].add(now, delta, &mut self.rec.edges[edge].limit_area);
        }
        state.limit = fresh.limit;
        state.budget = fresh.budget;
        state.throttle = fresh.throttle;
        state.hedge = fresh.hedge;
        state.hedge_budget = fresh.hedge_budget;
        state.accrual = fresh.accrual;
    }
}

/// A breaker replaced by a fresh one leaves the edge's open or half-open level.
fn give_back_breaker(
    rec: &mut crate::metrics::recorder::Recorder,
    edge: usize,
    now: u64,
    old: &Breaker,
) {
    let acc = &mut rec.edges[edge];
    match old.state() {
        State::Open { .. } => rec.breakers_open[edge].add(now, -1, &mut acc.breaker_open_area),
        State::HalfOpen { .. } => {
            rec.breakers_half_open[edge].add(now, -1, &mut acc.breaker_half_open_area)
        }
        State::Closed => {}
    }
}
