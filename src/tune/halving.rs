//! The decision at a barrier: which candidates go on. Candidates are ranked by whether every
//! expectation holds on their replications so far, then by the mean of the objective over
//! those replications (better first; a candidate missing the objective last), then by their
//! place in the grid, so that ties are broken the same way every time; the first `keep` go on.

use std::cmp::Ordering;

/// Which way the objective is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    Maximize,
    Minimize,
}

impl Goal {
    pub fn name(self) -> &'static str {
        match self {
            Goal::Maximize => "maximize",
            Goal::Minimize => "minimize",
        }
    }

    /// `a` against `b`: `Less` when `a` is better. A missing or NaN mean is worse than any
    /// number.
    pub fn compare(self, a: Option<f64>, b: Option<f64>) -> Ordering {
        let a = a.filter(|v| !v.is_nan());
        let b = b.filter(|v| !v.is_nan());
        match (a, b) {
            (Some(a), Some(b)) => match self {
                Goal::Maximize => b.total_cmp(&a),
                Goal::Minimize => a.total_cmp(&b),
            },
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }
}

/// A candidate as a barrier sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    pub point: usize,
    pub holds_so_far: bool,
    /// The objective's mean over its replications.
    pub mean: Option<f64>,
}

/// The standings, best first.
pub fn rank(mut standings: Vec<Standing>, goal: Goal) -> Vec<Standing> {
    standings.sort_by(|a, b| {
        b.holds_so_far
            .cmp(&a.holds_so_far)
            .then_with(|| goal.compare(a.mean, b.mean))
            .then_with(|| a.point.cmp(&b.point))
    });
    standings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(point: usize, holds: bool, mean: Option<f64>) -> Standing {
        Standing {
            point,
            holds_so_far: holds,
            mean,
        }
    }

    #[test]
    fn holding_first_then_the_better_mean_then_the_grid_order() {
        let all = vec![
            s(0, true, Some(0.5)),
            s(1, false, Some(0.99)),
            s(2, true, Some(0.9)),
            s(3, true, None),
            s(4, true, Some(0.9)),
            s(5, true, Some(f64::NAN)),
        ];
        let order =
            |goal| -> Vec<usize> { rank(all.clone(), goal).iter().map(|s| s.point).collect() };
        // Maximize: 0.9 (points 2 then 4, the tie by grid order), 0.5, then the missing
        // objectives (3, 5), and the one failing an expectation last whatever its mean.
        assert_eq!(order(Goal::Maximize), [2, 4, 0, 3, 5, 1]);
        assert_eq!(order(Goal::Minimize), [0, 2, 4, 3, 5, 1]);
    }
}
