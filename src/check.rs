//! Verdicts on a scenario's expectations (`[[expect]]`, compiled into
//! `scenario::Expect`): what `cascade check` turns into exit codes.

use crate::error::ScenarioError;
use crate::metrics::RunMetrics;
use crate::scenario::{Expect, Op};

impl Expect {
    /// The verdict over `samples`, the metric's values in the first `reps` replications in
    /// order (replication 0 on the scenario's seed): what `cascade check` decides, for any
    /// consumer that has those values (the sweep report reads them from runs.csv).
    pub fn judge(&self, samples: &[f64]) -> Verdict {
        if self.whole_interval {
            let s = crate::stats::summary::summarize(samples);
            let (lo, hi) = s.ci95;
            let passed = match self.op {
                Op::Lt | Op::Le => self.op.holds(hi, self.value),
                Op::Gt | Op::Ge => self.op.holds(lo, self.value),
                Op::Eq => lo == self.value && hi == self.value,
                Op::Ne => !(lo..=hi).contains(&self.value),
            };
            return Verdict {
                label: self.label(),
                measured: s.mean,
                interval: Some((lo, hi)),
                passed,
            };
        }
        let measured = self.stat.of(samples);
        Verdict {
            label: self.label(),
            measured,
            interval: None,
            passed: self.op.holds(measured, self.value),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Verdict {
    pub label: String,
    /// The statistic judged (the mean, with `whole_interval`).
    pub measured: f64,
    /// The 95% confidence interval of the mean, when the whole interval was judged.
    pub interval: Option<(f64, f64)>,
    pub passed: bool,
}

/// How many replications the expectations need: the most any of them asks for.
pub fn replications_needed(expects: &[Expect]) -> u32 {
    expects.iter().map(|e| e.reps).max().unwrap_or(1)
}

/// Checks every expectation against a single run's metrics.
pub fn evaluate(expects: &[Expect], m: &RunMetrics) -> Result<Vec<Verdict>, Box<ScenarioError>> {
    evaluate_replicated(expects, std::slice::from_ref(m))
}

/// Checks every expectation against its first `reps` replications (`runs[0]` on the
/// scenario's own seed). A metric the run does not have is an error (a misspelt name must not
/// pass), located where the expectation was written.
pub fn evaluate_replicated(
    expects: &[Expect],
    runs: &[RunMetrics],
) -> Result<Vec<Verdict>, Box<ScenarioError>> {
    expects
        .iter()
        .map(|e| {
            let runs = &runs[..(e.reps as usize).min(runs.len())];
            let samples: Option<Vec<f64>> = runs.iter().map(|m| m.get(&e.read_from)).collect();
            let Some(samples) = samples.filter(|s| !s.is_empty()) else {
                return Err(missing(e, &runs[0]));
            };
            Ok(e.judge(&samples))
        })
        .collect()
}

fn missing(e: &Expect, m: &RunMetrics) -> Box<ScenarioError> {
    let mut err = (*e.at).clone();
    let has_window = e.read_from != e.metric;
    // `window.<w>.<metric>` written as the metric: each hint must work when followed, so it
    // says to write the catalogue metric alone (measured over the expectation's own window),
    // never to drop a `window` whose `expect-<i>` window the name itself relies on.
    if let Some((w, inner)) = e
        .metric
        .strip_prefix("window.")
        .and_then(|rest| rest.split_once('.'))
    {
        let own = w.starts_with("expect-");
        err.message = match (has_window, own) {
            (true, true) | (false, true) => format!(
                "`{}` names the window of an expectation's `window` key, which the metric must not repeat: write `metric = \"{inner}\"` with `window` in this expectation",
                e.metric
            ),
            (true, false) if m.get(&e.metric).is_some() => format!(
                "`{}` already names the [[window]] `{w}`, and this expectation has a `window` of its own: write `metric = \"{inner}\"` to measure it over that `window`, or drop the `window` to read [[window]] `{w}`",
                e.metric
            ),
            (true, false) => format!(
                "`{}` names a window, and this expectation has a `window` of its own: write `metric = \"{inner}\"` to measure it over that `window`",
                e.metric
            ),
            (false, false) => String::new(),
        };
        if !err.message.is_empty() {
            return Box::new(err);
        }
    }
    if has_window && m.get(&e.metric).is_some() {
        err.message = format!(
            "`{}` is judged over the whole run only, not per window: drop the expectation's `window`",
            e.metric
        );
        return Box::new(err);
    }
    let names = m
        .summary
        .iter()
        .map(|(n, _)| crate::metrics::catalogue::windowed(n).unwrap_or(n.as_str()));
    let hint = crate::error::did_you_mean(&e.metric, names);
    err.message = format!("the run has no metric `{}`{hint}", e.metric);
    Box::new(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Stat;

    fn expect(op: Op, value: f64, whole_interval: bool) -> Expect {
        Expect {
            metric: "m".into(),
            read_from: "m".into(),
            op,
            value,
            reps: 4,
            stat: Stat::Mean,
            whole_interval,
            at: Box::new(ScenarioError::new("t.toml", "")),
        }
    }

    #[test]
    fn the_whole_interval_must_pass_not_just_the_mean() {
        // 2 4 6 8: mean 5, sd 2.582, t(3) = 3.182: interval 5 ± 4.108 = [0.892, 9.108].
        let samples = [2.0, 4.0, 6.0, 8.0];
        let mean_only = expect(Op::Ge, 4.0, false).judge(&samples);
        assert!(mean_only.passed);
        let whole = expect(Op::Ge, 4.0, true).judge(&samples);
        assert!(!whole.passed);
        let (lo, hi) = whole.interval.unwrap();
        assert!((lo - 0.892).abs() < 1e-3 && (hi - 9.108).abs() < 1e-3);
        assert!(expect(Op::Ge, 0.5, true).judge(&samples).passed);
        assert!(expect(Op::Lt, 9.2, true).judge(&samples).passed);
        assert!(!expect(Op::Lt, 9.0, true).judge(&samples).passed);
        assert!(expect(Op::Ne, 10.0, true).judge(&samples).passed);
        assert!(!expect(Op::Ne, 5.0, true).judge(&samples).passed);
        assert!(expect(Op::Eq, 1.0, true).judge(&[1.0, 1.0]).passed);
    }
}
