//! What each policy learns when an attempt ends: one step per policy, in the order
//! `finish_attempt_in_policies` (`endings.rs`) takes them. Bulkhead permit back, adaptive limit
//! sample, throttle accept, budget count, per-attempt breaker verdict, then the retry's wait and
//! the budget's grant for it. Which outcomes count is each policy's own rule (`policy/`); the
//! steps only apply it.
//!
//! The steps take what the caller already borrowed (the slot's `PolicyState`, the queue, the
//! recorder) and are `#[inline(always)]`: the policy path stays one out-of-line function with
//! the code it had when it was written in one piece, and no step looks a call or a slot up
//! again.

use super::endings::book_breaker;
use super::queue::EventQueue;
use super::state::{BreakerPass, Call, Event, PolicyState};
use crate::metrics::recorder::Recorder;
use crate::model::{CallSpec, Outcome};
use cascade_policy::breaker::Transition;
use cascade_policy::limit::{LimitPermit, sample_of};
use cascade_policy::retry::{RetryInput, RetryPolicy};
use cascade_policy::throttle::Throttle;

/// What an ended attempt leaves its policies, read off its call at once. The call's hold on a
/// bulkhead permit, a limit slot, a budget's retry count and a per-attempt breaker's admission
/// end with the attempt: they are taken, not copied.
pub(super) struct EndedAttempt {
    /// Which attempt of the call it was (1-based).
    pub attempt: u32,
    /// Its time from send to end (ns).
    pub took: u64,
    /// The call's deadline and last backoff, which the retry decides from.
    pub deadline: u64,
    pub last_delay: u64,
    pub holds_permit: bool,
    /// The adaptive limit's permit, if the attempt took one.
    pub limit: Option<LimitPermit>,
    /// The attempt was a retry that a concurrency budget counted.
    pub was_retry: bool,
    /// The per-attempt breaker that admitted it, with its permit.
    pub breaker: Option<BreakerPass>,
}

impl EndedAttempt {
    /// Takes the attempt's holds off `call` at `now`. A breaker around the whole call keeps
    /// its admission (`per_attempt_breaker` false): it judges the call's end instead.
    #[inline(always)]
    pub(super) fn take(call: &mut Call, now: u64, per_attempt_breaker: bool) -> EndedAttempt {
        EndedAttempt {
            attempt: call.attempt,
            took: now - call.attempt_started,
            deadline: call.deadline,
            last_delay: call.last_delay,
            holds_permit: std::mem::take(&mut call.holds_permit),
            limit: call.limit.take(),
            was_retry: std::mem::take(&mut call.retry_active),
            breaker: if per_attempt_breaker {
                call.breaker.take()
            } else {
                None
            },
        }
    }

    /// The retry decision's input for this attempt of a call following `spec`.
    #[inline(always)]
    pub(super) fn retry_input(
        &self,
        spec: &CallSpec,
        outcome: Outcome,
        retry_after: Option<u64>,
        now: u64,
    ) -> RetryInput {
        RetryInput {
            outcome,
            attempt: self.attempt,
            retry_allowed: spec.retry_allowed(),
            retry_after,
            now,
            deadline: self.deadline,
            min_attempt: spec.policy.min_attempt,
            last_delay: self.last_delay,
        }
    }
}

impl PolicyState {
    /// Bulkhead: the attempt's permit goes back; the attempt first in line for one, if any,
    /// resumes now.
    #[inline(always)]
    pub(super) fn release_permit(
        &mut self,
        bulkheads: &mut super::policy_state::Bulkheads,
        queue: &mut EventQueue<Event>,
        now: u64,
        ended: &EndedAttempt,
    ) {
        if ended.holds_permit
            && let Some(b) = self.bulkhead
        {
            super::endings::hand_back_permit(bulkheads, b, queue, now);
        }
    }

    /// Adaptive limit: the attempt's slot goes back, with a sample if its outcome is one
    /// (`limit::sample_of`); a change of limit moves the edge's limit level.
    #[inline(always)]
    pub(super) fn sample_limit(
        &mut self,
        rec: &mut Recorder,
        edge: usize,
        now: u64,
        outcome: Outcome,
        ended: &mut EndedAttempt,
    ) {
        if let Some(permit) = ended.limit.take()
            && let Some(limiter) = self.limit.as_mut()
        {
            let before = limiter.limit();
            match sample_of(outcome) {
                Some(dropped) => {
                    let u = cascade_policy::random::unit(&mut self.limit_rng);
                    limiter.release(now, ended.took, permit, dropped, u);
                }
                None => limiter.ignore(permit),
            }
            let delta = i64::from(limiter.limit()) - i64::from(before);
            if delta != 0 {
                rec.limits[edge].add(now, delta, &mut rec.edges[edge].limit_area);
            }
        }
    }

    /// Throttle: an attempt the backend accepted (`Throttle::counts_as_accepted`) counts as an
    /// accept.
    #[inline(always)]
    pub(super) fn tell_throttle(&mut self, now: u64, outcome: Outcome) {
        if let Some(t) = self
            .throttle
            .as_mut()
            .filter(|_| Throttle::counts_as_accepted(outcome))
        {
            t.accepted(now);
        }
    }

    /// Retry budget: the attempt counts as a success, a failure the retry policy would retry,
    /// or neither; a retry that a concurrency budget counted is over.
    #[inline(always)]
    pub(super) fn tell_budget(
        &mut self,
        retry: Option<&RetryPolicy>,
        outcome: Outcome,
        ended: &EndedAttempt,
    ) {
        if let Some(b) = self.budget.as_mut() {
            let retryable = retry.is_some_and(|r| r.retries(outcome));
            b.on_attempt(outcome.is_success(), retryable);
            if ended.was_retry {
                b.on_retry_end();
            }
        }
    }

    /// Per-attempt breaker: the breaker that admitted the attempt judges it; its change of
    /// state is booked on the edge.
    #[inline(always)]
    pub(super) fn tell_breaker(
        &mut self,
        rec: &mut Recorder,
        edge: usize,
        now: u64,
        outcome: Outcome,
        ended: &mut EndedAttempt,
    ) {
        let transition = ended.breaker.take().map_or(Transition::None, |pass| {
            self.breakers[pass.index as usize].record(now, outcome, ended.took, pass.permit)
        });
        book_breaker(rec, edge, now, transition);
    }

    /// Retry: the wait before the next attempt, if the policy retries this failure (backoff
    /// jitter from this slot's own stream).
    #[inline(always)]
    pub(super) fn retry_wait(&mut self, retry: &RetryPolicy, input: &RetryInput) -> Option<u64> {
        retry.decide(input, &mut self.jitter_rng).ok()
    }

    /// Retry budget: whether it pays for the retry the policy wants; one it refuses is counted
    /// on the edge as `budget_exhausted`.
    #[inline(always)]
    pub(super) fn budget_grants_retry(
        &mut self,
        rec: &mut Recorder,
        edge: usize,
        now: u64,
    ) -> bool {
        let granted = self.budget.as_mut().is_none_or(|b| b.try_retry(now));
        if !granted {
            rec.edges[edge].budget_exhausted += 1;
        }
        granted
    }
}
