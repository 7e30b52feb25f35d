//! Latency distributions, sampled in integer nanoseconds.

use cascade_policy::random::unit;
use rand::Rng;
use rand_distr::{Distribution, Exp1, Gamma, LogNormal, StandardNormal, Weibull};

mod quantile;

/// z such that P(N(0,1) <= z) = 0.99: turns a median and a p99 into a lognormal's sigma.
const Z99: f64 = 2.326_347_874_040_840_8;

/// A validated latency distribution. Parameters are in nanoseconds.
#[derive(Debug, Clone)]
pub enum Latency {
    Constant(u64),
    Uniform {
        min: f64,
        max: f64,
    },
    Exponential {
        mean: f64,
    },
    /// Normal truncated at zero (negative draws are redrawn).
    Normal {
        mean: f64,
        stddev: f64,
    },
    /// ln of the value is normal with mean `mu` and standard deviation `sigma`. The rand_distr
    /// types hide their parameters, so each is kept beside its sampler: the means below are
    /// their closed forms.
    LogNormal {
        mu: f64,
        sigma: f64,
        dist: LogNormal<f64>,
    },
    Gamma {
        shape: f64,
        scale: f64,
        dist: Gamma<f64>,
    },
    Weibull {
        scale: f64,
        shape: f64,
        dist: Weibull<f64>,
    },
    /// Pareto type I: `scale` is the minimum, `shape` the tail index.
    Pareto {
        scale: f64,
        shape: f64,
    },
    /// Components chosen by cumulative weight (weights normalised to sum to 1).
    Mixture {
        cumulative: Vec<f64>,
        parts: Vec<Latency>,
    },
    /// Percentile table (percent, ns), from 0 to 100, interpolated linearly.
    Empirical {
        points: Vec<(f64, f64)>,
    },
}

impl Latency {
    pub fn lognormal_from_median_p99(median: f64, p99: f64) -> Result<Latency, String> {
        if !(median > 0.0 && p99 > median) {
            return Err("lognormal needs 0 < median < p99".into());
        }
        Self::lognormal(median.ln(), (p99 / median).ln() / Z99)
    }

    pub fn lognormal(mu: f64, sigma: f64) -> Result<Latency, String> {
        LogNormal::new(mu, sigma)
            .map(|dist| Latency::LogNormal { mu, sigma, dist })
            .map_err(|e| format!("lognormal: {e}"))
    }

    pub fn gamma(shape: f64, scale: f64) -> Result<Latency, String> {
        Gamma::new(shape, scale)
            .map(|dist| Latency::Gamma { shape, scale, dist })
            .map_err(|e| format!("gamma: {e}"))
    }

    pub fn weibull(scale: f64, shape: f64) -> Result<Latency, String> {
        Weibull::new(scale, shape)
            .map(|dist| Latency::Weibull { scale, shape, dist })
            .map_err(|e| format!("weibull: {e}"))
    }

    /// Draws one duration in nanoseconds.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        to_ns(self.sample_f64(rng))
    }

    fn sample_f64<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            Latency::Constant(ns) => *ns as f64,
            Latency::Uniform { min, max } => min + (max - min) * unit(rng),
            Latency::Exponential { mean } => {
                let e: f64 = Exp1.sample(rng);
                e * mean
            }
            Latency::Normal { mean, stddev } => {
                // Truncation by rejection; the mean is positive, so at least half the draws pass.
                loop {
                    let z: f64 = StandardNormal.sample(rng);
                    let x = mean + stddev * z;
                    if x >= 0.0 {
                        return x;
                    }
                }
            }
            Latency::LogNormal { dist, .. } => dist.sample(rng),
            Latency::Gamma { dist, .. } => dist.sample(rng),
            Latency::Weibull { dist, .. } => dist.sample(rng),
            Latency::Pareto { scale, shape } => scale * (1.0 - unit(rng)).powf(-1.0 / shape),
            Latency::Mixture { cumulative, parts } => {
                let u = unit(rng);
                let i = cumulative
                    .iter()
                    .position(|c| u < *c)
                    .unwrap_or(parts.len() - 1);
                parts[i].sample_f64(rng)
            }
            Latency::Empirical { points } => Latency::empirical_at(points, unit(rng) * 100.0),
        }
    }

    /// The distribution's mean in nanoseconds (infinite for a Pareto tail with shape <= 1).
    pub fn mean(&self) -> f64 {
        match self {
            Latency::Constant(ns) => *ns as f64,
            Latency::Uniform { min, max } => (min + max) / 2.0,
            Latency::Exponential { mean } => *mean,
            Latency::Normal { mean, stddev } => truncated_normal_mean(*mean, *stddev),
            Latency::LogNormal { mu, sigma, .. } => (mu + sigma * sigma / 2.0).exp(),
            Latency::Gamma { shape, scale, .. } => shape * scale,
            Latency::Weibull { scale, shape, .. } => scale * gamma_fn(1.0 + 1.0 / shape),
            Latency::Pareto { scale, shape } => {
                if *shape > 1.0 {
                    shape * scale / (shape - 1.0)
                } else {
                    f64::INFINITY
                }
            }
            Latency::Mixture { cumulative, parts } => {
                let mut prev = 0.0;
                let mut total = 0.0;
                for (c, p) in cumulative.iter().zip(parts) {
                    total += (c - prev) * p.mean();
                    prev = *c;
                }
                total
            }
            Latency::Empirical { points } => points
                .windows(2)
                .map(|w| (w[1].0 - w[0].0) / 100.0 * (w[0].1 + w[1].1) / 2.0)
                .sum(),
        }
    }

    /// An empirical table's value at percentile `p` (0 to 100), interpolated linearly.
    fn empirical_at(points: &[(f64, f64)], p: f64) -> f64 {
        let i = points
            .iter()
            .position(|(q, _)| *q >= p)
            .unwrap_or(points.len() - 1)
            .max(1);
        let ((p0, v0), (p1, v1)) = (points[i - 1], points[i]);
        if p1 <= p0 {
            v1
        } else {
            v0 + (v1 - v0) * (p - p0) / (p1 - p0)
        }
    }
}

