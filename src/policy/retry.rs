//! Whether a failed attempt is tried again, and after how long.
//!
//! `attempts` counts the first try (resilience4j `maxAttempts`, gRPC `maxAttempts`, AWS
//! `max_attempts`); `retries` counts only the extra tries (Polly `MaxRetryAttempts`, Envoy
//! `num_retries`): `retries = N` is `attempts = N + 1`. Only outcomes listed in `on` are retried;
//! `invalid` and local rejections never are. A non-idempotent call is retried only when it
//! carries an idempotency key. A Retry-After carried by a failed reply replaces the backoff when
//! `retry_after` is on and it still fits the deadline. No retry sleeps past the deadline: a retry
//! that could not start with at least `min_attempt` left is not made.

use super::backoff::Backoff;
use crate::outcome::Outcome;

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (>= 1).
    pub attempts: u32,
    /// Retryable outcome kinds, as a bit set over `Outcome::index`.
    pub on: u16,
    pub backoff: Backoff,
    /// Honour a Retry-After that a failed reply carries (whatever its kind).
    pub retry_after: bool,
    /// Timeout of the attempts after the first (ns), when it differs from the policy's.
    pub timeout: Option<u64>,
}

/// Why a retry is not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRetry {
    NotRetryable,
    AttemptsExhausted,
    NotIdempotent,
    /// The wait plus `min_attempt` would not fit before the deadline.
    NoTimeLeft,
}

pub fn outcome_set(kinds: &[Outcome]) -> u16 {
    kinds.iter().fold(0, |s, o| s | 1 << o.index())
}

pub fn in_set(set: u16, o: Outcome) -> bool {
    set & (1 << o.index()) != 0
}

/// The retry kinds retried when `on` is not given: transport failures, timeouts, 503 and 429.
pub const DEFAULT_RETRY_ON: [Outcome; 4] = [
    Outcome::Timeout,
    Outcome::Unavailable,
    Outcome::Overloaded,
    Outcome::Refused,
];

/// Kinds that no policy may retry: a bad request stays bad, and local rejections mean "stop".
pub const NEVER_RETRIED: [Outcome; 7] = Outcome::NOT_CALLEE_FAILURES;

