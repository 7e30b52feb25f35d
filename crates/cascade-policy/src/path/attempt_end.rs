//! What an attempt's end teaches the path's policies, in order (limit sample, throttle accept,
//! budget count, breaker verdict), and the retry's verdict within its budget.

use super::{AttemptEnd, BreakerPass, Learned, PathPolicies, RetryVerdict};
use crate::breaker::Transition;
use crate::limit::{LimitPermit, sample_of};
use crate::outcome::Outcome;
use crate::random::unit;
use crate::retry::{RetryInput, RetryPolicy};
use crate::throttle::Throttle;
use crate::time::Nanos;
use rand::Rng;

impl<R: Rng> PathPolicies<R> {
    /// Tells each policy how an attempt ended, in order (limit sample, throttle accept,
    /// budget count, breaker verdict), then decides the retry: the policy's wait, if it
    /// retries this failure, and the budget's grant for it. `retry` is the path's retry
    /// policy with the decision's input; none for a path without one.
    #[inline(always)]
    pub fn attempt_ended(
        &mut self,
        end: AttemptEnd,
        retry: Option<(&RetryPolicy, RetryInput)>,
    ) -> Learned {
        let AttemptEnd {
            now,
            outcome,
            took,
            breaker,
            limit,
            was_retry,
        } = end;
        let limit_moved = self.sample_limit(now, outcome, took, limit);
        if let Some(t) = self
            .throttle
            .as_mut()
            .filter(|_| Throttle::counts_as_accepted(outcome))
        {
            t.accepted(now);
        }
        if let Some(b) = self.budget.as_mut() {
            let retryable = retry.as_ref().is_some_and(|(r, _)| r.retries(outcome));
            b.on_attempt(outcome.is_success(), retryable);
            if was_retry {
                b.on_retry_end();
            }
        }
        let transition = breaker.map_or(Transition::None, |BreakerPass { index, permit }| {
            self.breakers[index as usize].record(now, outcome, took, permit)
        });
        let wait = match retry {
            Some((policy, input)) if !outcome.is_success() => {
                policy.decide(&input, &mut self.jitter_rng).ok()
            }
            _ => None,
        };
        let retry = match wait {
            None => RetryVerdict::GiveUp,
            Some(wait) if self.budget.as_mut().is_none_or(|b| b.try_retry(now)) => {
                RetryVerdict::After(wait)
            }
            Some(_) => RetryVerdict::BudgetExhausted,
        };
        Learned {
            limit_moved,
            breaker: transition,
            retry,
        }
    }

    /// The limit permit goes back, with a sample if the outcome is one (`limit::sample_of`);
    /// how far the limit moved.
    #[inline(always)]
    fn sample_limit(
        &mut self,
        now: Nanos,
        outcome: Outcome,
        took: Nanos,
        permit: Option<LimitPermit>,
    ) -> i64 {
        let (Some(permit), Some(limiter)) = (permit, self.limit.as_mut()) else {
            return 0;
        };
        let before = limiter.limit();
        match sample_of(outcome) {
            Some(dropped) => {
                let u = unit(&mut self.limit_rng);
                limiter.release(now, took, permit, dropped, u);
            }
            None => limiter.ignore(permit),
        }
        i64::from(limiter.limit()) - i64::from(before)
    }
}
