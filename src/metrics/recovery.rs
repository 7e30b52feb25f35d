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
}

impl FaultVerdict {
    pub fn metastable(&self) -> bool {
        self.trigger_gone && !self.recovered
    }
}

/// Judges every fault that has a measured steady state before it; `run_end` is where the run
/// ended, earlier than the model's end for a diverged run.
pub fn assess(model: &Model, m: &RunMetrics, run_end: u64) -> Vec<FaultVerdict> {
    let goodput = total_goodput(model, m);
    let b = m.bucket_ns;
    let n = goodput.len();
    let bucket_start = |k: usize| k as u64 * b;
    let hold_buckets = model.recovery_hold.div_ceil(b).max(1) as usize;
    let mean = |range: std::ops::Range<usize>| {
        let v = &goodput[range];
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    model
        .faults
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let first_measured = (model.warmup / b) as usize;
            let before_end = ((f.start / b) as usize).min(n);
            if before_end <= first_measured {
                return None;
            }
            let before = mean(first_measured..before_end);
            let after_start = (f.end.div_ceil(b) as usize).min(n);
            let during = mean(before_end..after_start.max(before_end));
            let after = mean(after_start..n);
            let bucket_s = b as f64 / 1e9;
            let band = (model.recovery_tolerance * before).max(3.0 * (before / bucket_s).sqrt());
            let close = |g: f64| (g - before).abs() <= band;
            let recovered_at = (after_start..n.saturating_sub(hold_buckets - 1))
                .find(|&j| goodput[j..j + hold_buckets].iter().all(|g| close(*g)));
            let (recovered, recovery_s) = match recovered_at {
                Some(j) => (true, bucket_start(j).saturating_sub(f.end) as f64 / 1e9),
                None => (false, run_end.saturating_sub(f.end) as f64 / 1e9),
            };
            Some(FaultVerdict {
                fault: i,
                before_rps: before,
                during_rps: during,
                after_rps: after,
                recovered,
                recovery_s,
                trigger_gone: f.end.saturating_add(model.recovery_hold) <= run_end,
            })
        })
        .collect()
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

/// Adds each verdict to the summary as `fault.<i>.*`.
pub fn add_to_summary(verdicts: &[FaultVerdict], m: &mut RunMetrics) {
    for v in verdicts {
        let p = format!("fault.{}", v.fault);
        m.summary.extend([
            (format!("{p}.goodput_before_rps"), v.before_rps),
            (format!("{p}.goodput_during_rps"), v.during_rps),
            (format!("{p}.goodput_after_rps"), v.after_rps),
            (format!("{p}.recovered"), f64::from(u8::from(v.recovered))),
            (format!("{p}.recovery_s"), v.recovery_s),
        ]);
    }
}
