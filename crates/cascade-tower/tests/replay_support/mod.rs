//! Replaying a simulated run through the tower stack. The simulator (the `cascade` crate) runs
//! a scenario fixture with `--trace`'s rows; each call path's calls are read back from them
//! with their inputs (start, the caller's deadline, each attempt's answer: its latency,
//! outcome and Retry-After, and the seed of the path's random streams) and their decisions
//! (attempts sent and when, hedges, refusals and by which policy, retries and their waits,
//! budget refusals, breaker changes, half-open probes, limit values, the outcome). The same
//! inputs then go through a `CascadeLayer` built from the fixture's `[policy.NAME]` table, on
//! tokio's paused clock, its events gathered per call; `differences` compares the two lists
//! call by call.
//!
//! Tolerance: none on the decisions or their instants (ns), given fixtures whose times fall on
//! whole milliseconds (constant arrivals and work, no network latency, no jitter): tokio's
//! timers wake on the millisecond, and an answer's instant is read from the clock when it
//! comes. Two calls of one path starting at the same instant are started in trace order, which
//! the fixtures avoid relying on.

#![allow(dead_code)] // each test uses its own part

use cascade_policy::Nanos;
use cascade_policy::breaker::Transition;
use cascade_policy::outcome::Outcome;
use cascade_policy::path::{PathStreams, Refusal};
use cascade_policy::table::RawPolicy;
use cascade_tower::{CascadeLayer, Classified, Classify, Deadline, Event, Events};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, sleep_until};
use tower::{Layer, Service};

/// One decision of a call, at its instant (ns since the run's start), as both sides name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Attempt `n` (from 1) sent.
    Attempt {
        at: u64,
        n: u32,
    },
    Hedge {
        at: u64,
    },
    Refused {
        at: u64,
        policy: String,
    },
    Retry {
        at: u64,
        wait: u64,
    },
    BudgetExhausted {
        at: u64,
    },
    HedgeBudgetExhausted {
        at: u64,
    },
    Breaker {
        at: u64,
        change: String,
    },
    HalfOpenProbe {
        at: u64,
    },
    Limit {
        at: u64,
        value: u32,
    },
    End {
        at: u64,
        outcome: String,
    },
}

/// One row of the trace.
#[derive(Debug, Clone)]
pub struct Row {
    pub time: u64,
    pub request: String,
    pub parent: String,
    pub entity: String,
    pub event: String,
    pub outcome: String,
    pub detail: String,
}

impl Row {
    fn get(&self, key: &str) -> Option<&str> {
        (self.detail.split(' ')).find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    }
}

/// An attempt's job as the simulator sent it, and its answer if the call waited for one.
#[derive(Debug, Clone)]
pub struct Job {
    pub sent: u64,
    pub answer: Option<Answer>,
}

#[derive(Debug, Clone, Copy)]
pub struct Answer {
    pub at: u64,
    pub outcome: Outcome,
    pub retry_after: Option<u64>,
}

/// A call of the simulated run: its inputs and its decisions.
#[derive(Debug, Clone)]
pub struct SimCall {
    pub id: String,
    pub start: u64,
    pub caller_deadline: Option<u64>,
    /// Every job sent for it (attempts and hedges), in order.
    pub jobs: Vec<Job>,
    pub decisions: Vec<Decision>,
}

/// The calls of one call path in one caller instance (one `PathPolicies`), in start order.
#[derive(Debug, Clone)]
pub struct SimPath {
    pub name: String,
    /// When the run stopped (ns): calls still going then have no end in the trace, and the
    /// replay's decisions from then on are not compared.
    pub end: u64,
    pub seed: u64,
    pub calls: Vec<SimCall>,
}

impl SimPath {
    pub fn decisions(&self) -> Vec<Vec<Decision>> {
        self.calls.iter().map(|c| c.decisions.clone()).collect()
    }

