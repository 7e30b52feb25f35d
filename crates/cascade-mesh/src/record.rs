//! What the mesh measures, under the simulator's metric names: per client its requests'
//! outcomes and latencies, per edge the events of its cascade-tower stacks (and the adaptive
//! limit's level), per service its arrivals, refusals, finished jobs and wasted work. Counted
//! by the instant they happen, in the simulator's buckets, warm-up included as its time series
//! has it; the summary counts the window after the warm-up. A span (wasted work) counts in
//! the buckets it covers, each its own part, as the simulator books a level's area.

use cascade::model::{Model, Outcome};
use cascade_tower::{Event, Events};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::time::Instant;

/// One finished (or unfinished) client request.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub start: u64,
    /// The entry of the client's `mix` it was drawn as (0 without a mix).
    pub op: usize,
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
    /// Levels by metric name: their value now, since when, and their area (value × ns) per
    /// bucket up to then.
    levels: Mutex<BTreeMap<String, Level>>,
}

#[derive(Debug)]
struct Level {
    value: f64,
    since: u64,
    area: Vec<f64>,
}

/// Adds `weight` × the nanoseconds of [from, to) that fall in each bucket of `v` (buckets of
/// `bucket` ns from 0), so a span crossing a boundary counts in both buckets, each its part.
pub fn spread(v: &mut [f64], bucket: u64, from: u64, to: u64, weight: f64) {
    let to = to.min(v.len() as u64 * bucket);
    let mut at = from;
    while at < to {
        let b = at / bucket;
        let next = ((b + 1) * bucket).min(to);
        v[b as usize] += weight * (next - at) as f64;
        at = next;
    }
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
            levels: Mutex::default(),
        }
    }

    fn buckets(&self) -> usize {
        self.end.div_ceil(self.bucket) as usize
    }

    /// Adds the seconds of [from, to) (ns since the start, cut at the end) to `name`, each
    /// bucket its part: worker time, as the simulator books a level's area.
    pub fn span(&self, name: &str, from: u64, to: u64) {
        if from >= to.min(self.end) {
            return;
        }
        let buckets = self.buckets();
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let v = counts
            .entry(name.to_string())
            .or_insert_with(|| vec![0.0; buckets]);
        spread(v, self.bucket, from, to.min(self.end), 1e-9);
    }

    /// Moves level `name` by `delta` at `at` (ns since the start; a level starts at 0).
    pub fn level(&self, name: &str, at: u64, delta: f64) {
        let buckets = self.buckets();
        let mut levels = self.levels.lock().unwrap_or_else(|e| e.into_inner());
        let l = levels.entry(name.to_string()).or_insert_with(|| Level {
            value: 0.0,
            since: 0,
            area: vec![0.0; buckets],
        });
        let at = at.min(self.end).max(l.since);
        spread(&mut l.area, self.bucket, l.since, at, l.value);
        l.value += delta;
        l.since = at;
    }

    /// Each level's time-average per bucket, its area closed at the run's end.
    pub fn level_means(&self) -> BTreeMap<String, Vec<f64>> {
        let levels = self.levels.lock().unwrap_or_else(|e| e.into_inner());
        (levels.iter())
            .map(|(name, l)| {
                let mut area = l.area.clone();
                spread(&mut area, self.bucket, l.since, self.end, l.value);
                let mean = (area.iter().enumerate())
                    .map(|(b, a)| {
                        let from = b as u64 * self.bucket;
                        a / ((from + self.bucket).min(self.end) - from) as f64
                    })
                    .collect();
                (name.clone(), mean)
            })
            .collect()
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
                Outcome::RateLimited => &["rate_limited"],
                _ => &["rejected_bulkhead"],
            },
            Event::BudgetExhausted => &["budget_exhausted"],
            Event::Breaker(
                cascade_policy::breaker::Transition::Opened
                | cascade_policy::breaker::Transition::Reopened,
            ) => &["breaker_opens"],
            Event::HalfOpenProbe => &["half_open_probes"],
            Event::LimitMoved { by, .. } => {
                for p in &self.prefixes {
                    (self.recorder).level(&format!("{p}.limit_mean"), at, by as f64);
                }
                &[]
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_counts_in_each_bucket_its_own_part() {
        let mut v = vec![0.0; 3];
        // 10 ns buckets: [5, 27) is 5 in the first, 10 in the second, 7 in the third.
        spread(&mut v, 10, 5, 27, 1.0);
        assert_eq!(v, vec![5.0, 10.0, 7.0]);
        // Cut at the last bucket's end.
        spread(&mut v, 10, 25, 99, 2.0);
        assert_eq!(v, vec![5.0, 10.0, 17.0]);
    }

    #[test]
    fn a_level_is_averaged_over_each_bucket_and_closed_at_the_end() {
        let rec = Recorder {
            origin: Instant::now(),
            warmup: 0,
            end: 25,
            bucket: 10,
            requests: Vec::new(),
            counts: Mutex::default(),
            levels: Mutex::default(),
        };
        // 10 from 0, down to 4 at 5, up to 6 at 15; the last bucket is 5 ns long.
        rec.level("l", 0, 10.0);
        rec.level("l", 5, -6.0);
        rec.level("l", 15, 2.0);
        assert_eq!(rec.level_means()["l"], vec![7.0, 5.0, 6.0]);
        // A span cut at the end: 1e-9 s a ns.
        rec.span("w", 8, 40);
        let w = &rec.series()["w"];
        assert!((w[0] - 2e-9).abs() < 1e-18 && (w[1] - 10e-9).abs() < 1e-18);
        assert!((w[2] - 5e-9).abs() < 1e-18);
    }
}
