//! Welch's two-sample t-test (unequal variances), as criterion uses to tell a change from
//! noise: t = (mean_b − mean_a) / √(va/na + vb/nb), with Welch–Satterthwaite degrees of
//! freedom, and the two-sided p-value from Student's t distribution through the regularized
//! incomplete beta function: p = I_{df/(df+t²)}(df/2, 1/2).

use super::summary::summarize;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    pub t: f64,
    pub df: f64,
    /// Two-sided: the probability of a difference at least this large if the means are equal.
    pub p: f64,
}

/// Needs two or more samples on each side.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (sa, sb) = (summarize(a), summarize(b));
    let (qa, qb) = (
        sa.sd * sa.sd / a.len() as f64,
        sb.sd * sb.sd / b.len() as f64,
    );
    let diff = sb.mean - sa.mean;
    if qa + qb == 0.0 {
        // No noise at all (e.g. a count that every replication agrees on).
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return Some(Welch {
            t: if diff == 0.0 {
                0.0
            } else {
                diff.signum() * f64::INFINITY
            },
            df: (a.len() + b.len() - 2) as f64,
            p,
        });
    }
    let t = diff / (qa + qb).sqrt();
    let df = (qa + qb).powi(2) / (qa * qa / (a.len() - 1) as f64 + qb * qb / (b.len() - 1) as f64);
    let p = incomplete_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0);
    Some(Welch { t, df, p })
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let series = G[1..]
        .iter()
        .enumerate()
        .fold(G[0], |acc, (i, g)| acc + g / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + series.ln()
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction (modified
/// Lentz), using the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * continued_fraction(a, b, x) / a
    } else {
        1.0 - front * continued_fraction(b, a, 1.0 - x) / b
    }
}

fn continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        for numerator in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + numerator / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-sided p of Student's t at `t` with `df` degrees of freedom.
    fn p_of(t: f64, df: f64) -> f64 {
        incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    }

    #[test]
    fn students_t_tail_matches_the_tables() {
        // The two-sided 5% points of the t table give p = 0.05 back.
        for (df, t) in [(1.0, 12.706), (3.0, 3.182), (10.0, 2.228), (30.0, 2.042)] {
            assert!(
                (p_of(t, df) - 0.05).abs() < 2e-4,
                "df {df}: {}",
                p_of(t, df)
            );
        }
        // 1% points.
        assert!((p_of(3.169, 10.0) - 0.01).abs() < 1e-4);
        // t = 1 with one degree of freedom is the Cauchy distribution: p = 1/2 exactly.
        assert!((p_of(1.0, 1.0) - 0.5).abs() < 1e-12);
        assert_eq!(p_of(0.0, 5.0), 1.0);
    }

    #[test]
    fn ln_gamma_of_known_values() {
        assert!(ln_gamma(1.0).abs() < 1e-13);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn welch_by_hand() {
        // a = 2 4 6 8: mean 5, variance 20/3; b = 7.5 8.5 9.5 10.5: mean 9, variance 5/3.
        // t = 4 / √(5/3 + 5/12) = 2.77128; df = (25/12)² / ((5/3)²/3 + (5/12)²/3) = 4.41176;
        // p = 0.045080 (the t density integrated numerically over the two tails).
        let w = welch(&[2.0, 4.0, 6.0, 8.0], &[7.5, 8.5, 9.5, 10.5]).unwrap();
        assert!((w.t - 2.771_281_292).abs() < 1e-8);
        assert!((w.df - 4.411_764_706).abs() < 1e-8);
        assert!((w.p - 0.045_080).abs() < 1e-5, "p = {}", w.p);
        // Identical samples: no evidence of a change; a constant that moved: certain.
        assert_eq!(welch(&[1.0, 2.0], &[1.0, 2.0]).unwrap().p, 1.0);
        assert_eq!(welch(&[3.0, 3.0], &[4.0, 4.0]).unwrap().p, 0.0);
        assert!(welch(&[1.0], &[1.0, 2.0]).is_none());
    }
}
