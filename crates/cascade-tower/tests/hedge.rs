//! A hedged attempt: a slow first copy, a second sent after the hedge delay, the first
//! success ending the attempt; each copy carries what is left of the attempt's time.

mod support;

use cascade_policy::outcome::Outcome;
use cascade_tower::Event;
use std::time::Duration;
use support::*;
use tower::{Layer, Service};

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_slow_attempt_is_hedged_and_the_first_answer_wins() {
    let log = log();
    let downstream = Downstream::new(|n| match n {
        0 => (Duration::from_millis(100), 200),
        _ => (Duration::from_millis(10), 200),
    });
    let table = r#"
        timeout = "200ms"
        hedge = { delay = "20ms", max = 1 }
    "#;
    let mut svc = layer(table).events(log.clone()).layer(downstream.clone());
    assert_eq!(svc.call(request(&[])).await.unwrap().status(), 200);
    assert_eq!(
        svc.now(),
        30 * MS,
        "the hedge, sent at 20 ms, answers at 30 ms"
    );
    let seen = downstream.seen();
    assert_eq!(
        seen,
        vec![
            Seen {
                at_ms: 0,
                grpc_timeout: Some("200000u".into())
            },
            Seen {
                at_ms: 20,
                grpc_timeout: Some("180000u".into())
            },
        ]
    );
    assert_eq!(
        events_ms(&log),
        vec![
            (0, Event::CallStarted),
            (0, Event::AttemptSent { attempt: 1 }),
            (20, Event::HedgeSent),
            (
                30,
                Event::CallEnded {
                    outcome: Outcome::Ok,
                    took: 30 * MS
                }
            ),
        ]
    );
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_non_idempotent_call_is_never_hedged() {
    let downstream = Downstream::always(100, 200);
    let table = r#"hedge = { delay = "20ms", max = 1 }"#;
    let mut svc = layer(table).idempotent(false).layer(downstream.clone());
    assert_eq!(svc.call(request(&[])).await.unwrap().status(), 200);
    assert_eq!(downstream.seen().len(), 1);
}
