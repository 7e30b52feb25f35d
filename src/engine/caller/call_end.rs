//! How calls end: an attempt's outcome goes through the policies (one step each, in
//! `ended_attempt.rs`), the retry decides, a failed call may fall back, and a finished call
//! tells whoever waits for it. Calls whose parent was cancelled are dropped without an outcome.

use super::ended_attempt::{EndedAttempt, release_permit};
use super::policy_state::Bulkheads;
use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::event_queue::EventQueue;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::*;
use crate::metrics::pool_series::PoolSeries;
use crate::metrics::recorder::Recorder;
use crate::model::{Outcome, Wraps};
use cascade_policy::Nanos;
use cascade_policy::breaker::Transition;
use cascade_policy::path::{CallEnd, RetryVerdict};

impl Simulation {
    /// An attempt ended with `outcome` (a reply, or its timer). Policies learn of it, then the
    /// retry loop decides whether the call tries again.
    #[inline(always)]
    pub(in crate::engine) fn finish_attempt(
        &mut self,
        cr: Ref,
        outcome: Outcome,
        retry_after: Option<u64>,
    ) {
        // A call path without policy state has nothing to tell and nothing to retry with.
        if self.calls.get(cr).expect("attempt of a live call").path == NO_PATH {
            self.finish_call(cr, outcome);
        } else {
            self.finish_attempt_in_policies(cr, outcome, retry_after);
        }
    }

    /// The policy path of `finish_attempt`: the bulkhead permit goes back, the path's policies
    /// learn of the attempt and the retry decides (`PathPolicies::attempt_ended`), and what
    /// changed is counted on the edge. Out of line as a whole; the steps inline into it.
    #[inline(never)]
    fn finish_attempt_in_policies(&mut self, cr: Ref, outcome: Outcome, retry_after: Option<u64>) {
        let now = self.now;
        let call = self.calls.get_mut(cr).expect("attempt of a live call");
        let spec = spec_of(&self.specs, call.spec);
        let path = call.path;
        let permit_back = permit_back_at_caller(&mut self.pool_holds, spec, cr, call, false);
        let mut ended = EndedAttempt::take(call, now, spec.policy.breaker_wraps(Wraps::Attempt));
        ended.holds_permit &= permit_back;
        // A permit around the whole call outlives the attempt.
        call.holds_permit = call.call_permit;
        let (edge, retry) = (spec.edge, spec.policy.retry());
        // A success is never retried (no policy's `on` holds an answer): no input to build.
        let retry = (retry.filter(|_| !outcome.is_success()))
            .map(|r| (r, ended.retry_input(spec, outcome, retry_after, now)));
        let state = &mut self.policies[path as usize];
        release_permit(
            state.bulkhead,
            &mut self.bulkheads,
            &mut self.rec.pools,
            &mut self.event_queue,
            now,
            &ended,
        );
        let learned = state.attempt_ended(ended.policies_learn(now, outcome), retry);
        let counted_by_budget = state.budget.is_some();
        if self.trace.is_some() {
            self.trace_attempt_end(cr, ended.attempt, outcome);
            self.trace_learned(cr, path, &learned);
        }
        let rec = &mut self.rec;
        if learned.limit_moved != 0 {
            rec.limits[edge].add(now, learned.limit_moved, &mut rec.edges[edge].limit_area);
        }
        book_breaker(rec, edge, now, learned.breaker);
        match learned.retry {
            RetryVerdict::After(wait) => {
                self.back_off(cr, ended.attempt, wait.0, counted_by_budget);
            }
            RetryVerdict::BudgetExhausted => {
                rec.edges[edge].budget_exhausted += 1;
                self.finish_call(cr, outcome);
            }
            RetryVerdict::GiveUp => self.finish_call(cr, outcome),
        }
    }

    /// The call waits `wait` before its next attempt; its budget, if it has one, counts the
    /// retry as active until that attempt ends.
    #[inline(always)]
    fn back_off(&mut self, cr: Ref, attempt: u32, wait: u64, counted_by_budget: bool) {
        let call = self.calls.get_mut(cr).expect("live");
        call.phase = CallPhase::Backoff;
        call.last_delay = wait;
        call.retry_active = counted_by_budget;
        self.event_queue
            .push(self.now + wait, Event::Resume { call: cr, attempt });
    }

