//! What a scenario's `[[expect]]` asks of its runs, as compiled: the metric, the comparison,
//! the statistic over replications. `check` judges them (`Expect::judge`); the report and the
//! sweep label their columns with them.

use crate::error::ScenarioError;

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

    /// Whether the comparison holds for every value in `[lo, hi]` (an interval judged whole:
    /// a confidence interval, or a margin known only to lie beyond the range searched).
    pub fn holds_throughout(self, lo: f64, hi: f64, value: f64) -> bool {
        match self {
            Op::Lt | Op::Le => self.holds(hi, value),
            Op::Gt | Op::Ge => self.holds(lo, value),
            Op::Eq => lo == value && hi == value,
            Op::Ne => !(lo..=hi).contains(&value),
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
                if v[lo] == v[hi] {
                    // Equal neighbours (an infinite ratio among them) need no interpolation.
                    return v[lo];
                }
                v[lo] + (v[hi] - v[lo]) * (rank - lo as f64)
            }
        }
    }
}

/// How an expectation compares its run with the run it is `against`, replication by
/// replication (the pair on the same seed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// `variant / against`.
    Ratio,
    /// `variant - against`.
    Difference,
}

impl Compare {
    pub fn parse(s: &str) -> Option<Compare> {
        match s {
            "ratio" => Some(Compare::Ratio),
            "difference" => Some(Compare::Difference),
            _ => None,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Compare::Ratio => "/",
            Compare::Difference => "-",
        }
    }

    /// One pair's value. A ratio over 0 is 1 when both are 0 (no change), else infinite with
    /// the sign of `own`: a zero must not make the comparison silently pass or vanish.
    pub fn of(self, own: f64, against: f64) -> f64 {
        match self {
            Compare::Difference => own - against,
            Compare::Ratio if against == 0.0 && own == 0.0 => 1.0,
            Compare::Ratio if against == 0.0 => own.signum() * f64::INFINITY,
            Compare::Ratio => own / against,
        }
    }
}

/// What an expectation compares its run with: another run of the scenario, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Against {
    /// `base` or a variant's name, never the expectation's own `variant`.
    pub run: String,
    pub compare: Compare,
}

/// The name an expectation gives the scenario's own run (variant names cannot be `base`).
pub const BASE: &str = "base";

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
    /// The run judged: `base`, or the name of one of the scenario's `[[variant]]`s.
    pub variant: String,
    /// With `against`: the metric is compared between `variant` and this run, pair by pair.
    pub against: Option<Against>,
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

    /// Whether it judges the scenario's own run alone (no variant): what a consumer holding
    /// only that run's metrics can judge.
    pub fn on_base_only(&self) -> bool {
        self.variant == BASE && self.against.is_none()
    }

    /// Each pair of replications' value (`own[k]` against `against[k]`, the same seed), or
    /// `own` itself without `against`: the values the statistic is taken over.
    pub fn paired(&self, own: &[f64], against: &[f64]) -> Vec<f64> {
        match &self.against {
            None => own.to_vec(),
            Some(a) => own
                .iter()
                .zip(against)
                .map(|(o, x)| a.compare.of(*o, *x))
                .collect(),
        }
    }

    /// The comparison alone, with its window: `client.web.success_ratio >= 0.95 [window.w]`;
    /// a variant's run is named after the metric, `client.web.success_ratio[budget] >= 0.95`,
    /// and a comparison of two runs with its operation, `client.web.goodput_rps[cured / base]`.
    pub fn comparison(&self) -> String {
        let window = match self.read_from.strip_suffix(&self.metric) {
            Some(prefix) if !prefix.is_empty() => format!(" [{}]", prefix.trim_end_matches('.')),
            _ => String::new(),
        };
        let run = match &self.against {
            Some(a) => format!("[{} {} {}]", self.variant, a.compare.symbol(), a.run),
            None if self.variant == BASE => String::new(),
            None => format!("[{}]", self.variant),
        };
        format!(
            "{}{run} {} {}{window}",
            self.metric,
            self.op.symbol(),
            self.value
        )
    }
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
    fn comparisons_of_two_runs_by_hand() {
        assert_eq!(Compare::Ratio.of(3.0, 2.0), 1.5);
        assert_eq!(Compare::Difference.of(3.0, 2.0), 1.0);
        assert_eq!(Compare::Ratio.of(0.0, 0.0), 1.0);
        assert_eq!(Compare::Ratio.of(2.0, 0.0), f64::INFINITY);
        assert_eq!(Compare::Ratio.of(-2.0, 0.0), f64::NEG_INFINITY);
        assert_eq!(Compare::parse("ratio"), Some(Compare::Ratio));
        assert_eq!(Compare::parse("difference"), Some(Compare::Difference));
        assert_eq!(Compare::parse("diff"), None);
        // An infinite ratio among the order statistics: p50 of [1, inf, inf] is inf, not NaN.
        let v = [1.0, f64::INFINITY, f64::INFINITY];
        assert_eq!(Stat::Percentile(50.0).of(&v), f64::INFINITY);
        assert_eq!(Stat::Percentile(75.0).of(&v), f64::INFINITY);
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
}
