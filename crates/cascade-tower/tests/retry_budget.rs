//! A retry storm held by a ratio budget: the downstream fails every request, and a quarter
//! of the calls' worth of retries is all the budget pays for. The layer's decisions are the
//! policy crate's for the same inputs, driven by hand.

mod support;

use cascade_policy::Nanos;
use cascade_policy::outcome::Outcome;
use cascade_policy::path::{AttemptEnd, PathPolicies, RetryVerdict};
use cascade_policy::retry::RetryInput;
use cascade_tower::{Event, seeded_streams};
use support::*;
use tower::{Layer, Service};

const TABLE: &str = r#"
    retry = { attempts = 3, backoff = "constant", base = "10ms", jitter = "none", budget = { kind = "ratio", ratio = 0.25, min_per_s = 0, window = "10s" } }
"#;

/// What each call's retry decisions were, in order: `true` a retry, `false` the budget
/// refused one.
fn decisions(events: &[(u64, Event)]) -> Vec<bool> {
    (events.iter())
        .filter_map(|(_, e)| match e {
            Event::RetryScheduled { .. } => Some(true),
            Event::BudgetExhausted => Some(false),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_ratio_budget_pays_for_a_quarter_of_the_calls_in_retries() {
    let log = log();
    let downstream = Downstream::always(1, 503);
    let mut svc = layer(TABLE).events(log.clone()).layer(downstream.clone());
    for _ in 0..20 {
        let answer = svc.call(request(&[])).await.expect("the 503 is the answer");
        assert_eq!(answer.status(), 503);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Hand-computed: call k may retry while retries + 1 <= k / 4, so calls 4, 8, 12, 16 and
    // 20 retry once each (a second retry would need one more quarter-call), and every call
    // ends on a refused retry: 25 requests, 5 retries, 20 refusals.
    assert_eq!(downstream.seen().len(), 25);
    let events = events_ms(&log);
    let mut expected = Vec::new();
    for k in 1..=20 {
        if k % 4 == 0 {
            expected.push(true);
        }
        expected.push(false);
    }
    assert_eq!(decisions(&events), expected);
    // The same inputs through the policy crate alone, as cascade's engine drives it.
    assert_eq!(decisions_of_the_policy_crate(), expected);
}

/// The calls of the test above driven through `PathPolicies` by hand: each call starts at
/// k × 101 ms (100 ms apart, plus each call's 1 ms), every attempt fails with 503 after 1 ms
/// and a retry waits 10 ms.
fn decisions_of_the_policy_crate() -> Vec<bool> {
    let layer = layer(TABLE);
    let policy = layer.policy();
    let retry = policy.retry().expect("a retry");
    let mut path = PathPolicies::new(policy, 1, seeded_streams(0));
    let ms = Nanos::from_ms(1);
    let mut out = Vec::new();
    let mut now = Nanos::ZERO;
    for _ in 0..20 {
        path.admit_call::<()>(now, false, None, &mut None).unwrap();
        let (mut attempt, mut last_delay, mut was_retry) = (1, Nanos::ZERO, false);
        loop {
            let admitted = path.admit::<()>(now, None, None, &mut None).unwrap();
            now += ms;
            let end = AttemptEnd {
                now,
                outcome: Outcome::Unavailable,
                took: ms,
                breaker: admitted.breaker,
                limit: admitted.limit,
                was_retry,
            };
            let input = RetryInput {
                outcome: Outcome::Unavailable,
                attempt,
                retry_allowed: true,
                retry_after: None,
                server_refuses_retry: false,
                now,
                deadline: Nanos::MAX,
                min_attempt: Nanos::ZERO,
                last_delay,
            };
            match path.attempt_ended(end, Some((retry, input))).retry {
                RetryVerdict::After(wait) => {
                    out.push(true);
                    (attempt, last_delay, was_retry) = (attempt + 1, wait, true);
                    now += wait;
                }
                RetryVerdict::BudgetExhausted => {
                    out.push(false);
                    break;
                }
                RetryVerdict::GiveUp => break,
            }
        }
        now += 100 * ms;
    }
    out
}
