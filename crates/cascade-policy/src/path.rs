//! One call path's policies as a stack: the state a caller keeps for the calls it makes to one
//! dependency, the order in which the policies admit an attempt (breaker, throttle, adaptive
//! limit; a bulkhead, whose waiting line belongs to whoever schedules, comes after them), what
//! is given back when a later one refuses, and the order in which they learn from an attempt's
//! end before the retry decides (limit sample, throttle accept, budget count, breaker verdict,
//! then the retry's wait and the budget's grant for it).
//!
//! cascade's engine runs its calls through this type, so a service that runs its calls through
//! it makes the simulator's decisions. Everything a policy draws comes from the path's own
//! streams (`R`), seeded by the caller; the results say what changed (a breaker's transition,
//! a limit's move) so the caller can count it, and nothing here reads a clock.
//!
//! ```
//! use cascade_policy::backoff::{Backoff, Jitter, Schedule};
//! use cascade_policy::outcome::{Outcome, OutcomeSet};
//! use cascade_policy::path::{AttemptEnd, PathPolicies, RetryVerdict};
//! use cascade_policy::retry::{RetryInput, RetryPolicy, DEFAULT_RETRY_ON};
//! use rand::SeedableRng;
//!
//! const MS: u64 = 1_000_000;
//! let stream = |n| rand_pcg::Pcg64Mcg::seed_from_u64(n);
//! // A path with a retry policy and nothing else; a service seeds each stream.
//! let mut path = PathPolicies {
//!     breakers: Vec::new(),
//!     budget: None,
//!     bulkhead: None,
//!     throttle: None,
//!     hedge: None,
//!     hedge_budget: None,
//!     limit: None,
//!     accrual: Vec::new(),
//!     throttle_rng: stream(1),
//!     limit_rng: stream(2),
//!     jitter_rng: stream(3),
//!     accrual_rng: stream(4),
//! };
//! let retry = RetryPolicy {
//!     attempts: 2,
//!     on: OutcomeSet::of(&DEFAULT_RETRY_ON),
//!     backoff: Backoff {
//!         schedule: Schedule::Constant,
//!         base: 50 * MS,
//!         max: 50 * MS,
//!         jitter: Jitter::None,
//!     },
//!     retry_after: false,
//!     retry_after_wait: Default::default(),
//!     timeout: None,
//! };
//! path.admit_call(0, false, &mut None).unwrap();
//! let admitted = path.admit(0, None, &mut None).unwrap();
//! // The attempt is sent; 20 ms later it fails with a 503.
//! let now = 20 * MS;
//! let end = AttemptEnd {
//!     now,
//!     outcome: Outcome::from_http_status(503),
//!     took: 20 * MS,
//!     breaker: admitted.breaker,
//!     limit: admitted.limit,
//!     was_retry: false,
//! };
//! let input = RetryInput {
//!     outcome: end.outcome,
//!     attempt: 1,
//!     retry_allowed: true,
//!     retry_after: None,
//!     now,
//!     deadline: 1_000 * MS,
//!     min_attempt: 0,
//!     last_delay: 0,
//! };
//! let learned = path.attempt_ended(end, Some((&retry, input)));
//! assert_eq!(learned.retry, RetryVerdict::After(50 * MS));
//! ```

use crate::accrual::Accrual;
use crate::breaker::{Breaker, BreakerPermit, State, Transition};
use crate::budget::Budget;
use crate::hedge::LatencyTracker;
use crate::limit::{LimitPermit, Limiter, sample_of};
use crate::outcome::Outcome;
use crate::random::unit;
use crate::retry::{RetryInput, RetryPolicy};
use crate::throttle::Throttle;
use rand::Rng;

/// The state one caller keeps for one call path's policies, and the random streams they draw
/// from, apart so that no policy's draws shift another's.
pub struct PathPolicies<R> {
    /// One breaker, or one per callee instance (a breaker per host).
    pub breakers: Vec<Breaker>,
    pub budget: Option<Budget>,
    /// The bulkhead this path takes permits from, an index into the caller's own table of
    /// them: paths may share one (a pool), so the caller keeps bulkheads apart.
    pub bulkhead: Option<u32>,
    pub throttle: Option<Throttle>,
    pub hedge: Option<LatencyTracker>,
    pub hedge_budget: Option<Budget>,
    pub limit: Option<Limiter>,
    /// Failure accrual, one per callee instance; empty without it.
    pub accrual: Vec<Accrual>,
    pub throttle_rng: R,
    /// Vegas's probe jitter.
    pub limit_rng: R,
    /// Backoff jitter.
    pub jitter_rng: R,
    /// The accrual's mark-dead jitter.
    pub accrual_rng: R,
}

