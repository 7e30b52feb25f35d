//! Parameters that did nothing: a parameter is named when every pair of candidates that differ
//! in it alone measured the same, within noise, on every metric the search read (the objective
//! and each expectation's, in every run it made). Two candidates are compared on their common
//! replications (replication r runs on the same seed everywhere), with Welch's test as "within
//! noise of the best" uses it (`noise::within_noise`): with one replication a side, only equal
//! values are the same. A parameter with no comparable pair is not named.

use super::candidate::Candidate;
use super::noise::within_noise;
use super::regions::digits;

/// A parameter (by index) with no effect, and how many pairs of candidates showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoEffect {
    pub param: usize,
    pub pairs: usize,
}

/// The point whose parameters take the values (by index) `d`; the inverse of `digits`.
fn point_of(d: &[usize], sizes: &[usize]) -> usize {
    d.iter().zip(sizes).fold(0, |p, (&v, &n)| p * n + v)
}

/// Whether two candidates measured the same within noise on every metric both report.
fn alike(a: &Candidate, b: &Candidate) -> bool {
    let n = a.reps().min(b.reps()) as usize;
    for (ra, rb) in a.runs.iter().zip(&b.runs) {
        for (name, _) in &ra[0].summary {
            let side = |runs: &[crate::metrics::RunMetrics]| -> Option<Vec<f64>> {
                runs[..n].iter().map(|m| m.get(name)).collect()
            };
            if let (Some(x), Some(y)) = (side(ra), side(rb))
                && within_noise(&x, &y).is_none()
            {
                return false;
            }
        }
    }
    true
}

/// The parameters (of `sizes` values each, grid order) that changed nothing.
pub fn no_effect(candidates: &[Candidate], sizes: &[usize]) -> Vec<NoEffect> {
    let mut out = Vec::new();
    for (param, &n) in sizes.iter().enumerate().filter(|(_, n)| **n > 1) {
        let mut pairs = 0;
        let mut moved = false;
        'points: for a in candidates.iter().filter(|c| c.reps() > 0) {
            let d = digits(a.point, sizes);
            for v in d[param] + 1..n {
                let mut other = d.clone();
                other[param] = v;
                let b = &candidates[point_of(&other, sizes)];
                if b.reps() == 0 {
                    continue;
                }
                pairs += 1;
                if !alike(a, b) {
                    moved = true;
                    break 'points;
                }
            }
        }
        if !moved && pairs > 0 {
            out.push(NoEffect { param, pairs });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::RunMetrics;

    fn candidate(point: usize, values: &[f64]) -> Candidate {
        let mut c = Candidate::new(point, 1);
        c.runs[0] = (values.iter())
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
    fn a_parameter_is_named_only_when_every_pair_differing_in_it_alone_measured_alike() {
        // Two parameters of 2 values; points (a, b) = 2a + b. The metric follows a alone:
        // 1.0 at a = 0, 2.0 at a = 1, whatever b.
        let grid: Vec<Candidate> = (0..4)
            .map(|p| candidate(p, &[1.0 + (p / 2) as f64]))
            .collect();
        assert_eq!(no_effect(&grid, &[2, 2]), [NoEffect { param: 1, pairs: 2 }]);
        // b moves the metric at one point only: b has an effect.
        let mut grid = grid;
        grid[3] = candidate(3, &[2.5]);
        assert_eq!(no_effect(&grid, &[2, 2]), []);
        // A candidate that never ran is no evidence either way.
        let grid = vec![candidate(0, &[1.0]), Candidate::new(1, 1)];
        assert_eq!(no_effect(&grid, &[2]), []);
    }

    #[test]
    fn replications_are_compared_with_welchs_test_on_the_common_ones() {
        // The same mean with spread: within noise. Three replications against two: the first
        // two of each compared.
        let a = candidate(0, &[0.90, 0.94, 5.0]);
        let b = candidate(1, &[0.91, 0.93]);
        assert!(alike(&a, &b));
        let c = candidate(1, &[0.50, 0.52]);
        assert!(!alike(&a, &c));
        assert_eq!(point_of(&digits(7, &[3, 4]), &[3, 4]), 7);
    }
}
