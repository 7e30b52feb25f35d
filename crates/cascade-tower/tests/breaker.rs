//! A breaker trips on three failures in a row, refuses at once while open, lets one probe
//! through after its open time, and closes on the probe's success.

mod support;

use cascade_policy::breaker::{State, Transition};
use cascade_policy::path::Refusal;
use cascade_tower::{CascadeError, Event};
use std::time::Duration;
use support::*;
use tower::{Layer, Service};

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_breaker_trips_refuses_probes_and_closes() {
    let log = log();
    // Three 503s, then answers.
    let downstream = Downstream::new(|n| (Duration::from_millis(1), if n < 3 { 503 } else { 200 }));
    let table = r#"
        breaker = { consecutive_failures = 3, open = "1s", half_open_calls = 1, count = ["unavailable"] }
    "#;
    let mut svc = layer(table).events(log.clone()).layer(downstream.clone());
    for _ in 0..3 {
        assert_eq!(svc.call(request(&[])).await.unwrap().status(), 503);
        tokio::time::sleep(Duration::from_millis(9)).await;
    }
    // Opened by the third failure, at 21 ms, until 1.021 s.
    assert_eq!(svc.breaker_state(), Some(State::Open { until: 1_021 * MS }));
    let refused = svc.call(request(&[])).await.unwrap_err();
    assert!(
        matches!(refused, CascadeError::Refused(Refusal::BreakerOpen)),
        "{refused:?}"
    );
    assert_eq!(downstream.seen().len(), 3, "nothing sent while open");
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(svc.now(), 1_030 * MS);
    assert_eq!(svc.call(request(&[])).await.unwrap().status(), 200);
    assert_eq!(svc.breaker_state(), Some(State::Closed));
    let transitions: Vec<_> = (events_ms(&log).into_iter())
        .filter(|(_, e)| {
            matches!(
                e,
                Event::Breaker(_) | Event::HalfOpenProbe | Event::Refused(_)
            )
        })
        .collect();
    assert_eq!(
        transitions,
        vec![
            (21, Event::Breaker(Transition::Opened)),
            (30, Event::Refused(Refusal::BreakerOpen)),
            (1_030, Event::Breaker(Transition::HalfOpened)),
            (1_030, Event::HalfOpenProbe),
            (1_031, Event::Breaker(Transition::Closed)),
        ]
    );
}

#[test]
fn what_only_a_balancer_can_do_is_refused_naming_the_key() {
    use cascade_policy::table::{RawAccrual, RawBreaker, RawPolicy};
    use cascade_tower::CascadeLayer;
    let per_host = RawPolicy {
        breaker: Some(RawBreaker {
            scope: Some(cascade_policy::breaker::BreakerScope::Instance),
            ..RawBreaker::default()
        }),
        ..RawPolicy::default()
    };
    let e = CascadeLayer::from_table(&per_host).unwrap_err();
    assert_eq!(e.path, "breaker.scope");
    let accrual = RawPolicy {
        failure_accrual: Some(RawAccrual::default()),
        ..RawPolicy::default()
    };
    assert_eq!(
        CascadeLayer::from_table(&accrual).unwrap_err().path,
        "failure_accrual"
    );
    let other_host = RawPolicy {
        retry: Some(cascade_policy::table::RawRetry {
            other_host: Some(true),
            ..Default::default()
        }),
        ..RawPolicy::default()
    };
    assert_eq!(
        CascadeLayer::from_table(&other_host).unwrap_err().path,
        "retry.other_host"
    );
}
