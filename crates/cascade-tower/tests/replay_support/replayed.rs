//! The tower side: a path's calls fed through a `CascadeLayer` on tokio's paused clock, against
//! a downstream that answers each job as the simulated run's was answered.

use super::{Decision, Job, SimPath, change, policy};
use cascade_policy::Nanos;
use cascade_policy::outcome::Outcome;
use cascade_policy::path::PathStreams;
use cascade_policy::table::RawPolicy;
use cascade_tower::{CascadeLayer, Classified, Classify, Deadline, Event, Events};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, sleep_until};
use tower::{Layer, Service};

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
            server_refuses_retry: false,
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