    /// The call is over unless its policy falls back on this failure.
    #[inline(always)]
    pub(in crate::engine) fn finish_call(&mut self, cr: Ref, outcome: Outcome) {
        let call = self.calls.get(cr).expect("finishing a live call");
        let spec = spec_of(&self.specs, call.spec);
        let falls_back = spec
            .policy
            .fallback()
            .is_some_and(|f| f.answers(outcome, call.fallback_from.is_some()));
        if falls_back {
            self.fall_back(cr, outcome);
        } else {
            self.complete_call(cr, outcome);
        }
    }

    /// The call failed with a kind its fallback answers. The one rule for both kinds of
    /// fallback: it answers whenever its answer reaches the caller before the caller's own
    /// deadline C, not the call's D = C − reserve. The reserve is the caller's time, and a
    /// call that ended at D has spent only its own (resilience4j's and Polly's fallbacks answer
    /// when their timeout fires). Out of line: only calls that fall back come here.
    #[inline(never)]
    fn fall_back(&mut self, cr: Ref, outcome: Outcome) {
        if self.trace.is_some() {
            self.trace_fell_back(cr, outcome);
        }
        let now = self.now;
        let caller_deadline = self.caller_deadline(cr);
        let call = self.calls.get_mut(cr).expect("finishing a live call");
        let spec = spec_of(&self.specs, call.spec);
        let latency = spec.policy.fallback().map_or(0, |f| f.latency().0);
        if call.call_permit {
            // The fallback stands outside the bulkhead (§1): a permit around the call goes
            // back before it runs.
            let back = permit_back_at_caller(&mut self.pool_holds, spec, cr, call, true);
            if back && let Some(b) = self.policies[call.path as usize].bulkhead {
                hand_back_permit(
                    &mut self.bulkheads,
                    &mut self.rec.pools,
                    b,
                    &mut self.event_queue,
                    now,
                );
            }
            (call.holds_permit, call.call_permit) = (false, false);
        }
        call.fallback_from = Some(outcome);
        call.phase = CallPhase::Fallback;
        self.rec.edges[spec.edge].fallbacks += 1;
        match spec.fallback {
            Some(f) => {
                // A call of its own, with C as its caller's deadline (its own reserve applies).
                let spec = SpecId::of(&self.model.fallbacks[f]);
                let child = self.start_call(Parent::Fallback(cr), spec, caller_deadline);
                if let Some(call) = self.calls.get_mut(cr) {
                    call.fallback_call = Some(child);
                }
            }
            None => {
                // The canned answer comes after its latency, unless C comes first; `resume`
                // then ends the call degraded, or deadline_exceeded at C. Never before now: a
                // call that failed past its caller's deadline ends at once.
                let attempt = call.attempt;
                call.deadline = caller_deadline;
                let at = now.saturating_add(latency).min(caller_deadline).max(now);
                self.event_queue
                    .push(at, Event::Resume { call: cr, attempt });
            }
        }
    }

    /// The deadline of whoever waits for the call (C): the client's request deadline, the
    /// deadline the parent job's request carries, or the original call's D for a fallback call.
    /// None for a call that does not take its caller's deadline (`propagate_deadline = false`).
    fn caller_deadline(&self, cr: Ref) -> u64 {
        let call = self.calls.get(cr).expect("a live call");
        if !spec_of(&self.specs, call.spec).policy.propagate_deadline() {
            return NO_DEADLINE;
        }
        match call.parent {
            Parent::Client { client, .. } => self.model.clients[client as usize]
                .deadline
                .map_or(NO_DEADLINE, |d| call.started.saturating_add(d)),
            Parent::Job(jr) => self.jobs.get(jr).map_or(call.deadline, |j| j.deadline),
            Parent::Fallback(original) => self
                .calls
                .get(original)
                .map_or(call.deadline, |c| c.deadline),
            // Never reached: a fire-and-forget call cannot fall back (refused when compiled).
            Parent::Detached(_) => NO_DEADLINE,
        }
    }

