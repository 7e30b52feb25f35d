//! Did the system recover from each fault, and how long did it take? Judged on goodput (every
//! client's answers ok or degraded within the deadline, per second), bucket by bucket, one
//! episode at a time:
//!
//! * **episode**: faults whose active spans overlap or touch are judged as one, from the first
//!   start to the last end (`episodes.rs`); each of them reports the same verdict.
//! * **baseline**: the level to come back to, the mean over a steady span that no fault
//!   touches. By default the whole measured buckets from the warm-up's end, or from where the
//!   previous episode's goodput came back (the first bucket of its hold), to the episode's
//!   start. A fault may name its own span (`baseline = { start, end }`). When the previous
//!   episode did not come back, or no whole bucket is left, the episode is **not judged**:
//!   `fault.<i>.judged` = 0, `fault.<i>.baseline_s` its length, and no other verdict metric.
//! * **recovered** at the first bucket at or after the episode's end from which goodput stays
//!   at or above the floor for `recovery_hold` (default 10 s, in whole buckets), before the
//!   next episode starts. The floor is the baseline less the wider of `recovery_tolerance`
//!   (default 5%) of it and three standard deviations of the counting noise of a Poisson
//!   stream at that rate, √(before / bucket_s) per second (at 450/s in 1 s buckets the noise
//!   alone is ±4.7% at 1σ: a 5% band would call a healthy system unrecovered). One-sided:
//!   goodput above the baseline (a backlog served once the fault lifts) is back. Latency and
//!   queues are not part of the verdict: with a deadline, late answers are not goodput anyway;
//!   without one, gate latency with a window expectation. `recovery_s` is from the episode's
//!   end to that bucket's start; not recovered, it is the time watched (a lower bound).
//! * **metastable**: not recovered although watched for a hold or more, with goodput after the
//!   episode below the floor on average: the trigger is gone and the system stays down. Not
//!   recovered but watched less than a hold (the run or the next episode came first) is
//!   *cut short*; not recovered with the level after at or above the floor is *unsteady*.
//!   Neither is called metastable.
//! * **per client and operation**: the same verdict over the same span on each client's own
//!   goodput (`fault.<i>.client.<c>.*`) and each operation of a client's mix
//!   (`fault.<i>.client.<c>.op.<o>.*`), for those that sent requests in the baseline's buckets
//!   (one with no traffic then has no level to come back to and gets none). The aggregate
//!   alone would hide a small client's, or a small operation's, collapse.

mod episodes;
mod judge;

pub use episodes::{Episode, Unjudged, episodes};
pub use judge::Judged;

use super::RunMetrics;
use super::names;
use super::names::{JUDGED_METRICS, VERDICT_METRICS};
use crate::model::Model;
use judge::{Span, judge};

/// The verdict on one episode: the faults it groups, its baseline span, and, when judged, the
/// verdict on all clients' goodput and on each client's and operation's.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeVerdict {
    pub episode: Episode,
    /// The baseline span, [start, end) ns, or why there is none.
    pub baseline: Result<(u64, u64), Unjudged>,
    /// `None` when not judged.
    pub all: Option<Judged>,
    /// Each client's and each of its operations' verdict, in client order, a client before its
    /// operations: for those that sent requests in the baseline's buckets.
    pub parts: Vec<PartVerdict>,
}

impl EpisodeVerdict {
    pub fn baseline_s(&self) -> f64 {
        self.baseline
            .as_ref()
            .map_or(0.0, |(s, e)| e.saturating_sub(*s) as f64 / 1e9)
    }
}

/// One client's, or one operation's of a client's mix, goodput around an episode.
#[derive(Debug, Clone, PartialEq)]
pub struct PartVerdict {
    /// After `fault.<i>.`: `client.<c>` or `client.<c>.op.<o>`.
    pub metric_prefix: String,
    /// For people: `client web`, or `client web op checkout`.
    pub label: String,
    pub judged: Judged,
}

