//! A service instance: an HTTP/2 server on 127.0.0.1, its workers a FIFO semaphore with the
//! queue bound in front, and a job that holds its work, then makes its steps' calls, each
//! through its own cascade-tower stack. The job runs detached from the request's stream
//! unless the caller's policy cancels, so a caller that gives up leaves the work going, as
//! the simulator's default does (and a retry storm needs). The instant the caller gave up (its
//! stream dropped) is noted, and the worker time the job holds from then on is wasted work,
//! as the simulator defines it (`service.<s>.wasted_work_s`).

use crate::hold::hold;
use crate::hop::Body;
use crate::record::Recorder;
use crate::trace::{self, CallTrace, Sink};
use crate::{Mesh, faults, wire};
use cascade::engine::rng::Stream;
use cascade::model::fault::Effect;
use cascade::model::{FailAs, Outcome, Rule};
use cascade_policy::random::unit;
use cascade_tower::{CarriesDeadline, Deadline};
use hyper::body::Incoming;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tower::Service;

/// One instance's state.
pub struct Instance {
    pub service: usize,
    pub index: u32,
    pub workers: Arc<Semaphore>,
    pub queued: AtomicU64,
    pub work_rng: Mutex<Stream>,
    /// Per step of each plan, the stream of its `p` draws.
    pub branch_rng: Mutex<Stream>,
    pub fault_rng: Mutex<Stream>,
}

/// Not given up on (yet).
const WAITED_FOR: u64 = u64::MAX;

/// Notes, when dropped armed, the instant its request's caller gave up: hyper drops the
/// handler's future when the caller resets the stream (its attempt timed out, its deadline
/// passed, a hedge won), and a detached job goes on working for nobody from then.
struct GiveUp {
    at: Arc<AtomicU64>,
    rec: Arc<Recorder>,
    armed: bool,
}

impl Drop for GiveUp {
    fn drop(&mut self) {
        if self.armed {
            self.at.store(self.rec.now(), Ordering::Relaxed);
        }
    }
}

/// A job counted in its instance's queue (against `queue`) until dropped: when it takes its
/// worker, or when its request is cancelled while it waits.
struct Queued<'a>(&'a AtomicU64);

