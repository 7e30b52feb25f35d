//! cascade-tower: cascade-policy's call-path stack as a tower middleware, configured from
//! the `[policy.NAME]` tables cascade simulates.
//!
//! `CascadeLayer::from_table` builds the whole stack of one table (the scenario language's
//! keys and `preset`s, checked by `cascade_policy::table::PolicyConfig::new`), in cascade's
//! order: the deadline (from the request's `grpc-timeout` header or `Deadline` extension,
//! less `reserve`; `min_attempt`; each attempt carries its expiry to the callee in the same
//! header), the retry loop (backoff and jitter, Retry-After in its `max`/`replace` modes,
//! budgets), breaker, throttle, adaptive limit, bulkhead (refusing at once, or waiting at
//! most `max_wait`), the attempt with its timeout, hedges, and a fallback answer you give
//! when you build it (`CascadeLayer::from_table_with_fallback`; `from_table` refuses a table
//! with a `fallback`, naming the key, rather than find the missing answer on a failed call).
//! One service instance drives one `cascade_policy::path::PathPolicies`, built by the same
//! constructor (`PathPolicies::new`) as the simulator's caller instances and asked in the
//! same order, so each decision, and each compensation across policies (a later refusal
//! giving back an earlier grant), is the simulator's: the layer holds no policy logic.
//!
//! - **Requests are replayed**, so they must be `Clone`: for HTTP, buffer the body
//!   (`http::Request<http_body_util::Full<bytes::Bytes>>`, or `String`, `Vec<u8>`); a
//!   streaming body cannot be retried. They must also carry a deadline
//!   (`CarriesDeadline`, implemented for `http::Request<B>`).
//! - **Answers are classified** by a `Classify` (`HttpClassifier`: the status through
//!   `Outcome::from_http_status`, `Retry-After` in seconds or as an IMF-fixdate; with the
//!   `grpc` feature, `GrpcClassifier`: a `tonic::Status`'s code through
//!   `Outcome::from_grpc_code`, `grpc-retry-pushback-ms` as the wait asked for).
//! - **Time** is tokio's (`tokio::time::Instant` since the service was made, as `Nanos`),
//!   so tests run it paused. Decisions use the instants they were computed for (an
//!   expiry, a backoff's end, a hedge's due time), never a timer's wake-up, so tokio's 1 ms
//!   timer granularity changes none. The remaining tolerance: an answer's instant is read
//!   from the clock when its future completes, so an answer and a timer due in the same
//!   wake-up are ordered by that reading (an answer at or past the expiry counts as expired).
//! - **Randomness** comes from four seeded streams per service instance
//!   (`seeded_streams`, or yours: `CascadeLayer::streams`).
//! - **Events** (`Events`, `EventLog`) report what the stack did under the names of
//!   cascade's edge metrics; no metrics dependency.
//! - The service is always ready: it never applies tower's `poll_ready` back-pressure.
//!
//! What it leaves out, and why: a per-host breaker (`scope = "instance"`), failure accrual
//! and a retry sent to another host (`retry.other_host`) are the balancer's, below tower, so
//! `from_table` refuses them, naming the key; a named bulkhead `pool` is one service instance's bulkhead
//! (clone the service to share it); a dropped attempt is cancelled (`cancel = true`) and a
//! `release = "answer"` permit comes back when the caller stops waiting.
//!
//! # Example
//!
//! A service calling a downstream with two attempts and a breaker, from a table:
//!
//! ```
//! use cascade_policy::table::{Dur, RawBreaker, RawPolicy, RawRetry};
//! use cascade_tower::{CascadeError, CascadeLayer};
//! use std::convert::Infallible;
//! use tower::{Layer, Service};
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() {
//! let table = RawPolicy {
//!     timeout: Some(Dur(200_000_000)), // 200 ms an attempt
//!     retry: Some(RawRetry { attempts: Some(2), ..RawRetry::default() }),
//!     breaker: Some(RawBreaker { consecutive_failures: Some(5), ..RawBreaker::default() }),
//!     ..RawPolicy::default()
//! };
//! let layer = CascadeLayer::from_table(&table).expect("a valid table").seed(7);
//! // The downstream answers 503 once, then 200.
//! let calls = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
//! let downstream = tower::service_fn(move |_req: http::Request<String>| {
//!     let n = calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
//!     async move {
//!         let status = if n == 0 { 503 } else { 200 };
//!         Ok::<_, Infallible>(http::Response::builder().status(status).body(()).unwrap())
//!     }
//! });
//! let mut client = layer.layer(downstream);
//! let answer: Result<_, CascadeError<Infallible>> =
//!     client.call(http::Request::new(String::new())).await;
//! assert_eq!(answer.unwrap().status(), 200); // retried after the 503
//! # }
//! ```

mod attempt;
mod call;
mod call_state;
pub mod carrier;
pub mod classify;
mod clock;
pub mod error;
pub mod events;
pub mod fallback;
#[cfg(feature = "grpc")]
pub mod grpc;
pub mod grpc_timeout;
mod layer;
mod service;
mod stack;

pub use carrier::{CarriesDeadline, Deadline};
pub use classify::{Classified, Classify, HttpClassifier};
pub use error::CascadeError;
pub use events::{Event, EventLog, Events};
pub use fallback::{Fallback, FallbackFn, NoFallback};
#[cfg(feature = "grpc")]
pub use grpc::GrpcClassifier;
pub use layer::{CascadeLayer, seeded_streams};
pub use service::CascadeService;