    /// The fallback call of `cr` ended: its success is a degraded answer, its failure leaves the
    /// original one.
    pub(in crate::engine) fn fallback_done(&mut self, cr: Ref, outcome: Outcome) {
        // The original call may have been cancelled meanwhile, with the job waiting for it.
        let Some(original) = self.calls.get(cr).and_then(|c| c.fallback_from) else {
            return;
        };
        self.complete_call(
            cr,
            if outcome.is_success() {
                Outcome::Degraded
            } else {
                original
            },
        );
    }

    pub(in crate::engine) fn complete_call(&mut self, cr: Ref, outcome: Outcome) {
        let now = self.now;
        // Read in place and freed after: a call is too large to move out cheaply.
        let call = self.calls.get(cr).expect("finishing a live call");
        let (op, parent, started, path, sibling) =
            (call.op, call.parent, call.started, call.path, call.sibling);
        let spec = spec_of(&self.specs, call.spec);
        let (edge, optional, fail_as) = (spec.edge, spec.optional, spec.fail_as);
        if path != NO_PATH {
            self.settle_policies_at_call_end(cr, outcome);
        }
        // After the policies settle (a breaker's change at the call's end comes first).
        if self.trace.is_some() {
            self.trace_call(cr, "call_end", outcome.name(), "");
        }
        self.calls.free(cr);
        if let Some(op) = op {
            self.release_op(op, true);
        }
        // Recorded in each arm, so a fallback's end goes its own way at no cost to the others.
        let took = now - started;
        match parent {
            Parent::Client { client, user } => {
                self.rec.record_call_end(edge, outcome, took);
                self.client_done(client, user, started)
            }
            Parent::Job(jr) => {
                self.rec.record_call_end(edge, outcome, took);
                self.unlink_child(jr, cr, sibling);
                self.child_done(jr, optional, fail_as, outcome);
            }
            Parent::Fallback(original) => {
                self.rec.record_fallback_end(edge, outcome, took);
                self.fallback_done(original, outcome)
            }
            Parent::Detached(_) => self.rec.record_call_end(edge, outcome, took),
        }
    }

    /// A call with policy state ended with `outcome`: its bulkhead permit goes back, and the
    /// path's policies learn of its end (`PathPolicies::call_ended`: the limit, the budgets,
    /// the breaker it still holds).
    #[inline(never)]
    fn settle_policies_at_call_end(&mut self, cr: Ref, outcome: Outcome) {
        self.end_call_in_policies(cr, Some(outcome));
    }

    /// The call is over for its policies, with `outcome` (none: dropped). Its bulkhead
    /// permit, or place in line, goes back unless a job it sent still holds the permit
    /// (`permit_back_at_caller`); then the path's policies learn of the end, and a breaker's
    /// change of state is counted on the edge.
    fn end_call_in_policies(&mut self, cr: Ref, outcome: Option<Outcome>) {
        let now = self.now;
        let call = self.calls.get_mut(cr).expect("live");
        let spec = spec_of(&self.specs, call.spec);
        let permit_back = permit_back_at_caller(&mut self.pool_holds, spec, cr, call, true);
        let Some(state) = self.policies.get_mut(call.path as usize) else {
            return;
        };
        if let Some(b) = state.bulkhead {
            if call.phase == CallPhase::WaitingPermit {
                self.bulkheads[b as usize].abandon(Nanos(now), &(cr, call.attempt));
                (self.rec.pools).moved(b, now, &self.bulkheads[b as usize]);
            } else if call.holds_permit && permit_back {
                hand_back_permit(
                    &mut self.bulkheads,
                    &mut self.rec.pools,
                    b,
                    &mut self.event_queue,
                    now,
                );
            }
        }
        let transition = state.call_ended(CallEnd {
            now: Nanos(now),
            outcome,
            fell_back_from: call.fallback_from,
            took: Nanos(now - call.started),
            breaker: call.breaker.take(),
            breaker_wraps_call: spec.policy.breaker_wraps(Wraps::Call),
            limit: call.limit.take(),
            retry_active: call.retry_active,
        });
        book_breaker(&mut self.rec, spec.edge, now, transition);
        if self.trace.is_some() {
            self.trace_breaker(cr, transition);
        }
    }

