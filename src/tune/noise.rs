//! "Within noise": a finalist whose objective Welch's two-sample t-test cannot tell from the
//! best's at the 5% level (two-sided p ≥ 0.05) is as good as the best for all the replications
//! show. Welch's test ignores that the candidates share their seeds (common random numbers make
//! their replications positively correlated, which a paired test would exploit): it is the more
//! cautious choice here, calling more runners-up "within noise", never fewer.

use crate::stats::welch::welch;

/// The significance below which two candidates differ.
pub const ALPHA: f64 = 0.05;

/// Welch's p-value of `other` against `best`, when `other` is within noise of it (p ≥ ALPHA).
/// With fewer than two replications on a side the noise cannot be measured: only equal values
/// are within noise (p = 1).
pub fn within_noise(best: &[f64], other: &[f64]) -> Option<f64> {
    let p = match welch(best, other) {
        Some(w) => w.p,
        None if best == other => 1.0,
        None => return None,
    };
    (p >= ALPHA).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welchs_test_on_hand_computed_numbers() {
        // best 0.90 0.92 0.94 0.96: mean 0.93, variance 0.02²·20/12 = 6.667e-4 (sum of squares
        // 0.002 over 3); other 0.89 0.91 0.93 0.95: mean 0.92, the same variance.
        // t = 0.01 / √(2 × 6.667e-4 / 4) = 0.01 / 0.018257 = 0.5477, df = 6 (equal variances
        // and sizes); two-sided p of t(6) at 0.5477 = 0.6036 (R: 2 * pt(-0.5477, 6)).
        let best = [0.90, 0.92, 0.94, 0.96];
        let other = [0.89, 0.91, 0.93, 0.95];
        let p = within_noise(&best, &other).unwrap();
        assert!((p - 0.6036).abs() < 1e-3, "p = {p}");
        // 0.80 0.81 0.82 0.83: mean 0.815, variance 1.667e-4; t = 0.115 / √(6.667e-4/4 +
        // 1.667e-4/4) = 0.115 / 0.014434 = 7.967, df = (2.083e-4)² / ((1.667e-4)²/3 +
        // (4.167e-5)²/3) = 4.41; p ≈ 0.001: told apart.
        assert_eq!(within_noise(&best, &[0.80, 0.81, 0.82, 0.83]), None);
    }

    #[test]
    fn one_replication_is_within_noise_only_when_equal() {
        assert_eq!(within_noise(&[0.5], &[0.5]), Some(1.0));
        assert_eq!(within_noise(&[0.5], &[0.49]), None);
        // No spread on either side: equal is p = 1, a constant that moved is p = 0.
        assert_eq!(within_noise(&[3.0, 3.0], &[3.0, 3.0]), Some(1.0));
        assert_eq!(within_noise(&[3.0, 3.0], &[4.0, 4.0]), None);
    }
}