    /// Keeps the decisions made before the run stopped.
    fn before_end(&self, mut calls: Vec<Vec<Decision>>) -> Vec<Vec<Decision>> {
        for c in &mut calls {
            c.retain(|d| at(d) < self.end);
        }
        calls
    }

    /// How many decisions of the run `pick` selects.
    pub fn count(&self, pick: impl Fn(&Decision) -> bool) -> usize {
        (self.calls.iter().flat_map(|c| &c.decisions))
            .filter(|d| pick(d))
            .count()
    }
}

/// A fixture run by the simulator, with its trace.
pub struct Run {
    pub end: u64,
    pub text: String,
    pub rows: Vec<Row>,
}

/// Runs `tests/replay_fixtures/<name>` with the simulator, tracing it.
pub fn simulate(name: &str) -> Run {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/replay_fixtures")
        .join(name);
    let text = std::fs::read_to_string(&file).expect("the fixture");
    let scenario = cascade::scenario::load(&file, &[]).expect("a valid fixture");
    let measured = cascade::Simulation::new(scenario.model)
        .with_trace(1_000_000)
        .run()
        .expect("the run");
    let csv = measured.trace.expect("a trace").expect("within its limit");
    Run {
        end: measured.stopped_at,
        text,
        rows: parse(&csv),
    }
}

fn parse(csv: &str) -> Vec<Row> {
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time_ns,request,parent,entity,event,outcome,detail")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.splitn(7, ',').collect();
            Row {
                time: f[0].parse().expect("time_ns"),
                request: f[1].into(),
                parent: f[2].into(),
                entity: f[3].into(),
                event: f[4].into(),
                outcome: f[5].into(),
                detail: f[6].into(),
            }
        })
        .collect()
}

fn outcome(name: &str) -> Outcome {
    *(Outcome::ALL.iter())
        .find(|o| o.name() == name)
        .unwrap_or_else(|| panic!("an outcome: {name}"))
}

pub fn change(t: Transition) -> String {
    match t {
        Transition::None => "none",
        Transition::Opened => "opened",
        Transition::Reopened => "reopened",
        Transition::HalfOpened => "half_opened",
        Transition::Closed => "closed",
    }
    .into()
}

pub fn policy(r: Refusal) -> String {
    match r {
        Refusal::BreakerOpen => "breaker",
        Refusal::Throttled => "throttle",
        Refusal::Limited => "limit",
        Refusal::BulkheadFull => "bulkhead",
    }
    .into()
}