/// The longest draw, ns (2^62, 146 years): any instant of a run (below 2^62 too,
/// `scenario/compile.rs`) plus a draw fits a u64.
pub const LONGEST_DRAW: u64 = 1 << 62;

/// `ns` × `factor`, rounded, at most `LONGEST_DRAW` (0 for a NaN): a draw slowed by a fault
/// or a contention law is still a draw.
pub fn scale_ns(ns: u64, factor: f64) -> u64 {
    let x = (ns as f64 * factor).round();
    if x >= LONGEST_DRAW as f64 {
        LONGEST_DRAW
    } else {
        x as u64
    }
}

fn to_ns(x: f64) -> u64 {
    // `+ 0.5` then truncation rounds a positive value without a libm call. Clamped to
    // `LONGEST_DRAW`, the value fits an i64, whose conversion is one instruction (a u64's
    // takes two and a branch).
    if x > 0.0 {
        (x + 0.5).min(LONGEST_DRAW as f64) as i64 as u64
    } else {
        0
    }
}

/// Γ(x) for x > 0: libm's `tgamma` (musl's Lanczos approximation, the crate rust-lang
/// maintains; already in the tree through num-traits), here so its tests sit beside its use.
fn gamma_fn(x: f64) -> f64 {
    libm::tgamma(x)
}

