//! When no candidate satisfies every expectation, what the grid offers instead: per expectation
//! the best value any candidate reached and by which, the expectations no candidate meets even
//! alone and the pairs none meets together, and the Pareto frontier over the expectations'
//! values and the objective. Every value is the one `cascade check` judges (`judge::verdicts`),
//! on the replications the candidate ran: a candidate that went out in an early round is read
//! on its few replications, as the rounds read it.

use super::candidate::Candidate;
use super::halving::Goal;
use super::judge::verdicts;
use super::outcome::objective_stats;
use crate::check::Verdict;
use crate::error::Result;
use crate::scenario::{Expect, Op};

/// The closest the grid came to one expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Reached {
    /// The best value measured and the candidate (point) that measured it; `None` for an
    /// expectation without a better side (`==`, `!=`).
    pub best: Option<(usize, f64)>,
    /// How many candidates meet it.
    pub met_by: usize,
}

/// A candidate on the frontier: no other is at least as good on every expectation's value and
/// the objective and better on one.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub point: usize,
    /// The value each expectation judges, in the expectations' order.
    pub values: Vec<f64>,
    pub passed: Vec<bool>,
    pub objective: Option<f64>,
    /// Other candidates with exactly the same figures (ascending points).
    pub same: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Tradeoff {
    /// Candidates read (every candidate that ran a replication).
    pub candidates: usize,
    /// One per expectation.
    pub reached: Vec<Reached>,
    /// Expectations no candidate meets.
    pub alone: Vec<usize>,
    /// Pairs of expectations each met by some candidate, never both by one.
    pub together: Vec<(usize, usize)>,
    /// Best objective first (then grid order).
    pub frontier: Vec<Point>,
}

/// Which way is better for an expectation's value: `Some(true)` the larger.
fn larger_is_better(op: Op) -> Option<bool> {
    match op {
        Op::Ge | Op::Gt => Some(true),
        Op::Le | Op::Lt => Some(false),
        Op::Eq | Op::Ne => None,
    }
}

/// A value oriented so that larger is better; NaN is the worst.
fn oriented(v: f64, larger: bool) -> f64 {
    match (v.is_nan(), larger) {
        (true, _) => f64::NEG_INFINITY,
        (false, true) => v,
        (false, false) => -v,
    }
}

pub fn tradeoff(
    candidates: &[Candidate],
    expects: &[Expect],
    variants: &[String],
    objective: &str,
    goal: Goal,
) -> Result<Tradeoff> {
    let mut read: Vec<(usize, Vec<Verdict>, Option<f64>)> = Vec::new();
    for c in candidates.iter().filter(|c| c.reps() > 0) {
        let mean = objective_stats(c, objective).map(|s| s.mean);
        read.push((c.point, verdicts(c, expects, variants)?, mean));
    }
    let reached = (0..expects.len())
        .map(|e| {
            let met_by = read.iter().filter(|(_, v, _)| v[e].passed).count();
            let best = larger_is_better(expects[e].op).and_then(|larger| {
                (read.iter())
                    .map(|(p, v, _)| (*p, v[e].measured))
                    .reduce(|a, b| match oriented(b.1, larger) > oriented(a.1, larger) {
                        true => b,
                        false => a,
                    })
            });
            Reached { best, met_by }
        })
        .collect::<Vec<_>>();
    let alone: Vec<usize> = (0..expects.len())
        .filter(|&e| reached[e].met_by == 0)
        .collect();
    let mut together = Vec::new();
    for a in 0..expects.len() {
        for b in a + 1..expects.len() {
            let both = read.iter().any(|(_, v, _)| v[a].passed && v[b].passed);
            if !alone.contains(&a) && !alone.contains(&b) && !both {
                together.push((a, b));
            }
        }
    }
    // The frontier's axes: each expectation with a better side, and the objective.
    let axes = |v: &[Verdict], mean: Option<f64>| -> Vec<f64> {
        let mut out: Vec<f64> = (expects.iter().zip(v))
            .filter_map(|(e, v)| larger_is_better(e.op).map(|l| oriented(v.measured, l)))
            .collect();
        let goal_larger = matches!(goal, Goal::Maximize);
        out.push(oriented(mean.unwrap_or(f64::NAN), goal_larger));
        out
    };
    let scores: Vec<Vec<f64>> = read.iter().map(|(_, v, m)| axes(v, *m)).collect();
    let dominates = |a: &[f64], b: &[f64]| {
        a.iter().zip(b).all(|(x, y)| x >= y) && a.iter().zip(b).any(|(x, y)| x > y)
    };
    let mut frontier: Vec<Point> = Vec::new();
    for (i, (point, v, mean)) in read.iter().enumerate() {
        if scores.iter().any(|s| dominates(s, &scores[i])) {
            continue;
        }
        let values: Vec<f64> = v.iter().map(|v| v.measured).collect();
        if let Some(twin) =
            (frontier.iter_mut()).find(|f| f.values == values && f.objective == *mean)
        {
            twin.same.push(*point);
            continue;
        }
        frontier.push(Point {
            point: *point,
            values,
            passed: v.iter().map(|v| v.passed).collect(),
            objective: *mean,
            same: Vec::new(),
        });
    }
    let goal_larger = matches!(goal, Goal::Maximize);
    frontier.sort_by(|a, b| {
        let (x, y) = (
            oriented(a.objective.unwrap_or(f64::NAN), goal_larger),
            oriented(b.objective.unwrap_or(f64::NAN), goal_larger),
        );
        y.total_cmp(&x).then(a.point.cmp(&b.point))
    });
    Ok(Tradeoff {
        candidates: read.len(),
        reached,
        alone,
        together,
        frontier,
    })
}
