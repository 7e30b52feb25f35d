//! Verdicts on a scenario's expectations (`[[expect]]`, compiled into
//! `scenario::Expect`): what `cascade check` turns into exit codes.

use crate::error::ScenarioError;
use crate::metrics::RunMetrics;
use crate::scenario::{BASE, Expect, Op};

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

/// The runs the expectations read (`base`, or a variant's name) and how many replications of
/// each: the most any expectation reading it asks for. In order of first mention.
pub fn runs_needed(expects: &[Expect]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for e in expects {
        match out.iter_mut().find(|(name, _)| *name == e.variant) {
            Some((_, reps)) => *reps = (*reps).max(e.reps),
            None => out.push((e.variant.clone(), e.reps)),
        }
    }
    out
}

/// Checks every expectation against a single run's metrics.
pub fn evaluate(expects: &[Expect], m: &RunMetrics) -> Result<Vec<Verdict>, Box<ScenarioError>> {
    evaluate_replicated(expects, std::slice::from_ref(m))
}

/// Checks every expectation against its first `reps` replications of the scenario's own run
/// (`runs[0]` on the scenario's seed); for expectations that name no variant.
pub fn evaluate_replicated(
    expects: &[Expect],
    runs: &[RunMetrics],
) -> Result<Vec<Verdict>, Box<ScenarioError>> {
    evaluate_runs(expects, &|name| (name == BASE).then_some(runs))
}

/// Checks every expectation against its first `reps` replications of the run it names
/// (`runs(name)`, replication 0 on the scenario's seed; `None` for a run the caller does not
/// have, an error). A metric the run does not have is an error (a misspelt name must not
/// pass), located where the expectation was written.
pub fn evaluate_runs<'a>(
    expects: &[Expect],
    runs: &dyn Fn(&str) -> Option<&'a [RunMetrics]>,
) -> Result<Vec<Verdict>, Box<ScenarioError>> {
    expects
        .iter()
        .map(|e| {
            let samples = samples_of(e, &e.variant, runs)?;
            Ok(e.judge(&samples))
        })
        .collect()
}

/// The expectation's metric in the first `reps` replications of the run `name`.
fn samples_of<'a>(
    e: &Expect,
    name: &str,
    runs: &dyn Fn(&str) -> Option<&'a [RunMetrics]>,
) -> Result<Vec<f64>, Box<ScenarioError>> {
    let Some(all) = runs(name).filter(|r| !r.is_empty()) else {
        let mut err = (*e.at).clone();
        err.message = format!("the runs of `{name}` were not run");
        return Err(Box::new(err));
    };
    let runs = &all[..(e.reps as usize).min(all.len())];
    let samples: Option<Vec<f64>> = runs.iter().map(|m| m.get(&e.read_from)).collect();
    samples.ok_or_else(|| missing(e, &runs[0]))
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
            variant: BASE.into(),
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
