//! Failure accrual on the engine's side (`cascade-policy/src/accrual.rs`): what a caller's per-host
//! state learns when a job is sent to a host and when the host answers or the caller gives up
//! on it. The balancer's side is `balance.rs` (`pick_past_accrual`).

use super::ejection::host_failed;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::SpecId;
use crate::model::Outcome;
use cascade_policy::Nanos;
use cascade_policy::accrual::Change;
use cascade_policy::random::unit;

impl Simulation {
    /// The instance a call path's attempt or hedge goes to: past its caller's failure accrual
    /// when it has one, else the balancer's plain pick.
    pub(in crate::engine) fn pick_for(&mut self, spec: SpecId, path: u32) -> u32 {
        let spec = spec_of(&self.specs, spec);
        let (to, edge) = (spec.to, spec.edge);
        if spec.policy.failure_accrual().is_some() {
            self.pick_past_accrual(to, path, edge)
        } else {
            self.pick_instance(to)
        }
    }

    /// A job of a call path is sent to `instance`: with failure accrual, a host whose mark is
    /// over takes it as its one probe.
    pub(in crate::engine) fn accrual_sent(&mut self, spec: SpecId, path: u32, instance: u32) {
        let edge = spec_of(&self.specs, spec).edge;
        let now = self.now;
        let Some(host) = self
            .policy_mut(path)
            .and_then(|p| p.accrual.get_mut(instance as usize))
        else {
            return;
        };
        if host.on_send(Nanos(now)) {
            self.rec.edges[edge].accrual_probes += 1;
        }
    }

    /// The caller heard `outcome` from `instance` (or gave up on it: a timeout): its failure
    /// accrual for that host counts it, with the failures outlier ejection counts.
    pub(in crate::engine) fn accrual_record(
        &mut self,
        spec: SpecId,
        path: u32,
        instance: u32,
        outcome: Outcome,
    ) {
        let spec = spec_of(&self.specs, spec);
        let (Some(cfg), edge) = (spec.policy.failure_accrual(), spec.edge) else {
            return;
        };
        let now = self.now;
        let Some(state) = self.policies.get_mut(path as usize) else {
            return;
        };
        let rng = &mut state.accrual_rng;
        let Some(host) = state.accrual.get_mut(instance as usize) else {
            return;
        };
        let change = host.record(cfg, Nanos(now), host_failed(outcome), || unit(rng));
        let acc = &mut self.rec.edges[edge];
        match change {
            Change::MarkedDead { removal: true, .. } => acc.accrual_removals += 1,
            Change::MarkedDead { removal: false, .. } | Change::None => {}
            Change::Revived => acc.accrual_revivals += 1,
        }
    }
}
