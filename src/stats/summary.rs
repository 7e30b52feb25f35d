//! Statistics over replications: mean, sample standard deviation and the 95% confidence
//! interval of the mean from Student's t with n − 1 degrees of freedom.

mod t95_table;

use t95_table::T95;

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom: the t at which the
/// two tails hold 5%, exact for every df (no switch to the normal 1.96, which is about 4% too
/// narrow at 40 replications); infinite for 0. Up to 1,000 it is read from `T95`, the nearest
/// double to the true value; past it, from the Cornish–Fisher series in 1/df (`SERIES`), whose
/// first neglected term there is under 1e-18, so the result is within about half a unit in the
/// last place (the nearest double or its neighbour).
pub fn t95(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=1000 => T95[df - 1],
        _ => t95_series(df as f64),
    }
}

/// The normal 97.5% point Φ⁻¹(0.975) = 1.959963984540054235524594…, as the nearest double and
/// what it leaves over, so that the series adds its small terms to the whole of z before the
/// one rounding.
const Z: f64 = 1.959_963_984_540_054_3;
const Z_REST: f64 = -3.595_246_643_491_566e-17;

/// The Cornish–Fisher expansion of Student's t about the normal point z, t = z + Σ g_k(z)/df^k,
/// with g_k(z) = z · P_k(z²) / d_k: (P_k's coefficients from the constant term up, d_k). g1 to g4
/// are Abramowitz and Stegun 26.7.5's; g5 is the next term of the same expansion, which the
/// tests check against the table (without it the series misses by 20 ulp at 700 df).
const SERIES: [(&[f64], f64); 5] = [
    (&[1.0, 1.0], 4.0),
    (&[3.0, 16.0, 5.0], 96.0),
    (&[-15.0, 17.0, 19.0, 3.0], 384.0),
    (&[-945.0, -1920.0, 1482.0, 776.0, 79.0], 92_160.0),
    (&[17_955.0, -765.0, -1782.0, 930.0, 339.0, 27.0], 368_640.0),
];

fn t95_series(df: f64) -> f64 {
    let u = 1.0 / df;
    let z2 = Z * Z;
    // Σ g_k u^k by Horner's rule in u, the highest term first.
    let sum = SERIES.iter().rev().fold(0.0, |acc, (poly, d)| {
        let p = poly.iter().rev().fold(0.0, |p, c| p * z2 + c);
        (acc + p * Z / d) * u
    });
    Z + (Z_REST + sum)
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for a single value.
    pub sd: f64,
    /// The 95% confidence interval of the mean; the mean itself for a single value.
    pub ci95: (f64, f64),
}

