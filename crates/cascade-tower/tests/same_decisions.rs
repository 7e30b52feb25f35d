//! Property: for any sequence of answers (status and latency), the layer decides what the
//! policy crate decides when driven as cascade's engine drives it (`src/engine/caller/`):
//! the same attempts, retries and their waits, budget refusals, guard refusals, breaker
//! transitions and limit moves, at the same instants.

mod support;

use cascade_policy::Nanos;
use cascade_policy::deadline::{NO_DEADLINE, attempt_expiry};
use cascade_policy::outcome::Outcome;
use cascade_policy::path::{AttemptEnd, CallEnd, PathPolicies, RetryVerdict};
use cascade_policy::retry::RetryInput;
use cascade_policy::table::PolicyConfig;
use cascade_tower::{Event, seeded_streams};
use proptest::prelude::*;
use std::time::Duration;
use support::*;
use tower::{Layer, Service};

/// Retries with full jitter and a token bucket, a breaker on consecutive failures, the SRE
/// throttle and an AIMD limit: every guard that decides on a sequential call path.
const TABLE: &str = r#"
    timeout = "40ms"
    retry = { attempts = 3, backoff = "exponential", base = "5ms", max = "40ms", jitter = "full", budget = { kind = "token_bucket", max_tokens = 6, token_ratio = 0.5 } }
    breaker = { consecutive_failures = 4, open = "200ms", half_open_calls = 1 }
    throttle = { k = 1.5, window = "2s" }
    limit = { algorithm = "aimd", initial = 3, min = 1, max = 5, backoff_ratio = 0.5, timeout = "30ms" }
"#;

const STATUSES: [u16; 5] = [200, 503, 429, 500, 400];

/// The events a decision shows, the call's start and the attempts' sends aside.
fn decisions(events: Vec<(Nanos, Event)>) -> Vec<(Nanos, Event)> {
    (events.into_iter())
        .filter(|(_, e)| !matches!(e, Event::CallStarted))
        .collect()
}

/// The layer: `calls` calls one after another, `gap` apart, the downstream answering its
/// `n`th request with `answers[n % len]`.
fn through_the_layer(answers: &[(u16, u64)], calls: usize, gap: u64) -> Vec<(Nanos, Event)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let answers = answers.to_vec();
    runtime.block_on(async move {
        let log = log();
        let downstream = Downstream::new(move |n| {
            let (status, ms) = answers[n % answers.len()];
            (Duration::from_millis(ms), status)
        });
        let mut svc = layer(TABLE).events(log.clone()).layer(downstream);
        for _ in 0..calls {
            let _ = svc.call(request(&[])).await;
            tokio::time::sleep(Duration::from_millis(gap)).await;
        }
        decisions(log.take())
    })
}

/// When a tokio timer set for `at` wakes: at the next millisecond tick. The downstream's
/// answers and the test's next call come then; the layer's own decisions never do (they take
/// the instants computed for them), which is what this test holds.
fn woken(at: Nanos) -> Nanos {
    let ms = Nanos::from_ms(1).0;
    Nanos(at.0.div_ceil(ms) * ms)
}

/// The policy crate alone, driven in the engine's order for the same calls.
fn through_the_policy_crate(answers: &[(u16, u64)], calls: usize, gap: u64) -> Vec<(Nanos, Event)> {
    let policy: PolicyConfig = layer(TABLE).policy().clone();
    let retry = policy.retry().unwrap();
    let mut path = PathPolicies::new(&policy, 1, seeded_streams(0));
    let mut out = Vec::new();
    let mut emit = |at, e| out.push((at, e));
    let (ms, mut now, mut sent) = (Nanos::from_ms(1), Nanos::ZERO, 0);
    for _ in 0..calls {
        let started = now;
        path.admit_call::<()>(now, false, None, &mut None).unwrap();
        let (mut attempt, mut last_delay, mut retry_active) = (0, Nanos::ZERO, false);
        let outcome = loop {
            attempt += 1;
            let ask = policy.breaker().and_then(|b| b.ask_for(attempt, 0));
            let mut asked = None;
            let admitted = path.admit::<()>(now, ask, None, &mut asked);
            if let Some(a) = asked {
                if a.transition != cascade_policy::breaker::Transition::None {
                    emit(now, Event::Breaker(a.transition));
                }
                if a.probe {
                    emit(now, Event::HalfOpenProbe);
                }
            }
            let admitted = match admitted {
                Ok(a) => a,
                Err(refusal) => {
                    emit(now, Event::Refused(refusal));
                    break refusal.outcome();
                }
            };
            emit(now, Event::AttemptSent { attempt });
            let expiry = attempt_expiry(now, attempt, policy.timeout(), None, NO_DEADLINE);
            let (status, latency) = answers[sent % answers.len()];
            sent += 1;
            let answered = woken(now + latency * ms);
            let (at, outcome) = match answered >= expiry {
                true => (expiry, Outcome::Timeout),
                false => (answered, Outcome::from_http_status(status)),
            };
            let end = AttemptEnd {
                now: at,
                outcome,
                took: at - now,
                breaker: admitted.breaker,
                limit: admitted.limit,
                was_retry: std::mem::take(&mut retry_active),
            };
            let input = RetryInput {
                outcome,
                attempt,
                retry_allowed: true,
                retry_after: None,
                server_refuses_retry: false,
                now: at,
                deadline: NO_DEADLINE,
                min_attempt: Nanos::ZERO,
                last_delay,
            };
            let retrying = (!outcome.is_success()).then_some((retry, input));
            let learned = path.attempt_ended(end, retrying);
            if learned.limit_moved != 0 {
                let limit = path.limit.as_ref().unwrap().limit();
                emit(
                    at,
                    Event::LimitMoved {
                        limit,
                        by: learned.limit_moved,
                    },
                );
            }
            if learned.breaker != cascade_policy::breaker::Transition::None {
                emit(at, Event::Breaker(learned.breaker));
            }
            now = at;
            match learned.retry {
                RetryVerdict::After(wait) => {
                    emit(
                        at,
                        Event::RetryScheduled {
                            attempt: attempt + 1,
                            wait,
                        },
                    );
                    (last_delay, retry_active) = (wait, path.budget.is_some());
                    now = at + wait;
                }
                RetryVerdict::BudgetExhausted => {
                    emit(at, Event::BudgetExhausted);
                    break outcome;
                }
                RetryVerdict::GiveUp => break outcome,
            }
        };
        let transition = path.call_ended(CallEnd {
            now,
            outcome: Some(outcome),
            fell_back_from: None,
            took: now - started,
            breaker: None,
            breaker_wraps_call: false,
            limit: None,
            retry_active,
        });
        if transition != cascade_policy::breaker::Transition::None {
            emit(now, Event::Breaker(transition));
        }
        emit(
            now,
            Event::CallEnded {
                outcome,
                took: now - started,
            },
        );
        now = woken(now) + gap * ms;
    }
    out
}

proptest! {
    // A failure prints its shrunk input; no regression file is written into the tree.
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_answers_get_the_policy_crates_decisions(
        answers in prop::collection::vec((0..STATUSES.len(), 1..60u64), 1..40),
        calls in 1..40usize,
        gap in 0..300u64,
    ) {
        let answers: Vec<(u16, u64)> = answers.into_iter().map(|(s, ms)| (STATUSES[s], ms)).collect();
        let layer = through_the_layer(&answers, calls, gap);
        let policy_crate = through_the_policy_crate(&answers, calls, gap);
        prop_assert_eq!(layer, policy_crate);
    }
}