impl Run {
    /// The calls on edge `from.to` (`from` with one instance, calling `to` from one place).
    /// A path without policy state is named `none`; it draws nothing.
    pub fn path(&self, edge: &str) -> SimPath {
        let entity = format!("edge.{edge}");
        let mut name: Option<String> = None;
        let mut seed = 0;
        let mut calls: Vec<SimCall> = Vec::new();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        let mut jobs: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for row in &self.rows {
            if row.event == "call_start" {
                if row.entity != entity {
                    continue;
                }
                let path = row.get("path").expect("call_start names its path");
                assert!(
                    name.as_deref().is_none_or(|n| n == path),
                    "one path on {edge}"
                );
                name = Some(path.to_string());
                seed = row.get("seed").expect("a seed").parse().unwrap();
                let caller_deadline = match row.get("caller_deadline") {
                    Some("none") | None => None,
                    Some(ns) => Some(ns.parse().unwrap()),
                };
                index.insert(row.request.clone(), calls.len());
                calls.push(SimCall {
                    id: row.request.clone(),
                    start: row.time,
                    caller_deadline,
                    jobs: Vec::new(),
                    decisions: Vec::new(),
                });
                continue;
            }
            let at = row.time;
            // A job's rows: its parent is the call.
            if let Some(&k) = index.get(&row.parent)
                && row.request.starts_with('j')
            {
                let call = &mut calls[k];
                match row.event.as_str() {
                    "attempt" | "hedge" => {
                        jobs.insert(row.request.clone(), (k, call.jobs.len()));
                        call.jobs.push(Job {
                            sent: at,
                            answer: None,
                        });
                        call.decisions.push(if row.event == "attempt" {
                            let n = 1
                                + (call.decisions.iter())
                                    .filter(|d| matches!(d, Decision::Attempt { .. }))
                                    .count() as u32;
                            Decision::Attempt { at, n }
                        } else {
                            Decision::Hedge { at }
                        });
                    }
                    "answer" => {
                        let (k, j) = jobs[&row.request];
                        calls[k].jobs[j].answer = Some(Answer {
                            at,
                            outcome: outcome(&row.outcome),
                            retry_after: row.get("retry_after").map(|v| v.parse().unwrap()),
                        });
                    }
                    _ => {}
                }
                continue;
            }
            let Some(&k) = index.get(&row.request) else {
                continue;
            };
            let decision = match row.event.as_str() {
                "refused" => Decision::Refused {
                    at,
                    policy: row.get("policy").unwrap().into(),
                },
                "retry" => Decision::Retry {
                    at,
                    wait: row.get("wait").unwrap().parse().unwrap(),
                },
                "budget_exhausted" => Decision::BudgetExhausted { at },
                "hedge_budget_exhausted" => Decision::HedgeBudgetExhausted { at },
                "breaker" => Decision::Breaker {
                    at,
                    change: row.detail.clone(),
                },
                "half_open_probe" => Decision::HalfOpenProbe { at },
                "limit" => Decision::Limit {
                    at,
                    value: row.get("limit").unwrap().parse().unwrap(),
                },
                "call_end" => Decision::End {
                    at,
                    outcome: row.outcome.clone(),
                },
                _ => continue,
            };
            calls[k].decisions.push(decision);
        }
        SimPath {
            end: self.end,
            name: name.unwrap_or_else(|| panic!("no call on {edge}")),
            seed,
            calls,
        }
    }

    /// The fixture's `[policy.<name>]` table.
    pub fn table(&self, name: &str) -> RawPolicy {
        let doc: toml_edit::DocumentMut = self.text.parse().expect("TOML");
        let table = doc["policy"][name].as_table().expect("the policy table");
        let mut alone = toml_edit::DocumentMut::new();
        *alone.as_table_mut() = table.clone();
        toml_edit::de::from_str(&alone.to_string()).expect("a policy table")
    }
}

/// The streams the simulator seeds the path's policies with (`engine/caller/policy_state.rs`).
pub fn streams(path: &SimPath) -> PathStreams<cascade::engine::rng::Stream> {
    let stream = |purpose| cascade::engine::rng::stream(path.seed, &path.name, purpose);
    PathStreams {
        throttle: stream("throttle"),
        limit: stream("limit"),
        jitter: stream("jitter"),
        accrual: stream("accrual"),
    }
}

/// What the replayed downstream answers: the simulated answer's outcome, as is.
#[derive(Debug, Clone, Copy)]
pub struct Reply {
    pub outcome: Outcome,
    pub retry_after: Option<Nanos>,
}

#[derive(Debug, Clone, Copy)]
struct AsSimulated;

impl Classify<Reply, Infallible> for AsSimulated {
    fn classify(&self, result: Result<&Reply, &Infallible>) -> Classified {
        let reply = match result {
            Ok(reply) => reply,
            Err(never) => match *never {},
        };
        Classified {
            outcome: reply.outcome,
            retry_after: reply.retry_after,
        }
    }
}

tokio::task_local! {
    /// The call (its index in the path) whose task is running.
    static CALL: usize;
}

/// The stack's events, each filed under the call whose task made it.
#[derive(Default)]
struct PerCall(Mutex<Vec<(usize, Nanos, Event)>>);

