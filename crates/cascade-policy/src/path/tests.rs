//! The stack's order and its compensations, each seen to fail with the step removed.

use super::*;
use crate::backoff::{Backoff, Jitter, Schedule};
use crate::breaker::{BreakerConfig, Window};
use crate::budget::BudgetConfig;
use crate::bulkhead::{Bulkhead, BulkheadConfig, BulkheadRelease, Wraps};
use crate::hedge::{HedgeConfig, HedgeDelay};
use crate::limit::{AimdConfig, LimitAlgorithm, LimitConfig};
use crate::outcome::OutcomeSet;
use crate::retry::{RetryInput, RetryPolicy};
use crate::throttle::ThrottleConfig;
use crate::time::Nanos;
use crate::token_bucket::{Refill, TokenBucketConfig};
use std::convert::Infallible;

const MS: Nanos = Nanos::from_ms(1);
const S: Nanos = Nanos::from_secs(1);

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
    Breaker::new(breaker_config())
}

fn breaker_config() -> BreakerConfig {
    BreakerConfig {
        window: Window::Calls(10),
        min_calls: 100,
        failure_rate: 1.0,
        slow_call_rate: 2.0,
        slow_call_duration: Nanos::MAX,
        consecutive_failures: 1,
        open: S,
        open_multiplier: 1.0,
        open_max: S,
        half_open_calls: 1,
        count: OutcomeSet::of(&[Outcome::Unavailable]),
    }
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
        rate_limit: None,
        accrual: Vec::new(),
        throttle_rng: Zero,
        limit_rng: Zero,
        jitter_rng: Zero,
        accrual_rng: Zero,
    }
}

/// No bulkhead asked.
const NONE: BulkheadAsk<'static, ()> = None;

const ASK: Option<BreakerAsk> = Some(BreakerAsk {
    index: 0,
    first_try_unasked: false,
});

/// Trips the path's breaker at 0 and lets its open time pass: the next ask is the probe.
fn half_open(p: &mut PathPolicies<Zero>) {
    let pass = p
        .admit(Nanos::ZERO, ASK, NONE, &mut None)
        .unwrap()
        .breaker
        .unwrap();
    p.breakers[0].record(Nanos::ZERO, Outcome::Unavailable, MS, pass.permit);
    assert!(p.breakers[0].is_open());
}

fn ended(now: Nanos, outcome: Outcome, admitted: Admitted) -> AttemptEnd {
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
    throttle.reject(Nanos::ZERO, 1.0);
    p.throttle = Some(throttle);
    let mut asked = None;
    assert_eq!(p.admit(S, ASK, NONE, &mut asked), Err(Refusal::Throttled));
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
        .admit(S, ASK, NONE, &mut asked)
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
    assert_eq!(p.admit(S, ASK, NONE, &mut None), Err(Refusal::Limited));
    assert_eq!(Refusal::Limited.outcome(), Outcome::Limited);
    p.limit = None;
    assert!(p.admit(S, ASK, NONE, &mut None).unwrap().breaker.is_some());
}

