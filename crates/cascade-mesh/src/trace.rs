//! The mesh's OTLP traces (`cascade-mesh run --traces`): the simulator's own spans
//! (`cascade::trace_export::spans`), named, attributed and encoded as `cascade run
//! --trace-format otlp` writes them, so `cascade import traces` reads a measured and a
//! simulated run alike. A root span per client request, a client span per attempt (hedges
//! included), a server span per job a worker picked up or its service answered. The trace id
//! and the parent span cross each hop in a W3C `traceparent` header, and the attempt's id in
//! `x-cascade-attempt`, so the server span's id is the simulator's (`span_id(seed, attempt,
//! "server")`). What is not traced: a call its own policy refused (breaker, bulkhead, budget)
//! never leaves the caller, so it has no span here, where the simulator writes a zero-length
//! one.

use cascade::engine::trace_ids::{sampled, span_id, trace_id};
use cascade::model::Model;
use cascade::trace_export::active_faults::{Place, active_faults};
use cascade::trace_export::spans::{Kind, Span, Value, edge_names, finish};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How much sooner than its own timeout a dropped attempt still counts as timed out (ns).
const SLACK: u64 = 1_000_000;

/// The file a traced run writes beside summary.json.
pub const FILE: &str = "traces.json";
pub const TRACEPARENT: &str = "traceparent";
pub const ATTEMPT: &str = "x-cascade-attempt";

/// What `--traces` keeps.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The share of client requests traced, each whole (`--trace-sample`), decided by the
    /// simulator's rule on the request's id.
    pub sample: f64,
    /// Most spans kept (`--trace-limit`); a run with more writes no trace.
    pub limit: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            sample: 1.0,
            limit: cascade::engine::trace::DEFAULT_LIMIT as usize,
        }
    }
}

/// The spans of a run, collected as they end.
pub struct Sink {
    seed: u64,
    options: Options,
    spans: Mutex<Vec<Span>>,
    /// More spans ended than the limit holds: the trace is not written.
    over: AtomicBool,
    attempts: AtomicU64,
}

/// The trace context a call's request carries (an extension, so each attempt's clone has it).
#[derive(Debug, Clone)]
pub struct CallTrace {
    pub trace: [u8; 16],
    /// The span its attempts hang under: the request's root, or the calling job's server span.
    pub parent: [u8; 8],
    tries: Arc<Tries>,
}

#[derive(Debug, Default)]
struct Tries {
    /// Attempts started (hedges not counted): the next attempt's `cascade.retry`.
    started: AtomicU32,
    in_flight: AtomicU32,
    /// An attempt was answered: an attempt dropped after that was abandoned, not timed out.
    answered: AtomicBool,
}

impl CallTrace {
    pub fn new(trace: [u8; 16], parent: [u8; 8]) -> CallTrace {
        CallTrace {
            trace,
            parent,
            tries: Arc::default(),
        }
    }
}

/// `00-<trace>-<span>-01`, sampled (an unsampled request carries no header).
pub fn traceparent(trace: &[u8; 16], span: &[u8; 8]) -> String {
    format!("00-{}-{}-01", hex(trace), hex(span))
}

