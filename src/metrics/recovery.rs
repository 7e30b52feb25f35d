//! Did the system recover from each fault, and how long did it take? Judged on the run's
//! goodput (every client's answers ok or degraded within the deadline, per second), bucket by
//! bucket:
//!
//! * **before**: the mean over the measured buckets that end by the fault's start — the level
//!   to come back to. A fault with no such bucket (it starts during the warm-up) cannot be
//!   judged and gets no `fault.<i>.*` metrics.
//! * **recovered** at the first bucket starting at or after the fault's end from which goodput
//!   stays near *before* for `recovery_hold` (default 10 s, rounded up to whole buckets).
//!   "Near" is within `recovery_tolerance` (default 5%) of it, or within three standard
//!   deviations of the counting noise of a Poisson stream at that rate, √(before / bucket_s)
//!   per second, whichever is wider: at 450/s in 1 s buckets the noise alone is ±4.7% (1σ),
//!   and a 5% band would call a healthy system unrecovered. `recovery_s` is from the fault's
//!   end to that bucket's start: bucket resolution. Not recovered: `recovered` = 0 and
//!   `recovery_s` is the time watched after the end (a lower bound).
//! * **metastable**: the trigger is gone (the fault ended at least a hold before the run did)
//!   and goodput has not come back. That is reported on stdout as a metastable failure.
//! * **per client**: the same verdict on each client's own goodput, as `fault.<i>.client.<c>.*`,
//!   for every client that sent a request in the measured buckets before the fault (one with no
//!   traffic then has no level to come back to and gets none). The aggregate alone would hide
//!   a small client's outage behind a large client's goodput.

use super::RunMetrics;
use crate::model::Model;

#[derive(Debug, Clone, PartialEq)]
pub struct FaultVerdict {
    pub fault: usize,
    pub before_rps: f64,
    pub during_rps: f64,
    pub after_rps: f64,
    pub recovered: bool,
    pub recovery_s: f64,
    /// The fault ended a hold or more before the run did, so not recovering means the system
    /// stays degraded on its own.
    pub trigger_gone: bool,
    /// The same verdict on each client's own goodput, for the clients that sent requests in the
    /// measured buckets before the fault (in client order): the aggregate can read "recovered"
    /// while a small client behind a large one is still down.
    pub clients: Vec<ClientRecovery>,
}

impl FaultVerdict {
    pub fn metastable(&self) -> bool {
        self.trigger_gone && !self.recovered
    }
}

/// One client's goodput around a fault, judged as the aggregate is.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientRecovery {
    pub client: usize,
    pub name: String,
    pub before_rps: f64,
    pub during_rps: f64,
    pub after_rps: f64,
    pub recovered: bool,
    pub recovery_s: f64,
}

/// A goodput series judged around one fault.
struct Judged {
    before: f64,
    during: f64,
    after: f64,
    recovered: bool,
    recovery_s: f64,
}

/// The buckets around one fault: measured ones before it, while active, after it.
struct Span {
    first_measured: usize,
    before_end: usize,
    after_start: usize,
    end: u64,
    /// Where the run ended (a diverged run ends early): what is watched after the fault.
    run_end: u64,
}

