//! The 50% point of a search and its interval. Where the runs overlap (some probe neither all
//! recovered nor all failed, and not all of those at one point), a logistic curve in the
//! logarithm of the multiplier, fitted by maximum likelihood, gives the point and a 95%
//! interval by the delta method, as a dose-response curve gives its median dose. Where they do
//! not (a sharp boundary: every run on one side recovered and every run on the other did not),
//! no finite fit exists; the point is the bracket's geometric middle and the interval the
//! bracket, with the confidence that its two ends really lie on either side of 50%: the
//! product of each end's one-sided binomial confidence. The search (`search.rs`) is what
//! keeps the probes near the boundary, so a two-parameter fit is enough.

use super::search::Probe;

/// The 50% point and its interval, and how they were found.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub x: f64,
    pub low: f64,
    pub high: f64,
    pub how: How,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum How {
    /// A logistic fit over every probe; the interval is 95%.
    Fitted,
    /// The bracket's ends, which lie on either side of 50% with this confidence (0..1).
    Bracket { confidence: f64 },
}

/// The estimate from a bracket `[lo, hi]` and every probe of its search.
pub fn estimate(lo: &Probe, hi: &Probe, probes: &[Probe]) -> Estimate {
    if let Some(fit) = logistic(probes)
        && let Some(e) = fit.median_dose()
        && e.x >= probes_min(probes)
        && e.x <= probes_max(probes)
    {
        return e;
    }
    Estimate {
        x: (lo.x * hi.x).sqrt(),
        low: lo.x,
        high: hi.x,
        how: How::Bracket {
            confidence: above_half(lo.recovered, lo.runs)
                * above_half(hi.runs - hi.recovered, hi.runs),
        },
    }
}

fn probes_min(p: &[Probe]) -> f64 {
    p.iter().map(|p| p.x).fold(f64::INFINITY, f64::min)
}

fn probes_max(p: &[Probe]) -> f64 {
    p.iter().map(|p| p.x).fold(0.0, f64::max)
}

/// The confidence that a chance is above one half, from `k` of `n` trials: one less the
/// chance of `k` or more under exactly one half.
pub fn above_half(k: u32, n: u32) -> f64 {
    let tail: f64 = (k..=n).map(|j| binomial(n, j)).sum::<f64>() / 2f64.powi(n as i32);
    1.0 - tail
}

fn binomial(n: u32, k: u32) -> f64 {
    (0..k).fold(1.0, |c, i| c * f64::from(n - i) / f64::from(i + 1))
}

/// p(x) = 1 / (1 + e^−(a + b·ln x)): the chance of recovering at x, and the covariance of
/// (a, b) from the inverse of the information matrix.
#[derive(Debug, Clone, Copy)]
struct Logistic {
    a: f64,
    b: f64,
    var_a: f64,
    var_b: f64,
    cov: f64,
}

/// The maximum-likelihood fit by Newton's method, or `None` where none is finite (the
/// probes are separated, completely or at one point) or it does not converge.
fn logistic(probes: &[Probe]) -> Option<Logistic> {
    let (mut a, mut b) = (0.0, 0.0);
    for _ in 0..100 {
        // Gradient g and information matrix [[iaa, iab], [iab, ibb]].
        let (mut ga, mut gb, mut iaa, mut iab, mut ibb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for p in probes {
            let z = p.x.ln();
            let q = 1.0 / (1.0 + (-(a + b * z)).exp());
            let n = f64::from(p.runs);
            let resid = f64::from(p.recovered) - n * q;
            let w = n * q * (1.0 - q);
            ga += resid;
            gb += resid * z;
            iaa += w;
            iab += w * z;
            ibb += w * z * z;
        }
        let det = iaa * ibb - iab * iab;
        if det.is_nan() || det <= 1e-12 {
            return None;
        }
        let (da, db) = ((ibb * ga - iab * gb) / det, (iaa * gb - iab * ga) / det);
        a += da;
        b += db;
        if !(a.is_finite() && b.is_finite()) || b.abs() > 1e4 {
            return None;
        }
        if da.abs() < 1e-10 && db.abs() < 1e-10 {
            return Some(Logistic {
                a,
                b,
                var_a: ibb / det,
                var_b: iaa / det,
                cov: -iab / det,
            });
        }
    }
    None
}

impl Logistic {
    /// Where the chance is one half, x = e^(−a/b), and its 95% interval from the delta method
    /// on ln x; `None` when the curve does not fall with x (no boundary).
    fn median_dose(&self) -> Option<Estimate> {
        if self.b.is_nan() || self.b >= 0.0 {
            return None;
        }
        let g = -self.a / self.b;
        let var = (self.var_a + g * g * self.var_b + 2.0 * g * self.cov) / (self.b * self.b);
        let half = 1.959_963_984_540_054 * var.max(0.0).sqrt();
        Some(Estimate {
            x: g.exp(),
            low: (g - half).exp(),
            high: (g + half).exp(),
            how: How::Fitted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(x: f64, recovered: u32, runs: u32) -> Probe {
        Probe { x, recovered, runs }
    }

    #[test]
    fn the_binomial_confidence_of_a_unanimous_end() {
        // 5 of 5: 1 − 1/32.
        assert!((above_half(5, 5) - 31.0 / 32.0).abs() < 1e-12);
        // 4 of 5: 1 − 6/32.
        assert!((above_half(4, 5) - 26.0 / 32.0).abs() < 1e-12);
        assert_eq!(above_half(0, 3), 0.0);
    }

    #[test]
    fn a_sharp_boundary_gives_the_bracket_and_its_confidence() {
        let probes = [
            probe(1.0, 5, 5),
            probe(2.0, 0, 5),
            probe(1.4, 5, 5),
            probe(1.7, 0, 5),
        ];
        let e = estimate(&probes[2], &probes[3], &probes);
        assert_eq!((e.low, e.high), (1.4, 1.7));
        assert!((e.x - (1.4f64 * 1.7).sqrt()).abs() < 1e-12);
        let c = 31.0 / 32.0;
        assert_eq!(e.how, How::Bracket { confidence: c * c });
    }

    #[test]
    fn overlapping_runs_are_fitted_and_the_fit_finds_a_known_curve() {
        // Recovery chances drawn exactly from p = 1 / (1 + (x / 2)^8) with 1000 runs a probe:
        // the fit finds the median 2 and a narrow interval around it.
        let probes: Vec<Probe> = [1.0, 1.5, 1.8, 2.0, 2.2, 2.6, 3.0]
            .iter()
            .map(|&x: &f64| {
                let p = 1.0 / (1.0 + (x / 2.0).powi(8));
                probe(x, (1000.0 * p).round() as u32, 1000)
            })
            .collect();
        let e = estimate(&probes[3], &probes[4], &probes);
        assert_eq!(e.how, How::Fitted);
        assert!((e.x - 2.0).abs() < 0.01, "{e:?}");
        assert!(
            e.low < 2.0 && e.high > 2.0 && e.high / e.low < 1.05,
            "{e:?}"
        );
    }

    #[test]
    fn separation_at_one_point_has_no_finite_fit() {
        // Everything below 1.5 recovered, everything above failed, mixed only at 1.5.
        let probes = [probe(1.0, 5, 5), probe(1.5, 2, 5), probe(2.0, 0, 5)];
        let e = estimate(&probes[0], &probes[1], &probes);
        assert!(matches!(e.how, How::Bracket { .. }), "{e:?}");
    }
}
