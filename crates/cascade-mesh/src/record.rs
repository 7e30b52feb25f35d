//! What the mesh measures, under the simulator's metric names: per client its requests'
//! outcomes and latencies, per edge the events of its cascade-tower stacks, per service its
//! arrivals, refusals and finished jobs. Counted by the instant they happen, in the
//! simulator's buckets, warm-up included as its time series has it; the summary counts the
//! window after the warm-up.

use cascade::model::{Model, Outcome};
use cascade_tower::{Event, Events};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::time::Instant;

/// One finished (or unfinished) client request.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub start: u64,
    /// Answer instant and outcome; `None` for a request unanswered when the run ended.
    pub end: Option<(u64, Outcome)>,
}

#[derive(Debug)]
pub struct Recorder {
    pub origin: Instant,
    pub warmup: u64,
    pub end: u64,
    pub bucket: u64,
    /// Per client.
    pub requests: Vec<Mutex<Vec<Request>>>,
    /// Counts by metric name and bucket, from the run's start.
    counts: Mutex<BTreeMap<String, Vec<f64>>>,
}

impl Recorder {
    pub fn new(model: &Model, origin: Instant) -> Recorder {
        Recorder {
            origin,
            warmup: model.warmup,
            end: model.end(),
            bucket: model.bucket,
            requests: model.clients.iter().map(|_| Mutex::default()).collect(),
            counts: Mutex::default(),
        }
    }

    /// Nanoseconds since the run started.
    pub fn now(&self) -> u64 {
        Instant::now()
            .saturating_duration_since(self.origin)
            .as_nanos() as u64
    }

    /// Adds one to `name` at `at` (ns since the start), before the end; the warm-up's
    /// buckets are kept, as the simulator's series keeps them, and left out of the summary.
    pub fn count(&self, name: &str, at: u64) {
        if at >= self.end {
            return;
        }
        let buckets = self.end.div_ceil(self.bucket) as usize;
        let b = (at / self.bucket) as usize;
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let v = counts
            .entry(name.to_string())
            .or_insert_with(|| vec![0.0; buckets]);
        v[b] += 1.0;
    }

    pub fn request(&self, client: usize, r: Request) {
        (self.requests[client]
            .lock()
            .unwrap_or_else(|e| e.into_inner()))
        .push(r);
    }

    /// The counts by metric, per bucket.
    pub fn series(&self) -> BTreeMap<String, Vec<f64>> {
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A stack's events, counted on its edge (and on the pair's edge for an operation's).
pub struct EdgeEvents {
    pub recorder: Arc<Recorder>,
    /// `edge.<from>.<to>` prefixes to count on.
    pub prefixes: Vec<String>,
}

impl Events for EdgeEvents {
    fn on(&self, _: cascade_policy::Nanos, event: Event) {
        let at = self.recorder.now();
        let names: &[&str] = match event {
            Event::CallStarted => &["calls"],
            Event::AttemptSent { attempt } if attempt > 1 => &["attempts", "retries"],
            Event::AttemptSent { .. } => &["attempts"],
            Event::HedgeSent => &["attempts", "hedges"],
            Event::Refused(r) => match r.outcome() {
                Outcome::BreakerOpen => &["rejected_breaker"],
                Outcome::Throttled => &["throttled"],
                Outcome::Limited => &["limited"],
                _ => &["rejected_bulkhead"],
            },
            Event::BudgetExhausted => &["budget_exhausted"],
            Event::Breaker(
                cascade_policy::breaker::Transition::Opened
                | cascade_policy::breaker::Transition::Reopened,
            ) => &["breaker_opens"],
            Event::HalfOpenProbe => &["half_open_probes"],
            Event::CallEnded { outcome, .. } => {
                for p in &self.prefixes {
                    let kind = if outcome.is_success() {
                        "success".to_string()
                    } else {
                        format!("errors.{}", outcome.name())
                    };
                    self.recorder.count(&format!("{p}.{kind}"), at);
                }
                &[]
            }
            _ => &[],
        };
        for p in &self.prefixes {
            for n in names {
                self.recorder.count(&format!("{p}.{n}"), at);
            }
        }
    }
}
