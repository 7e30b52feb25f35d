//! Whether a failed attempt is tried again, and after how long.
//!
//! `attempts` counts the first try (resilience4j `maxAttempts`, gRPC `maxAttempts`, AWS
//! `max_attempts`); `retries` counts only the extra tries (Polly `MaxRetryAttempts`, Envoy
//! `num_retries`): `retries = N` is `attempts = N + 1`. Only outcomes listed in `on` are retried;
//! `invalid` and local rejections never are. A non-idempotent call is retried only when it
//! carries an idempotency key. A Retry-After carried by a failed reply replaces the backoff when
//! `retry_after` is on (or, with `RetryAfterWait::Max`, the wait is the larger of the two, as
//! the AWS SDKs wait) and it still fits the deadline. No retry sleeps past the deadline: a retry
//! that could not start with at least `min_attempt` left is not made.

use super::backoff::Backoff;
use crate::outcome::{Outcome, OutcomeSet};
use crate::time::Nanos;
use rand::Rng;

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct RetryPolicy {
        attempts: u32,
        on: OutcomeSet,
        backoff: Backoff,
        retry_after: bool,
        retry_after_wait: RetryAfterWait,
        timeout: Option<Nanos>,
        other_host: Option<u32>,
    }
}

getters!(RetryPolicy {
    /// Attempts in all, the first included (>= 1).
    attempts: u32,
    /// Retryable outcome kinds.
    on: OutcomeSet,
    /// The wait before each retry.
    backoff: &Backoff,
    /// Honour a Retry-After that a failed reply carries (whatever its kind), and a reply's
    /// refusal of any retry (`RetryInput::server_refuses_retry`).
    retry_after: bool,
    /// How an honoured Retry-After and the backoff make the wait.
    retry_after_wait: RetryAfterWait,
    /// Timeout of the attempts after the first, when it differs from the policy's.
    timeout: Option<Nanos>,
    /// A retry goes to another instance (Envoy's `previous_hosts` retry host predicate): the
    /// balancer picks again, at most this many times (Envoy's
    /// `host_selection_retry_max_attempts`), while its pick is a host the call already tried;
    /// `None`: every attempt takes the balancer's first pick.
    other_host: Option<u32>,
});

/// How an honoured Retry-After sets the wait before the retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RetryAfterWait {
    /// The Retry-After, instead of the backoff (Polly's `DelayGenerator`, gRPC pushback).
    #[default]
    Replace,
    /// The larger of the Retry-After and the backoff, drawn as without one (the AWS SDKs:
    /// a server's hint never shortens the client's own backoff).
    Max,
}

/// What a retry decision is made from: the attempt that just failed, and the call it is one
/// attempt of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryInput {
    /// How the attempt ended.
    pub outcome: Outcome,
    /// Which attempt it was (1-based).
    pub attempt: u32,
    /// The call may be sent again: idempotent, or carrying an idempotency key.
    pub retry_allowed: bool,
    /// The Retry-After the failed reply carried, if any.
    pub retry_after: Option<Nanos>,
    /// The failed reply said not to retry it (gRFC A6: a negative or malformed
    /// `grpc-retry-pushback-ms`), honoured as a Retry-After is, when the policy's
    /// `retry_after` is on. The simulator's callees never say so.
    pub server_refuses_retry: bool,
    /// When the attempt ended.
    pub now: Nanos,
    /// The call's deadline (`Nanos::MAX`, `deadline::NO_DEADLINE`, for none).
    pub deadline: Nanos,
    /// The least time an attempt needs left to be started (the policy's `min_attempt`).
    pub min_attempt: Nanos,
    /// The call's previous backoff (zero before the first retry): decorrelated jitter grows
    /// from it.
    pub last_delay: Nanos,
}

/// Why a retry is not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRetry {
    NotRetryable,
    AttemptsExhausted,
    NotIdempotent,
    /// The callee's reply said not to retry (`RetryInput::server_refuses_retry`).
    RefusedByServer,
    /// The wait plus `min_attempt` would not fit before the deadline.
    NoTimeLeft,
}

