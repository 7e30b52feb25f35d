//! Baselines: a run's (or its replications') metrics saved under a name, and a later run
//! compared with them metric by metric, criterion's way: a change counts when it is larger than
//! the noise threshold and, with replications on both sides, when Welch's t-test finds it
//! significant.

use crate::atomic::{io_error, write_atomic};
use crate::error::{Error, Result};
use crate::metrics::RunMetrics;
use crate::metrics::direction::{Better, better};
use crate::stats::summary::{Summary, summarize};
use crate::stats::welch::welch;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Where baselines live unless `--baseline-dir` says otherwise: `<dir>/<name>/<scenario>.json`.
pub const DEFAULT_DIR: &str = ".cascade/baselines";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub cascade: String,
    pub scenario: String,
    pub seed: u64,
    pub reps: usize,
    /// Every summary metric, one value per replication.
    pub metrics: BTreeMap<String, Vec<f64>>,
}

pub fn path(dir: &Path, name: &str, scenario: &str) -> PathBuf {
    dir.join(name).join(format!("{scenario}.json"))
}

fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "a baseline name is letters, digits, `-`, `_` and `.` (not first), got `{name}`"
        )))
    }
}

impl Baseline {
    pub fn of(scenario: &str, seed: u64, runs: &[RunMetrics]) -> Baseline {
        let mut metrics: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for run in runs {
            for (name, value) in &run.summary {
                metrics.entry(name.clone()).or_default().push(*value);
            }
        }
        Baseline {
            cascade: env!("CARGO_PKG_VERSION").into(),
            scenario: scenario.into(),
            seed,
            reps: runs.len(),
            metrics,
        }
    }

    pub fn save(&self, dir: &Path, name: &str) -> Result<PathBuf> {
        check_name(name)?;
        let path = path(dir, name, &self.scenario);
        let mut text = serde_json::to_string_pretty(self).expect("plain JSON values");
        text.push('\n');
        write_atomic(&path, text.as_bytes())?;
        Ok(path)
    }

    pub fn load(dir: &Path, name: &str, scenario: &str) -> Result<Baseline> {
        check_name(name)?;
        let path = path(dir, name, scenario);
        if !path.exists() {
            return Err(Error::Usage(format!(
                "no baseline `{name}` for scenario `{scenario}` ({} does not exist): save one first with --save-baseline {name}",
                path.display()
            )));
        }
        let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
        serde_json::from_str(&text)
            .map_err(|e| Error::Usage(format!("{}: not a cascade baseline: {e}", path.display())))
    }
}

/// criterion's defaults: a 1% noise threshold and a 5% significance level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub noise: f64,
    pub significance: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            noise: 0.01,
            significance: 0.05,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Improved,
    Regressed,
    /// Beyond noise, on a metric with no better direction (a load figure).
    Changed,
    /// Within the noise threshold, or not significant.
    Noise,
}

