//! The `grpc` feature: a `tonic::Status` reads as the outcome kind its code has in
//! cascade-policy (`Outcome::from_grpc_code`), its `grpc-retry-pushback-ms` as the wait asked
//! for, so a table's `on = [...]` and `retry_after` mean what they mean for HTTP.
#![cfg(feature = "grpc")]

mod support;

use cascade_policy::Nanos;
use cascade_policy::outcome::Outcome;
use cascade_tower::grpc::{PUSHBACK, classify_status, pushback};
use cascade_tower::{CascadeError, Classify, GrpcClassifier};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use support::*;
use tonic::{Code, Status};
use tower::{Layer, Service};

fn status_with_pushback(code: Code, value: &str) -> Status {
    let mut status = Status::new(code, "from the test");
    status
        .metadata_mut()
        .insert(PUSHBACK, value.parse().unwrap());
    status
}

#[test]
fn each_code_reads_as_the_policy_crates_kind() {
    let kinds: Vec<(Code, &str)> = [
        Code::Ok,
        Code::Cancelled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
        Code::Unauthenticated,
    ]
    .into_iter()
    .map(|c| (c, classify_status(&Status::new(c, "")).outcome.name()))
    .collect();
    assert_eq!(
        kinds,
        [
            (Code::Ok, "ok"),
            (Code::Cancelled, "invalid"),
            (Code::Unknown, "internal"),
            (Code::InvalidArgument, "invalid"),
            (Code::DeadlineExceeded, "deadline_exceeded"),
            (Code::NotFound, "invalid"),
            (Code::ResourceExhausted, "overloaded"),
            (Code::FailedPrecondition, "invalid"),
            (Code::Internal, "internal"),
            (Code::Unavailable, "unavailable"),
            (Code::DataLoss, "internal"),
            (Code::Unauthenticated, "invalid"),
        ]
    );
    // An answer is ok, as a 200 is.
    let ok: Result<&tonic::Response<()>, &Status> = Ok(&tonic::Response::new(()));
    assert_eq!(GrpcClassifier.classify(ok).outcome, Outcome::Ok);
}

#[test]
fn the_pushback_is_a_wait_in_milliseconds_and_nothing_else_is() {
    let status = status_with_pushback(Code::Unavailable, "250");
    assert_eq!(
        classify_status(&status).retry_after,
        Some(Nanos::from_ms(250))
    );
    assert!(!classify_status(&status).server_refuses_retry);
    assert_eq!(pushback("0"), Some(Nanos::ZERO));
    // gRFC A6: a negative or malformed value is no wait but "do not retry".
    for value in ["-1", "", "1.5", "2s", " "] {
        assert_eq!(pushback(value), None, "{value:?}");
        let refused = classify_status(&status_with_pushback(Code::Unavailable, value));
        assert_eq!(
            (refused.retry_after, refused.server_refuses_retry),
            (None, true),
            "{value:?}"
        );
    }
    assert_eq!(pushback("99999999999999999999"), Some(Nanos(u64::MAX)));
    // No pushback at all: no wait, and the table decides.
    let plain = classify_status(&Status::unavailable(""));
    assert_eq!(
        (plain.retry_after, plain.server_refuses_retry),
        (None, false)
    );
}

/// A downstream failing with `first` once, then answering.
fn downstream(
    first: Status,
) -> (
    impl Service<http::Request<String>, Response = tonic::Response<()>, Error = Status, Future: Send>
    + Clone,
    Arc<AtomicU32>,
) {
    let calls = Arc::new(AtomicU32::new(0));
    let count = calls.clone();
    let service = tower::service_fn(move |_: http::Request<String>| {
        let n = count.fetch_add(1, Ordering::SeqCst);
        let first = first.clone();
        async move {
            match n {
                0 => Err(first),
                _ => Ok(tonic::Response::new(())),
            }
        }
    });
    (service, calls)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_pushback_replaces_the_backoff_as_a_retry_after_does() {
    let table = r#"
        retry = { attempts = 2, backoff = "constant", base = "10ms", jitter = "none" }
    "#;
    let (inner, calls) = downstream(status_with_pushback(Code::Unavailable, "2000"));
    let mut svc = layer(table).classifier(GrpcClassifier).layer(inner);
    assert!(svc.call(request(&[])).await.is_ok());
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        svc.now(),
        2_000 * MS,
        "waited the 2 s pushed back, not 10 ms"
    );
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_negative_pushback_ends_the_call_without_a_retry() {
    let table = r#"
        retry = { attempts = 3, backoff = "constant", base = "10ms", jitter = "none" }
    "#;
    let (inner, calls) = downstream(status_with_pushback(Code::Unavailable, "-1"));
    let mut svc = layer(table).classifier(GrpcClassifier).layer(inner);
    match svc.call(request(&[])).await {
        Err(CascadeError::Inner(status)) => assert_eq!(status.code(), Code::Unavailable),
        other => panic!("{other:?}"),
    }
    assert_eq!((calls.load(Ordering::SeqCst), svc.now()), (1, Nanos::ZERO));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn on_names_the_same_kinds_for_grpc() {
    let table = r#"
        retry = { attempts = 2, on = ["overloaded"], backoff = "constant", base = "10ms", jitter = "none" }
    "#;
    // RESOURCE_EXHAUSTED is overloaded: retried.
    let (inner, calls) = downstream(Status::resource_exhausted("busy"));
    let mut svc = layer(table).classifier(GrpcClassifier).layer(inner);
    assert!(svc.call(request(&[])).await.is_ok());
    assert_eq!((calls.load(Ordering::SeqCst), svc.now()), (2, 10 * MS));
    // UNAVAILABLE is not in `on`: the call ends with it.
    let (inner, calls) = downstream(Status::unavailable("down"));
    let mut svc = layer(table).classifier(GrpcClassifier).layer(inner);
    match svc.call(request(&[])).await {
        Err(CascadeError::Inner(status)) => assert_eq!(status.code(), Code::Unavailable),
        other => panic!("{other:?}"),
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