/// Which breaker an attempt asks, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerAsk {
    /// Its index in `breakers` (the callee instance's, for a breaker per host).
    pub index: u32,
    /// A first try past Brooker's retry-only breaker: sent without asking, judged only while
    /// the breaker is closed.
    pub first_try_unasked: bool,
}

/// A breaker passed: which one, and the permit to give back to it.
#[derive(Debug, PartialEq, Eq)]
pub struct BreakerPass {
    pub index: u32,
    pub permit: BreakerPermit,
}

/// What admission did to the breaker it asked, for the caller to count: its transition (open
/// to half-open happens at admission) and whether the attempt is a half-open probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerAsked {
    pub transition: Transition,
    pub probe: bool,
}

/// An attempt the guards let through: what it holds until it ends.
#[derive(Debug, PartialEq, Eq)]
pub struct Admitted {
    /// The breaker that will judge it (none: no breaker asked, or a first try an open
    /// retry-only breaker does not judge).
    pub breaker: Option<BreakerPass>,
    pub limit: Option<LimitPermit>,
}

/// Which guard turned an attempt away; what the earlier ones granted is already given back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    BreakerOpen,
    Throttled,
    Limited,
}

impl Refusal {
    /// The outcome the call ends with.
    pub fn outcome(self) -> Outcome {
        match self {
            Refusal::BreakerOpen => Outcome::BreakerOpen,
            Refusal::Throttled => Outcome::Throttled,
            Refusal::Limited => Outcome::Limited,
        }
    }
}

/// An ended attempt, as its policies learn it.
#[derive(Debug)]
pub struct AttemptEnd {
    pub now: u64,
    pub outcome: Outcome,
    /// From send to end (ns).
    pub took: u64,
    /// What it held: the breaker that admitted it (a per-attempt one) and its limit permit.
    pub breaker: Option<BreakerPass>,
    pub limit: Option<LimitPermit>,
    /// It was a retry that a concurrency budget counted.
    pub was_retry: bool,
}

/// What the policies learned from an attempt's end, for the caller to count, and the retry's
/// verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learned {
    /// The limit after minus before (0 without a limit).
    pub limit_moved: i64,
    pub breaker: Transition,
    pub retry: RetryVerdict,
}

/// Whether the call tries again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryVerdict {
    /// No retry policy, a success, or the policy does not retry this failure (kind,
    /// attempts, idempotency, time left).
    GiveUp,
    /// The policy would retry but the budget does not pay for it.
    BudgetExhausted,
    /// Wait this long (ns), then make the next attempt.
    After(u64),
}

impl<R: Rng> PathPolicies<R> {
    /// A logical call starts at `now`: the budgets count it (they allow retries and hedges
    /// in proportion to calls), and a breaker around the whole call (`breaker_wraps_call`,
    /// breaker 0) is asked, once for all its attempts. Its permit, or the refusal.
    #[inline(always)]
    pub fn admit_call(
        &mut self,
        now: u64,
        breaker_wraps_call: bool,
        asked: &mut Option<BreakerAsked>,
    ) -> Result<Option<BreakerPass>, Refusal> {
        if let Some(b) = self.budget.as_mut() {
            b.on_call(now);
        }
        if let Some(b) = self.hedge_budget.as_mut() {
            b.on_call(now);
        }
        if !breaker_wraps_call {
            return Ok(None);
        }
        self.ask_breaker(now, 0, asked).map(Some)
    }

    /// Asks breaker `index` at `now`, telling `asked` what it did.
    #[inline(always)]
    fn ask_breaker(
        &mut self,
        now: u64,
        index: u32,
        asked: &mut Option<BreakerAsked>,
    ) -> Result<BreakerPass, Refusal> {
        let b = &mut self.breakers[index as usize];
        let (permit, transition) = b.try_acquire(now);
        let probe = permit.is_some() && matches!(b.state(), State::HalfOpen { .. });
        *asked = Some(BreakerAsked { transition, probe });
        let permit = permit.ok_or(Refusal::BreakerOpen)?;
        Ok(BreakerPass { index, permit })
    }

