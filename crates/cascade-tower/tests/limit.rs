//! An AIMD limit under overload: four calls take its four permits, the next two are refused
//! at once, four 429s halve the limit down to its minimum, and successes grow it back one
//! at a time while it is in use.

mod support;

use cascade_policy::path::Refusal;
use cascade_tower::{CascadeError, Event};
use std::time::Duration;
use support::*;
use tower::{Layer, Service};

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn an_aimd_limit_backs_off_under_overload_and_grows_back() {
    let log = log();
    let downstream = Downstream::new(|n| match n {
        0..4 => (Duration::from_millis(10), 429),
        _ => (Duration::from_millis(10), 200),
    });
    let table = r#"
        limit = { algorithm = "aimd", initial = 4, min = 1, max = 8, backoff_ratio = 0.5, timeout = "1s" }
    "#;
    let svc = layer(table).events(log.clone()).layer(downstream.clone());
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let mut svc = svc.clone();
            tokio::spawn(async move { svc.call(request(&[])).await })
        })
        .collect();
    let mut results = Vec::new();
    for c in calls {
        results.push(c.await.unwrap());
    }
    let refused = (results.iter())
        .filter(|r| matches!(r, Err(CascadeError::Refused(Refusal::Limited))))
        .count();
    assert_eq!(refused, 2, "two over the limit of four, refused at once");
    assert_eq!(downstream.seen().len(), 4);
    // 4 → 2 → 1 → 1 (0.5 × 1 truncates to 0, held at the minimum) → 1.
    assert_eq!(svc.limit(), Some(1));
    // One call at a time: in use (1 × 2 ≥ limit) grows it, 1 → 2 → 3, then 1 × 2 < 3 holds it.
    for _ in 0..3 {
        let mut s = svc.clone();
        assert_eq!(s.call(request(&[])).await.unwrap().status(), 200);
    }
    assert_eq!(svc.limit(), Some(3));
    let moves: Vec<_> = (events_ms(&log).into_iter())
        .filter(|(_, e)| matches!(e, Event::LimitMoved { .. } | Event::Refused(_)))
        .collect();
    let (limited, moved) = (Event::Refused(Refusal::Limited), |limit, by| {
        Event::LimitMoved { limit, by }
    });
    assert_eq!(
        moves,
        vec![
            (0, limited),
            (0, limited),
            (10, moved(2, -2)),
            (10, moved(1, -1)),
            (20, moved(2, 1)),
            (30, moved(3, 1)),
        ]
    );
}
