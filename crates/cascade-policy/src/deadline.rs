//! Deadlines and timeouts, as gRPC and Envoy define them: a call's deadline is its caller's
//! less the time the caller keeps for itself (`reserve`), unless the call does not take its
//! caller's deadline at all (gRPC without a propagated Context); an attempt starts only with
//! at least `min_attempt` left; and it is waited for until its timeout (a retry's own, if the
//! policy gives retries one) or the call's deadline, whichever comes first.

use crate::time::Nanos;

/// No deadline: an instant that never comes.
pub const NO_DEADLINE: Nanos = Nanos::MAX;

/// The deadline of a call whose caller must answer by `caller_deadline`: that less
/// `reserve`, or none when the call does not take its caller's deadline (`propagates` false).
#[inline(always)]
pub fn call_deadline(caller_deadline: Nanos, reserve: Nanos, propagates: bool) -> Nanos {
    if caller_deadline == NO_DEADLINE || !propagates {
        NO_DEADLINE
    } else {
        caller_deadline.saturating_sub(reserve)
    }
}

/// A call's deadline bounded by its own total timeout (`total_timeout`: Envoy's route timeout,
/// Polly's outer timeout, a gRPC call's deadline): the earlier of `deadline` and `started`
/// plus `total`. The call ends `deadline_exceeded` when it passes, as at its caller's.
#[inline(always)]
pub fn bounded_by_total(deadline: Nanos, started: Nanos, total: Option<Nanos>) -> Nanos {
    match total {
        Some(t) => deadline.min(started.saturating_add(t)),
        None => deadline,
    }
}

/// Whether an attempt may start at `now`: at least `min_attempt` is left before `deadline`.
/// Otherwise the call fails fast with `deadline_exceeded`, sending nothing.
#[inline(always)]
pub fn attempt_may_start(now: Nanos, deadline: Nanos, min_attempt: Nanos) -> bool {
    deadline > now && deadline - now >= min_attempt
}

/// When attempt number `attempt` (1-based), sent at `now`, stops being waited for: its
/// timeout (a retry's own `retry_timeout` from the second attempt on, else `timeout`) or the
/// call's `deadline`, whichever comes first.
#[inline(always)]
pub fn attempt_expiry(
    now: Nanos,
    attempt: u32,
    timeout: Option<Nanos>,
    retry_timeout: Option<Nanos>,
    deadline: Nanos,
) -> Nanos {
    let timeout = retry_timeout.filter(|_| attempt > 1).or(timeout);
    timeout
        .map_or(NO_DEADLINE, |t| now.saturating_add(t))
        .min(deadline)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);

    #[test]
    fn a_call_keeps_its_callers_deadline_less_the_reserve_unless_it_takes_none() {
        assert_eq!(call_deadline(500 * MS, 50 * MS, true), 450 * MS);
        assert_eq!(call_deadline(500 * MS, 50 * MS, false), NO_DEADLINE);
        assert_eq!(call_deadline(NO_DEADLINE, 50 * MS, true), NO_DEADLINE);
        // A reserve longer than what is left leaves a deadline already past, never a wrap.
        assert_eq!(call_deadline(10 * MS, 50 * MS, true), Nanos::ZERO);
    }

    #[test]
    fn a_total_timeout_brings_the_deadline_forward_never_back() {
        assert_eq!(
            bounded_by_total(NO_DEADLINE, 100 * MS, Some(600 * MS)),
            700 * MS
        );
        assert_eq!(
            bounded_by_total(500 * MS, 100 * MS, Some(600 * MS)),
            500 * MS
        );
        assert_eq!(
            bounded_by_total(900 * MS, 100 * MS, Some(600 * MS)),
            700 * MS
        );
        assert_eq!(bounded_by_total(900 * MS, 100 * MS, None), 900 * MS);
        assert_eq!(
            bounded_by_total(NO_DEADLINE, Nanos(u64::MAX - 1), Some(600 * MS)),
            NO_DEADLINE,
            "saturates, never wraps"
        );
    }

    #[test]
    fn an_attempt_starts_only_with_min_attempt_left() {
        assert!(attempt_may_start(Nanos::ZERO, 100 * MS, 100 * MS));
        assert!(!attempt_may_start(Nanos(1), 100 * MS, 100 * MS));
        assert!(
            !attempt_may_start(100 * MS, 100 * MS, Nanos::ZERO),
            "the deadline itself is past"
        );
        assert!(attempt_may_start(
            Nanos::ZERO,
            NO_DEADLINE,
            Nanos(u64::MAX - 1)
        ));
    }

    #[test]
    fn an_attempt_expires_at_its_timeout_or_the_deadline_whichever_is_first() {
        // Seed 000's numbers: 180 ms attempts, the second capped by the 450 ms deadline.
        assert_eq!(
            attempt_expiry(60 * MS, 1, Some(180 * MS), None, 450 * MS),
            240 * MS
        );
        assert_eq!(
            attempt_expiry(280 * MS, 2, Some(180 * MS), None, 450 * MS),
            450 * MS
        );
        // Acme's 550 ms first try, then 140 ms retries.
        let (t, rt) = (Some(550 * MS), Some(140 * MS));
        assert_eq!(attempt_expiry(Nanos::ZERO, 1, t, rt, NO_DEADLINE), 550 * MS);
        assert_eq!(attempt_expiry(600 * MS, 2, t, rt, NO_DEADLINE), 740 * MS);
        assert_eq!(
            attempt_expiry(Nanos::ZERO, 1, None, None, NO_DEADLINE),
            NO_DEADLINE
        );
        assert_eq!(
            attempt_expiry(Nanos(u64::MAX - 1), 1, t, None, NO_DEADLINE),
            NO_DEADLINE
        );
    }
}
