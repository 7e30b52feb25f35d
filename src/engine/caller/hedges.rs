//! Hedged copies of an attempt: the first planned when the attempt is sent, each sent if
//! the attempt is still unanswered and its budget allows one (docs/policies.md §9).

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::*;
use cascade_policy::Nanos;
use cascade_policy::path::HedgeVerdict;

impl Simulation {
    /// Schedules the first hedged copy of an attempt, if its policy and tracker allow one
    /// before the attempt expires.
    #[inline(never)]
    pub(in crate::engine) fn plan_first_hedge(
        &mut self,
        cr: Ref,
        attempt: u32,
        path: u32,
        expiry: u64,
    ) {
        let now = self.now;
        let spec = spec_of(&self.specs, self.calls.get(cr).expect("live").spec);
        let (Some(cfg), Some(state)) = (&spec.policy.hedge(), self.policies.get_mut(path as usize))
        else {
            return;
        };
        if let Some(at) = state.first_hedge(Nanos(now), cfg, spec.retry_allowed(), Nanos(expiry)) {
            self.event_queue
                .push(at.0, Event::Hedge { call: cr, attempt });
        }
    }

    /// Sends a hedged copy of attempt `attempt`, if it is still unanswered and allowed.
    /// Whether a hedge timer for `attempt` of call `cr` may send a copy: the call still waits
    /// for that attempt. (Timers are cancelled lazily; the trace writes no row for one that
    /// cannot act.)
    pub(in crate::engine) fn hedge_may_act(&self, cr: Ref, attempt: u32) -> bool {
        self.calls.get(cr).is_some_and(|call| {
            let waiting = call.current.is_some() || call.hedges.iter().any(Option::is_some);
            call.attempt == attempt && call.phase == CallPhase::Attempting && waiting
        })
    }

    pub(in crate::engine) fn send_hedge(&mut self, cr: Ref, attempt: u32) {
        let now = self.now;
        if !self.hedge_may_act(cr, attempt) {
            return;
        }
        let call = self.calls.get_mut(cr).expect("live");
        let spec = spec_of(&self.specs, call.spec);
        let Some(cfg) = spec.policy.hedge() else {
            return;
        };
        // The copy's place among the attempt's jobs awaited (one for each copy allowed).
        let Some(free) = call.hedges.iter().position(Option::is_none) else {
            return;
        };
        let (path, edge, expiry) = (call.path, spec.edge, call.attempt_expiry);
        let sent = u32::from(call.hedges_sent);
        match self.policies[path as usize].hedge_due(Nanos(now), cfg, sent, Nanos(expiry)) {
            HedgeVerdict::Enough => return,
            HedgeVerdict::BudgetExhausted => {
                self.rec.edges[edge].hedge_budget_exhausted += 1;
                if self.trace.is_some() {
                    self.trace_hedge_budget_exhausted(cr);
                }
                return;
            }
            HedgeVerdict::Send { next } => {
                if let Some(at) = next {
                    self.event_queue
                        .push(at.0, Event::Hedge { call: cr, attempt });
                }
            }
        }
        call.hedges_sent += 1;
        let edge_acc = &mut self.rec.edges[edge];
        edge_acc.attempts += 1;
        edge_acc.hedges += 1;
        let spec_id = call.spec;
        let instance = self.pick_for(spec_id, path);
        self.hedge_host_tried(cr, spec_id, instance);
        self.accrual_sent(spec_id, path, instance);
        self.send_job(cr, instance, Some(free));
    }
}
