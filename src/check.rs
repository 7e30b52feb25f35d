//! Verdicts on a scenario's expectations (`[[expect]]`, compiled into
//! `scenario::Expect`): what `cascade check` turns into exit codes.

use crate::error::ScenarioError;
use crate::metrics::RunMetrics;
use crate::metrics::names;
use crate::scenario::Expect;

impl Expect {
    /// The verdict over `samples`, the metric's values in the first `reps` replications in
    /// order (replication 0 on the scenario's seed): what `cascade check` decides, for any
    /// consumer that has those values (the sweep report reads them from runs.csv).
    pub fn judge(&self, samples: &[f64]) -> Verdict {
        if self.whole_interval {
            let s = crate::stats::summary::summarize(samples);
            let (lo, hi) = s.ci95;
            // An infinite ratio (a zero `against`) leaves no interval to judge: it fails.
            let passed =
                lo.is_finite() && hi.is_finite() && self.op.holds_throughout(lo, hi, self.value);
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
        let against = e.against.as_ref().map(|a| &a.run);
        for run in std::iter::once(&e.variant).chain(against) {
            match out.iter_mut().find(|(name, _)| name == run) {
                Some((_, reps)) => *reps = (*reps).max(e.reps),
                None => out.push((run.clone(), e.reps)),
            }
        }
    }
    out
}

/// Checks every expectation against its first `reps` replications of the run it names
/// (`runs(name)`, replication 0 on the scenario's seed; `None` for a run the caller does not
/// have, an error). A metric the run does not have is an error (a misspelt name must not
/// pass), located where the expectation was written; but the firing time of an alert that
/// never fired is judged as +∞ (`never_fired`).
pub fn evaluate_runs<'a>(
    expects: &[Expect],
    runs: &dyn Fn(&str) -> Option<&'a [RunMetrics]>,
) -> Result<Vec<Verdict>, Box<ScenarioError>> {
    expects
        .iter()
        .map(|e| {
            let own = samples_of(e, &e.variant, runs)?;
            let against = match &e.against {
                Some(a) => samples_of(e, &a.run, runs)?,
                None => Vec::new(),
            };
            Ok(e.judge(&e.paired(&own, &against)))
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
    let samples: Option<Vec<f64>> = runs
        .iter()
        .map(|m| m.get(&e.read_from).or_else(|| never_fired(&e.read_from, m)))
        .collect();
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
    if let Some(why) = unjudged_fault(&e.metric, m) {
        err.message = why;
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

/// An alert's `first_fire_s`, or a fault's `alert.<name>.detect_s`, absent from a run that
/// evaluated the alert because it never fired (in the fault's window): judged as +∞, the time
/// it would take, so "fires within 60 s" fails (exit 1) rather than reading as a typo, and
/// "takes at least 10 s" holds.
fn never_fired(metric: &str, m: &RunMetrics) -> Option<f64> {
    let name = match metric.strip_prefix("alert.") {
        Some(rest) => rest.strip_suffix(".first_fire_s")?,
        None => {
            let rest = metric.strip_prefix("fault.")?;
            let (i, rest) = rest.split_once('.')?;
            i.parse::<usize>().ok()?;
            rest.strip_prefix("alert.")?.strip_suffix(".detect_s")?
        }
    };
    m.get(&names::alert_metric(name, "fired"))?;
    Some(f64::INFINITY)
}

/// Why a `fault.<i>.*` verdict metric is absent from a run that judged fault i's episode, or
/// judged it not at all: a gate on it must fail saying so, never pass and never read as a typo.
fn unjudged_fault(metric: &str, m: &RunMetrics) -> Option<String> {
    let rest = metric.strip_prefix("fault.")?;
    let (i, inner) = rest.split_once('.')?;
    let judged = m.get(&names::fault_metric(i, "judged"))?;
    if judged == 0.0 {
        let baseline = m.get(&names::fault_metric(i, "baseline_s")).unwrap_or(0.0);
        return Some(format!(
            "fault {i} was not judged in this run (fault.{i}.judged = 0, a baseline of {baseline} s): no steady span before it that no fault touches, or the fault before it never came back, so `{metric}` does not exist; the fault table of `cascade run` says which. Gate `fault.{i}.judged`, or name a steady span with the fault's `baseline`"
        ));
    }
    let part = inner.strip_prefix("client.")?;
    let known = crate::metrics::names::VERDICT_METRICS
        .iter()
        .any(|v| part.ends_with(&format!(".{v}")));
    known.then(|| {
        format!(
            "`{metric}` does not exist in this run: a client's or operation's fault verdict exists only when it sent requests in the baseline's buckets (fault.{i}.baseline_s = {} s)",
            m.get(&names::fault_metric(i, "baseline_s")).unwrap_or(0.0)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Against, BASE, Compare, Op, Stat};

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
            against: None,
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

    fn runs(values: &[f64]) -> Vec<RunMetrics> {
        values
            .iter()
            .map(|v| RunMetrics {
                summary: vec![("m".into(), *v)],
                names: Vec::new(),
                series: Vec::new(),
                bucket_ns: 0,
            })
            .collect()
    }

    fn comparing(compare: Compare, op: Op, value: f64, stat: Stat, ci: bool) -> Expect {
        Expect {
            variant: "cured".into(),
            against: Some(Against {
                run: BASE.into(),
                compare,
            }),
            stat,
            ..expect(op, value, ci)
        }
    }

    /// Base 10 20 40 50, cured 30 30 60 50: pair k is replication k of each (same seed).
    fn judge_pairs(e: &Expect) -> Verdict {
        let base = runs(&[10.0, 20.0, 40.0, 50.0]);
        let cured = runs(&[30.0, 30.0, 60.0, 50.0]);
        let lookup = |name: &str| match name {
            BASE => Some(base.as_slice()),
            "cured" => Some(cured.as_slice()),
            _ => None,
        };
        evaluate_runs(std::slice::from_ref(e), &lookup)
            .unwrap()
            .remove(0)
    }

    #[test]
    fn two_runs_compare_pair_by_pair() {
        // Ratios 3, 1.5, 1.5, 1: mean 1.75 (not the ratio of the means, 170 / 120 = 1.417).
        let v = judge_pairs(&comparing(Compare::Ratio, Op::Ge, 1.75, Stat::Mean, false));
        assert_eq!(v.measured, 1.75);
        assert!(v.passed);
        assert_eq!(v.label, "mean of 4: m[cured / base] >= 1.75");
        let v = judge_pairs(&comparing(Compare::Ratio, Op::Gt, 1.0, Stat::Min, false));
        assert_eq!((v.measured, v.passed), (1.0, false));
        // Differences 20, 10, 20, 0: median 15, max 20.
        let v = judge_pairs(&comparing(
            Compare::Difference,
            Op::Eq,
            15.0,
            Stat::Percentile(50.0),
            false,
        ));
        assert_eq!((v.measured, v.passed), (15.0, true));
        assert_eq!(v.label, "p50 of 4: m[cured - base] == 15");
        let v = judge_pairs(&comparing(
            Compare::Difference,
            Op::Le,
            20.0,
            Stat::Max,
            false,
        ));
        assert_eq!((v.measured, v.passed), (20.0, true));
        // The paired interval: differences 20 10 20 0, mean 12.5, sd 9.574, t(3) = 3.182:
        // 12.5 ± 15.235 = [-2.735, 27.735]; it holds > -3 but not > 0.
        let v = judge_pairs(&comparing(
            Compare::Difference,
            Op::Gt,
            -3.0,
            Stat::Mean,
            true,
        ));
        let (lo, hi) = v.interval.unwrap();
        assert!(
            (lo + 2.735).abs() < 1e-3 && (hi - 27.735).abs() < 1e-3,
            "{lo} {hi}"
        );
        assert!(v.passed);
        let v = judge_pairs(&comparing(
            Compare::Difference,
            Op::Gt,
            0.0,
            Stat::Mean,
            true,
        ));
        assert!(!v.passed);
    }

    #[test]
    fn a_ratio_over_a_zero_is_infinite_and_its_interval_fails() {
        let base = runs(&[0.0, 2.0]);
        let cured = runs(&[1.0, 4.0]);
        let lookup = |name: &str| match name {
            BASE => Some(base.as_slice()),
            _ => Some(cured.as_slice()),
        };
        let mut e = comparing(Compare::Ratio, Op::Ge, 2.0, Stat::Min, false);
        e.reps = 2;
        let v = evaluate_runs(std::slice::from_ref(&e), &lookup).unwrap();
        assert_eq!((v[0].measured, v[0].passed), (2.0, true));
        e.stat = Stat::Mean;
        e.whole_interval = true;
        e.op = Op::Ne;
        let v = evaluate_runs(std::slice::from_ref(&e), &lookup).unwrap();
        assert_eq!(v[0].measured, f64::INFINITY);
        assert!(
            !v[0].passed,
            "an interval with an infinity in it judges nothing"
        );
    }

    #[test]
    fn the_runs_needed_are_each_read_run_with_the_most_reps_asked_of_it() {
        let mut on_base = expect(Op::Ge, 0.0, false);
        on_base.reps = 2;
        let mut cured_vs_base = comparing(Compare::Ratio, Op::Ge, 1.0, Stat::Mean, false);
        cured_vs_base.reps = 5;
        let mut on_other = expect(Op::Ge, 0.0, false);
        on_other.variant = "other".into();
        on_other.reps = 1;
        assert_eq!(
            runs_needed(&[on_base, cured_vs_base, on_other]),
            vec![
                (BASE.to_string(), 5),
                ("cured".to_string(), 5),
                ("other".to_string(), 1)
            ]
        );
    }
}
