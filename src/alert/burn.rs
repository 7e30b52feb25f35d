//! The SRE workbook's multi-window burn rate (ch. 5, "Alerting on SLOs", recommendation 6):
//! the error ratio over a window divided by the error budget 1 − SLO. A constant error ratio
//! e burns at e / (1 − SLO); an alert at factor B fires while both the long and the short
//! window burn faster than B, i.e. both windows' error ratio is above B · (1 − SLO).

/// Errors and finished requests summed per bucket, as running totals: window sums in O(1).
pub struct Totals {
    /// `errors[b]`: errors in buckets 0..b.
    errors: Vec<f64>,
    finished: Vec<f64>,
}

impl Totals {
    /// From each bucket's successes and errors (every failure kind summed).
    pub fn new(success: &[f64], errors: &[f64]) -> Totals {
        let mut e = vec![0.0];
        let mut f = vec![0.0];
        for (s, x) in success.iter().zip(errors) {
            e.push(e[e.len() - 1] + x);
            f.push(f[f.len() - 1] + s + x);
        }
        Totals {
            errors: e,
            finished: f,
        }
    }

    /// Errors over finished requests in buckets [from, to) (clamped to the buckets there are);
    /// 0 when none finished.
    pub fn error_ratio(&self, from: usize, to: usize) -> f64 {
        let last = self.errors.len() - 1;
        let (from, to) = (from.min(last), to.min(last));
        let finished = self.finished[to] - self.finished[from.min(to)];
        if finished <= 0.0 {
            0.0
        } else {
            (self.errors[to] - self.errors[from.min(to)]) / finished
        }
    }
}

/// How many times faster than the budget allows an error ratio spends it.
pub fn burn_rate(error_ratio: f64, slo: f64) -> f64 {
    error_ratio / (1.0 - slo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_error_ratio_burns_at_it_over_the_budget() {
        // 1,000 finished per bucket, 20 of them errors: e = 0.02; SLO 99.9%: 20×.
        let success = vec![980.0; 60];
        let errors = vec![20.0; 60];
        let t = Totals::new(&success, &errors);
        for (from, to) in [(0, 60), (55, 60), (10, 11)] {
            let e = t.error_ratio(from, to);
            assert!((e - 0.02).abs() < 1e-12);
            assert!((burn_rate(e, 0.999) - 20.0).abs() < 1e-9);
        }
    }

    #[test]
    fn a_window_with_nothing_finished_has_no_errors_and_one_past_the_end_is_clamped() {
        let t = Totals::new(&[0.0, 0.0, 5.0], &[0.0, 0.0, 5.0]);
        assert_eq!(t.error_ratio(0, 2), 0.0);
        assert_eq!(t.error_ratio(2, 9), 0.5);
        assert_eq!(t.error_ratio(7, 9), 0.0);
    }
}
