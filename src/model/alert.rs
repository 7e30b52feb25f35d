//! `[[alert]]` as the model holds it: a rule evaluated after the run over its recorded time
//! series (`crate::alert`), never during it, so a run without alerts does no work for them.

/// One alerting rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    pub name: String,
    pub condition: Condition,
    /// Evaluated at t = k · every for every k ≥ 1 with warm-up < t ≤ the run's end, ns; a
    /// whole number of buckets.
    pub every: u64,
    /// `for`: how long the condition must have held, from the evaluation that first saw it,
    /// before the alert fires (pending until then), ns.
    pub hold: u64,
    /// `keep_firing_for`: how long a firing alert stays firing after the condition is first
    /// seen false, ns.
    pub keep_firing_for: u64,
}

/// A comparison as an alert writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Gt,
    Ge,
    Lt,
    Le,
}

impl Cmp {
    pub const NAMES: [(Cmp, &'static str); 4] = [
        (Cmp::Gt, ">"),
        (Cmp::Ge, ">="),
        (Cmp::Lt, "<"),
        (Cmp::Le, "<="),
    ];

    pub fn parse(s: &str) -> Option<Cmp> {
        Cmp::NAMES
            .iter()
            .find(|(_, n)| *n == s.trim())
            .map(|(c, _)| *c)
    }

    pub fn symbol(self) -> &'static str {
        Cmp::NAMES
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("", |(_, n)| n)
    }

    pub fn holds(self, x: f64, value: f64) -> bool {
        match self {
            Cmp::Gt => x > value,
            Cmp::Ge => x >= value,
            Cmp::Lt => x < value,
            Cmp::Le => x <= value,
        }
    }
}

/// What an alert watches, evaluated at t on the last whole bucket before t ([t − bucket, t)),
/// or for a burn rate on the buckets of its windows.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `metric op value`.
    Threshold { metric: String, op: Cmp, value: f64 },
    /// `numerator / denominator op value` (0 when the denominator is 0).
    Ratio {
        numerator: String,
        denominator: String,
        op: Cmp,
        value: f64,
    },
    /// `metric / mean(metric over the baseline span) op value`; over a mean of 0 the ratio is 0
    /// when the metric is 0 and +∞ when it is above.
    Baseline {
        metric: String,
        /// [start, end) ns: whole buckets.
        span: (u64, u64),
        op: Cmp,
        value: f64,
    },
    /// The SRE workbook's multi-window burn rate: fires when the error ratio of `of` over both
    /// the last `long` and the last `short` is above `burn` · (1 − `slo`).
    Burn {
        /// `client.<c>` or `client.<c>.op.<o>`: its `success` and `errors.<kind>` series.
        of: String,
        slo: f64,
        long: u64,
        short: u64,
        burn: f64,
    },
}
