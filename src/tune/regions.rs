//! Where the grid breaks an expectation, said shortly: per expectation broken, the candidates
//! that broke it, as the parameter values at which every candidate broke it ("every candidate
//! with attempts = 4, 5") and, for the rest, the candidates one by one. Exact: a slice is named
//! only when each of its candidates broke the expectation.

use super::candidate::{Candidate, Status};

/// The candidates that broke one expectation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Its index among the scenario's `[[expect]]`s.
    pub expect: usize,
    /// Ascending.
    pub points: Vec<usize>,
    /// Per parameter (by index), the values (by index) at which every candidate broke it.
    pub slices: Vec<(usize, Vec<usize>)>,
    /// The points of `points` in no slice.
    pub others: Vec<usize>,
}

/// The index of each parameter's value at `point`, for parameters of `sizes` values (the
/// first varying slowest, as the grid is expanded).
pub fn digits(point: usize, sizes: &[usize]) -> Vec<usize> {
    let mut rest = point;
    let mut out = vec![0; sizes.len()];
    for (i, &n) in sizes.iter().enumerate().rev() {
        out[i] = rest % n.max(1);
        rest /= n.max(1);
    }
    out
}

/// `points` (ascending) of a grid of `total` points: per parameter, the values at which every
/// point is among them, and the points in no such slice.
pub fn slices(
    points: &[usize],
    total: usize,
    sizes: &[usize],
) -> (Vec<(usize, Vec<usize>)>, Vec<usize>) {
    let all: Vec<Vec<usize>> = (0..total).map(|p| digits(p, sizes)).collect();
    let mut slices = Vec::new();
    let mut covered = vec![false; total];
    for (param, &n) in sizes.iter().enumerate() {
        let values: Vec<usize> = (0..n)
            .filter(|&v| {
                (0..total)
                    .filter(|&p| all[p][param] == v)
                    .all(|p| points.contains(&p))
            })
            .collect();
        if values.is_empty() {
            continue;
        }
        for p in 0..total {
            if values.contains(&all[p][param]) {
                covered[p] = true;
            }
        }
        slices.push((param, values));
    }
    let others = points.iter().copied().filter(|&p| !covered[p]).collect();
    (slices, others)
}

/// The regions of the rejected candidates, in the order of the expectations; `sizes` are the
/// parameters' numbers of values.
pub fn regions(candidates: &[Candidate], expects: usize, sizes: &[usize]) -> Vec<Region> {
    let mut out = Vec::new();
    for e in 0..expects {
        let points: Vec<usize> = candidates
            .iter()
            .filter(|c| match &c.status {
                Status::Rejected { broke, .. } => broke.iter().any(|b| b.expect == e),
                _ => false,
            })
            .map(|c| c.point)
            .collect();
        if points.is_empty() {
            continue;
        }
        let (slices, others) = slices(&points, candidates.len(), sizes);
        out.push(Region {
            expect: e,
            points,
            slices,
            others,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Verdict;
    use crate::tune::candidate::Broken;

    fn rejected(point: usize, expect: usize) -> Candidate {
        let mut c = Candidate::new(point, 1);
        let verdict = Verdict {
            label: String::new(),
            measured: 0.0,
            interval: None,
            passed: false,
        };
        c.status = Status::Rejected {
            round: 0,
            broke: vec![Broken { expect, verdict }],
        };
        c
    }

    #[test]
    fn digits_follow_the_grid_order() {
        // 3 × 2: points 0..6 are (0,0) (0,1) (1,0) (1,1) (2,0) (2,1).
        assert_eq!(digits(0, &[3, 2]), [0, 0]);
        assert_eq!(digits(3, &[3, 2]), [1, 1]);
        assert_eq!(digits(4, &[3, 2]), [2, 0]);
    }

    #[test]
    fn whole_slices_then_the_rest_one_by_one() {
        // A 3 × 2 grid: the first parameter's value 2 (points 4, 5) broke expectation 0, and
        // so did point 1; point 0 broke expectation 1; 2 and 3 held.
        let candidates: Vec<Candidate> = (0..6)
            .map(|p| match p {
                1 | 4 | 5 => rejected(p, 0),
                0 => rejected(p, 1),
                _ => Candidate::new(p, 1),
            })
            .collect();
        let r = regions(&candidates, 3, &[3, 2]);
        assert_eq!(
            r,
            [
                Region {
                    expect: 0,
                    points: vec![1, 4, 5],
                    slices: vec![(0, vec![2])],
                    others: vec![1],
                },
                Region {
                    expect: 1,
                    points: vec![0],
                    slices: vec![],
                    others: vec![0],
                },
            ]
        );
    }
}
