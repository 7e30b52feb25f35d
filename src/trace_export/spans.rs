//! The spans of a trace, built from its rows after the run (the engine does nothing more for
//! them): a root span per client request, a client span per attempt, hedge or refusal, and a
//! server span per job that a worker picked up or that its service answered. docs/guide.md
//! ("Traces as OpenTelemetry spans") says what each span's times and attributes mean.

use super::active_faults::{Place, active_faults};
use super::rows::Row;
use crate::engine::trace_ids::{span_id, trace_id};
use crate::model::Model;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Internal = 1,
    Server = 2,
    Client = 3,
    Producer = 4,
    Consumer = 5,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    Strs(Vec<String>),
}

/// One span, in simulated time (ns from the run's start).
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The `service.name` of its resource: the client or service whose span it is.
    pub service: String,
    pub trace: [u8; 16],
    pub id: [u8; 8],
    pub parent: Option<[u8; 8]>,
    pub name: String,
    pub kind: Kind,
    pub start: u64,
    pub end: u64,
    pub attributes: Vec<(&'static str, Value)>,
    /// The status's message when it is ERROR (the failure's kind); `None` for UNSET.
    pub error: Option<String>,
}

/// A logical call, from its `call_start` row.
struct Call<'a> {
    parent: &'a str,
    edge: &'a str,
    start: u64,
    end: Option<(u64, &'a str)>,
    /// Attempts and refusals so far: the next one's retry number.
    tries: u32,
    /// Its jobs (attempts and hedges) whose answer it still waits for.
    waiting: Vec<&'a str>,
    refusals: Vec<Refusal<'a>>,
    fell_back: Option<&'a str>,
}

struct Refusal<'a> {
    time: u64,
    retry: u32,
    policy: &'a str,
    outcome: &'a str,
}