    /// Asks the guards in order (breaker, throttle, adaptive limit) to let an attempt through
    /// at `now`. A refusal gives back what the earlier guards granted (a breaker's half-open
    /// place). `breaker` is the breaker to ask, if the path has one around each attempt.
    /// `asked` tells the caller what the breaker did, whether or not the attempt got through.
    #[inline(always)]
    pub fn admit(
        &mut self,
        now: u64,
        breaker: Option<BreakerAsk>,
        asked: &mut Option<BreakerAsked>,
    ) -> Result<Admitted, Refusal> {
        let pass = match breaker {
            None => None,
            Some(BreakerAsk {
                index,
                first_try_unasked: true,
            }) => self.breakers[index as usize]
                .first_try_permit()
                .map(|permit| BreakerPass { index, permit }),
            Some(BreakerAsk { index, .. }) => Some(self.ask_breaker(now, index, asked)?),
        };
        if let Some(throttle) = self.throttle.as_mut()
            && throttle.reject(now, unit(&mut self.throttle_rng))
        {
            self.release_unused(pass);
            return Err(Refusal::Throttled);
        }
        let limit = match self.limit.as_mut() {
            None => None,
            Some(limiter) => match limiter.try_acquire() {
                Some(permit) => Some(permit),
                None => {
                    self.release_unused(pass);
                    return Err(Refusal::Limited);
                }
            },
        };
        Ok(Admitted {
            breaker: pass,
            limit,
        })
    }

    /// A breaker let the attempt through but it was never sent (a later guard refused it):
    /// its permit goes back, freeing a half-open probe's place.
    #[inline]
    pub fn release_unused(&mut self, pass: Option<BreakerPass>) {
        if let Some(BreakerPass { index, permit }) = pass {
            self.breakers[index as usize].release_unused(permit);
        }
    }

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
        now: u64,
        outcome: Outcome,
        took: u64,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backoff::{Backoff, Jitter, Schedule};
    use crate::breaker::{BreakerConfig, Window};
    use crate::budget::BudgetConfig;
    use crate::limit::{AimdConfig, LimitAlgorithm, LimitConfig};
    use crate::outcome::OutcomeSet;
    use crate::throttle::ThrottleConfig;
    use std::convert::Infallible;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    /// A stream that always draws `0`: every throttle test rejects once its probability is
    /// above zero, and every jitter is at the bottom of its range.
    struct Zero;