impl Change {
    pub fn word(self) -> &'static str {
        match self {
            Change::Improved => "improved",
            Change::Regressed => "regressed",
            Change::Changed => "changed",
            Change::Noise => "within noise",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Comparison {
    pub metric: String,
    pub base: Summary,
    pub now: Summary,
    /// (now − base) / |base|; infinite when the baseline was 0 and the metric is not.
    pub relative: f64,
    /// Welch's p-value, with replications on both sides.
    pub p: Option<f64>,
    pub change: Change,
    pub gated: bool,
}

/// Compares every metric both sides have, in the order of the new run's summary.
pub fn compare(
    base: &Baseline,
    runs: &[RunMetrics],
    gated: &dyn Fn(&str) -> bool,
    t: Thresholds,
) -> Vec<Comparison> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    // Indexed once: a summary holds hundreds of metrics, and each is looked up in every run.
    let by_name: Vec<HashMap<&str, f64>> = runs
        .iter()
        .map(|r| r.summary.iter().map(|(n, v)| (n.as_str(), *v)).collect())
        .collect();
    first
        .summary
        .iter()
        .filter_map(|(name, _)| {
            let old = base.metrics.get(name)?;
            let new: Vec<f64> = by_name
                .iter()
                .filter_map(|r| r.get(name.as_str()).copied())
                .collect();
            Some(compare_samples(name, old, &new, gated(name), t))
        })
        .collect()
}

/// One metric's verdict from its samples on each side (one value per replication): the
/// relative change of the means, Welch's p with two or more on both sides, and improved /
/// regressed / changed / noise by the metric's better direction. `cascade diff` judges two
/// result directories with it, so both commands give the same verdict on the same numbers.
pub fn compare_samples(
    name: &str,
    old: &[f64],
    new: &[f64],
    gated: bool,
    t: Thresholds,
) -> Comparison {
    let (b, n) = (summarize(old), summarize(new));
    let relative = if b.mean == n.mean {
        0.0
    } else if b.mean == 0.0 {
        f64::INFINITY.copysign(n.mean)
    } else {
        (n.mean - b.mean) / b.mean.abs()
    };
    let p = welch(old, new).map(|w| w.p);
    let significant = p.is_none_or(|p| p < t.significance);
    let change = if !significant || relative.abs() <= t.noise {
        Change::Noise
    } else {
        let up = relative > 0.0;
        match better(name) {
            None => Change::Changed,
            Some(Better::Higher) if up => Change::Improved,
            Some(Better::Lower) if !up => Change::Improved,
            Some(_) => Change::Regressed,
        }
    };
    Comparison {
        metric: name.to_string(),
        base: b,
        now: n,
        relative,
        p,
        change,
        gated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pairs: &[(&str, f64)]) -> RunMetrics {
        RunMetrics {
            summary: pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            names: Vec::new(),
            series: Vec::new(),
            bucket_ns: 1,
        }
    }

    fn changes(base: &[RunMetrics], now: &[RunMetrics]) -> BTreeMap<String, Change> {
        let b = Baseline::of("s", 1, base);
        compare(&b, now, &|_| true, Thresholds::default())
            .into_iter()
            .map(|c| (c.metric, c.change))
            .collect()
    }

    #[test]
    fn single_runs_compare_against_the_noise_threshold() {
        let base = [run(&[
            ("client.c.goodput_rps", 100.0),
            ("client.c.latency_p99_ms", 50.0),
            ("client.c.requests", 1000.0),
            ("client.c.errors.timeout", 0.0),
        ])];
        let now = [run(&[
            ("client.c.goodput_rps", 100.5),
            ("client.c.latency_p99_ms", 60.0),
            ("client.c.requests", 1100.0),
            ("client.c.errors.timeout", 3.0),
        ])];
        let c = changes(&base, &now);
        assert_eq!(c["client.c.goodput_rps"], Change::Noise);
        assert_eq!(c["client.c.latency_p99_ms"], Change::Regressed);
        assert_eq!(c["client.c.requests"], Change::Changed);
        assert_eq!(c["client.c.errors.timeout"], Change::Regressed);
        let better = [run(&[
            ("client.c.goodput_rps", 120.0),
            ("client.c.latency_p99_ms", 40.0),
        ])];
        let c = changes(&base, &better);
        assert_eq!(c["client.c.goodput_rps"], Change::Improved);
        assert_eq!(c["client.c.latency_p99_ms"], Change::Improved);
    }

    #[test]
    fn with_replications_a_change_must_also_be_significant() {
        let many = |vals: &[f64]| -> Vec<RunMetrics> {
            vals.iter()
                .map(|v| run(&[("client.c.goodput_rps", *v)]))
                .collect()
        };
        let base = many(&[100.0, 104.0, 96.0, 102.0, 98.0]);
        // The mean moves 2%, but within the spread: not significant.
        let noisy = many(&[102.0, 106.0, 98.0, 104.0, 100.0]);
        assert_eq!(
            changes(&base, &noisy)["client.c.goodput_rps"],
            Change::Noise
        );
        // A 10% drop well outside the spread: significant, and goodput going down regresses.
        let worse = many(&[90.0, 93.0, 87.0, 91.0, 89.0]);
        assert_eq!(
            changes(&base, &worse)["client.c.goodput_rps"],
            Change::Regressed
        );
    }
}
