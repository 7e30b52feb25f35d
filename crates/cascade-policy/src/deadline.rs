//! Deadlines and timeouts, as gRPC and Envoy define them: a call's deadline is its caller's
//! less the time the caller keeps for itself (`reserve`), unless the call does not take its
//! caller's deadline at all (gRPC without a propagated Context); an attempt starts only with
//! at least `min_attempt` left; and it is waited for until its timeout (a retry's own, if the
//! policy gives retries one) or the call's deadline, whichever comes first.

/// No deadline: an instant that never comes.
pub const NO_DEADLINE: u64 = u64::MAX;

/// The deadline (ns) of a call whose caller must answer by `caller_deadline`: that less
/// `reserve`, or none when the call does not take its caller's deadline (`propagates` false).
#[inline(always)]
pub fn call_deadline(caller_deadline: u64, reserve: u64, propagates: bool) -> u64 {
    if caller_deadline == NO_DEADLINE || !propagates {
        NO_DEADLINE
    } else {
        caller_deadline.saturating_sub(reserve)
    }
}

/// Whether an attempt may start at `now`: at least `min_attempt` is left before `deadline`.
/// Otherwise the call fails fast with `deadline_exceeded`, sending nothing.
#[inline(always)]
pub fn attempt_may_start(now: u64, deadline: u64, min_attempt: u64) -> bool {
    deadline > now && deadline - now >= min_attempt
}

/// When attempt number `attempt` (1-based), sent at `now`, stops being waited for: its
/// timeout (a retry's own `retry_timeout` from the second attempt on, else `timeout`) or the
/// call's `deadline`, whichever comes first.
#[inline(always)]
pub fn attempt_expiry(
    now: u64,
    attempt: u32,
    timeout: Option<u64>,
    retry_timeout: Option<u64>,
    deadline: u64,
) -> u64 {
    let timeout = retry_timeout.filter(|_| attempt > 1).or(timeout);
    timeout
        .map_or(NO_DEADLINE, |t| now.saturating_add(t))
        .min(deadline)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_call_keeps_its_callers_deadline_less_the_reserve_unless_it_takes_none() {
        assert_eq!(call_deadline(500 * MS, 50 * MS, true), 450 * MS);
        assert_eq!(call_deadline(500 * MS, 50 * MS, false), NO_DEADLINE);
        assert_eq!(call_deadline(NO_DEADLINE, 50 * MS, true), NO_DEADLINE);
        // A reserve longer than what is left leaves a deadline already past, never a wrap.
        assert_eq!(call_deadline(10 * MS, 50 * MS, true), 0);
    }

    #[test]
    fn an_attempt_starts_only_with_min_attempt_left() {
        assert!(attempt_may_start(0, 100 * MS, 100 * MS));
        assert!(!attempt_may_start(1, 100 * MS, 100 * MS));
        assert!(
            !attempt_may_start(100 * MS, 100 * MS, 0),
            "the deadline itself is past"
        );
        assert!(attempt_may_start(0, NO_DEADLINE, u64::MAX - 1));
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
        assert_eq!(attempt_expiry(0, 1, t, rt, NO_DEADLINE), 550 * MS);
        assert_eq!(attempt_expiry(600 * MS, 2, t, rt, NO_DEADLINE), 740 * MS);
        assert_eq!(attempt_expiry(0, 1, None, None, NO_DEADLINE), NO_DEADLINE);
        assert_eq!(
            attempt_expiry(u64::MAX - 1, 1, t, None, NO_DEADLINE),
            NO_DEADLINE
        );
    }
}
