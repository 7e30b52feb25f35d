//! A candidate's expectations at a barrier, judged by `check::evaluate_runs` exactly as
//! `cascade check` judges the scenario set to that candidate: on the first `reps` replications
//! of the runs each names, the whole 95% interval where it says `ci = true`. An expectation
//! whose `reps` the candidate has reached is judged for good (more replications do not change
//! its first `reps`); one that needs more is judged on what there is, provisionally: a candidate
//! failing it is ranked after every candidate that passes, but not rejected.

use super::candidate::{Broken, Candidate};
use crate::check::Verdict;
use crate::error::{Error, Result};
use crate::scenario::Expect;

pub struct Judged {
    /// The expectations broken for good.
    pub broken: Vec<Broken>,
    /// Whether every expectation holds on the replications so far (for good or provisionally).
    pub holds_so_far: bool,
}

/// Each expectation's verdict on the candidate's replications so far; `variants` names the
/// candidate's runs in the order of `Candidate::runs`.
pub fn verdicts(c: &Candidate, expects: &[Expect], variants: &[String]) -> Result<Vec<Verdict>> {
    let lookup = |name: &str| {
        let v = variants.iter().position(|n| n == name)?;
        Some(c.runs[v].as_slice())
    };
    crate::check::evaluate_runs(expects, &lookup).map_err(Error::Scenario)
}

/// `variants` names the candidate's runs in the order of `Candidate::runs`.
pub fn judge(c: &Candidate, expects: &[Expect], variants: &[String]) -> Result<Judged> {
    let verdicts = verdicts(c, expects, variants)?;
    let mut judged = Judged {
        broken: Vec::new(),
        holds_so_far: true,
    };
    for (i, (e, verdict)) in expects.iter().zip(verdicts).enumerate() {
        if verdict.passed {
            continue;
        }
        judged.holds_so_far = false;
        if e.reps <= c.reps() {
            judged.broken.push(Broken { expect: i, verdict });
        }
    }
    Ok(judged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ScenarioError;
    use crate::metrics::RunMetrics;
    use crate::scenario::{BASE, Op, Stat};

    fn expect(value: f64, reps: u32) -> Expect {
        Expect {
            metric: "m".into(),
            read_from: "m".into(),
            op: Op::Ge,
            value,
            reps,
            stat: Stat::Mean,
            whole_interval: false,
            variant: BASE.into(),
            against: None,
            at: Box::new(ScenarioError::new("t.toml", "")),
        }
    }

    fn candidate(values: &[f64]) -> Candidate {
        let mut c = Candidate::new(0, 1);
        c.runs[0] = values
            .iter()
            .map(|v| RunMetrics {
                summary: vec![("m".into(), *v)],
                names: Vec::new(),
                series: Vec::new(),
                bucket_ns: 0,
            })
            .collect();
        c
    }

    #[test]
    fn an_expectation_breaks_for_good_only_once_its_replications_are_there() {
        let variants = [BASE.to_string()];
        // Replications 4 and 1: mean 2.5.
        let c = candidate(&[4.0, 1.0]);
        // m >= 3 on one replication: 4 holds, for good.
        let j = judge(&c, &[expect(3.0, 1)], &variants).unwrap();
        assert!(j.broken.is_empty() && j.holds_so_far);
        // m >= 3 on the mean of two: 2.5 fails, for good (the candidate has two).
        let j = judge(&c, &[expect(3.0, 2)], &variants).unwrap();
        assert_eq!(j.broken.len(), 1);
        assert_eq!(j.broken[0].expect, 0);
        assert_eq!(j.broken[0].verdict.measured, 2.5);
        // m >= 3 on the mean of five: 2.5 so far fails provisionally, not for good.
        let j = judge(&c, &[expect(1.0, 1), expect(3.0, 5)], &variants).unwrap();
        assert!(j.broken.is_empty() && !j.holds_so_far);
    }
}