#[test]
fn an_open_breaker_refuses_before_the_other_guards_count_anything() {
    let mut p = path();
    half_open(&mut p);
    p.throttle = Some(Throttle::new(&ThrottleConfig {
        k: 2.0,
        window: 10 * S,
    }));
    assert_eq!(
        p.admit(500 * MS, ASK, NONE, &mut None),
        Err(Refusal::BreakerOpen)
    );
    let throttle = p.throttle.as_ref().unwrap();
    assert_eq!(
        throttle.reject_probability(500 * MS),
        0.0,
        "no request counted"
    );
    // A first try past a retry-only breaker is not asked: while open it goes unjudged.
    let first_try = Some(BreakerAsk {
        index: 0,
        first_try_unasked: true,
    });
    let mut asked = None;
    let admitted = p.admit(500 * MS, first_try, NONE, &mut asked).unwrap();
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
        other_host: None,
    };
    let input = |attempt| RetryInput {
        outcome: Outcome::Unavailable,
        attempt,
        retry_allowed: true,
        retry_after: None,
        server_refuses_retry: false,
        now: Nanos::ZERO,
        deadline: S,
        min_attempt: Nanos::ZERO,
        last_delay: Nanos::ZERO,
    };
    let admitted = p.admit_call(Nanos::ZERO, false, NONE, &mut None).unwrap();
    assert_eq!(admitted.breaker, None);
    assert_eq!(admitted.bulkhead, BulkheadPlace::Unasked);
    // The first failure trips the breaker (one in a row) and costs a token (2 → 1): at
    // half the bucket, no retry is paid for.
    let a = p.admit(Nanos::ZERO, ASK, NONE, &mut None).unwrap();
    let learned = p.attempt_ended(ended(MS, Outcome::Unavailable, a), Some((&retry, input(1))));
    assert_eq!(learned.breaker, Transition::Opened);
    assert_eq!(learned.retry, RetryVerdict::BudgetExhausted);
    assert_eq!(learned.limit_moved, 0);
    // Without the budget the same failure waits the backoff; a success gives up.
    p.budget = None;
    p.breakers = vec![breaker()];
    let a = p.admit(2 * MS, ASK, NONE, &mut None).unwrap();
    let learned = p.attempt_ended(
        ended(3 * MS, Outcome::Unavailable, a),
        Some((&retry, input(2))),
    );
    assert_eq!(learned.retry, RetryVerdict::After(10 * MS));
    p.breakers = vec![breaker()];
    let a = p.admit(4 * MS, ASK, NONE, &mut None).unwrap();
    let learned = p.attempt_ended(ended(5 * MS, Outcome::Ok, a), Some((&retry, input(3))));
    assert_eq!(
        (learned.retry, learned.breaker),
        (RetryVerdict::GiveUp, Transition::None)
    );
}

/// A bulkhead of one permit and one place in line, waiting at most a second.
fn bulkhead() -> Bulkhead<u32> {
    Bulkhead::new(BulkheadConfig {
        max_concurrent: 1,
        queue: 1,
        max_wait: S,
        release: BulkheadRelease::Return,
        wraps: Wraps::Attempt,
        pool: None,
    })
}

fn limit_of_one() -> Limiter {
    Limiter::new(&LimitConfig {
        algorithm: LimitAlgorithm::Aimd(AimdConfig {
            initial_limit: 1,
            min_limit: 1,
            ..AimdConfig::default()
        }),
        window: None,
    })
}

#[test]
fn a_full_bulkhead_refuses_last_and_gives_back_the_probe_and_the_limit_permit() {
    let mut p = path();
    half_open(&mut p);
    p.limit = Some(limit_of_one());
    let mut b = bulkhead();
    // Two callers already hold the bulkhead's permit and its one place in line.
    assert_eq!(
        b.acquire(Nanos::ZERO, 10),
        crate::bulkhead::Admission::Granted
    );
    assert_eq!(
        b.acquire(Nanos::ZERO, 11),
        crate::bulkhead::Admission::Queued
    );
    // The probe passes the breaker and takes the limit's one permit, then the bulkhead has
    // neither a permit nor a place: both come back.
    let mut asked = None;
    let refused = p.admit(S, ASK, Some((&mut b, 12)), &mut asked);
    assert_eq!(refused, Err(Refusal::BulkheadFull));
    assert_eq!(Refusal::BulkheadFull.outcome(), Outcome::BulkheadFull);
    assert_eq!(asked.map(|a| a.probe), Some(true));
    let again = p
        .admit(S, ASK, NONE, &mut None)
        .expect("probe place and permit free");
    assert!(again.breaker.is_some() && again.limit.is_some());
    assert_eq!(again.bulkhead, BulkheadPlace::Unasked);
}

#[test]
fn a_bulkhead_with_room_in_line_lets_the_attempt_wait_holding_what_it_was_granted() {
    let mut p = path();
    let mut b = bulkhead();
    let first = p
        .admit(Nanos::ZERO, ASK, Some((&mut b, 1)), &mut None)
        .unwrap();
    assert_eq!(first.bulkhead, BulkheadPlace::Held);
    let second = p
        .admit(Nanos::ZERO, ASK, Some((&mut b, 2)), &mut None)
        .unwrap();
    assert_eq!(second.bulkhead, BulkheadPlace::Waiting);
    assert!(second.breaker.is_some(), "kept while it waits");
    // The permit comes back: handed to the waiter, whom the caller resumes.
    assert_eq!(b.release(MS), Some(2));
}

