//! One call path's policies as a stack: the state a caller keeps for the calls it makes to one
//! dependency, the order in which the policies admit a call (budgets, a breaker and a bulkhead
//! around the whole call) and an attempt (breaker, throttle, adaptive limit, bulkhead), what is
//! given back when a later one refuses, the order in which they learn from an attempt's end
//! before the retry decides (limit sample, throttle accept, budget count, breaker verdict, then
//! the retry's wait and the budget's grant for it: `attempt_end.rs`), what a call's end
//! settles (`call_end.rs`), and hedging's schedule (`hedging.rs`); `PathPolicies::new`
//! (`build.rs`) builds a path's state from its `PolicyConfig` and random streams. A bulkhead's line is the
//! caller's to time: admission says the attempt waits, and the caller resumes it when the
//! bulkhead hands it a permit.
//!
//! cascade's engine runs its calls through this type, so a service that runs its calls through
//! it makes the simulator's decisions. Everything a policy draws comes from the path's own
//! streams (`R`), seeded by the caller; the results say what changed (a breaker's transition,
//! a limit's move) so the caller can count it, and nothing here reads a clock.
//!
//! ```
//! use cascade_policy::outcome::Outcome;
//! use cascade_policy::path::{AttemptEnd, PathPolicies, RetryVerdict};
//! use cascade_policy::retry::{RetryInput, RetryPolicy};
//! use cascade_policy::table::{BackoffKind, Dur, JitterKind, RawRetry};
//! use cascade_policy::Nanos;
//! use rand::SeedableRng;
//!
//! const MS: Nanos = Nanos::from_ms(1);
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
//!     rate_limit: None,
//!     accrual: Vec::new(),
//!     throttle_rng: stream(1),
//!     limit_rng: stream(2),
//!     jitter_rng: stream(3),
//!     accrual_rng: stream(4),
//! };
//! // Two attempts, 50 ms apart: a `retry` table, checked as the simulator checks it.
//! let retry = RetryPolicy::from_table(&RawRetry {
//!     attempts: Some(2),
//!     backoff: Some(BackoffKind::Constant),
//!     base: Some(Dur(50_000_000)),
//!     jitter: Some(JitterKind::None),
//!     ..RawRetry::default()
//! })
//! .expect("a valid retry table");
//! // No breaker, no bulkhead (`None`, of no waiter type: `()`).
//! path.admit_call::<()>(Nanos::ZERO, false, None, &mut None).unwrap();
//! let admitted = path.admit::<()>(Nanos::ZERO, None, None, &mut None).unwrap();
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
//!     server_refuses_retry: false,
//!     now,
//!     deadline: 1_000 * MS,
//!     min_attempt: Nanos::ZERO,
//!     last_delay: Nanos::ZERO,
//! };
//! let learned = path.attempt_ended(end, Some((&retry, input)));
//! assert_eq!(learned.retry, RetryVerdict::After(50 * MS));
//! ```

mod attempt_end;
mod build;
mod call_end;
mod hedging;

pub use build::PathStreams;
pub use call_end::CallEnd;
pub use hedging::HedgeVerdict;

use crate::accrual::Accrual;
use crate::breaker::{Breaker, BreakerPermit, BreakerPolicy, BreakerScope, State, Transition};
use crate::budget::Budget;
use crate::bulkhead::{Admission, Bulkhead, Wraps};
use crate::hedge::LatencyTracker;
use crate::limit::{LimitPermit, Limiter};
use crate::outcome::Outcome;
use crate::random::unit;
use crate::throttle::Throttle;
use crate::time::Nanos;
use crate::token_bucket::TokenBucket;
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
    /// The token bucket calls take a token from (Envoy's local rate limit).
    pub rate_limit: Option<TokenBucket>,
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

impl BreakerPolicy {
    /// Which breaker attempt number `attempt` (1-based), sent to callee instance `instance`,
    /// asks, and how: the path's one, or the instance's (a breaker per host); a first try
    /// past Brooker's retry-only breaker goes unasked. None for a breaker around the whole
    /// call: `admit_call` asks it, once.
    #[inline]
    pub fn ask_for(&self, attempt: u32, instance: u32) -> Option<BreakerAsk> {
        (self.wraps == Wraps::Attempt).then_some(BreakerAsk {
            index: match self.scope {
                BreakerScope::Instance => instance,
                BreakerScope::Edge => 0,
            },
            first_try_unasked: self.retries_only && attempt == 1,
        })
    }
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
    /// Where it stands with the path's bulkhead.
    pub bulkhead: BulkheadPlace,
}

/// A logical call let in: the pass of a breaker around the whole call, and its place with a
/// bulkhead around the whole call.
#[derive(Debug, PartialEq, Eq)]
pub struct CallAdmitted {
    pub breaker: Option<BreakerPass>,
    pub bulkhead: BulkheadPlace,
}

/// Where a call or an attempt stands with the bulkhead it asked, once the guards let it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkheadPlace {
    /// No bulkhead was asked.
    Unasked,
    /// It holds a permit, to give back with `Bulkhead::release` when it ends.
    Held,
    /// It waits in the bulkhead's line: the caller times the wait (`Bulkhead::max_wait`) and
    /// resumes it when `Bulkhead::release` hands it the permit, or takes it out of the line
    /// (`Bulkhead::abandon`) when the wait is over. What the earlier guards granted stays
    /// held while it waits.
    Waiting,
}