/// Judges every fault that has a measured steady state before it; `run_end` is where the run
/// ended, earlier than the model's end for a diverged run.
pub fn assess(model: &Model, m: &RunMetrics, run_end: u64) -> Vec<FaultVerdict> {
    let goodput = total_goodput(model, m);
    let b = m.bucket_ns;
    let n = goodput.len();
    let clients: Vec<(Vec<f64>, Vec<f64>)> = model
        .clients
        .iter()
        .map(|c| {
            let series = |k: &str| {
                m.series_of(&format!("client.{}.{k}", c.name))
                    .unwrap_or_else(|| vec![0.0; n])
            };
            (series("goodput_rps"), series("offered_rps"))
        })
        .collect();
    model
        .faults
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let span = Span {
                first_measured: (model.warmup / b) as usize,
                before_end: ((f.start / b) as usize).min(n),
                after_start: (f.end.div_ceil(b) as usize).min(n),
                end: f.end,
                run_end,
            };
            if span.before_end <= span.first_measured {
                return None;
            }
            let all = judge(model, b, &goodput, &span);
            let clients = clients
                .iter()
                .enumerate()
                .filter(|(_, (_, offered))| {
                    offered[span.first_measured..span.before_end]
                        .iter()
                        .any(|r| *r > 0.0)
                })
                .map(|(c, (goodput, _))| {
                    let j = judge(model, b, goodput, &span);
                    ClientRecovery {
                        client: c,
                        name: model.clients[c].name.clone(),
                        before_rps: j.before,
                        during_rps: j.during,
                        after_rps: j.after,
                        recovered: j.recovered,
                        recovery_s: j.recovery_s,
                    }
                })
                .collect();
            Some(FaultVerdict {
                fault: i,
                before_rps: all.before,
                during_rps: all.during,
                after_rps: all.after,
                recovered: all.recovered,
                recovery_s: all.recovery_s,
                trigger_gone: f.end.saturating_add(model.recovery_hold) <= run_end,
                clients,
            })
        })
        .collect()
}

/// The verdict on one goodput series (per bucket) around one fault.
fn judge(model: &Model, b: u64, goodput: &[f64], span: &Span) -> Judged {
    let n = goodput.len();
    let hold_buckets = model.recovery_hold.div_ceil(b).max(1) as usize;
    let mean = |range: std::ops::Range<usize>| {
        let v = &goodput[range];
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let before = mean(span.first_measured..span.before_end);
    let during = mean(span.before_end..span.after_start.max(span.before_end));
    let after = mean(span.after_start..n);
    let bucket_s = b as f64 / 1e9;
    let band = (model.recovery_tolerance * before).max(3.0 * (before / bucket_s).sqrt());
    let close = |g: f64| (g - before).abs() <= band;
    let recovered_at = (span.after_start..n.saturating_sub(hold_buckets - 1))
        .find(|&j| goodput[j..j + hold_buckets].iter().all(|g| close(*g)));
    let (recovered, recovery_s) = match recovered_at {
        Some(j) => (true, (j as u64 * b).saturating_sub(span.end) as f64 / 1e9),
        None => (false, span.run_end.saturating_sub(span.end) as f64 / 1e9),
    };
    Judged {
        before,
        during,
        after,
        recovered,
        recovery_s,
    }
}

/// Goodput of all clients together, per bucket.
fn total_goodput(model: &Model, m: &RunMetrics) -> Vec<f64> {
    let mut total = vec![0.0; m.buckets()];
    for c in &model.clients {
        if let Some(s) = m.series_of(&format!("client.{}.goodput_rps", c.name)) {
            for (t, v) in total.iter_mut().zip(s) {
                *t += v;
            }
        }
    }
    total
}

/// Adds each verdict to the summary as `fault.<i>.*`, then each client's as
/// The metrics of one verdict, after `fault.<i>.` (or `fault.<i>.client.<c>.`), in order.
pub const VERDICT_METRICS: [&str; 5] = [
    "goodput_before_rps",
    "goodput_during_rps",
    "goodput_after_rps",
    "recovered",
    "recovery_s",
];

/// `fault.<i>.client.<c>.*`.
pub fn add_to_summary(verdicts: &[FaultVerdict], m: &mut RunMetrics) {
    let mut add = |p: String, before: f64, during: f64, after: f64, recovered: bool, s: f64| {
        let values = [before, during, after, f64::from(u8::from(recovered)), s];
        m.summary.extend(
            VERDICT_METRICS
                .iter()
                .zip(values)
                .map(|(name, v)| (format!("{p}.{name}"), v)),
        );
    };
    for v in verdicts {
        let p = format!("fault.{}", v.fault);
        add(
            p.clone(),
            v.before_rps,
            v.during_rps,
            v.after_rps,
            v.recovered,
            v.recovery_s,
        );
        for c in &v.clients {
            add(
                format!("{p}.client.{}", c.name),
                c.before_rps,
                c.during_rps,
                c.after_rps,
                c.recovered,
                c.recovery_s,
            );
        }
    }
}
