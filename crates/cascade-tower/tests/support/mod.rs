//! What the tests share: a table from TOML, a scripted downstream on tokio's paused clock,
//! and the stack's events as the test reads them.

#![allow(dead_code)] // each test file uses its own part

use cascade_policy::Nanos;
use cascade_policy::table::RawPolicy;
use cascade_tower::{CascadeLayer, Event, EventLog};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::Instant;
use tower::Service;

pub const MS: Nanos = Nanos::from_ms(1);

/// The stack of a `[policy.NAME]` table written in TOML, as a scenario writes it.
pub fn layer(toml: &str) -> CascadeLayer {
    let table: RawPolicy = toml_edit::de::from_str(toml).expect("a table in TOML");
    CascadeLayer::from_table(&table).expect("a valid table")
}

/// A request with no body and the headers given.
pub fn request(headers: &[(&str, &str)]) -> http::Request<String> {
    let mut r = http::Request::builder();
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.body(String::new()).unwrap()
}

/// What the downstream saw of one request: when it came (ms since the test's start) and its
/// `grpc-timeout` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub at_ms: u64,
    pub grpc_timeout: Option<String>,
}

/// A downstream whose `n`th request (0-based) is answered after `script(n).0` with status
/// `script(n).1`; it logs what it saw.
#[derive(Clone)]
pub struct Downstream {
    script: Arc<dyn Fn(usize) -> (Duration, u16) + Send + Sync>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    start: Instant,
}

impl Downstream {
    pub fn new(script: impl Fn(usize) -> (Duration, u16) + Send + Sync + 'static) -> Self {
        Downstream {
            script: Arc::new(script),
            seen: Arc::default(),
            start: Instant::now(),
        }
    }

    /// Always `status` after `ms`.
    pub fn always(ms: u64, status: u16) -> Self {
        Downstream::new(move |_| (Duration::from_millis(ms), status))
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Service<http::Request<String>> for Downstream {
    type Response = http::Response<String>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<String>) -> Self::Future {
        let mut seen = self.seen.lock().unwrap();
        let (delay, status) = (self.script)(seen.len());
        seen.push(Seen {
            at_ms: Instant::now().duration_since(self.start).as_millis() as u64,
            grpc_timeout: (req.headers().get("grpc-timeout"))
                .map(|v| v.to_str().unwrap().to_string()),
        });
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            Ok(http::Response::builder()
                .status(status)
                .body(String::new())
                .unwrap())
        })
    }
}

/// The events logged, with their instants in whole milliseconds.
pub fn events_ms(log: &EventLog) -> Vec<(u64, Event)> {
    (log.take().into_iter())
        .map(|(at, e)| (at.0 / 1_000_000, e))
        .collect()
}

/// Shorthand for a log shared by the layer and the test.
pub fn log() -> Arc<EventLog> {
    Arc::new(EventLog::default())
}