/// The bulkhead to ask at admission, and who asks: the waiter `Bulkhead::release` hands a
/// permit to. The caller keeps bulkheads apart, since paths may share one (a pool).
pub type BulkheadAsk<'a, W> = Option<(&'a mut Bulkhead<W>, W)>;

/// Which guard turned an attempt away; what the earlier ones granted is already given back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    BreakerOpen,
    Throttled,
    Limited,
    /// The bulkhead had no permit and no room in its line.
    BulkheadFull,
    /// The rate limit's bucket had no token.
    RateLimited,
}

impl Refusal {
    /// The outcome the call ends with.
    pub fn outcome(self) -> Outcome {
        match self {
            Refusal::BreakerOpen => Outcome::BreakerOpen,
            Refusal::Throttled => Outcome::Throttled,
            Refusal::Limited => Outcome::Limited,
            Refusal::BulkheadFull => Outcome::BulkheadFull,
            Refusal::RateLimited => Outcome::RateLimited,
        }
    }
}

/// An ended attempt, as its policies learn it.
#[derive(Debug)]
pub struct AttemptEnd {
    pub now: Nanos,
    pub outcome: Outcome,
    /// From send to end.
    pub took: Nanos,
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
    /// Wait this long, then make the next attempt.
    After(Nanos),
}

impl<R: Rng> PathPolicies<R> {
    /// A logical call starts at `now`: the budgets count it (they allow retries and hedges
    /// in proportion to calls), the rate limit takes a token or refuses it (as Envoy's HTTP
    /// filter does before the router, once per call: retries take none), a breaker around the whole call (`breaker_wraps_call`,
    /// breaker 0) is asked once for all its attempts, then a bulkhead around the whole call
    /// (`bulkhead`), whose permit covers every attempt and backoff. A refusal by the bulkhead
    /// gives the breaker's pass back. `asked` tells the caller what the breaker did.
    #[inline(always)]
    pub fn admit_call<W: PartialEq>(
        &mut self,
        now: Nanos,
        breaker_wraps_call: bool,
        bulkhead: BulkheadAsk<'_, W>,
        asked: &mut Option<BreakerAsked>,
    ) -> Result<CallAdmitted, Refusal> {
        if let Some(b) = self.budget.as_mut() {
            b.on_call(now);
        }
        if let Some(b) = self.hedge_budget.as_mut() {
            b.on_call(now);
        }
        if let Some(bucket) = self.rate_limit.as_mut()
            && !bucket.try_take(now)
        {
            return Err(Refusal::RateLimited);
        }
        let pass = match breaker_wraps_call {
            true => Some(self.ask_breaker(now, 0, asked)?),
            false => None,
        };
        let place = self.take_place(now, bulkhead, pass, None)?;
        Ok(CallAdmitted {
            breaker: place.0,
            bulkhead: place.2,
        })
    }

    /// Asks `bulkhead`, last of the guards, for a permit or a place in its line; a refusal
    /// gives back what the earlier guards granted (`pass`, `limit`). What they granted, with
    /// the place.
    #[inline(always)]
    fn take_place<W: PartialEq>(
        &mut self,
        now: Nanos,
        bulkhead: BulkheadAsk<'_, W>,
        pass: Option<BreakerPass>,
        limit: Option<LimitPermit>,
    ) -> Result<(Option<BreakerPass>, Option<LimitPermit>, BulkheadPlace), Refusal> {
        let place = match bulkhead {
            None => BulkheadPlace::Unasked,
            Some((bulkhead, waiter)) => match bulkhead.acquire(now, waiter) {
                Admission::Granted => BulkheadPlace::Held,
                Admission::Queued => BulkheadPlace::Waiting,
                Admission::Rejected => {
                    self.release_unused(pass);
                    if let (Some(permit), Some(limiter)) = (limit, self.limit.as_mut()) {
                        limiter.ignore(permit);
                    }
                    return Err(Refusal::BulkheadFull);
                }
            },
        };
        Ok((pass, limit, place))
    }

    /// Asks breaker `index` at `now`, telling `asked` what it did.
    #[inline(always)]
    fn ask_breaker(
        &mut self,
        now: Nanos,
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

    /// Asks the guards in order (breaker, throttle, adaptive limit, bulkhead) to let an
    /// attempt through at `now`. A refusal gives back what the earlier guards granted (a
    /// breaker's half-open place, a limit's permit). `breaker` is the breaker to ask, if the
    /// path has one around each attempt; `bulkhead`, the bulkhead around each attempt, if
    /// any. `asked` tells the caller what the breaker did, whether or not the attempt got
    /// through.
    #[inline(always)]
    pub fn admit<W: PartialEq>(
        &mut self,
        now: Nanos,
        breaker: Option<BreakerAsk>,
        bulkhead: BulkheadAsk<'_, W>,
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
        let (breaker, limit, bulkhead) = self.take_place(now, bulkhead, pass, limit)?;
        Ok(Admitted {
            breaker,
            limit,
            bulkhead,
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
}

#[cfg(test)]
mod tests;
