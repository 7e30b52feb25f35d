//! A fallback answers a failed call after its latency, unless the caller's own deadline comes
//! first; a table that falls back is refused without an answer, when the stack is built; a
//! Retry-After replaces the backoff when the table honours it.

mod support;

use cascade_policy::outcome::Outcome;
use cascade_policy::table::RawPolicy;
use cascade_tower::{CascadeError, CascadeLayer, Event};
use std::convert::Infallible;
use support::*;
use tower::{Layer, Service};

fn cached(_: Outcome) -> http::Response<String> {
    http::Response::new("cached".to_string())
}

fn table(toml: &str) -> RawPolicy {
    toml_edit::de::from_str(toml).expect("a table in TOML")
}

/// The answer the tests' fallback gives, as a type the layer can name.
type Cached = cascade_tower::FallbackFn<fn(Outcome) -> http::Response<String>>;

/// The stack of a table that falls back, answering with `cached`.
fn with_fallback(toml: &str) -> CascadeLayer<cascade_tower::HttpClassifier, (), Cached> {
    let answer: fn(Outcome) -> http::Response<String> = cached;
    CascadeLayer::from_table_with_fallback(&table(toml), answer).expect("a valid table")
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_failed_call_falls_back_after_the_fallbacks_latency() {
    let log = log();
    let table = r#"fallback = { latency = "5ms" }"#;
    let mut svc = (with_fallback(table).events(log.clone())).layer(Downstream::always(1, 503));
    let answer = svc.call(request(&[])).await.unwrap();
    assert_eq!(answer.body(), "cached");
    assert_eq!(svc.now(), 6 * MS);
    let from = Outcome::Unavailable;
    let degraded = Event::CallEnded {
        outcome: Outcome::Degraded,
        took: 6 * MS,
    };
    let events = events_ms(&log);
    assert_eq!(events[2..], [(1, Event::FellBack { from }), (6, degraded)]);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_fallback_answers_only_before_the_callers_deadline() {
    let table = r#"fallback = { latency = "5ms" }"#;
    let mut svc = with_fallback(table).layer(Downstream::always(1, 503));
    let error = svc
        .call(request(&[("grpc-timeout", "3m")]))
        .await
        .unwrap_err();
    assert!(matches!(error, CascadeError::DeadlineExceeded), "{error:?}");
    assert_eq!(svc.now(), 3 * MS);
}

#[test]
fn a_table_that_falls_back_is_refused_without_an_answer() {
    let falls_back = table(r#"fallback = { latency = "5ms" }"#);
    let e = CascadeLayer::from_table(&falls_back).unwrap_err();
    assert_eq!(e.path, "fallback");
    assert_eq!(
        e.message,
        "the table falls back, but a layer has no answer of its own to fall back to: build it \
         with `from_table_with_fallback` (or `new_with_fallback`) and the answer, or leave \
         `fallback` out"
    );
    // The same refusal from a config already checked.
    let config = cascade_policy::table::PolicyConfig::new(&falls_back).unwrap();
    assert_eq!(CascadeLayer::new(config).unwrap_err().path, "fallback");
    // With an answer it builds; a table without `fallback` takes an answer too.
    assert!(CascadeLayer::from_table_with_fallback(&falls_back, cached).is_ok());
    assert!(CascadeLayer::from_table_with_fallback(&table(""), cached).is_ok());
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn an_answer_for_a_table_without_fallback_is_never_asked() {
    let mut svc = with_fallback("").layer(Downstream::always(1, 503));
    assert_eq!(svc.call(request(&[])).await.unwrap().status(), 503);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_retry_after_replaces_the_backoff_when_honoured() {
    let answers = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let downstream = tower::service_fn(move |_: http::Request<String>| {
        let n = answers.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move {
            let r = match n {
                0 => http::Response::builder()
                    .status(429)
                    .header("retry-after", "2"),
                _ => http::Response::builder().status(200),
            };
            Ok::<_, Infallible>(r.body(String::new()).unwrap())
        }
    });
    let table = r#"
        retry = { attempts = 2, backoff = "constant", base = "10ms", jitter = "none" }
    "#;
    let mut svc = layer(table).layer(downstream);
    assert_eq!(svc.call(request(&[])).await.unwrap().status(), 200);
    assert_eq!(svc.now(), 2_000 * MS, "waited the 2 s asked for, not 10 ms");
    // Not honoured (`retry_after = false`; honouring is the default): the backoff.
    let table = r#"
        retry = { attempts = 2, backoff = "constant", base = "10ms", jitter = "none", retry_after = false }
    "#;
    let answers = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let downstream = tower::service_fn(move |_: http::Request<String>| {
        let n = answers.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move {
            let status = if n == 0 { 429 } else { 200 };
            let r = http::Response::builder()
                .status(status)
                .header("retry-after", "2");
            Ok::<_, Infallible>(r.body(String::new()).unwrap())
        }
    });
    let mut svc = layer(table).layer(downstream);
    assert_eq!(svc.call(request(&[])).await.unwrap().status(), 200);
    assert_eq!(svc.now(), 10 * MS);
}