impl RetryPolicy {
    /// Decides on a retry after attempt `attempt` (1-based) failed with `outcome` at `now`.
    /// Returns the wait before the next attempt. `delay` draws the backoff (called only when a
    /// retry is otherwise possible, so jitter draws are not wasted on calls that stop anyway).
    #[allow(clippy::too_many_arguments)]
    pub fn decide(
        &self,
        attempt: u32,
        outcome: Outcome,
        retry_allowed_for_call: bool,
        retry_after: Option<u64>,
        now: u64,
        deadline: u64,
        min_attempt: u64,
        delay: impl FnOnce() -> u64,
    ) -> Result<u64, NoRetry> {
        if !in_set(self.on, outcome) {
            return Err(NoRetry::NotRetryable);
        }
        if attempt >= self.attempts {
            return Err(NoRetry::AttemptsExhausted);
        }
        if !retry_allowed_for_call {
            return Err(NoRetry::NotIdempotent);
        }
        let wait = match retry_after {
            Some(ra) if self.retry_after => ra,
            _ => delay(),
        };
        let start = now.saturating_add(wait);
        if start >= deadline || deadline - start < min_attempt.max(1) {
            return Err(NoRetry::NoTimeLeft);
        }
        Ok(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::backoff::{Jitter, Schedule};

    const MS: u64 = 1_000_000;
    const NONE: u64 = u64::MAX;

    fn policy(attempts: u32) -> RetryPolicy {
        RetryPolicy {
            attempts,
            on: outcome_set(&DEFAULT_RETRY_ON),
            backoff: Backoff {
                schedule: Schedule::Constant,
                base: 40 * MS,
                max: 40 * MS,
                jitter: Jitter::None,
            },
            retry_after: true,
            timeout: None,
        }
    }

    #[test]
    fn retries_only_listed_kinds_within_the_attempt_limit() {
        let p = policy(3);
        let d = || 40 * MS;
        assert_eq!(
            p.decide(1, Outcome::Timeout, true, None, 0, NONE, 0, d),
            Ok(40 * MS)
        );
        assert_eq!(
            p.decide(2, Outcome::Unavailable, true, None, 0, NONE, 0, d),
            Ok(40 * MS)
        );
        assert_eq!(
            p.decide(3, Outcome::Timeout, true, None, 0, NONE, 0, d),
            Err(NoRetry::AttemptsExhausted)
        );
        assert_eq!(
            p.decide(1, Outcome::Internal, true, None, 0, NONE, 0, d),
            Err(NoRetry::NotRetryable)
        );
        assert_eq!(
            p.decide(1, Outcome::Invalid, true, None, 0, NONE, 0, d),
            Err(NoRetry::NotRetryable)
        );
        assert_eq!(
            p.decide(1, Outcome::BreakerOpen, true, None, 0, NONE, 0, d),
            Err(NoRetry::NotRetryable)
        );
        assert_eq!(
            p.decide(1, Outcome::Timeout, false, None, 0, NONE, 0, d),
            Err(NoRetry::NotIdempotent)
        );
        assert_eq!(
            policy(1).decide(1, Outcome::Timeout, true, None, 0, NONE, 0, d),
            Err(NoRetry::AttemptsExhausted)
        );
    }

    #[test]
    fn seed_000_second_attempt_fits_the_deadline() {
        // 500 ms deadline, 50 ms reserve: the call's deadline is 450 ms. 60 ms of local work, a
        // 180 ms first attempt timing out at 240 ms, 40 ms backoff: the retry starts at 280 ms
        // with min(180, 450 - 280) = 170 ms.
        let p = policy(2);
        let wait = p
            .decide(
                1,
                Outcome::Timeout,
                true,
                None,
                240 * MS,
                450 * MS,
                0,
                || 40 * MS,
            )
            .unwrap();
        assert_eq!(wait, 40 * MS);
        let start = 240 * MS + wait;
        assert_eq!((180 * MS).min(450 * MS - start), 170 * MS);
    }

    #[test]
    fn never_sleeps_past_the_deadline_and_keeps_min_attempt() {
        let p = policy(3);
        assert_eq!(
            p.decide(
                1,
                Outcome::Timeout,
                true,
                None,
                400 * MS,
                450 * MS,
                0,
                || 60 * MS
            ),
            Err(NoRetry::NoTimeLeft)
        );
        assert_eq!(
            p.decide(
                1,
                Outcome::Timeout,
                true,
                None,
                400 * MS,
                450 * MS,
                20 * MS,
                || 40 * MS
            ),
            Err(NoRetry::NoTimeLeft)
        );
        assert_eq!(
            p.decide(
                1,
                Outcome::Timeout,
                true,
                None,
                400 * MS,
                450 * MS,
                10 * MS,
                || 40 * MS
            ),
            Ok(40 * MS)
        );
    }

    #[test]
    fn retry_after_replaces_the_backoff_when_honoured_and_fitting() {
        let mut p = policy(3);
        let d = || 40 * MS;
        assert_eq!(
            p.decide(1, Outcome::Overloaded, true, Some(100 * MS), 0, NONE, 0, d),
            Ok(100 * MS)
        );
        assert_eq!(
            p.decide(
                1,
                Outcome::Overloaded,
                true,
                Some(900 * MS),
                0,
                500 * MS,
                0,
                d
            ),
            Err(NoRetry::NoTimeLeft)
        );
        p.retry_after = false;
        assert_eq!(
            p.decide(1, Outcome::Overloaded, true, Some(100 * MS), 0, NONE, 0, d),
            Ok(40 * MS)
        );
    }
}