impl<'a> Queued<'a> {
    fn join(queued: &'a AtomicU64) -> Queued<'a> {
        queued.fetch_add(1, Ordering::Relaxed);
        Queued(queued)
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Holds a queued job that has its worker until no stall holds the instance: a stall takes
/// nothing off the queue, and at its end the free workers take the queued jobs at once, in
/// order (the semaphore's, FIFO). Bounded: each pass waits out a stall that ends later.
async fn wait_out_stalls(mesh: &Mesh, inst: &Instance) {
    let (model, rec) = (&mesh.net.model, &mesh.net.rec);
    for _ in 0..=model.faults.len() {
        let now = rec.now();
        match faults::stalled_until(model, inst.service, inst.index, now) {
            Some(end) => hold(end - now, &mesh.net.lateness).await,
            None => return,
        }
    }
}

fn draw(rng: &Mutex<Stream>) -> f64 {
    unit(&mut *rng.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Answers one request at `inst`.
pub async fn serve(
    mesh: Arc<Mesh>,
    inst: Arc<Instance>,
    req: http::Request<Incoming>,
) -> http::Response<Body> {
    let (outcome, retry_after) = answer(mesh, inst, req).await;
    let (parts, ()) = wire::answer(outcome, retry_after).into_parts();
    http::Response::from_parts(parts, Body::default())
}

/// A traced request's job: where its server span goes, its trace and parent (the attempt's
/// client span), and the attempt's id.
struct Traced {
    sink: Arc<Sink>,
    trace: [u8; 16],
    parent: [u8; 8],
    attempt: String,
}

impl Traced {
    fn of(mesh: &Mesh, req: &http::Request<Incoming>) -> Option<Traced> {
        let header = |k: &str| req.headers().get(k).and_then(|v| v.to_str().ok());
        let (trace, parent) = trace::parse_traceparent(header(trace::TRACEPARENT)?)?;
        Some(Traced {
            sink: mesh.net.traces.clone()?,
            trace,
            parent,
            attempt: header(trace::ATTEMPT)?.to_string(),
        })
    }

    /// The context of the job's own calls: under its server span.
    fn calls(&self) -> CallTrace {
        CallTrace::new(self.trace, self.sink.server_id(&self.attempt))
    }

    fn record(&self, mesh: &Mesh, inst: &Instance, op: u16, span: (u64, u64), outcome: Outcome) {
        let at = (inst.service, inst.index, op);
        let ids = (self.trace, self.parent);
        (self.sink).job(
            &mesh.net.model,
            at,
            ids,
            &self.attempt,
            span,
            outcome.name(),
        );
    }
}

async fn answer(
    mesh: Arc<Mesh>,
    inst: Arc<Instance>,
    req: http::Request<Incoming>,
) -> (Outcome, Option<u64>) {
    let model = &mesh.net.model;
    let rec = &mesh.net.rec;
    let now = rec.now();
    let svc = &model.services[inst.service];
    let operation: u16 = req
        .uri()
        .path()
        .trim_start_matches('/')
        .parse()
        .unwrap_or(0);
    let traced = Traced::of(&mesh, &req);
    rec.count(&format!("service.{}.arrivals", svc.name), now);
    let faults: Vec<_> = faults::active(model, inst.service, inst.index, operation, now).collect();
    for f in faults {
        match f.effect {
            Effect::Outage { blackhole } | Effect::Crash { blackhole, .. } => {
                if blackhole {
                    mesh.never_answered().await;
                }
                return (Outcome::Refused, None);
            }
            Effect::Errors {
                rate,
                error,
                retry_after,
                latency,
            } if draw(&inst.fault_rng) < rate => {
                hold(latency, &mesh.net.lateness).await;
                // Answered without a worker: its server span from its arrival.
                if let Some(t) = &traced {
                    t.record(&mesh, &inst, operation, (now, rec.now()), error);
                }
                return (error, retry_after);
            }
            _ => {}
        }
    }
    let deadline = req.deadline(Instant::now());
    let gave_up = Arc::new(AtomicU64::new(WAITED_FOR));
    let calls = traced.as_ref().map(Traced::calls);
    let job = {
        let (mesh, gave_up) = (mesh.clone(), gave_up.clone());
        // The span is recorded inside the job, which a caller that gives up leaves running.
        async move {
            let (outcome, started) = run_job(
                mesh.clone(),
                inst.clone(),
                operation,
                deadline,
                gave_up,
                calls,
            )
            .await;
            if let Some(t) = &traced {
                let span = (started.unwrap_or(now), mesh.net.rec.now());
                t.record(&mesh, &inst, operation, span, outcome);
            }
            outcome
        }
    };
    if req.headers().contains_key(wire::CANCEL) {
        // The work stops with the stream: given up on and cancelled at once, nothing wasted.
        (job.await, None)
    } else {
        // Detached: the work goes on (holding its worker) if the caller drops the stream.
        let mut give_up = GiveUp {
            at: gave_up,
            rec: mesh.net.rec.clone(),
            armed: true,
        };
        let outcome = tokio::spawn(job).await.unwrap_or(Outcome::Unavailable);
        give_up.armed = false;
        (outcome, None)
    }
}

/// Lets the job's worker go, and books the worker time held since its caller gave up (from
/// the work's start if it gave up while the job queued) as wasted.
fn release(
    permit: tokio::sync::OwnedSemaphorePermit,
    rec: &Recorder,
    wasted: &str,
    start: u64,
    gave_up: &AtomicU64,
) {
    drop(permit);
    let now = rec.now();
    let gave_up = gave_up.load(Ordering::Relaxed);
    if gave_up < now {
        rec.span(wasted, gave_up.max(start), now);
    }
}

/// The job's outcome, and the instant its worker picked it up (none when refused).
async fn run_job(
    mesh: Arc<Mesh>,
    inst: Arc<Instance>,
    operation: u16,
    deadline: Option<Instant>,
    gave_up: Arc<AtomicU64>,
    traced: Option<CallTrace>,
) -> (Outcome, Option<u64>) {
    let model = mesh.net.model.clone();
    let rec = mesh.net.rec.clone();
    let svc = &model.services[inst.service];
    // While a stall holds the instance no request gets a worker: it queues, as when every
    // worker is busy.
    let stalled = faults::stalled_until(&model, inst.service, inst.index, rec.now()).is_some();
    let free = (!stalled)
        .then(|| inst.workers.clone().try_acquire_owned().ok())
        .flatten();
    let permit = match free {
        Some(p) => p,
        None if inst.queued.load(Ordering::Relaxed) < svc.queue => {
            let _queued = Queued::join(&inst.queued);
            let p = inst.workers.clone().acquire_owned().await;
            if p.is_ok() {
                wait_out_stalls(&mesh, &inst).await;
            }
            match p {
                Ok(p) => p,
                Err(_) => return (Outcome::Unavailable, None),
            }
        }
        None => {
            rec.count(&format!("service.{}.rejected", svc.name), rec.now());
            return (Outcome::Overloaded, None);
        }
    };
    let plan = svc.plan_of(operation);
    let start = rec.now();
    let wasted = format!("service.{}.wasted_work_s", svc.name);
    let work = plan
        .work
        .sample(&mut *inst.work_rng.lock().unwrap_or_else(|e| e.into_inner()));
    let work = faults::work(&model, inst.service, inst.index, operation, work, start);
    // Paused while a stall holds the instance: it ends later by the time the stalls overlap it.
    let until = faults::work_end(&model, inst.service, inst.index, start, work);
    hold(until - start, &mesh.net.lateness).await;
    if let Some(blackhole) =
        faults::crashed_between(&model, inst.service, inst.index, start, rec.now())
    {
        release(permit, &rec, &wasted, start, &gave_up);
        if blackhole {
            mesh.never_answered().await;
        }
        return (Outcome::Unavailable, Some(start));
    }
    let mut outcome = Outcome::Ok;
    for (k, step) in plan.steps.iter().enumerate() {
        if let Some(Some(b)) = plan.branches.get(k)
            && let Rule::Maybe(p) = b.rule
            && draw(&inst.branch_rng) >= p
        {
            continue;
        }
        let mut calls = tokio::task::JoinSet::new();
        for spec in step {
            let mut stack = mesh.stack(Some((inst.service, inst.index)), spec.id);
            let mut req = http::Request::new(Body::default());
            if let Some(d) = deadline {
                req.extensions_mut().insert(Deadline(d));
            }
            if let Some(t) = &traced {
                req.extensions_mut().insert(t.clone());
            }
            let (optional, fail_as) = (spec.optional, spec.fail_as);
            calls.spawn(async move {
                let got = crate::outcome_of(stack.call(req).await);
                (got, optional, fail_as)
            });
        }
        // Bounded: one result per call spawned.
        while let Some(Ok((got, optional, fail_as))) = calls.join_next().await {
            if got.is_success() {
                continue;
            }
            if optional {
                if outcome == Outcome::Ok {
                    outcome = Outcome::Degraded;
                }
            } else if outcome.is_success() {
                outcome = match fail_as {
                    FailAs::Kind(k) => k,
                    FailAs::Propagate => got,
                };
            }
        }
        if !outcome.is_success() {
            break;
        }
    }
    release(permit, &rec, &wasted, start, &gave_up);
    rec.count(&format!("service.{}.served", svc.name), rec.now());
    (outcome, Some(start))
}