fn truncated_normal_mean(mean: f64, sd: f64) -> f64 {
    if sd == 0.0 {
        return mean;
    }
    let a = -mean / sd;
    let phi = (-a * a / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let tail = 0.5 * erfc(a / std::f64::consts::SQRT_2);
    mean + sd * phi / tail
}

/// Complementary error function (Numerical Recipes' erfcc, relative error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    // The polynomial in t after its constant term, by Horner's rule, innermost first: the same
    // operations in the same order as the book's nested form, which rustfmt takes twenty
    // seconds to lay out.
    let (last, rest) = ERFCC[1..].split_last().expect("ten coefficients");
    let inner = rest.iter().rev().fold(*last, |acc, c| c + t * acc);
    let r = t * (-z * z + ERFCC[0] + t * inner).exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// erfcc's coefficients, from the constant term up.
const ERFCC: [f64; 10] = [
    -1.265_512_23,
    1.000_023_68,
    0.374_091_96,
    0.096_784_18,
    -0.186_288_06,
    0.278_868_07,
    -1.135_203_98,
    1.488_515_87,
    -0.822_152_23,
    0.170_872_77,
];

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn sample_mean(d: &Latency, n: usize) -> f64 {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        (0..n).map(|_| d.sample(&mut rng) as f64).sum::<f64>() / n as f64
    }

    fn quantile(d: &Latency, q: f64, n: usize) -> f64 {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut v: Vec<u64> = (0..n).map(|_| d.sample(&mut rng)).collect();
        v.sort_unstable();
        v[(q * n as f64) as usize] as f64
    }

    #[test]
    fn exponential_and_uniform_means() {
        let e = Latency::Exponential { mean: 5e6 };
        assert!((sample_mean(&e, 200_000) / 5e6 - 1.0).abs() < 0.01);
        let u = Latency::Uniform { min: 1e6, max: 3e6 };
        assert!((sample_mean(&u, 200_000) / 2e6 - 1.0).abs() < 0.01);
    }

    #[test]
    fn lognormal_hits_its_median_and_p99() {
        let d = Latency::lognormal_from_median_p99(3e6, 25e6).unwrap();
        assert!((quantile(&d, 0.5, 200_000) / 3e6 - 1.0).abs() < 0.02);
        assert!((quantile(&d, 0.99, 200_000) / 25e6 - 1.0).abs() < 0.05);
    }

    #[test]
    fn truncated_normal_never_negative_and_mean_matches_formula() {
        let d = Latency::Normal {
            mean: 1e6,
            stddev: 1e6,
        };
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        assert!((0..10_000).all(|_| d.sample(&mut rng) < u64::MAX / 8));
        assert!((sample_mean(&d, 400_000) / d.mean() - 1.0).abs() < 0.01);
    }

    #[test]
    fn pareto_minimum_and_mean() {
        let d = Latency::Pareto {
            scale: 1e6,
            shape: 3.0,
        };
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        assert!((0..10_000).all(|_| d.sample(&mut rng) >= 1_000_000));
        assert!((sample_mean(&d, 400_000) / 1.5e6 - 1.0).abs() < 0.02);
    }

    #[test]
    fn mixture_and_empirical_means() {
        let m = Latency::Mixture {
            cumulative: vec![0.9, 1.0],
            parts: vec![Latency::Constant(1_000_000), Latency::Constant(11_000_000)],
        };
        assert!((m.mean() - 2e6).abs() < 1e-6);
        assert!((sample_mean(&m, 200_000) / 2e6 - 1.0).abs() < 0.02);
        let e = Latency::Empirical {
            points: vec![(0.0, 0.0), (50.0, 2e6), (100.0, 4e6)],
        };
        assert_eq!(e.mean(), 2e6);
        assert!((sample_mean(&e, 200_000) / 2e6 - 1.0).abs() < 0.01);
        assert!((quantile(&e, 0.25, 200_000) / 1e6 - 1.0).abs() < 0.02);
    }

    #[test]
    fn lognormal_gamma_and_weibull_means_are_their_closed_forms() {
        // Regression: these means were the average of a fixed-seed sample of 20,000 draws,
        // off by the sample's error (a standard error of 0.8% for this lognormal, sigma 0.91).
        let (mu, sigma) = (3e6f64.ln(), (25.0f64 / 3.0).ln() / Z99);
        let l = Latency::lognormal_from_median_p99(3e6, 25e6).unwrap();
        let exact = (mu + sigma * sigma / 2.0).exp();
        assert!((l.mean() / exact - 1.0).abs() < 1e-12, "{}", l.mean());
        assert_eq!(Latency::gamma(2.0, 1e6).unwrap().mean(), 2e6);
        assert_eq!(Latency::gamma(0.5, 4e6).unwrap().mean(), 2e6);
        // Weibull: scale Γ(1 + 1/k); k = 1 is the exponential, k = 2 gives scale √π / 2,
        // k = 0.5 gives scale Γ(3) = 2 scale.
        let w = |scale, shape| Latency::weibull(scale, shape).unwrap().mean();
        let pi = std::f64::consts::PI;
        assert!((w(3e6, 1.0) / 3e6 - 1.0).abs() < 1e-14);
        assert!((w(2e6, 2.0) / (1e6 * pi.sqrt()) - 1.0).abs() < 1e-14);
        assert!((w(1e6, 0.5) / 2e6 - 1.0).abs() < 1e-14);
    }

    #[test]
    fn closed_form_means_agree_with_a_million_draws() {
        // Tolerances are over 4 standard errors of the sample mean (sd / mean / √n): the
        // lognormal (sigma 0.91) 0.11%, gamma shape 2 0.07%, Weibull k = 0.5 0.22%, k = 1.5
        // 0.07%.
        let n = 1_000_000;
        for (d, tolerance) in [
            (
                Latency::lognormal_from_median_p99(3e6, 25e6).unwrap(),
                0.005,
            ),
            (Latency::gamma(2.0, 1e6).unwrap(), 0.003),
            (Latency::weibull(1e6, 0.5).unwrap(), 0.01),
            (Latency::weibull(3e6, 1.5).unwrap(), 0.003),
        ] {
            let sampled = sample_mean(&d, n);
            assert!(
                (sampled / d.mean() - 1.0).abs() < tolerance,
                "{d:?}: sampled {sampled}, mean {}",
                d.mean()
            );
        }
    }

    #[test]
    fn gamma_function_at_known_values() {
        let pi = std::f64::consts::PI;
        let close = |x: f64, want: f64| {
            let got = gamma_fn(x);
            assert!(
                (got / want - 1.0).abs() < 1e-14,
                "Γ({x}) = {got}, want {want}"
            );
        };
        // Γ(n) = (n − 1)!.
        let mut factorial = 1.0;
        for n in 1..=20 {
            close(f64::from(n), factorial);
            factorial *= f64::from(n);
        }
        close(0.5, pi.sqrt());
        close(1.5, pi.sqrt() / 2.0);
        close(2.5, 3.0 * pi.sqrt() / 4.0);
        // Γ(1/3) and Γ(1/4) (DLMF 5.4.E6 and A&S 6.1.10 tables).
        close(1.0 / 3.0, 2.678_938_534_707_747_6);
        close(0.25, 3.625_609_908_221_908);
        // The recurrence Γ(x + 1) = x Γ(x) off the integers.
        for x in [0.1, 0.7, 1.3, 4.2, 11.9] {
            close(x + 1.0, x * gamma_fn(x));
        }
    }
}