    impl rand::rand_core::TryRng for Zero {
        type Error = Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            Ok(0)
        }
        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            Ok(0)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
            dst.fill(0);
            Ok(())
        }
    }

    fn breaker() -> Breaker {
        Breaker::new(BreakerConfig {
            window: Window::Calls(10),
            min_calls: 100,
            failure_rate: 1.0,
            slow_call_rate: 2.0,
            slow_call_duration: u64::MAX,
            consecutive_failures: 1,
            open: S,
            open_multiplier: 1.0,
            open_max: S,
            half_open_calls: 1,
            count: OutcomeSet::of(&[Outcome::Unavailable]),
        })
    }

    fn path() -> PathPolicies<Zero> {
        PathPolicies {
            breakers: vec![breaker()],
            budget: None,
            bulkhead: None,
            throttle: None,
            hedge: None,
            hedge_budget: None,
            limit: None,
            accrual: Vec::new(),
            throttle_rng: Zero,
            limit_rng: Zero,
            jitter_rng: Zero,
            accrual_rng: Zero,
        }
    }

    const ASK: Option<BreakerAsk> = Some(BreakerAsk {
        index: 0,
        first_try_unasked: false,
    });

    /// Trips the path's breaker at 0 and lets its open time pass: the next ask is the probe.
    fn half_open(p: &mut PathPolicies<Zero>) {
        let pass = p.admit(0, ASK, &mut None).unwrap().breaker.unwrap();
        p.breakers[0].record(0, Outcome::Unavailable, MS, pass.permit);
        assert!(p.breakers[0].is_open());
    }

    fn ended(now: u64, outcome: Outcome, admitted: Admitted) -> AttemptEnd {
        AttemptEnd {
            now,
            outcome,
            took: MS,
            breaker: admitted.breaker,
            limit: admitted.limit,
            was_retry: false,
        }
    }

    #[test]
    fn a_refusal_after_the_breaker_gives_its_probe_back() {
        let mut p = path();
        half_open(&mut p);
        // A throttle that has seen only rejections turns the probe away: the breaker's one
        // half-open place comes back, so the next attempt is let through as the probe.
        let mut throttle = Throttle::new(&ThrottleConfig {
            k: 2.0,
            window: 10 * S,
        });
        throttle.reject(0, 1.0);
        p.throttle = Some(throttle);
        let mut asked = None;
        assert_eq!(p.admit(S, ASK, &mut asked), Err(Refusal::Throttled));
        assert_eq!(
            asked,
            Some(BreakerAsked {
                transition: Transition::HalfOpened,
                probe: true,
            })
        );
        p.throttle = None;
        let mut asked = None;
        let probe = p
            .admit(S, ASK, &mut asked)
            .expect("the place is free again");
        assert_eq!(asked.map(|a| a.probe), Some(true));
        assert!(probe.breaker.is_some());
    }

    #[test]
    fn a_full_limit_refuses_and_gives_the_probe_back_too() {
        let mut p = path();
        half_open(&mut p);
        p.limit = Some(Limiter::new(&LimitConfig {
            algorithm: LimitAlgorithm::Aimd(AimdConfig {
                initial_limit: 1,
                min_limit: 1,
                ..AimdConfig::default()
            }),
            window: None,
        }));
        let _held = p.limit.as_mut().unwrap().try_acquire().unwrap();
        assert_eq!(p.admit(S, ASK, &mut None), Err(Refusal::Limited));
        assert_eq!(Refusal::Limited.outcome(), Outcome::Limited);
        p.limit = None;
        assert!(p.admit(S, ASK, &mut None).unwrap().breaker.is_some());
    }

    #[test]
    fn an_open_breaker_refuses_before_the_other_guards_count_anything() {
        let mut p = path();
        half_open(&mut p);
        p.throttle = Some(Throttle::new(&ThrottleConfig {
            k: 2.0,
            window: 10 * S,
        }));
        assert_eq!(p.admit(S / 2, ASK, &mut None), Err(Refusal::BreakerOpen));
        let throttle = p.throttle.as_ref().unwrap();
        assert_eq!(
            throttle.reject_probability(S / 2),
            0.0,
            "no request counted"
        );
        // A first try past a retry-only breaker is not asked: while open it goes unjudged.
        let first_try = Some(BreakerAsk {
            index: 0,
            first_try_unasked: true,
        });
        let mut asked = None;
        let admitted = p.admit(S / 2, first_try, &mut asked).unwrap();
        assert_eq!((admitted.breaker, asked), (None, None));
    }

    #[test]
    fn an_attempt_end_teaches_each_policy_then_the_retry_decides_within_its_budget() {
        let mut p = path();
        p.budget = Some(Budget::new(&BudgetConfig::TokenBucket {
            max_tokens: 2.0,
            token_ratio: 0.1,
        }));
        let retry = RetryPolicy {
            attempts: 3,
            on: OutcomeSet::of(&[Outcome::Unavailable]),
            backoff: Backoff {
                schedule: Schedule::Constant,
                base: 10 * MS,
                max: 10 * MS,
                jitter: Jitter::None,
            },
            retry_after: false,
            retry_after_wait: Default::default(),
            timeout: None,
        };
        let input = |attempt| RetryInput {
            outcome: Outcome::Unavailable,
            attempt,
            retry_allowed: true,
            retry_after: None,
            now: 0,
            deadline: S,
            min_attempt: 0,
            last_delay: 0,
        };
        let admitted = p.admit_call(0, false, &mut None).unwrap();
        assert!(admitted.is_none());
        // The first failure trips the breaker (one in a row) and costs a token (2 → 1): at
        // half the bucket, no retry is paid for.
        let a = p.admit(0, ASK, &mut None).unwrap();
        let learned = p.attempt_ended(ended(MS, Outcome::Unavailable, a), Some((&retry, input(1))));
        assert_eq!(learned.breaker, Transition::Opened);
        assert_eq!(learned.retry, RetryVerdict::BudgetExhausted);
        assert_eq!(learned.limit_moved, 0);
        // Without the budget the same failure waits the backoff; a success gives up.
        p.budget = None;
        p.breakers = vec![breaker()];
        let a = p.admit(2 * MS, ASK, &mut None).unwrap();
        let learned = p.attempt_ended(
            ended(3 * MS, Outcome::Unavailable, a),
            Some((&retry, input(2))),
        );
        assert_eq!(learned.retry, RetryVerdict::After(10 * MS));
        p.breakers = vec![breaker()];
        let a = p.admit(4 * MS, ASK, &mut None).unwrap();
        let learned = p.attempt_ended(ended(5 * MS, Outcome::Ok, a), Some((&retry, input(3))));
        assert_eq!(
            (learned.retry, learned.breaker),
            (RetryVerdict::GiveUp, Transition::None)
        );
    }
}
