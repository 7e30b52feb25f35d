//! Durations observed, at most `KEEP` of them kept: past that, each new one replaces a kept
//! one with the probability that leaves every observation equally likely to be kept
//! (reservoir sampling, Vitter's algorithm R), drawn from a fixed-seed generator so an import
//! is reproducible. Memory stays bounded whatever the number of spans.

pub const KEEP: usize = 100_000;

#[derive(Debug, Clone)]
pub struct Samples {
    pub seen: u64,
    kept: Vec<u64>,
    state: u64,
}

impl Default for Samples {
    fn default() -> Samples {
        Samples {
            seen: 0,
            kept: Vec::new(),
            state: 0x9E37_79B9_7F4A_7C15,
        }
    }
}

impl Samples {
    pub fn add(&mut self, v: u64) {
        self.seen += 1;
        if self.kept.len() < KEEP {
            self.kept.push(v);
            return;
        }
        // SplitMix64.
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let j = z % self.seen;
        if (j as usize) < KEEP {
            self.kept[j as usize] = v;
        }
    }

    pub fn sorted(&self) -> Vec<u64> {
        let mut v = self.kept.clone();
        v.sort_unstable();
        v
    }
}

/// The `p`th percentile (0 to 100) of sorted values, interpolated between ranks.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    match sorted.len() {
        0 => 0,
        1 => sorted[0],
        n => {
            let rank = p / 100.0 * (n - 1) as f64;
            let lo = rank.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            let f = rank - lo as f64;
            (sorted[lo] as f64 + (sorted[hi] as f64 - sorted[lo] as f64) * f).round() as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_between_ranks() {
        let v = [10, 20, 30, 40, 50];
        assert_eq!(percentile(&v, 0.0), 10);
        assert_eq!(percentile(&v, 50.0), 30);
        assert_eq!(percentile(&v, 100.0), 50);
        assert_eq!(percentile(&v, 12.5), 15);
    }

    #[test]
    fn the_reservoir_keeps_a_fair_sample_of_a_long_stream() {
        let mut s = Samples::default();
        let n = 3 * KEEP as u64;
        for i in 0..n {
            s.add(i);
        }
        assert_eq!(s.seen, n);
        let sorted = s.sorted();
        assert_eq!(sorted.len(), KEEP);
        // The median of 0..n is n/2; a uniform sample of 100,000 puts it within 1%
        // (its standard error is n·0.5/√KEEP ≈ 0.16% of n).
        let median = percentile(&sorted, 50.0) as f64;
        assert!((median / n as f64 - 0.5).abs() < 0.01, "{median}");
    }
}