/// Judges every episode of the model's faults; `run_end` is where the run ended, earlier than
/// the model's end for a diverged run.
pub fn assess(model: &Model, m: &RunMetrics, run_end: u64) -> Vec<EpisodeVerdict> {
    let b = m.bucket_ns;
    let n = m.buckets();
    let goodput = total_goodput(model, m);
    let parts = part_series(model, m, n);
    let all_episodes = episodes(model);
    let mut out: Vec<EpisodeVerdict> = Vec::new();
    for (k, episode) in all_episodes.iter().enumerate() {
        let next_start = all_episodes.get(k + 1).map(|e| e.start);
        let named = episode
            .faults
            .iter()
            .find_map(|&i| model.faults[i].baseline);
        let baseline = match named {
            Some(span) => Ok(span),
            None => {
                let previous = k.checked_sub(1).map(|p| {
                    (
                        &all_episodes[p],
                        out[p].all.as_ref().and_then(|j| j.settled_at),
                    )
                });
                episodes::default_baseline_start(model, previous).map(|s| (s, episode.start))
            }
        };
        let buckets = baseline
            .as_ref()
            .map(|(s, e)| episodes::whole_buckets(*s, *e, b))
            .unwrap_or(0..0);
        let baseline = match baseline {
            Ok(span) if !buckets.is_empty() && buckets.end <= n => Ok(span),
            Ok(_) => Err(Unjudged::NoSteadySpan),
            Err(why) => Err(why),
        };
        if baseline.is_err() {
            out.push(EpisodeVerdict {
                episode: episode.clone(),
                baseline,
                all: None,
                parts: Vec::new(),
            });
            continue;
        }
        let watch_end = next_start.unwrap_or(run_end).min(run_end);
        let after_end = next_start.map_or(n, |s| ((s / b) as usize).min(n));
        let span = Span {
            baseline: buckets.clone(),
            during: (episode.start / b) as usize..(episode.end.div_ceil(b) as usize).min(n),
            after: (episode.end.div_ceil(b) as usize).min(after_end)..after_end,
            end: episode.end,
            watch_end,
            bucket: b,
            hold: model.recovery_hold.div_ceil(b).max(1) as usize,
            tolerance: model.recovery_tolerance,
        };
        let parts = parts
            .iter()
            .filter(|p| p.offered[buckets.clone()].iter().any(|r| *r > 0.0))
            .map(|p| PartVerdict {
                metric_prefix: p.metric_prefix.clone(),
                label: p.label.clone(),
                judged: judge(&p.goodput, &span),
            })
            .collect();
        out.push(EpisodeVerdict {
            episode: episode.clone(),
            baseline,
            all: Some(judge(&goodput, &span)),
            parts,
        });
    }
    out
}

/// A client's or an operation's goodput and offered load, per bucket.
struct PartSeries {
    metric_prefix: String,
    label: String,
    goodput: Vec<f64>,
    offered: Vec<f64>,
}

/// Every client's series, each followed by its mix's operations'.
fn part_series(model: &Model, m: &RunMetrics, n: usize) -> Vec<PartSeries> {
    let series = |p: &str, k: &str| {
        m.series_of(&names::metric(p, k))
            .unwrap_or_else(|| vec![0.0; n])
    };
    let mut out = Vec::new();
    for c in &model.clients {
        let mut parts = vec![(names::client(&c.name), format!("client {}", c.name))];
        if c.mix.is_some() {
            for call in c.calls() {
                let op = &model.services[call.to].operations[usize::from(call.operation) - 1];
                parts.push((
                    names::client_op(&c.name, &op.name),
                    format!("client {} op {}", c.name, op.name),
                ));
            }
        }
        for (metric_prefix, label) in parts {
            out.push(PartSeries {
                goodput: series(&metric_prefix, "goodput_rps"),
                offered: series(&metric_prefix, "offered_rps"),
                metric_prefix,
                label,
            });
        }
    }
    out
}

/// Goodput of all clients together, per bucket.
fn total_goodput(model: &Model, m: &RunMetrics) -> Vec<f64> {
    let mut total = vec![0.0; m.buckets()];
    for c in &model.clients {
        if let Some(s) = m.series_of(&names::client_metric(&c.name, "goodput_rps")) {
            for (t, v) in total.iter_mut().zip(s) {
                *t += v;
            }
        }
    }
    total
}

/// Adds each fault's verdict to the summary, in fault order: `fault.<i>.judged` and
/// `.baseline_s`, then, when its episode was judged, `fault.<i>.*` and each part's
/// `fault.<i>.client.<c>[.op.<o>].*`. The faults of one episode get the same values.
pub fn add_to_summary(model: &Model, verdicts: &[EpisodeVerdict], m: &mut RunMetrics) {
    for i in 0..model.faults.len() {
        let Some(v) = verdicts.iter().find(|v| v.episode.faults.contains(&i)) else {
            continue;
        };
        let p = names::fault(i);
        let judged = [f64::from(u8::from(v.all.is_some())), v.baseline_s()];
        m.summary.extend(
            (JUDGED_METRICS.iter().zip(judged)).map(|(name, v)| (names::metric(&p, name), v)),
        );
        if let Some(all) = &v.all {
            m.summary.extend(verdict_metrics(&p, all));
            for part in &v.parts {
                let prefix = names::fault_part(i, &part.metric_prefix);
                m.summary.extend(verdict_metrics(&prefix, &part.judged));
            }
        }
    }
}

/// `VERDICT_METRICS` of one judged series under `prefix`.
fn verdict_metrics<'a>(prefix: &'a str, j: &Judged) -> impl Iterator<Item = (String, f64)> + 'a {
    let values = [
        j.before,
        j.during,
        j.after,
        f64::from(u8::from(j.recovered)),
        j.recovery_s,
    ];
    VERDICT_METRICS
        .iter()
        .zip(values)
        .map(move |(name, v)| (names::metric(prefix, name), v))
}
