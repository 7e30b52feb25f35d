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

#[derive(Debug, Clone)]
pub struct Expect {
    /// As written: `client.web.success_ratio`.
    pub metric: String,
    /// The summary name it is read from (`window.<w>.<metric>` for a windowed one).
    pub read_from: String,
    pub op: Op,
    pub value: f64,
    /// Where it was written, for the error when the metric does not exist.
    pub at: Box<ScenarioError>,
}

impl Expect {
    /// `client.web.success_ratio >= 0.95`, with the window when it has one.
    pub fn label(&self) -> String {
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
}

#[derive(Debug, Clone)]
pub struct Verdict {
    pub label: String,
    pub measured: f64,
    pub passed: bool,
}

/// Checks every expectation against a run's metrics. A metric the run does not have is an
/// error (a misspelt name must not pass), located where the expectation was written.
pub fn evaluate(expects: &[Expect], m: &RunMetrics) -> Result<Vec<Verdict>, Box<ScenarioError>> {
    expects
        .iter()
        .map(|e| {
            let Some(measured) = m.get(&e.read_from) else {
                let mut err = (*e.at).clone();
                if e.read_from != e.metric && m.get(&e.metric).is_some() {
                    err.message = format!(
                        "`{}` is judged over the whole run only, not per window: drop the expectation's `window`",
                        e.metric
                    );
                    return Err(Box::new(err));
                }
                let names = m
                    .summary
                    .iter()
                    .map(|(n, _)| crate::metrics::catalogue::windowed(n).unwrap_or(n.as_str()));
                let hint = crate::error::did_you_mean(&e.metric, names);
                err.message = format!("the run has no metric `{}`{hint}", e.metric);
                return Err(Box::new(err));
            };
            Ok(Verdict {
                label: e.label(),
                measured,
                passed: e.op.holds(measured, e.value),
            })
        })
        .collect()
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
}