impl Events for PerCall {
    fn on(&self, at: Nanos, event: Event) {
        let call = CALL
            .try_with(|k| *k)
            .expect("every event comes from a call");
        self.0.lock().unwrap().push((call, at, event));
    }
}

/// What the downstream saw of a request: the call, when, and the deadline it carried (ns
/// since the start), with its `grpc-timeout` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub call: usize,
    pub at: u64,
    pub deadline: Option<u64>,
    pub grpc_timeout: Option<String>,
}

/// Answers the n-th request of call k as the simulator's n-th job of that call was answered,
/// the same time after it was sent; an hour later if the simulated call stopped waiting for
/// it or never sent it.
#[derive(Clone)]
struct Scripted {
    jobs: Arc<Vec<Vec<Job>>>,
    sent: Arc<Mutex<Vec<usize>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
    origin: Instant,
}

impl Service<http::Request<usize>> for Scripted {
    type Response = Reply;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Reply, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<usize>) -> Self::Future {
        let k = *req.body();
        let now = Instant::now();
        let since = |i: Instant| i.duration_since(self.origin).as_nanos() as u64;
        self.seen.lock().unwrap().push(Seen {
            call: k,
            at: since(now),
            deadline: req.extensions().get::<Deadline>().map(|d| since(d.0)),
            grpc_timeout: (req.headers().get("grpc-timeout"))
                .map(|v| v.to_str().unwrap().to_string()),
        });
        let n = {
            let mut sent = self.sent.lock().unwrap();
            sent[k] += 1;
            sent[k] - 1
        };
        let answer = self.jobs[k]
            .get(n)
            .and_then(|j| j.answer.map(|a| (Duration::from_nanos(a.at - j.sent), a)));
        Box::pin(async move {
            // Never answered in the run (the caller stopped waiting), or not sent there at
            // all: answered an hour later, long after any caller has stopped waiting, so a
            // replay that parts from the run ends and says where.
            let Some((after, a)) = answer else {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return Ok(Reply {
                    outcome: Outcome::Unavailable,
                    retry_after: None,
                });
            };
            tokio::time::sleep(after).await;
            Ok(Reply {
                outcome: a.outcome,
                retry_after: a.retry_after.map(Nanos),
            })
        })
    }
}

/// What the tower stack did with the path's calls.
pub struct Replayed {
    pub decisions: Vec<Vec<Decision>>,
    pub seen: Vec<Seen>,
}

fn at(d: &Decision) -> u64 {
    match *d {
        Decision::Attempt { at, .. }
        | Decision::Hedge { at }
        | Decision::Refused { at, .. }
        | Decision::Retry { at, .. }
        | Decision::BudgetExhausted { at }
        | Decision::HedgeBudgetExhausted { at }
        | Decision::Breaker { at, .. }
        | Decision::HalfOpenProbe { at }
        | Decision::Limit { at, .. }
        | Decision::End { at, .. } => at,
    }
}

fn decision(at: Nanos, event: Event) -> Option<Decision> {
    let at = at.0;
    Some(match event {
        Event::AttemptSent { attempt } => Decision::Attempt { at, n: attempt },
        Event::HedgeSent => Decision::Hedge { at },
        Event::HedgeBudgetExhausted => Decision::HedgeBudgetExhausted { at },
        Event::Refused(r) => Decision::Refused {
            at,
            policy: policy(r),
        },
        Event::RetryScheduled { wait, .. } => Decision::Retry { at, wait: wait.0 },
        Event::BudgetExhausted => Decision::BudgetExhausted { at },
        Event::Breaker(t) => Decision::Breaker {
            at,
            change: change(t),
        },
        Event::HalfOpenProbe => Decision::HalfOpenProbe { at },
        Event::LimitMoved { limit, .. } => Decision::Limit { at, value: limit },
        Event::CallEnded { outcome, .. } => Decision::End {
            at,
            outcome: outcome.name().into(),
        },
        Event::CallStarted | Event::FellBack { .. } => return None,
    })
}