#[test]
fn a_call_level_bulkhead_refusal_gives_the_call_breakers_pass_back() {
    let mut p = path();
    half_open(&mut p);
    let mut b = bulkhead();
    b.acquire(Nanos::ZERO, 10);
    b.acquire(Nanos::ZERO, 11);
    let refused = p.admit_call(S, true, Some((&mut b, 12)), &mut None);
    assert_eq!(refused, Err(Refusal::BulkheadFull));
    let admitted = p.admit_call(S, true, NONE, &mut None).unwrap();
    assert!(
        admitted.breaker.is_some(),
        "the probe's place was given back"
    );
}

#[test]
fn an_empty_rate_limit_refuses_the_call_before_the_breaker_is_asked() {
    let mut p = path();
    half_open(&mut p);
    let cfg = TokenBucketConfig::new(1, 1, S, Refill::Continuous).unwrap();
    p.rate_limit = Some(TokenBucket::new(&cfg, Nanos::ZERO));
    let mut asked = None;
    // The bucket's one token goes to the first call; the half-open probe's place too.
    let first = p.admit_call(S, true, NONE, &mut asked).unwrap();
    assert!(first.breaker.is_some());
    asked = None;
    let refused = p.admit_call(S, true, NONE, &mut asked);
    assert_eq!(refused, Err(Refusal::RateLimited));
    assert_eq!(asked, None, "the breaker is never asked");
    assert_eq!(Refusal::RateLimited.outcome(), Outcome::RateLimited);
    // A second later the bucket holds a token again; retries (`admit`) never take one.
    assert!(p.admit::<()>(S, None, NONE, &mut None).is_ok());
    assert!(p.admit_call(2 * S, false, NONE, &mut None).is_ok());
}

fn call_end(outcome: Option<Outcome>, breaker: Option<BreakerPass>, wraps_call: bool) -> CallEnd {
    CallEnd {
        now: S,
        outcome,
        fell_back_from: None,
        took: MS,
        breaker,
        breaker_wraps_call: wraps_call,
        limit: None,
        retry_active: false,
    }
}

#[test]
fn a_call_end_judges_a_breaker_around_the_call_and_gives_back_any_other_pass() {
    // Around the call: the failure is judged (one in a row trips it).
    let mut p = path();
    let pass = p
        .admit_call(Nanos::ZERO, true, NONE, &mut None)
        .unwrap()
        .breaker;
    let t = p.call_ended(call_end(Some(Outcome::Unavailable), pass, true));
    assert_eq!(t, Transition::Opened);
    // A fallback's rescue is not what the breaker judges: the failure it answered is.
    let mut p = path();
    let pass = p
        .admit_call(Nanos::ZERO, true, NONE, &mut None)
        .unwrap()
        .breaker;
    let mut end = call_end(Some(Outcome::Degraded), pass, true);
    end.fell_back_from = Some(Outcome::Unavailable);
    assert_eq!(p.call_ended(end), Transition::Opened);
    // A half-open probe's pass an attempt held but never sent (its deadline passed while it
    // waited for a bulkhead permit), or a call refused by a guard of its own, or a call
    // dropped: given back unjudged, so the next ask is the probe again.
    for (outcome, wraps_call) in [
        (Some(Outcome::DeadlineExceeded), false),
        (Some(Outcome::BulkheadFull), true),
        (None, true),
    ] {
        let mut p = path();
        half_open(&mut p);
        let pass = p.admit(S, ASK, NONE, &mut None).unwrap().breaker;
        assert_eq!(p.admit(S, ASK, NONE, &mut None), Err(Refusal::BreakerOpen));
        assert_eq!(
            p.call_ended(call_end(outcome, pass, wraps_call)),
            Transition::None
        );
        assert!(p.admit(S, ASK, NONE, &mut None).is_ok(), "{outcome:?}");
    }
}

