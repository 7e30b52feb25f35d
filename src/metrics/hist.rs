//! Latency histogram: hdrhistogram at three significant digits, recorded in microseconds, with
//! an exact sum beside it so means are not quantised.

use hdrhistogram::Histogram;

/// One hour in microseconds: longer values are clamped (and still counted).
const HIGHEST_US: u64 = 3_600_000_000;

#[derive(Clone)]
pub struct LatencyHist {
    hist: Histogram<u64>,
    sum_ns: f64,
    max_ns: u64,
}

impl Default for LatencyHist {
    fn default() -> Self {
        LatencyHist {
            hist: Histogram::new_with_bounds(1, HIGHEST_US, 3)
                .expect("static histogram bounds are valid"),
            sum_ns: 0.0,
            max_ns: 0,
        }
    }
}

impl LatencyHist {
    pub fn record(&mut self, ns: u64) {
        self.hist.saturating_record((ns / 1_000).min(HIGHEST_US));
        self.sum_ns += ns as f64;
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// The value at quantile `q` (0..=1) in milliseconds; 0 when empty.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.hist.is_empty() {
            return 0.0;
        }
        // hdrhistogram reports the highest value equivalent to the bucket; report its midpoint
        // instead so a constant latency reads back as itself to three digits.
        let v = self.hist.value_at_quantile(q);
        self.hist.median_equivalent(v) as f64 / 1_000.0
    }

    pub fn mean_ms(&self) -> f64 {
        if self.hist.is_empty() {
            0.0
        } else {
            self.sum_ns / self.count() as f64 / 1e6
        }
    }

    pub fn max_ms(&self) -> f64 {
        self.max_ns as f64 / 1e6
    }

    pub fn merge(&mut self, other: &LatencyHist) {
        self.hist
            .add(&other.hist)
            .expect("histograms share their bounds");
        self.sum_ns += other.sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    pub fn reset(&mut self) {
        if !self.hist.is_empty() {
            self.hist.reset();
        }
        self.sum_ns = 0.0;
        self.max_ns = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_means_and_merge() {
        let mut h = LatencyHist::default();
        for ms in 1..=100u64 {
            h.record(ms * 1_000_000);
        }
        assert!((h.quantile_ms(0.5) - 50.0).abs() < 0.1);
        assert!((h.quantile_ms(0.99) - 99.0).abs() < 0.1);
        assert!((h.mean_ms() - 50.5).abs() < 1e-9);
        assert_eq!(h.max_ms(), 100.0);
        let mut other = LatencyHist::default();
        other.record(1_000_000_000);
        h.merge(&other);
        assert_eq!(h.count(), 101);
        assert_eq!(h.max_ms(), 1000.0);
        h.reset();
        assert_eq!(h.count(), 0);
        assert_eq!(h.quantile_ms(0.5), 0.0);
    }
}