/// Feeds the path's calls through the stack of `table`, on tokio's paused clock: each call
/// starts when it started in the run, carrying its caller's deadline, against a downstream
/// that answers as the run's did.
pub fn replay(path: &SimPath, table: &RawPolicy) -> Replayed {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let events = Arc::new(PerCall::default());
        let layer = CascadeLayer::from_table(table)
            .expect("a table the layer takes")
            .streams(streams(path))
            .classifier(AsSimulated)
            .events(events.clone());
        let origin = Instant::now();
        let downstream = Scripted {
            jobs: Arc::new(path.calls.iter().map(|c| c.jobs.clone()).collect()),
            sent: Arc::new(Mutex::new(vec![0; path.calls.len()])),
            seen: Arc::default(),
            origin,
        };
        let svc = layer.layer(downstream.clone());
        let mut tasks = Vec::new();
        for (k, call) in path.calls.iter().enumerate() {
            let mut svc = svc.clone();
            let start = origin + Duration::from_nanos(call.start);
            let deadline = (call.caller_deadline).map(|d| origin + Duration::from_nanos(d));
            tasks.push(tokio::spawn(CALL.scope(k, async move {
                sleep_until(start).await;
                let mut req = http::Request::new(k);
                if let Some(d) = deadline {
                    req.extensions_mut().insert(Deadline(d));
                }
                let _ = svc.call(req).await;
            })));
        }
        for t in tasks {
            t.await.expect("a call's task");
        }
        let mut decisions = vec![Vec::new(); path.calls.len()];
        for (k, at, event) in events.0.lock().unwrap().drain(..) {
            decisions[k].extend(decision(at, event));
        }
        let seen = downstream.seen.lock().unwrap().clone();
        Replayed {
            decisions: path.before_end(decisions),
            seen,
        }
    })
}

/// Where the two lists part, call by call: `None` when every call decided alike.
pub fn differences(
    path: &SimPath,
    expected: &[Vec<Decision>],
    actual: &[Vec<Decision>],
) -> Option<String> {
    if expected.len() != actual.len() {
        return Some(format!(
            "{} calls simulated, {} replayed",
            expected.len(),
            actual.len()
        ));
    }
    for (k, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            let at = e
                .iter()
                .zip(a)
                .position(|(x, y)| x != y)
                .unwrap_or(e.len().min(a.len()));
            return Some(format!(
                "call {k} ({}, started at {} ns) parts at decision {at}:\n  simulator: {e:?}\n  tower:     {a:?}",
                path.calls[k].id, path.calls[k].start
            ));
        }
    }
    None
}

/// Simulates `fixture`, replays the path on `edge` through the stack of `[policy.<policy>]`
/// and asserts the same decisions, call by call; returns both for further checks.
pub fn same_decisions(fixture: &str, edge: &str, policy: &str) -> (SimPath, Replayed) {
    let run = simulate(fixture);
    let path = run.path(edge);
    let replayed = replay(&path, &run.table(policy));
    let expected = path.before_end(path.decisions());
    if let Some(d) = differences(&path, &expected, &replayed.decisions) {
        panic!("{fixture}, {}: {d}", path.name);
    }
    (path, replayed)
}

/// The replay of `fixture` compared with its run with one decision changed by `perturb`:
/// the comparison must find the difference.
pub fn perturbed_differs(
    fixture: &str,
    edge: &str,
    policy: &str,
    perturb: impl Fn(&mut Vec<Vec<Decision>>),
) -> String {
    let run = simulate(fixture);
    let path = run.path(edge);
    let replayed = replay(&path, &run.table(policy));
    let mut expected = path.before_end(path.decisions());
    assert_eq!(differences(&path, &expected, &replayed.decisions), None);
    perturb(&mut expected);
    differences(&path, &expected, &replayed.decisions).expect("the changed decision is told apart")
}
