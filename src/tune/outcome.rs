//! What a search found: the best finalist, the finalists within noise of it, and where the
//! grid broke the expectations.

use super::candidate::{Candidate, Status};
use super::halving::{Goal, Standing, rank};
use super::noise::within_noise;
use super::regions::{Region, regions};
use super::search::Searched;
use crate::stats::summary::{Summary, summarize};

pub struct Outcome {
    pub searched: Searched,
    /// The point of the best finalist; `None` when no candidate came through the rounds
    /// without breaking an expectation.
    pub best: Option<usize>,
    /// The other finalists within noise of the best, best first, with Welch's p.
    pub within_noise: Vec<(usize, f64)>,
    pub regions: Vec<Region>,
}

/// A candidate's objective over its replications; `None` if some replication lacks it.
pub fn objective_stats(c: &Candidate, metric: &str) -> Option<Summary> {
    c.objective(metric).map(|v| summarize(&v))
}

/// `sizes`: each parameter's number of values; `expects`: how many `[[expect]]`s.
pub fn decide(
    searched: Searched,
    metric: &str,
    goal: Goal,
    expects: usize,
    sizes: &[usize],
) -> Outcome {
    let finalists: Vec<&Candidate> = searched
        .candidates
        .iter()
        .filter(|c| matches!(c.status, Status::Finalist))
        .collect();
    let standings = finalists
        .iter()
        .map(|c| Standing {
            point: c.point,
            holds_so_far: true,
            mean: objective_stats(c, metric).map(|s| s.mean),
        })
        .collect();
    let ranked = rank(standings, goal);
    let best = ranked.first().map(|s| s.point);
    let mut noise = Vec::new();
    if let Some(b) = best {
        let samples = |p: usize| searched.candidates[p].objective(metric);
        if let Some(best_samples) = samples(b) {
            for s in ranked.iter().skip(1) {
                let p = samples(s.point).and_then(|v| within_noise(&best_samples, &v));
                if let Some(p) = p {
                    noise.push((s.point, p));
                }
            }
        }
    }
    let regions = regions(&searched.candidates, expects, sizes);
    Outcome {
        searched,
        best,
        within_noise: noise,
        regions,
    }
}
