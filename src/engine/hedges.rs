//! Hedged copies of an attempt: the first planned when the attempt is sent, each sent if
//! the attempt is still unanswered and its budget allows one (docs/policies.md §9).

use super::arena::Ref;
use super::sim::{Simulation, spec_of};
use super::state::*;

impl Simulation {
    /// Schedules the first hedged copy of an attempt, if its policy and tracker allow one
    /// before the attempt expires.
    #[inline(never)]
    pub(super) fn plan_first_hedge(&mut self, cr: Ref, attempt: u32, slot: u32, expiry: u64) {
        let now = self.now;
        let spec = spec_of(&self.specs, self.calls.get(cr).expect("live").spec);
        let hedging = spec.policy.hedge.as_ref().filter(|_| spec.retry_allowed());
        let hedge_delay = hedging.and_then(|cfg| {
            let tracker = self.policies.get_mut(slot as usize)?.hedge.as_mut()?;
            tracker.delay(now, cfg)
        });
        if let Some(d) = hedge_delay.filter(|d| now.saturating_add(*d) < expiry) {
            self.queue.push(now + d, Event::Hedge { call: cr, attempt });
        }
    }

    /// Sends a hedged copy of attempt `attempt`, if it is still unanswered and allowed.
    /// Whether a hedge timer for `attempt` of call `cr` may send a copy: the call still waits
    /// for that attempt. (Timers are cancelled lazily; the trace writes no row for one that
    /// cannot act.)
    pub(super) fn hedge_may_act(&self, cr: Ref, attempt: u32) -> bool {
        self.calls.get(cr).is_some_and(|call| {
            let waiting = call.current.is_some() || call.hedges.iter().any(Option::is_some);
            call.attempt == attempt && call.phase == CallPhase::Attempting && waiting
        })
    }

    pub(super) fn send_hedge(&mut self, cr: Ref, attempt: u32) {
        let now = self.now;
        if !self.hedge_may_act(cr, attempt) {
            return;
        }
        let call = self.calls.get_mut(cr).expect("live");
        let spec = spec_of(&self.specs, call.spec);
        let Some(cfg) = spec.policy.hedge.as_ref() else {
            return;
        };
        let sent = u32::from(call.hedges_sent);
        let Some(free) = call
            .hedges
            .iter()
            .position(Option::is_none)
            .filter(|_| sent < cfg.max)
        else {
            return;
        };
        let (slot, edge, expiry) = (call.slot, spec.edge, call.attempt_expiry);
        let state = &mut self.policies[slot as usize];
        let budget = if cfg.uses_retry_budget {
            state.budget.as_mut()
        } else {
            state.hedge_budget.as_mut()
        };
        if budget.is_some_and(|b| !b.try_retry(now)) {
            self.rec.edges[edge].hedge_budget_exhausted += 1;
            return;
        }
        let next = state.hedge.as_mut().and_then(|t| t.delay(now, cfg));
        call.hedges_sent += 1;
        let edge_acc = &mut self.rec.edges[edge];
        edge_acc.attempts += 1;
        edge_acc.hedges += 1;
        if let Some(d) = next.filter(|d| sent + 1 < cfg.max && now.saturating_add(*d) < expiry) {
            self.queue.push(now + d, Event::Hedge { call: cr, attempt });
        }
        let spec_id = call.spec;
        let instance = self.pick_for(spec_id, slot);
        self.accrual_sent(spec_id, slot, instance);
        self.send_job(cr, instance, Some(free));
    }
}