/// The trace and parent span of a `traceparent` header of version 00.
pub fn parse_traceparent(text: &str) -> Option<([u8; 16], [u8; 8])> {
    let mut parts = text.split('-');
    let (version, trace, span, _flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if version != "00" || parts.next().is_some() {
        return None;
    }
    Some((bytes(trace)?, bytes(span)?))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn bytes<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (k, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(text.get(2 * k..2 * k + 2)?, 16).ok()?;
    }
    Some(out)
}

/// One attempt's client span, begun; recorded when answered or, dropped unanswered, as
/// `timeout` when its own timeout had passed and `abandoned` otherwise (its call ended: a
/// deadline, a cancel, another attempt answered), as the simulator's `attempt_timer` and
/// `call_end` end them.
pub struct Attempt {
    sink: Arc<Sink>,
    call: CallTrace,
    /// The attempt's id (`a<n>`), its span's `cascade.request`.
    id: String,
    /// The span, begun; `None` once recorded, or for an edge without names.
    span: Option<Span>,
    /// The faults in force at its start, listed when it ends (as `finish` lists them).
    faults: Vec<String>,
    /// When its own timeout passes, on the run's clock.
    times_out: Option<u64>,
    now: Box<dyn Fn() -> u64 + Send>,
}

impl Attempt {
    /// The `traceparent` header its request carries to the callee, and the attempt's id.
    pub fn headers(&self) -> Option<(String, String)> {
        let span = self.span.as_ref()?;
        Some((traceparent(&span.trace, &span.id), self.id.clone()))
    }

    /// Ends the span with the answer's outcome.
    pub fn answered(mut self, outcome: &str) {
        self.call.tries.answered.store(true, Ordering::Relaxed);
        self.end(outcome);
    }

    fn end(&mut self, outcome: &str) {
        if let Some(mut span) = self.span.take() {
            self.call.tries.in_flight.fetch_sub(1, Ordering::Relaxed);
            span.end = (self.now)().max(span.start);
            let faults = std::mem::take(&mut self.faults);
            self.sink.push(finish(span, outcome, faults));
        }
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        let answered = self.call.tries.answered.load(Ordering::Relaxed);
        // The stack's timer started a moment before this span (it wraps the trip), so it may
        // fire that moment before `times_out`: a millisecond of slack, far more than that
        // moment and less than any timeout a scenario would set apart from a deadline.
        let timed_out = (self.times_out).is_some_and(|t| (self.now)() + SLACK >= t);
        self.end(if timed_out && !answered {
            "timeout"
        } else {
            "abandoned"
        });
    }
}

impl Sink {
    pub fn new(seed: u64, options: Options) -> Sink {
        Sink {
            seed,
            options,
            spans: Mutex::default(),
            over: AtomicBool::new(false),
            attempts: AtomicU64::new(0),
        }
    }

    fn push(&self, span: Span) {
        let mut spans = self.spans.lock().unwrap_or_else(|e| e.into_inner());
        if spans.len() < self.options.limit {
            spans.push(span);
        } else {
            self.over.store(true, Ordering::Relaxed);
        }
    }

    /// The spans, in the order they ended; `Err` with the limit when more ended than it holds.
    pub fn take(&self) -> Result<Vec<Span>, usize> {
        if self.over.load(Ordering::Relaxed) {
            return Err(self.options.limit);
        }
        Ok(std::mem::take(
            &mut *self.spans.lock().unwrap_or_else(|e| e.into_inner()),
        ))
    }

    /// Client `c`'s request number `n` (from 1): its id and, when the sample keeps it, its
    /// call's trace context.
    pub fn root(&self, c: usize, n: u64) -> (String, Option<CallTrace>) {
        let id = format!("r{c}.{n}");
        let kept = sampled(self.seed, &id, self.options.sample);
        let ctx = kept
            .then(|| CallTrace::new(trace_id(self.seed, &id), span_id(self.seed, &id, "request")));
        (id, ctx)
    }

    /// Records client `c`'s request `id` (a root span, INTERNAL, as the simulator's client
    /// request) from `start` to `end` with `outcome`; its name is the edge's span name.
    #[allow(clippy::too_many_arguments)]
    pub fn request(
        &self,
        model: &Model,
        c: usize,
        edge: usize,
        id: &str,
        ctx: &CallTrace,
        (start, end): (u64, u64),
        outcome: &str,
    ) {
        let Some((client, name)) = edge_names(model, edge) else {
            return;
        };
        let span = Span {
            service: client,
            trace: ctx.trace,
            id: ctx.parent,
            parent: None,
            name,
            kind: Kind::Internal,
            start,
            end: end.max(start),
            attributes: vec![("cascade.request", Value::Str(id.to_string()))],
            error: None,
        };
        self.push(finish(
            span,
            outcome,
            active_faults(model, Place::Client(c), start),
        ));
    }

    /// Begins an attempt of the call `ctx` on `edge` at `now()`, under a per-attempt `timeout`
    /// (ns): a retry number after the attempts before it, a hedge when another attempt of the
    /// call is still in flight (a retry starts only after the one before it ended).
    pub fn attempt(
        self: &Arc<Self>,
        model: &Model,
        edge: usize,
        ctx: &CallTrace,
        timeout: Option<u64>,
        now: Box<dyn Fn() -> u64 + Send>,
    ) -> Attempt {
        let tries = &ctx.tries;
        let hedge = tries.in_flight.fetch_add(1, Ordering::Relaxed) > 0;
        let retry = if hedge {
            tries.started.load(Ordering::Relaxed).saturating_sub(1)
        } else {
            tries.started.fetch_add(1, Ordering::Relaxed)
        };
        let id = format!("a{}", self.attempts.fetch_add(1, Ordering::Relaxed) + 1);
        let (e, start) = (&model.edges[edge], now());
        let faults = active_faults(model, Place::Edge(edge, e.total), start);
        let span = edge_names(model, edge).map(|(caller, name)| Span {
            service: caller,
            trace: ctx.trace,
            id: span_id(self.seed, &id, "client"),
            parent: Some(ctx.parent),
            name,
            kind: Kind::Client,
            start,
            end: start,
            attributes: vec![
                ("cascade.request", Value::Str(id.clone())),
                ("cascade.retry", Value::Int(i64::from(retry))),
                ("cascade.hedge", Value::Bool(hedge)),
                (
                    "peer.service",
                    Value::Str(model.services[e.to].name.clone()),
                ),
            ],
            error: None,
        });
        if span.is_none() {
            tries.in_flight.fetch_sub(1, Ordering::Relaxed);
        }
        Attempt {
            sink: self.clone(),
            call: ctx.clone(),
            id,
            span,
            faults,
            times_out: timeout.map(|t| start.saturating_add(t)),
            now,
        }
    }

    /// The server span of attempt `attempt` (its client span the parent): its id, under
    /// which the job's own calls hang.
    pub fn server_id(&self, attempt: &str) -> [u8; 8] {
        span_id(self.seed, attempt, "server")
    }

    /// Records the server span of `attempt` at `service#instance` for `operation` (from 1; 0
    /// for none), named by the operation called, from the job's start (its worker, or its
    /// arrival when answered without one) to its answer.
    #[allow(clippy::too_many_arguments)]
    pub fn job(
        &self,
        model: &Model,
        (service, instance, operation): (usize, u32, u16),
        (trace, parent): ([u8; 16], [u8; 8]),
        attempt: &str,
        (start, end): (u64, u64),
        outcome: &str,
    ) {
        let svc = &model.services[service];
        let name = match operation {
            0 => svc.name.clone(),
            o => (svc.operations.get(usize::from(o) - 1))
                .map_or_else(|| svc.name.clone(), |op| op.name.clone()),
        };
        let span = Span {
            service: svc.name.clone(),
            trace,
            id: self.server_id(attempt),
            parent: Some(parent),
            name,
            kind: Kind::Server,
            start,
            end: end.max(start),
            attributes: vec![
                ("cascade.request", Value::Str(attempt.to_string())),
                ("cascade.instance", Value::Int(i64::from(instance))),
            ],
            error: None,
        };
        let place = Place::Instance(service, instance, operation);
        self.push(finish(span, outcome, active_faults(model, place, start)));
    }
}

#[cfg(test)]
mod tests;