    /// Ends a call whose parent job was cancelled: no outcome, no parent to tell. Its attempt
    /// in flight is cancelled too: cancellation propagates down the whole tree.
    pub(in crate::engine) fn drop_call(&mut self, cr: Ref) {
        let Some(call) = self.calls.get_mut(cr) else {
            return;
        };
        self.rec.edges[spec_of(&self.specs, call.spec).edge].abandoned += 1;
        for j in call.take_attempt_jobs() {
            self.abandon_job(j);
            self.cancel_job(j);
        }
        if let Some(fallback) = self.calls.get_mut(cr).and_then(|c| c.fallback_call.take()) {
            self.drop_call(fallback);
        }
        let op = self.calls.get(cr).expect("live").op;
        self.end_call_in_policies(cr, None);
        self.calls.free(cr);
        if let Some(op) = op {
            self.release_op(op, true);
        }
    }

    pub(in crate::engine) fn policy_mut(&mut self, path: u32) -> Option<&mut PolicyState> {
        self.policies.get_mut(path as usize)
    }

    /// A breaker let the attempt through but it was never sent: give back a half-open probe.
    pub(in crate::engine) fn release_unused_breaker(&mut self, cr: Ref) {
        let call = self.calls.get_mut(cr).expect("live");
        let per_attempt = spec_of(&self.specs, call.spec)
            .policy
            .breaker_wraps(Wraps::Attempt);
        // A breaker around the whole call keeps its admission: it judges the call's end.
        if !per_attempt {
            return;
        }
        let pass = call.breaker.take();
        self.policies[call.path as usize].release_unused(pass);
    }
}

/// Counts a breaker's change of state and moves the edge's open and half-open levels.
pub(in crate::engine) fn book_breaker(rec: &mut Recorder, edge: usize, now: u64, t: Transition) {
    let acc = &mut rec.edges[edge];
    let open = &mut rec.breakers_open[edge];
    let half = &mut rec.breakers_half_open[edge];
    match t {
        Transition::Opened => {
            acc.breaker_opens += 1;
            open.add(now, 1, &mut acc.breaker_open_area);
        }
        Transition::Reopened => {
            acc.breaker_opens += 1;
            half.add(now, -1, &mut acc.breaker_half_open_area);
            open.add(now, 1, &mut acc.breaker_open_area);
        }
        Transition::HalfOpened => {
            open.add(now, -1, &mut acc.breaker_open_area);
            half.add(now, 1, &mut acc.breaker_half_open_area);
        }
        Transition::Closed => half.add(now, -1, &mut acc.breaker_half_open_area),
        Transition::None => {}
    }
}

/// A permit of bulkhead `b` comes back: handed to the first waiter (of whichever path shares
/// the pool), who resumes now, or freed.
pub(in crate::engine) fn hand_back_permit(
    bulkheads: &mut Bulkheads,
    pools: &mut PoolSeries,
    b: u32,
    event_queue: &mut EventQueue<Event>,
    now: u64,
) {
    let back = bulkheads[b as usize].release(Nanos(now));
    pools.moved(b, now, &bulkheads[b as usize]);
    if let Some((next, next_attempt)) = back {
        event_queue.push(
            now,
            Event::Resume {
                call: next,
                attempt: next_attempt,
            },
        );
    }
}

/// The caller stops waiting for `call`'s current attempt, or (`call_ends`) for the whole call;
/// either may hold a permit: true if the permit comes back now. A permit around the whole call
/// (`wraps = "call"`) outlives its attempts and comes back only when the call ends. With
/// `release = "answer"` it stays out while a job it covers is (`pool_holds.rs`).
pub(in crate::engine) fn permit_back_at_caller(
    holds: &mut super::pool_holds::PoolHolds,
    spec: &crate::model::CallSpec,
    cr: Ref,
    call: &Call,
    call_ends: bool,
) -> bool {
    if call.call_permit && !call_ends {
        return false;
    }
    !call.holds_permit
        || !spec.policy.bulkhead_releases_on_answer()
        || holds.caller_done(cr, permit_holder(call))
}

/// Which of the call's holds its jobs' permit is recorded under (`pool_holds.rs`): the current
/// attempt, or 0 for a permit around the whole call.
pub(in crate::engine) fn permit_holder(call: &Call) -> u32 {
    if call.call_permit { 0 } else { call.attempt }
}
