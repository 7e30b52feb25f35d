//! Quantiles of a latency distribution: what the lints compare timeouts and hedge delays with.

use super::Latency;

/// Draws behind a quantile that has no closed form: the median comes within about 1% of the
/// true one for every distribution the scenario language has.
const SAMPLE: usize = 40_001;

impl Latency {
    /// The value (ns) below which a share `q` (0 to 1) of draws fall: exact for constant,
    /// uniform, exponential, Pareto and empirical distributions and for a lognormal's median;
    /// otherwise read from a fixed-seed sample, like `mean`, so it is the same on every run.
    /// Used to explain settings and to size the work bound (`engine::work_bound`), never to
    /// draw results.
    pub fn quantile(&self, q: f64) -> f64 {
        let q = q.clamp(0.0, 1.0);
        match self {
            Latency::Constant(ns) => *ns as f64,
            Latency::Uniform { min, max } => min + (max - min) * q,
            Latency::Exponential { mean } => -mean * (1.0 - q).ln(),
            Latency::Pareto { scale, shape } => scale * (1.0 - q).powf(-1.0 / shape),
            Latency::Empirical { points } => Latency::empirical_at(points, q * 100.0),
            // exp(mu + sigma z) at z = 0: the lognormal's median is exp(mu).
            Latency::LogNormal { mu, .. } if q == 0.5 => mu.exp(),
            _ => self.numeric_quantile(q),
        }
    }

    /// The median (ns).
    pub fn median(&self) -> f64 {
        self.quantile(0.5)
    }

    /// The least value (ns) a draw can take, or a lower bound of it: exact where the
    /// distribution has a floor (constant, uniform, Pareto, empirical, a mixture of those), 0
    /// for the rest. Never from a sample: the lints subtract it from a deadline as time surely
    /// spent, so it must not overstate.
    pub fn least(&self) -> f64 {
        match self {
            Latency::Constant(ns) => *ns as f64,
            Latency::Uniform { min, .. } => *min,
            Latency::Pareto { scale, .. } => *scale,
            Latency::Empirical { points } => Latency::empirical_at(points, 0.0),
            Latency::Mixture { parts, .. } => parts
                .iter()
                .map(Latency::least)
                .fold(f64::INFINITY, f64::min),
            _ => 0.0,
        }
    }

    fn numeric_quantile(&self, q: f64) -> f64 {
        use rand::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0x5eed);
        let mut draws: Vec<f64> = (0..SAMPLE).map(|_| self.sample_f64(&mut rng)).collect();
        // The k-th smallest draw, as a sort would put it at k, without sorting the rest.
        let k = ((SAMPLE - 1) as f64 * q).round() as usize;
        *draws.select_nth_unstable_by(k, f64::total_cmp).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: f64 = 1e6;

    #[test]
    fn the_least_value_is_a_floor_no_draw_goes_under() {
        assert_eq!(Latency::Constant(5_000_000).least(), 5.0 * MS);
        let u = Latency::Uniform {
            min: 10.0 * MS,
            max: 30.0 * MS,
        };
        assert_eq!(u.least(), 10.0 * MS);
        assert_eq!(Latency::Exponential { mean: 10.0 * MS }.least(), 0.0);
        use rand::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let least = (0..10_000).map(|_| u.sample(&mut rng)).min().unwrap();
        assert!(least as f64 >= u.least(), "{least}");
    }

    #[test]
    fn closed_forms_give_the_textbook_quantiles() {
        assert_eq!(Latency::Constant(5_000_000).median(), 5.0 * MS);
        let u = Latency::Uniform {
            min: 10.0 * MS,
            max: 30.0 * MS,
        };
        assert_eq!(u.median(), 20.0 * MS);
        assert_eq!(u.quantile(0.25), 15.0 * MS);
        // Exponential: the median is the mean times ln 2.
        let e = Latency::Exponential { mean: 10.0 * MS };
        assert!((e.median() - 10.0 * MS * std::f64::consts::LN_2).abs() < 1.0);
        // Pareto: scale · 2^(1/shape).
        let p = Latency::Pareto {
            scale: 1.0 * MS,
            shape: 2.0,
        };
        assert!((p.median() - MS * 2f64.sqrt()).abs() < 1.0);
        let emp = Latency::Empirical {
            points: vec![(0.0, 0.0), (50.0, 2.0 * MS), (100.0, 4.0 * MS)],
        };
        assert_eq!(emp.median(), 2.0 * MS);
        assert_eq!(emp.quantile(0.75), 3.0 * MS);
    }

    #[test]
    fn a_lognormal_median_is_exact_and_sampled_quantiles_are_close() {
        let d = Latency::lognormal_from_median_p99(3.0 * MS, 25.0 * MS).unwrap();
        assert!((d.median() / (3.0 * MS) - 1.0).abs() < 1e-12);
        assert!((d.quantile(0.99) / (25.0 * MS) - 1.0).abs() < 0.05);
        // Gamma(shape 2, scale 1 ms): median 1.678 ms (tables).
        let g = Latency::gamma(2.0, MS).unwrap();
        assert!((g.median() / (1.678_347 * MS) - 1.0).abs() < 0.01);
        // Weibull(scale 3 ms, shape 1) is exponential: median 3 ln 2 ms.
        let w = Latency::weibull(3.0 * MS, 1.0).unwrap();
        assert!((w.median() / (3.0 * MS * std::f64::consts::LN_2) - 1.0).abs() < 0.02);
        // A 90/10 mixture of 1 ms and 11 ms: the median is 1 ms.
        let m = Latency::Mixture {
            cumulative: vec![0.9, 1.0],
            parts: vec![Latency::Constant(1_000_000), Latency::Constant(11_000_000)],
        };
        assert_eq!(m.median(), MS);
        assert_eq!(m.median(), m.median(), "the same on every call");
    }
}
