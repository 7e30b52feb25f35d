//! Statistics over replications: mean, sample standard deviation and the 95% confidence
//! interval of the mean from Student's t with n − 1 degrees of freedom.

/// Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom; 1.96 beyond.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

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
    let t = T95.get(n - 2).copied().unwrap_or(1.96);
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
        // t(7) = 2.365: half-width 2.365 × 2.138 / √8 = 1.788.
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.n, 8);
        assert_eq!(s.mean, 5.0);
        assert!((s.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let half = 2.365 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
        assert!((s.ci95.0 - (5.0 - half)).abs() < 1e-12);
        assert!((s.ci95.1 - (5.0 + half)).abs() < 1e-12);
        let one = summarize(&[3.0]);
        assert_eq!((one.sd, one.ci95), (0.0, (3.0, 3.0)));
    }
}
