//! One candidate of a search: a point of the grid, the replications it has run (only the
//! metrics the search reads: the objective and the expectations'), and where it stands.

use crate::check::Verdict;
use crate::metrics::RunMetrics;

/// Where a candidate stands once the search is over.
#[derive(Debug, Clone)]
pub enum Status {
    /// Ran every round: judged on every expectation, on the finalists' replications.
    Finalist,
    /// Outranked at the end of round `round` (0-based) and ran no further.
    Eliminated { round: usize },
    /// Broke the expectations `broke` (each judged as `cascade check` judges it) at the end
    /// of round `round`, and ran no further.
    Rejected { round: usize, broke: Vec<Broken> },
    /// Pruned before the first round by the reason `by` of the search's `Pruning`: it never
    /// ran.
    Pruned { by: usize },
}

/// An expectation a candidate broke: its index among the scenario's `[[expect]]`s and the
/// verdict.
#[derive(Debug, Clone)]
pub struct Broken {
    pub expect: usize,
    pub verdict: Verdict,
}

#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its index in the grid (the sweep's point).
    pub point: usize,
    /// Per variant run (the plan's order, `base` first), its replications in order.
    pub runs: Vec<Vec<RunMetrics>>,
    pub status: Status,
}

impl Candidate {
    pub fn new(point: usize, variants: usize) -> Candidate {
        Candidate {
            point,
            runs: vec![Vec::new(); variants],
            // Racing until a barrier decides otherwise; every candidate still racing after
            // the last round is a finalist.
            status: Status::Finalist,
        }
    }

    /// Replications run (of every variant alike).
    pub fn reps(&self) -> u32 {
        self.runs[0].len() as u32
    }

    pub fn racing(&self) -> bool {
        matches!(self.status, Status::Finalist)
    }

    /// The objective in each replication of the base run; `None` if some replication does
    /// not report it.
    pub fn objective(&self, metric: &str) -> Option<Vec<f64>> {
        self.runs[0].iter().map(|m| m.get(metric)).collect()
    }
}

/// The metrics of a run record that a search reads, in the record's order.
pub fn kept_metrics(all: Vec<(String, f64)>, wanted: &[String]) -> RunMetrics {
    RunMetrics {
        summary: all
            .into_iter()
            .filter(|(n, _)| wanted.contains(n))
            .collect(),
        names: Vec::new(),
        series: Vec::new(),
        bucket_ns: 0,
    }
}
