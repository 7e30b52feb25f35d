//! One downstream call's trip, the inner service under a cascade-tower stack: the network's
//! one-way latency held before the request and after the answer, the callee instance picked
//! round robin among those up (the simulator's default balancer), and the request sent on the
//! one HTTP/2 connection kept to that instance.

use crate::hold::{Lateness, hold};
use crate::record::Recorder;
use crate::trace::{self, Attempt, CallTrace, Sink};
use crate::{faults, wire};
use bytes::Bytes;
use cascade::engine::rng::Stream;
use cascade::model::{Latency, Model, Outcome};
use http_body_util::Full;
use hyper::client::conn::http2::SendRequest;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

pub type Body = Full<Bytes>;

/// The connections to every service instance, and what a trip needs.
pub struct Net {
    pub model: Arc<Model>,
    pub rec: Arc<Recorder>,
    pub lateness: Arc<Lateness>,
    /// Per service, per instance: its address and the connection to it.
    pub conns: Vec<Vec<(SocketAddr, SendRequest<Body>)>>,
    pub next: Vec<AtomicUsize>,
    pub latency_rng: Mutex<Stream>,
    /// With `--traces`: where the spans go.
    pub traces: Option<Arc<Sink>>,
}

/// A trip that got no answer (the connection failed).
#[derive(Debug)]
pub struct HopError(pub String);

impl std::fmt::Display for HopError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HopError {}

/// The inner service of one call spec's stack.
#[derive(Clone)]
pub struct Hop {
    pub net: Arc<Net>,
    pub to: usize,
    /// The call's edge, which names its spans.
    pub edge: usize,
    pub operation: u16,
    pub latency: Option<Latency>,
    /// The caller's policy cancels: the callee stops its work with the stream.
    pub cancel: bool,
    /// The policy's per-attempt timeout (ns): an attempt dropped after it timed out; one
    /// dropped sooner was abandoned with its call (a deadline, a cancel, a hedge that won).
    pub timeout: Option<u64>,
}

impl Hop {
    /// The attempt's client span, when its call is traced; the trace's headers on `req`.
    fn traced(&self, req: &mut http::Request<Body>) -> Option<Attempt> {
        let (sink, ctx) = (
            self.net.traces.as_ref()?,
            req.extensions().get::<CallTrace>()?,
        );
        let rec = self.net.rec.clone();
        let now = Box::new(move || rec.now());
        let attempt = sink.attempt(&self.net.model, self.edge, ctx, self.timeout, now);
        let (parent, id) = attempt.headers()?;
        let headers = req.headers_mut();
        headers.insert(
            trace::TRACEPARENT,
            http::HeaderValue::from_str(&parent).ok()?,
        );
        headers.insert(trace::ATTEMPT, http::HeaderValue::from_str(&id).ok()?);
        Some(attempt)
    }

    async fn trip(self, mut req: http::Request<Body>) -> Result<http::Response<()>, HopError> {
        let attempt = self.traced(&mut req);
        let answered = |outcome: Outcome| {
            if let Some(a) = attempt {
                a.answered(outcome.name());
            }
        };
        let net = &self.net;
        self.network().await;
        let n = net.conns[self.to].len();
        let now = net.rec.now();
        let up = (0..n)
            .map(|_| net.next[self.to].fetch_add(1, Ordering::Relaxed) % n)
            .find(|&i| !faults::down(&net.model, self.to, i as u32, now));
        let Some(i) = up else {
            answered(Outcome::Unavailable);
            return Ok(wire::answer(Outcome::Unavailable, None));
        };
        let (addr, sender) = &net.conns[self.to][i];
        *req.uri_mut() = format!("http://{addr}/{}", self.operation)
            .parse()
            .map_err(|e| HopError(format!("{e}")))?;
        if self.cancel {
            req.headers_mut()
                .insert(wire::CANCEL, http::HeaderValue::from_static("1"));
        }
        let answer = match sender.clone().send_request(req).await {
            Ok(a) => a,
            Err(e) => {
                answered(Outcome::Unavailable);
                return Err(HopError(e.to_string()));
            }
        };
        let (parts, _) = answer.into_parts();
        self.network().await;
        let answer = http::Response::from_parts(parts, ());
        answered(wire::outcome_of(&answer));
        Ok(answer)
    }

    async fn network(&self) {
        if let Some(l) = &self.latency {
            let ns = l.sample(
                &mut *self
                    .net
                    .latency_rng
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()),
            );
            hold(ns, &self.net.lateness).await;
        }
    }
}

impl tower::Service<http::Request<Body>> for Hop {
    type Response = http::Response<()>;
    type Error = HopError;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<()>, HopError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), HopError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        Box::pin(self.clone().trip(req))
    }
}