#[test]
fn a_call_end_forgets_a_limit_permit_no_answer_came_back_for() {
    let mut p = path();
    p.limit = Some(limit_of_one());
    p.admit_call(Nanos::ZERO, false, NONE, &mut None).unwrap();
    let admitted = p.admit(Nanos::ZERO, None, NONE, &mut None).unwrap();
    assert_eq!(
        p.admit(Nanos::ZERO, None, NONE, &mut None),
        Err(Refusal::Limited)
    );
    let mut end = call_end(Some(Outcome::Ok), None, false);
    end.limit = admitted.limit;
    p.call_ended(end);
    assert!(
        p.admit(Nanos::ZERO, None, NONE, &mut None).is_ok(),
        "the permit is free"
    );
}

fn hedging(max: u32, uses_retry_budget: bool) -> HedgeConfig {
    HedgeConfig {
        delay: HedgeDelay::Fixed(10 * MS),
        max,
        budget: None,
        uses_retry_budget,
        min_samples: 0,
        period: S,
    }
}

#[test]
fn hedges_go_on_schedule_up_to_their_count_and_before_the_attempt_expires() {
    let mut p = path();
    p.hedge = Some(LatencyTracker::new(S));
    let cfg = hedging(2, false);
    assert_eq!(p.first_hedge(Nanos::ZERO, &cfg, true, S), Some(10 * MS));
    assert_eq!(
        p.first_hedge(Nanos::ZERO, &cfg, false, S),
        None,
        "not idempotent"
    );
    assert_eq!(
        p.first_hedge(Nanos::ZERO, &cfg, true, 10 * MS),
        None,
        "expires first"
    );
    let due = p.hedge_due(10 * MS, &cfg, 0, S);
    assert_eq!(
        due,
        HedgeVerdict::Send {
            next: Some(20 * MS)
        }
    );
    let last = p.hedge_due(20 * MS, &cfg, 1, S);
    assert_eq!(last, HedgeVerdict::Send { next: None });
    assert_eq!(p.hedge_due(30 * MS, &cfg, 2, S), HedgeVerdict::Enough);
}

#[test]
fn a_hedge_asks_the_retry_budget_when_told_to() {
    let mut p = path();
    p.hedge = Some(LatencyTracker::new(S));
    p.budget = Some(Budget::new(&BudgetConfig::TokenBucket {
        max_tokens: 2.0,
        token_ratio: 0.1,
    }));
    // A failure halves the bucket: no retry, and no hedge asking the same budget, is paid.
    p.budget.as_mut().unwrap().on_attempt(false, true);
    let due = p.hedge_due(Nanos::ZERO, &hedging(1, true), 0, S);
    assert_eq!(due, HedgeVerdict::BudgetExhausted);
    let own = p.hedge_due(Nanos::ZERO, &hedging(1, false), 0, S);
    assert_eq!(own, HedgeVerdict::Send { next: None });
}

#[test]
fn an_attempt_asks_the_breaker_of_its_scope_and_a_retry_only_breaker_skips_first_tries() {
    use crate::breaker::{BreakerPolicy, BreakerScope};
    let policy = |wraps, scope, retries_only| BreakerPolicy {
        config: breaker_config(),
        wraps,
        scope,
        retries_only,
    };
    let ask = |index, first_try_unasked| {
        Some(BreakerAsk {
            index,
            first_try_unasked,
        })
    };
    let edge = policy(Wraps::Attempt, BreakerScope::Edge, false);
    assert_eq!(edge.ask_for(1, 3), ask(0, false));
    let per_host = policy(Wraps::Attempt, BreakerScope::Instance, false);
    assert_eq!(per_host.ask_for(2, 3), ask(3, false));
    let brooker = policy(Wraps::Attempt, BreakerScope::Edge, true);
    assert_eq!(brooker.ask_for(1, 0), ask(0, true));
    assert_eq!(brooker.ask_for(2, 0), ask(0, false));
    let around_the_call = policy(Wraps::Call, BreakerScope::Edge, false);
    assert_eq!(around_the_call.ask_for(1, 0), None);
}
