//! A full bulkhead refuses at once; one with a line lets a call wait at most `max_wait`, and
//! hands a permit that comes back to the first in line. The service itself is always ready:
//! no call is held back by `poll_ready`.

mod support;

use cascade_policy::path::Refusal;
use cascade_tower::{CascadeError, Event};
use std::time::Duration;
use support::*;
use tower::{Layer, Service};

type Outcome = Result<u16, String>;

/// Starts `n` calls at once, then waits for them all: each call's status or error, and when
/// it ended.
async fn at_once<S>(svc: &S, n: usize) -> Vec<(u64, Outcome)>
where
    S: Service<http::Request<String>, Response = http::Response<String>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: std::fmt::Debug + Send,
{
    let start = tokio::time::Instant::now();
    let calls: Vec<_> = (0..n)
        .map(|_| {
            let mut svc = svc.clone();
            tokio::spawn(async move {
                let r = svc.call(request(&[])).await;
                let at = start.elapsed().as_millis() as u64;
                (
                    at,
                    r.map(|a| a.status().as_u16()).map_err(|e| format!("{e:?}")),
                )
            })
        })
        .collect();
    let mut out = Vec::new();
    for c in calls {
        out.push(c.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_full_bulkhead_refuses_at_once() {
    let log = log();
    let downstream = Downstream::always(100, 200);
    let svc = layer("bulkhead = { max_concurrent = 2 }")
        .events(log.clone())
        .layer(downstream.clone());
    let mut ready = svc.clone();
    // Ready even when full: the refusal is the call's, at once.
    let ready_now = std::future::poll_fn(|cx| std::task::Poll::Ready(ready.poll_ready(cx))).await;
    assert!(matches!(ready_now, std::task::Poll::Ready(Ok(()))));
    let results = at_once(&svc, 3).await;
    let full = format!("{:?}", CascadeError::<()>::Refused(Refusal::BulkheadFull));
    assert_eq!(
        results,
        vec![(100, Ok(200)), (100, Ok(200)), (0, Err(full))]
    );
    assert_eq!(downstream.seen().len(), 2);
    assert_eq!(svc.bulkhead_in_use(), Some(0), "every permit came back");
    let refusals: Vec<_> = (events_ms(&log).into_iter())
        .filter(|(_, e)| matches!(e, Event::Refused(_)))
        .collect();
    assert_eq!(refusals, vec![(0, Event::Refused(Refusal::BulkheadFull))]);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_call_waits_in_line_at_most_max_wait() {
    let downstream = Downstream::always(100, 200);
    let table = r#"bulkhead = { max_concurrent = 1, queue = 1, max_wait = "30ms" }"#;
    let svc = layer(table).layer(downstream.clone());
    let full = format!("{:?}", CascadeError::<()>::Refused(Refusal::BulkheadFull));
    // One holds the permit, one waits 30 ms and gives up, the third finds the line full.
    let results = at_once(&svc, 3).await;
    assert_eq!(
        results,
        vec![(100, Ok(200)), (30, Err(full.clone())), (0, Err(full))]
    );
    // Waiting long enough, the second gets the first's permit when it comes back.
    let table = r#"bulkhead = { max_concurrent = 1, queue = 1, max_wait = "150ms" }"#;
    let svc = layer(table).layer(downstream.clone());
    let results = at_once(&svc, 2).await;
    assert_eq!(results, vec![(100, Ok(200)), (200, Ok(200))]);
    // Sent: the first batch's holder at 0; this batch (from 100 ms) at 100 ms and, the
    // permit handed over, at 200 ms.
    let sent: Vec<_> = downstream.seen().iter().map(|s| s.at_ms).collect();
    assert_eq!(sent, vec![0, 100, 200]);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_call_dropped_while_it_waits_leaves_the_line_and_one_that_holds_a_permit_gives_it_back() {
    let downstream = Downstream::always(100, 200);
    let table = r#"bulkhead = { max_concurrent = 1, queue = 1, max_wait = "1s" }"#;
    let svc = layer(table).layer(downstream.clone());
    let (mut a, mut b) = (svc.clone(), svc.clone());
    let holder = tokio::spawn(async move { a.call(request(&[])).await });
    let waiter = tokio::spawn(async move { b.call(request(&[])).await });
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(svc.bulkhead_in_use(), Some(1));
    waiter.abort();
    holder.abort();
    let _ = (waiter.await, holder.await);
    assert_eq!(svc.bulkhead_in_use(), Some(0));
    let mut c = svc.clone();
    assert_eq!(c.call(request(&[])).await.unwrap().status(), 200);
}
