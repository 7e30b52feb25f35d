//! Expectations (`[[expect]]`) and their verdicts: what `cascade check` turns into exit codes.

use crate::error::ScenarioError;
use crate::metrics::RunMetrics;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

pub const OPS: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];

impl Op {
    pub fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "<" => Op::Lt,
            "<=" => Op::Le,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "==" => Op::Eq,
            "!=" => Op::Ne,
            _ => return None,
        })
    }

    pub fn symbol(self) -> &'static str {
        OPS[self as usize]
    }

    pub fn holds(self, measured: f64, value: f64) -> bool {
        match self {
            Op::Lt => measured < value,
            Op::Le => measured <= value,
            Op::Gt => measured > value,
            Op::Ge => measured >= value,
            Op::Eq => measured == value,
            Op::Ne => measured != value,
        }
    }
}

/// What an expectation reads from its replications.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stat {
    Mean,
    Min,
    Max,
    /// 0..=100, interpolated linearly between order statistics (numpy's default).
    Percentile(f64),
}

impl Stat {
    pub fn parse(s: &str) -> Option<Stat> {
        Some(match s {
            "mean" => Stat::Mean,
            "min" => Stat::Min,
            "max" => Stat::Max,
            "median" => Stat::Percentile(50.0),
            _ => {
                let p: f64 = s.strip_prefix('p')?.parse().ok()?;
                if !(0.0..=100.0).contains(&p) {
                    return None;
                }
                Stat::Percentile(p)
            }
        })
    }

    pub fn name(self) -> String {
        match self {
            Stat::Mean => "mean".into(),
            Stat::Min => "min".into(),
            Stat::Max => "max".into(),
            Stat::Percentile(p) => format!("p{p}"),
        }
    }

    pub fn of(self, values: &[f64]) -> f64 {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        match self {
            Stat::Mean => v.iter().sum::<f64>() / v.len() as f64,
            Stat::Min => v[0],
            Stat::Max => v[v.len() - 1],
            Stat::Percentile(p) => {
                let rank = p / 100.0 * (v.len() - 1) as f64;
                let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
                v[lo] + (v[hi] - v[lo]) * (rank - lo as f64)
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Expect {
    /// As written: `client.web.success_ratio`.
    pub metric: String,
    /// The summary name it is read from (`window.<w>.<metric>` for a windowed one).
    pub read_from: String,
    pub op: Op,
    pub value: f64,
    /// Replications judged (the first `reps` of the scenario's replication seeds).
    pub reps: u32,
    pub stat: Stat,
    /// With the mean: the whole 95% confidence interval must satisfy the comparison, not
    /// just the mean.
    pub whole_interval: bool,
    /// Where it was written, for the error when the metric does not exist.
    pub at: Box<ScenarioError>,
}

impl Expect {
    /// `client.web.success_ratio >= 0.95`, with the window and the statistic when it has them.
    pub fn label(&self) -> String {
        format!("{}{}", self.statistic(), self.comparison())
    }

    /// What is judged over the replications, as the label's prefix: `95% CI of mean of 10: `,
    /// `p95 of 10: `, or nothing for one run.
    pub fn statistic(&self) -> String {
        match (self.reps, self.whole_interval) {
            (1, _) => String::new(),
            (n, true) => format!("95% CI of mean of {n}: "),
            (n, false) => format!("{} of {n}: ", self.stat.name()),
        }
    }

    /// The comparison alone, with its window: `client.web.success_ratio >= 0.95 [window.w]`.
    pub fn comparison(&self) -> String {
        let window = match self.read_from.strip_suffix(&self.metric) {
            Some(prefix) if !prefix.is_empty() => format!(" [{}]", prefix.trim_end_matches('.')),
            _ => String::new(),
        };
        format!(
            "{} {} {}{window}",
            self.metric,
            self.op.symbol(),
            self.value
        )
    }

    /// The verdict over `samples`, the metric's values in the first `reps` replications in
    /// order (replication 0 on the scenario's seed): what `cascade check` decides, for any
    /// consumer that has those values (the sweep report reads them from runs.csv).
    pub fn judge(&self, samples: &[f64]) -> Verdict {
        if self.whole_interval {
            let s = crate::sweep::stats::summarize(samples);
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

    #[test]
    fn operators_compare_as_written() {
        assert!(Op::parse("<").unwrap().holds(1.0, 2.0));
        assert!(!Op::parse("<").unwrap().holds(2.0, 2.0));
        assert!(Op::parse("<=").unwrap().holds(2.0, 2.0));
        assert!(Op::parse(">=").unwrap().holds(2.0, 2.0));
        assert!(!Op::parse(">").unwrap().holds(2.0, 2.0));
        assert!(Op::parse("==").unwrap().holds(0.5, 0.5));
        assert!(Op::parse("!=").unwrap().holds(0.5, 0.6));
        assert_eq!(Op::parse("=>"), None);
        assert_eq!(Op::Ge.symbol(), ">=");
    }

    #[test]
    fn statistics_over_replications_by_hand() {
        let v = [3.0, 1.0, 4.0, 1.0, 5.0];
        assert_eq!(Stat::Mean.of(&v), 2.8);
        assert_eq!(Stat::Min.of(&v), 1.0);
        assert_eq!(Stat::Max.of(&v), 5.0);
        // Sorted 1 1 3 4 5: the median is the middle one; p90 sits at rank 3.6, between 4 and 5.
        assert_eq!(Stat::parse("median").unwrap().of(&v), 3.0);
        assert!((Stat::parse("p90").unwrap().of(&v) - 4.6).abs() < 1e-12);
        assert_eq!(Stat::parse("p0").unwrap().of(&v), 1.0);
        assert_eq!(Stat::parse("p100").unwrap().of(&v), 5.0);
        for bad in ["p101", "pp", "average", "p-1"] {
            assert_eq!(Stat::parse(bad), None, "{bad}");
        }
    }

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