pub fn summarize(values: &[f64]) -> Summary {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 {
        return Summary {
            n,
            mean,
            sd: 0.0,
            ci95: (mean, mean),
        };
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    let t = t95(n - 1);
    let half = t * sd / (n as f64).sqrt();
    Summary {
        n,
        mean,
        sd,
        ci95: (mean - half, mean + half),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_sd_and_interval_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, sample sd √(32/7) = 2.138;
        // t(7) = 2.3646: half-width 2.3646 × 2.138 / √8 = 1.788.
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.n, 8);
        assert_eq!(s.mean, 5.0);
        assert!((s.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let half = t95(7) * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
        assert!((half - 1.7875).abs() < 1e-4, "{half}");
        assert!((s.ci95.0 - (5.0 - half)).abs() < 1e-12);
        assert!((s.ci95.1 - (5.0 + half)).abs() < 1e-12);
        let one = summarize(&[3.0]);
        assert_eq!((one.sd, one.ci95), (0.0, (3.0, 3.0)));
    }

    #[test]
    fn t_quantile_matches_published_tables_at_every_df() {
        // Two-sided 95% points of Student's t, from the published tables (NIST/SEMATECH
        // e-Handbook 1.3.6.7.2; df 39 from R's qt(0.975, 39) = 2.022691).
        for (df, table, digits) in [
            (1, 12.706, 3),
            (2, 4.303, 3),
            (7, 2.365, 3),
            (9, 2.262, 3),
            (10, 2.228, 3),
            (30, 2.042, 3),
            (39, 2.0227, 4),
            (100, 1.984, 3),
            (1000, 1.962, 3),
            (1001, 1.962, 3),
            (100_000, 1.960, 3),
            (usize::MAX, 1.960, 3),
        ] {
            let t = t95(df);
            let rounded = (t * 10f64.powi(digits)).round() / 10f64.powi(digits);
            assert_eq!(rounded, table, "t({df}) = {t}");
        }
        // Past 31 replications it stays above the normal 1.96 (the old code's value).
        assert!(t95(40) > 2.02);
        assert_eq!(t95(0), f64::INFINITY);
    }

    /// Units in the last place between two doubles of the same sign.
    fn ulps(a: f64, b: f64) -> u64 {
        a.to_bits().abs_diff(b.to_bits())
    }

    #[test]
    fn every_table_entry_leaves_five_percent_in_the_two_tails() {
        // An independent check of the table: the two-sided tail beyond t is I_x(df/2, 1/2) at
        // x = df / (df + t²) (`welch`); 1e-12 is its accuracy. An entry wrong in its tenth digit
        // fails, and the points fall with df, towards z.
        use super::super::welch::incomplete_beta;
        for (i, t) in T95.iter().enumerate() {
            let df = (i + 1) as f64;
            let tail = incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
            assert!((tail - 0.05).abs() < 1e-12, "df {df}: tail {tail}");
            assert!(i == 0 || *t < T95[i - 1], "df {df}");
        }
        let (last, z) = (T95[999], "1.959963984540054235524594".parse::<f64>());
        assert!(last > Z && z == Ok(Z), "{last} {z:?}");
    }

    #[test]
    fn the_series_meets_the_table_and_the_exact_values_past_it() {
        // Where the table and the series overlap (the series' first neglected term is 5e-18 at
        // 700 df, 6e-19 at 1,000) they agree to one unit in the last place; past the table the
        // series gives the nearest double or its neighbour (exact values by mpmath, 40 digits).
        for df in 700..=1000 {
            let (table, series) = (t95(df), t95_series(df as f64));
            assert!(ulps(table, series) <= 1, "df {df}: {table} {series}");
        }
        for (df, exact) in [
            (1001, 1.96233670528088),
            (1500, 1.9615467538950186),
            (2000, 1.9611508260994381),
            (3000, 1.9607550553224584),
            (5000, 1.960438551706508),
            (10_000, 1.9602012398906263),
            (100_000, 1.9599877075346097),
            (1_000_000, 1.959966356814107),
            (1_000_000_000, 1.9599639869123255),
        ] {
            assert!(ulps(t95(df), exact) <= 1, "df {df}: {} {exact}", t95(df));
        }
        assert_eq!(t95(usize::MAX), Z);
    }

    #[test]
    fn points_are_the_nearest_doubles_to_the_true_values() {
        // Regression: a bisection on `incomplete_beta` ran on every call (about 40 µs) and was
        // off in the last digits that the CSV and JSON results print: 4 ulp at 2 df, 1 at 9, 6 at
        // 30, 160,000 (3.6e-11) at 100,000. Exact values by mpmath, 40 digits, rounded once.
        for (df, exact) in [
            (2, 4.302652729749464),
            (9, 2.2621571627982053),
            (30, 2.042272456301238),
            (39, 2.0226909200367613),
            (100_000, 1.9599877075346097),
        ] {
            assert_eq!(t95(df), exact, "df {df}");
        }
        assert!(ulps(t95(1_000_000), 1.959966356814107) <= 1);
    }

    #[test]
    fn forty_replications_use_t_39_not_1_96() {
        // 40 values 0, 1, 0, 1, ...: mean 0.5, sample sd √(10/39); half-width t(39) sd / √40.
        let values: Vec<f64> = (0..40).map(|i| f64::from(i % 2)).collect();
        let s = summarize(&values);
        let sd = (10.0f64 / 39.0).sqrt();
        let half = (s.ci95.1 - s.ci95.0) / 2.0;
        assert!(
            (half - 2.022_691 * sd / 40f64.sqrt()).abs() < 1e-6,
            "{half}"
        );
    }
}
