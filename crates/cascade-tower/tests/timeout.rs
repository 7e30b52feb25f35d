//! A per-try timeout: the first attempt hangs, expires at its timeout, and the retry after
//! the backoff answers. The callee is told each attempt's time in `grpc-timeout`.

mod support;

use cascade_policy::outcome::Outcome;
use cascade_tower::Event;
use std::time::Duration;
use support::*;
use tower::{Layer, Service};

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_hanging_attempt_expires_at_its_timeout_and_the_retry_answers() {
    let log = log();
    let downstream = Downstream::new(|n| match n {
        0 => (Duration::from_secs(10), 200),
        _ => (Duration::from_millis(5), 200),
    });
    let table = r#"
        timeout = "50ms"
        retry = { attempts = 2, backoff = "constant", base = "10ms", jitter = "none", on = ["timeout"] }
    "#;
    let mut svc = layer(table).events(log.clone()).layer(downstream.clone());
    let answer = svc.call(request(&[])).await.expect("the retry answers");
    assert_eq!(answer.status(), 200);
    assert_eq!(
        svc.now(),
        65 * MS,
        "50 ms timeout, 10 ms backoff, 5 ms answer"
    );
    let seen = downstream.seen();
    assert_eq!(
        seen,
        vec![
            Seen {
                at_ms: 0,
                grpc_timeout: Some("50000000n".into())
            },
            Seen {
                at_ms: 60,
                grpc_timeout: Some("50000000n".into())
            },
        ]
    );
    let wait = 10 * MS;
    assert_eq!(
        events_ms(&log),
        vec![
            (0, Event::CallStarted),
            (0, Event::AttemptSent { attempt: 1 }),
            (50, Event::RetryScheduled { attempt: 2, wait }),
            (60, Event::AttemptSent { attempt: 2 }),
            (
                65,
                Event::CallEnded {
                    outcome: Outcome::Ok,
                    took: 65 * MS
                }
            ),
        ]
    );
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn without_a_retry_the_timeout_is_the_calls_error() {
    let mut svc = layer(r#"timeout = "50ms""#).layer(Downstream::always(1_000, 200));
    let error = svc.call(request(&[])).await.unwrap_err();
    assert!(
        matches!(error, cascade_tower::CascadeError::Timeout),
        "{error:?}"
    );
    assert_eq!(svc.now(), 50 * MS);
}
