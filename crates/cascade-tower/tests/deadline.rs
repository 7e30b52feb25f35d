//! A deadline propagated through two hops in the `grpc-timeout` header: each hop keeps its
//! `reserve` back, bounds its attempt by its timeout, and tells the next hop what is left.

mod support;

use cascade_tower::{CascadeError, CascadeLayer};
use std::convert::Infallible;
use support::*;
use tower::{Layer, Service, ServiceExt};

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn two_hops_each_keep_their_reserve_and_pass_the_rest_on_in_the_header() {
    // The leaf never answers in time.
    let leaf = Downstream::always(10_000, 200);
    let middle = layer(r#"reserve = "20ms""#).layer(leaf.clone());
    // Between the hops, the request crosses the wire: only its headers survive.
    let wire = tower::service_fn(move |req: http::Request<String>| {
        let mut middle = middle.clone();
        async move {
            let mut over_the_wire = http::Request::new(String::new());
            *over_the_wire.headers_mut() = req.headers().clone();
            let seen = over_the_wire.headers()["grpc-timeout"]
                .to_str()
                .unwrap()
                .to_string();
            let answer = middle.ready().await?.call(over_the_wire).await;
            Ok::<_, CascadeError<Infallible>>((seen, answer))
        }
    });
    // The front answers its own caller within 500 ms, keeps 50 ms, and gives an attempt
    // 300 ms.
    let front: CascadeLayer = layer(
        r#"
        timeout = "300ms"
        reserve = "50ms"
    "#,
    );
    let mut front = front.classifier(PassThrough).layer(wire);
    let (header_to_middle, middle_answer) = front
        .call(request(&[("grpc-timeout", "500m")]))
        .await
        .expect("the middle hop answered");
    // The front's deadline is 450 ms, its attempt's expiry 300 ms: that is what it sends.
    assert_eq!(header_to_middle, "300000u");
    // The middle keeps 20 ms: 280 ms for the leaf, whose answer never comes in time.
    assert_eq!(leaf.seen()[0].grpc_timeout.as_deref(), Some("280000u"));
    assert!(
        matches!(middle_answer, Err(CascadeError::DeadlineExceeded)),
        "{middle_answer:?}"
    );
    assert_eq!(front.now(), 280 * MS);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn too_little_time_left_sends_nothing() {
    let downstream = Downstream::always(1, 200);
    let mut svc = layer(r#"min_attempt = "100ms""#).layer(downstream.clone());
    let error = svc
        .call(request(&[("grpc-timeout", "99m")]))
        .await
        .unwrap_err();
    assert!(matches!(error, CascadeError::DeadlineExceeded), "{error:?}");
    assert!(downstream.seen().is_empty());
    // Without `propagate_deadline`, the caller's deadline does not bound the call, nor go on.
    let mut svc =
        layer("min_attempt = \"100ms\"\npropagate_deadline = false").layer(downstream.clone());
    assert!(svc.call(request(&[("grpc-timeout", "99m")])).await.is_ok());
    assert_eq!(downstream.seen()[0].grpc_timeout, None);
}

/// The middle hop's answer as the front's outcome: answered.
#[derive(Clone, Copy)]
struct PassThrough;

impl<T, E> cascade_tower::Classify<T, E> for PassThrough {
    fn classify(&self, _: Result<&T, &E>) -> cascade_tower::Classified {
        cascade_tower::Classified::unanswered(cascade_policy::outcome::Outcome::Ok)
    }
}
