//! `--save-baseline NAME` and `--baseline NAME` on `run` and `check`: store a run's (or its
//! replications') metrics, or compare with stored ones and report improved / regressed /
//! within noise, criterion's way.

use cascade::Result;
use cascade::baseline::{Baseline, Change, Comparison, DEFAULT_DIR, Thresholds, compare};
use cascade::check::Verdict;
use cascade::metrics::RunMetrics;
use cascade::number::sig3;
use cascade::output::text_table::Table;
use clap::Args;
use std::path::PathBuf;

/// `--noise` and `--significance` when not given.
const NOISE: f64 = 0.01;
const SIGNIFICANCE: f64 = 0.05;

#[derive(Args, Clone)]
pub struct BaselineArgs {
    /// Save this run's metrics (every replication's) as baseline NAME.
    #[arg(long, value_name = "NAME")]
    pub save_baseline: Option<String>,
    /// Compare with baseline NAME: exit 1 when a gated metric regressed.
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Where baselines are kept: DIR/NAME/<scenario>.json.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DIR)]
    pub baseline_dir: PathBuf,
    /// Relative changes at or under this are noise (criterion's default: 0.01).
    #[arg(long, value_name = "FRACTION", default_value_t = NOISE)]
    pub noise: f64,
    /// With replications on both sides, a change also needs Welch's p under this.
    #[arg(long, value_name = "ALPHA", default_value_t = SIGNIFICANCE)]
    pub significance: f64,
    /// Metrics whose regression fails the command (`*` matches any run of characters),
    /// besides those the scenario's [[expect]] name. Repeatable.
    #[arg(long = "gate", value_name = "METRIC")]
    pub gates: Vec<String>,
    /// List every compared metric, not only those that changed.
    #[arg(long)]
    pub all_metrics: bool,
}

/// The options as clap gives them when none is on the command line.
impl Default for BaselineArgs {
    fn default() -> Self {
        BaselineArgs {
            save_baseline: None,
            baseline: None,
            baseline_dir: PathBuf::from(DEFAULT_DIR),
            noise: NOISE,
            significance: SIGNIFICANCE,
            gates: Vec::new(),
            all_metrics: false,
        }
    }
}

impl BaselineArgs {
    pub fn any(&self) -> bool {
        self.save_baseline.is_some() || self.baseline.is_some()
    }

    pub fn validate(&self) -> Result<()> {
        let fraction = |v: f64| v.is_finite() && (0.0..1.0).contains(&v);
        if !fraction(self.noise) || !fraction(self.significance) || self.significance == 0.0 {
            return Err(cascade::Error::Usage(
                "--noise and --significance are fractions: 0 <= noise < 1, 0 < significance < 1"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Saves and/or compares, printing the comparison; returns a verdict per gated metric
    /// (failed when it regressed). `expected` are the summary names the scenario's
    /// expectations read: those are gated, with the `--gate` patterns.
    pub fn apply(
        &self,
        scenario: &str,
        seed: u64,
        runs: &[RunMetrics],
        expected: &[String],
        quiet: bool,
    ) -> Result<Vec<Verdict>> {
        let mut verdicts = Vec::new();
        if let Some(name) = &self.baseline {
            let base = Baseline::load(&self.baseline_dir, name, scenario)?;
            let gated = |m: &str| {
                expected.iter().any(|e| e == m)
                    || self
                        .gates
                        .iter()
                        .any(|g| cascade::metrics::select::selects(g, m))
            };
            let thresholds = Thresholds {
                noise: self.noise,
                significance: self.significance,
            };
            let comparisons = compare(&base, runs, &gated, thresholds);
            verdicts = comparisons
                .iter()
                .filter(|c| c.gated)
                .map(|c| Verdict {
                    label: format!("{} no worse than baseline `{name}`", c.metric),
                    measured: c.now.mean,
                    interval: None,
                    passed: c.change != Change::Regressed,
                })
                .collect();
            if !quiet {
                print!(
                    "{}",
                    render(
                        scenario,
                        name,
                        &base,
                        runs.len(),
                        &comparisons,
                        self.all_metrics
                    )
                );
            }
        }
        if let Some(name) = &self.save_baseline {
            let path = Baseline::of(scenario, seed, runs).save(&self.baseline_dir, name)?;
            if !quiet {
                println!(
                    "baseline `{name}` of {scenario} saved to {}",
                    path.display()
                );
            }
        }
        Ok(verdicts)
    }
}

fn render(
    scenario: &str,
    name: &str,
    base: &Baseline,
    reps: usize,
    comparisons: &[Comparison],
    all: bool,
) -> String {
    let mut table = Table::new(&["metric", "baseline", "now", "change", "p", "verdict"]);
    let mut quiet_ones = 0;
    for c in comparisons {
        if !all && c.change == Change::Noise && !c.gated {
            quiet_ones += 1;
            continue;
        }
        let metric = format!("{}{}", c.metric, if c.gated { " (gated)" } else { "" });
        table.row(comparison_cells(c, metric));
    }
    let count = |k: Change| comparisons.iter().filter(|c| c.change == k).count();
    let mut out = format!(
        "\n{scenario} against baseline `{name}` ({} vs {reps} replication{}):\n",
        base.reps,
        if reps == 1 { "" } else { "s" }
    );
    if comparisons.len() > quiet_ones {
        out.push_str(&table.render());
    }
    out.push_str(&format!(
        "{} improved, {} regressed, {} changed, {} within noise{}\n",
        count(Change::Improved),
        count(Change::Regressed),
        count(Change::Changed),
        count(Change::Noise),
        if quiet_ones > 0 && !all {
            " (--all-metrics lists them)"
        } else {
            ""
        }
    ));
    out
}

/// One comparison's row: the metric as shown, both means, the relative change ("new" from
/// zero), Welch's p where there were replications, and the verdict. `baseline` and `diff`
/// print the same row.
pub(crate) fn comparison_cells(c: &Comparison, metric: String) -> Vec<String> {
    let relative = if c.relative.is_finite() {
        format!("{:+.2}%", c.relative * 100.0)
    } else {
        "new".into()
    };
    vec![
        metric,
        sig3(c.base.mean),
        sig3(c.now.mean),
        relative,
        c.p.map_or("-".into(), |p| format!("{p:.3}")),
        c.change.word().into(),
    ]
}
