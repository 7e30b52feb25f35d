//! What an attempt's end hands its policies: `EndedAttempt`, its holds taken off the call at
//! once, and the one step that is the engine's own, the bulkhead permit (bulkheads may be
//! shared by paths, and a waiter resumes through the event queue). The policies learn the rest
//! in `PathPolicies::attempt_ended` (`cascade-policy/src/path.rs`), in the stack's order,
//! called from `finish_attempt_in_policies` (`call_end.rs`); it is `#[inline(always)]`, so the
//! policy path stays one out-of-line function.

use crate::engine::kernel::event_queue::EventQueue;
use crate::engine::kernel::state::{BreakerPass, Call, Event};
use crate::model::{CallSpec, Outcome};
use cascade_policy::Nanos;
use cascade_policy::limit::LimitPermit;
use cascade_policy::path::AttemptEnd;
use cascade_policy::retry::RetryInput;

/// What an ended attempt leaves its policies, read off its call at once. The call's hold on a
/// bulkhead permit, a limit slot, a budget's retry count and a per-attempt breaker's admission
/// end with the attempt: they are taken, not copied.
pub(in crate::engine) struct EndedAttempt {
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
    pub(in crate::engine) fn take(
        call: &mut Call,
        now: u64,
        per_attempt_breaker: bool,
    ) -> EndedAttempt {
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

    /// What the path's policies learn: the attempt's holds go with it.
    #[inline(always)]
    pub(in crate::engine) fn policies_learn(&mut self, now: u64, outcome: Outcome) -> AttemptEnd {
        AttemptEnd {
            now: Nanos(now),
            outcome,
            took: Nanos(self.took),
            breaker: self.breaker.take(),
            limit: self.limit.take(),
            was_retry: self.was_retry,
        }
    }

    /// The retry decision's input for this attempt of a call following `spec`.
    #[inline(always)]
    pub(in crate::engine) fn retry_input(
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
            retry_after: retry_after.map(Nanos),
            server_refuses_retry: false,
            now: Nanos(now),
            deadline: Nanos(self.deadline),
            min_attempt: spec.policy.min_attempt(),
            last_delay: Nanos(self.last_delay),
        }
    }
}

/// Bulkhead: the attempt's permit goes back to the path's bulkhead; the attempt first in line
/// for one, if any, resumes now.
#[inline(always)]
pub(in crate::engine) fn release_permit(
    bulkhead: Option<u32>,
    bulkheads: &mut super::policy_state::Bulkheads,
    pools: &mut crate::metrics::pool_series::PoolSeries,
    event_queue: &mut EventQueue<Event>,
    now: u64,
    ended: &EndedAttempt,
) {
    if ended.holds_permit
        && let Some(b) = bulkhead
    {
        super::call_end::hand_back_permit(bulkheads, pools, b, event_queue, now);
    }
}