/// One attempt's (or hedge's) job, from its `attempt` or `hedge` row.
struct Job<'a> {
    call: &'a str,
    entity: &'a str,
    hedge: bool,
    retry: u32,
    sent: u64,
    delivered: Option<u64>,
    work_start: Option<u64>,
    reply: Option<(u64, &'a str)>,
    /// When the caller stopped waiting for it, and why: its answer's outcome, `timeout`, or
    /// `abandoned` (the call ended without it).
    answered: Option<(u64, &'a str)>,
    last: u64,
}

/// The spans of `rows` of a run of `model` with `seed`: each call's in the order the calls
/// started, each job's client span followed by its server span.
pub fn build(rows: &[Row<'_>], model: &Model) -> Vec<Span> {
    let mut calls: HashMap<&str, Call> = HashMap::new();
    let mut jobs: HashMap<&str, Job> = HashMap::new();
    let mut call_order: Vec<&str> = Vec::new();
    let mut job_order: HashMap<&str, Vec<&str>> = HashMap::new();
    let last_time = rows.last().map_or(0, |r| r.time);
    for r in rows {
        if r.request.is_empty() || r.parent == "probe" {
            continue;
        }
        match r.event {
            "call_start" => {
                call_order.push(r.request);
                calls.insert(
                    r.request,
                    Call {
                        parent: r.parent,
                        edge: r.entity,
                        start: r.time,
                        end: None,
                        tries: 0,
                        waiting: Vec::new(),
                        refusals: Vec::new(),
                        fell_back: None,
                    },
                );
                continue;
            }
            "attempt" | "hedge" => {
                let Some(call) = calls.get_mut(r.parent) else {
                    continue;
                };
                let hedge = r.event == "hedge";
                let retry = if hedge {
                    call.tries.saturating_sub(1)
                } else {
                    call.tries += 1;
                    call.tries - 1
                };
                call.waiting.push(r.request);
                job_order.entry(r.parent).or_default().push(r.request);
                jobs.insert(
                    r.request,
                    Job {
                        call: r.parent,
                        entity: r.entity,
                        hedge,
                        retry,
                        sent: r.time,
                        delivered: None,
                        work_start: None,
                        reply: None,
                        answered: None,
                        last: r.time,
                    },
                );
                continue;
            }
            _ => {}
        }
        if let Some(job) = jobs.get_mut(r.request) {
            job.last = r.time;
            match r.event {
                "deliver" => {
                    job.delivered.get_or_insert(r.time);
                }
                "work_start" => {
                    job.work_start.get_or_insert(r.time);
                }
                "reply" => job.reply = Some((r.time, r.outcome)),
                "answer" => {
                    job.answered.get_or_insert((r.time, r.outcome));
                    if let Some(call) = calls.get_mut(job.call) {
                        call.waiting.retain(|j| *j != r.request);
                    }
                }
                _ => {}
            }
        } else if let Some(call) = calls.get_mut(r.request) {
            let gave_up = match r.event {
                "attempt_timer" => Some("timeout"),
                "call_end" => {
                    call.end = Some((r.time, r.outcome));
                    Some("abandoned")
                }
                "refused" => {
                    call.refusals.push(Refusal {
                        time: r.time,
                        retry: call.tries,
                        policy: r.detail("policy").unwrap_or(""),
                        outcome: r.outcome,
                    });
                    call.tries += 1;
                    None
                }
                "fell_back" => {
                    call.fell_back = Some(r.outcome);
                    None
                }
                _ => None,
            };
            if let Some(why) = gave_up {
                for j in call.waiting.drain(..) {
                    if let Some(job) = jobs.get_mut(j) {
                        job.answered.get_or_insert((r.time, why));
                    }
                }
            }
        }
    }
    let ctx = Context {
        model,
        calls: &calls,
        jobs: &jobs,
        last_time,
    };
    let mut spans = Vec::new();
    for c in call_order {
        ctx.call_spans(
            c,
            job_order.get(c).map_or(&[][..], Vec::as_slice),
            &mut spans,
        );
    }
    spans
}

struct Context<'m, 'a> {
    model: &'m Model,
    calls: &'m HashMap<&'a str, Call<'a>>,
    jobs: &'m HashMap<&'a str, Job<'a>>,
    last_time: u64,
}

/// An edge as the spans name it: the caller, the callee and the span name (the operation
/// called, or the callee's name when the call names none), and the edge's ids for faults.
struct Edge {
    caller: String,
    callee: usize,
    name: String,
    edge: usize,
    total: Option<usize>,
    /// Every call on the edge is fire-and-forget (`wait = false`): its attempts are PRODUCER
    /// spans and its jobs CONSUMER spans, as OpenTelemetry's messaging conventions have them,
    /// since the job that sent them does not wait and may end first.
    detached: bool,
}

/// The caller's name and the span name of edge `index` (the operation called, or the callee's
/// name when the call names none), read from the edge's name `caller.callee[.op.operation]`:
/// what another writer of these spans (cascade-mesh) names them by.
pub fn edge_names(model: &Model, index: usize) -> Option<(String, String)> {
    let e = model.edges.get(index)?;
    let callee = &model.services[e.to].name;
    let (pair, op) = match e.name.split_once(".op.") {
        Some((pair, op)) => (pair, Some(op)),
        None => (e.name.as_str(), None),
    };
    let caller = pair.strip_suffix(&format!(".{callee}"))?.to_string();
    Some((caller, op.unwrap_or(callee).to_string()))
}

impl Context<'_, '_> {
    fn seed(&self) -> u64 {
        self.model.seed
    }

    fn edge(&self, entity: &str) -> Option<Edge> {
        let name = entity.strip_prefix("edge.")?;
        let index = self.model.edges.iter().position(|e| e.name == name)?;
        let e = &self.model.edges[index];
        let (caller, span_name) = edge_names(self.model, index)?;
        let mut specs = self
            .model
            .specs_with_callers()
            .into_iter()
            .filter(|(spec, _)| spec.edge == index)
            .peekable();
        let detached = specs.peek().is_some() && specs.all(|(spec, _)| !spec.wait);
        Some(Edge {
            detached,
            caller,
            callee: e.to,
            name: span_name,
            edge: index,
            total: e.total,
        })
    }

    /// The client request call `c` belongs to: up through jobs and fallbacks to a call a
    /// client made, or to the highest call the trace kept.
    fn root_of<'s>(&'s self, mut c: &'s str) -> &'s str {
        loop {
            let Some(call) = self.calls.get(c) else {
                return c;
            };
            let up = match self.jobs.get(call.parent) {
                Some(job) => job.call,
                None => call.parent,
            };
            if !self.calls.contains_key(up) {
                return c;
            }
            c = up;
        }
    }

    /// The span call `c`'s attempts hang under: its client request's root span, the server
    /// span of the job that made it, or (a fallback) that of the call it stands in for.
    fn anchor(&self, c: &str) -> Option<[u8; 8]> {
        let call = self.calls.get(c)?;
        if call.parent.starts_with("client.") {
            return Some(span_id(self.seed(), c, "request"));
        }
        if let Some(job) = self.jobs.get(call.parent) {
            return job
                .has_server_span()
                .then(|| span_id(self.seed(), call.parent, "server"));
        }
        self.anchor(call.parent)
    }

    fn call_spans(&self, c: &str, jobs: &[&str], out: &mut Vec<Span>) {
        let call = &self.calls[c];
        let Some(edge) = self.edge(call.edge) else {
            return;
        };
        let seed = self.seed();
        let trace = trace_id(seed, self.root_of(c));
        let callee = &self.model.services[edge.callee];
        if let Some(client) = call.parent.strip_prefix("client.") {
            let (end, outcome) = call.end.unwrap_or((self.last_time, "unfinished"));
            let mut attributes = vec![("cascade.request", Value::Str(c.to_string()))];
            if let Some(from) = call.fell_back {
                attributes.push(("cascade.fell_back_from", Value::Str(from.to_string())));
            }
            let place = self.model.clients.iter().position(|k| k.name == client);
            let faults = place.map_or(vec![], |k| {
                active_faults(self.model, Place::Client(k), call.start)
            });
            out.push(finish(
                Span {
                    service: client.to_string(),
                    trace,
                    id: span_id(seed, c, "request"),
                    parent: None,
                    name: edge.name.clone(),
                    kind: Kind::Internal,
                    start: call.start,
                    end,
                    attributes,
                    error: None,
                },
                outcome,
                faults,
            ));
        }
        let anchor = self.anchor(c);
        let (client_kind, server_kind) = if edge.detached {
            (Kind::Producer, Kind::Consumer)
        } else {
            (Kind::Client, Kind::Server)
        };
        let edge_faults = |at| active_faults(self.model, Place::Edge(edge.edge, edge.total), at);
        for (k, refusal) in call.refusals.iter().enumerate() {
            out.push(finish(
                Span {
                    service: edge.caller.clone(),
                    trace,
                    id: span_id(seed, c, &format!("refused.{k}")),
                    parent: anchor,
                    name: edge.name.clone(),
                    kind: client_kind,
                    start: refusal.time,
                    end: refusal.time,
                    attributes: vec![
                        ("cascade.request", Value::Str(c.to_string())),
                        ("cascade.retry", Value::Int(i64::from(refusal.retry))),
                        ("cascade.hedge", Value::Bool(false)),
                        ("cascade.refused_by", Value::Str(refusal.policy.to_string())),
                        ("peer.service", Value::Str(callee.name.clone())),
                    ],
                    error: None,
                },
                refusal.outcome,
                edge_faults(refusal.time),
            ));
        }
        for &j in jobs {
            let job = &self.jobs[j];
            let (end, outcome) = job
                .answered
                .or(call.end.map(|(t, _)| (t, "abandoned")))
                .unwrap_or((self.last_time, "unfinished"));
            let client_span = span_id(seed, j, "client");
            out.push(finish(
                Span {
                    service: edge.caller.clone(),
                    trace,
                    id: client_span,
                    parent: anchor,
                    name: edge.name.clone(),
                    kind: client_kind,
                    start: job.sent,
                    end,
                    attributes: vec![
                        ("cascade.request", Value::Str(j.to_string())),
                        ("cascade.retry", Value::Int(i64::from(job.retry))),
                        ("cascade.hedge", Value::Bool(job.hedge)),
                        ("peer.service", Value::Str(callee.name.clone())),
                    ],
                    error: None,
                },
                outcome,
                edge_faults(job.sent),
            ));
            if !job.has_server_span() {
                continue;
            }
            let instance: u32 = job
                .entity
                .rsplit_once('#')
                .and_then(|(_, i)| i.parse().ok())
                .unwrap_or(0);
            let start = job.work_start.or(job.delivered).unwrap_or(job.sent);
            let (end, outcome) = job.reply.unwrap_or((job.last, "unfinished"));
            let op = callee
                .operations
                .iter()
                .position(|o| o.name == edge.name)
                .map_or(0, |o| o as u16 + 1);
            let place = Place::Instance(edge.callee, instance, op);
            out.push(finish(
                Span {
                    service: callee.name.clone(),
                    trace,
                    id: span_id(seed, j, "server"),
                    parent: Some(client_span),
                    name: edge.name.clone(),
                    kind: server_kind,
                    start,
                    end: end.max(start),
                    attributes: vec![
                        ("cascade.request", Value::Str(j.to_string())),
                        ("cascade.instance", Value::Int(i64::from(instance))),
                    ],
                    error: None,
                },
                outcome,
                active_faults(self.model, place, start),
            ));
        }
    }
}

impl Job<'_> {
    /// Whether the job has a server span: a worker picked it up, or its service answered it
    /// (a fault's error, a shed request); a job lost on the way has none.
    fn has_server_span(&self) -> bool {
        self.work_start.is_some() || self.reply.is_some()
    }
}

/// The span with its outcome (`cascade.outcome`; `error.type` and status ERROR naming it for a
/// failure) and the faults in force at its start (`cascade.faults`, left out when none).
pub fn finish(mut span: Span, outcome: &str, faults: Vec<String>) -> Span {
    span.attributes
        .push(("cascade.outcome", Value::Str(outcome.to_string())));
    if !matches!(outcome, "ok" | "abandoned" | "unfinished") {
        span.attributes
            .push(("error.type", Value::Str(outcome.to_string())));
        span.error = Some(outcome.to_string());
    }
    if !faults.is_empty() {
        span.attributes
            .push(("cascade.faults", Value::Strs(faults)));
    }
    span
}