/// The retry kinds retried when `on` is not given: transport failures, timeouts, 503 and 429.
pub const DEFAULT_RETRY_ON: [Outcome; 4] = [
    Outcome::Timeout,
    Outcome::Unavailable,
    Outcome::Overloaded,
    Outcome::Refused,
];

/// Kinds that no policy may retry: a bad request stays bad, and local rejections mean "stop".
pub const NEVER_RETRIED: [Outcome; 8] = Outcome::NOT_CALLEE_FAILURES;

impl RetryPolicy {
    /// Whether `outcome` is one of the kinds this policy retries (`on`).
    #[inline]
    pub fn retries(&self, outcome: Outcome) -> bool {
        self.on.contains(outcome)
    }

    /// Decides on a retry after the attempt `input` describes failed. Returns the wait before
    /// the next attempt. The backoff draws from `jitter` only when a retry is otherwise
    /// possible, so no draw is spent on a call that stops anyway.
    pub fn decide<R: Rng + ?Sized>(
        &self,
        input: &RetryInput,
        jitter: &mut R,
    ) -> Result<Nanos, NoRetry> {
        if !self.retries(input.outcome) {
            return Err(NoRetry::NotRetryable);
        }
        if input.attempt >= self.attempts {
            return Err(NoRetry::AttemptsExhausted);
        }
        if !input.retry_allowed {
            return Err(NoRetry::NotIdempotent);
        }
        if input.server_refuses_retry && self.retry_after {
            return Err(NoRetry::RefusedByServer);
        }
        let backoff = |jitter: &mut R| self.backoff.delay(input.attempt, input.last_delay, jitter);
        let wait = match input.retry_after {
            Some(ra) if self.retry_after => match self.retry_after_wait {
                RetryAfterWait::Replace => ra,
                RetryAfterWait::Max => ra.max(backoff(jitter)),
            },
            _ => backoff(jitter),
        };
        let (start, deadline) = (input.now.saturating_add(wait), input.deadline);
        if start >= deadline || deadline - start < input.min_attempt.max(Nanos(1)) {
            return Err(NoRetry::NoTimeLeft);
        }
        Ok(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backoff::{Jitter, Schedule};
    use rand::SeedableRng;

    const MS: Nanos = Nanos::from_ms(1);
    const NONE: Nanos = Nanos::MAX;

    /// `attempts` in all, the default kinds, a constant backoff of `backoff_ms` without jitter.
    fn policy(attempts: u32, backoff_ms: u64) -> RetryPolicy {
        RetryPolicy {
            attempts,
            on: OutcomeSet::of(&DEFAULT_RETRY_ON),
            backoff: Backoff {
                schedule: Schedule::Constant,
                base: backoff_ms * MS,
                max: backoff_ms * MS,
                jitter: Jitter::None,
            },
            retry_after: true,
            retry_after_wait: RetryAfterWait::Replace,
            timeout: None,
            other_host: None,
        }
    }

    /// Attempt `attempt` of an idempotent call with no deadline failed with `outcome` at 0.
    fn failed(attempt: u32, outcome: Outcome) -> RetryInput {
        RetryInput {
            outcome,
            attempt,
            retry_allowed: true,
            retry_after: None,
            server_refuses_retry: false,
            now: Nanos::ZERO,
            deadline: NONE,
            min_attempt: Nanos::ZERO,
            last_delay: Nanos::ZERO,
        }
    }

    fn decide(p: &RetryPolicy, input: RetryInput) -> Result<Nanos, NoRetry> {
        p.decide(&input, &mut rand_pcg::Pcg64Mcg::seed_from_u64(1))
    }

    #[test]
    fn retries_only_listed_kinds_within_the_attempt_limit() {
        let p = policy(3, 40);
        assert_eq!(decide(&p, failed(1, Outcome::Timeout)), Ok(40 * MS));
        assert_eq!(decide(&p, failed(2, Outcome::Unavailable)), Ok(40 * MS));
        assert_eq!(
            decide(&p, failed(3, Outcome::Timeout)),
            Err(NoRetry::AttemptsExhausted)
        );
        for never in [Outcome::Internal, Outcome::Invalid, Outcome::BreakerOpen] {
            assert!(!p.retries(never));
            assert_eq!(decide(&p, failed(1, never)), Err(NoRetry::NotRetryable));
        }
        let not_idempotent = RetryInput {
            retry_allowed: false,
            ..failed(1, Outcome::Timeout)
        };
        assert_eq!(decide(&p, not_idempotent), Err(NoRetry::NotIdempotent));
        let refused = RetryInput {
            server_refuses_retry: true,
            retry_after: Some(Nanos::ZERO),
            ..failed(1, Outcome::Unavailable)
        };
        assert_eq!(decide(&p, refused), Err(NoRetry::RefusedByServer));
        // A policy that ignores the callee's advice (`retry_after = false`) retries it.
        let mut deaf = p.clone();
        deaf.retry_after = false;
        assert_eq!(decide(&deaf, refused), Ok(40 * MS));
        assert_eq!(
            decide(&policy(1, 40), failed(1, Outcome::Timeout)),
            Err(NoRetry::AttemptsExhausted)
        );
    }

    #[test]
    fn seed_000_second_attempt_fits_the_deadline() {
        // 500 ms deadline, 50 ms reserve: the call's deadline is 450 ms. 60 ms of local work, a
        // 180 ms first attempt timing out at 240 ms, 40 ms backoff: the retry starts at 280 ms
        // with min(180, 450 - 280) = 170 ms.
        let input = RetryInput {
            now: 240 * MS,
            deadline: 450 * MS,
            ..failed(1, Outcome::Timeout)
        };
        let wait = decide(&policy(2, 40), input).unwrap();
        assert_eq!(wait, 40 * MS);
        let start = 240 * MS + wait;
        assert_eq!((180 * MS).min(450 * MS - start), 170 * MS);
    }

    #[test]
    fn never_sleeps_past_the_deadline_and_keeps_min_attempt() {
        let at_400 = |min_attempt_ms: u64| RetryInput {
            now: 400 * MS,
            deadline: 450 * MS,
            min_attempt: min_attempt_ms * MS,
            ..failed(1, Outcome::Timeout)
        };
        assert_eq!(decide(&policy(3, 60), at_400(0)), Err(NoRetry::NoTimeLeft));
        assert_eq!(decide(&policy(3, 40), at_400(20)), Err(NoRetry::NoTimeLeft));
        assert_eq!(decide(&policy(3, 40), at_400(10)), Ok(40 * MS));
    }

    #[test]
    fn retry_after_replaces_the_backoff_when_honoured_and_fitting() {
        let mut p = policy(3, 40);
        let overloaded = |retry_after_ms: u64, deadline: Nanos| RetryInput {
            retry_after: Some(retry_after_ms * MS),
            deadline,
            ..failed(1, Outcome::Overloaded)
        };
        assert_eq!(decide(&p, overloaded(100, NONE)), Ok(100 * MS));
        assert_eq!(
            decide(&p, overloaded(900, 500 * MS)),
            Err(NoRetry::NoTimeLeft)
        );
        p.retry_after = false;
        assert_eq!(decide(&p, overloaded(100, NONE)), Ok(40 * MS));
    }

    #[test]
    fn the_backoff_grows_from_the_last_delay_and_draws_only_for_a_possible_retry() {
        // Decorrelated jitter: uniform in [base, 3 × last delay], capped at max.
        let mut p = policy(5, 10);
        p.backoff.jitter = Jitter::Decorrelated;
        p.backoff.max = 1_000 * MS;
        let input = RetryInput {
            last_delay: 100 * MS,
            ..failed(2, Outcome::Timeout)
        };
        let wait = decide(&p, input).unwrap();
        let seed = || rand_pcg::Pcg64Mcg::seed_from_u64(1);
        assert_eq!(wait, p.backoff.delay(2, 100 * MS, &mut seed()));
        assert_ne!(
            wait,
            p.backoff.delay(2, Nanos::ZERO, &mut seed()),
            "the last delay counts"
        );
        // A call that cannot retry leaves its stream where it was.
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let untouched = rng.clone();
        let _ = p.decide(&failed(1, Outcome::Invalid), &mut rng);
        assert_eq!(rng, untouched);
    }

    #[test]
    fn retry_after_as_max_waits_the_larger_of_it_and_the_backoff() {
        // Constant backoff of 40 ms without jitter. Replace: the Retry-After, whatever it
        // is; max: 100 ms over 40 ms is 100 ms, 10 ms under 40 ms is 40 ms.
        let mut p = policy(3, 40);
        let overloaded = |retry_after_ms: u64| RetryInput {
            retry_after: Some(retry_after_ms * MS),
            ..failed(1, Outcome::Overloaded)
        };
        assert_eq!(decide(&p, overloaded(10)), Ok(10 * MS));
        p.retry_after_wait = RetryAfterWait::Max;
        assert_eq!(decide(&p, overloaded(100)), Ok(100 * MS));
        assert_eq!(decide(&p, overloaded(10)), Ok(40 * MS));
        assert_eq!(decide(&p, overloaded(40)), Ok(40 * MS));
        // No Retry-After: the backoff, as ever.
        assert_eq!(decide(&p, failed(1, Outcome::Overloaded)), Ok(40 * MS));
        // Not honoured: the backoff, even when the Retry-After is longer.
        p.retry_after = false;
        assert_eq!(decide(&p, overloaded(100)), Ok(40 * MS));
    }

    #[test]
    fn retry_after_as_max_follows_the_exponential_schedule_and_its_jitter() {
        // Exponential from 100 ms, doubling, no jitter: the third attempt's retry (k = 3) is
        // scheduled at 100 × 2^2 = 400 ms. A Retry-After of 250 ms waits 400 ms; 500 ms waits
        // 500 ms.
        let mut p = policy(5, 100);
        p.retry_after_wait = RetryAfterWait::Max;
        p.backoff.schedule = Schedule::Exponential { multiplier: 2.0 };
        p.backoff.max = 10_000 * MS;
        let third = |retry_after_ms: u64| RetryInput {
            retry_after: Some(retry_after_ms * MS),
            ..failed(3, Outcome::Overloaded)
        };
        assert_eq!(decide(&p, third(250)), Ok(400 * MS));
        assert_eq!(decide(&p, third(500)), Ok(500 * MS));
        // Full jitter: the backoff is drawn as without a Retry-After (the same draw from the
        // same stream), then the larger wins.
        p.backoff.jitter = Jitter::Full;
        let seed = || rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let drawn = p.backoff.delay(3, Nanos::ZERO, &mut seed());
        assert!(drawn < 400 * MS);
        assert_eq!(decide(&p, third(1)), Ok(drawn.max(MS)));
        assert_eq!(decide(&p, third(399)), Ok(drawn.max(399 * MS)));
    }

    #[test]
    fn retry_after_as_max_can_leave_no_time_where_replace_fits() {
        // At 400 ms, deadline 450 ms, min_attempt 20 ms, backoff 40 ms, Retry-After 10 ms:
        // replace waits 10 ms and starts with 40 ms left; max waits 40 ms and would start with
        // 10 ms left, under min_attempt: no retry.
        let mut p = policy(3, 40);
        let input = RetryInput {
            retry_after: Some(10 * MS),
            now: 400 * MS,
            deadline: 450 * MS,
            min_attempt: 20 * MS,
            ..failed(1, Outcome::Overloaded)
        };
        assert_eq!(decide(&p, input), Ok(10 * MS));
        p.retry_after_wait = RetryAfterWait::Max;
        assert_eq!(decide(&p, input), Err(NoRetry::NoTimeLeft));
    }
}
