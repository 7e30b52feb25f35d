//! Latency histogram: log-linear buckets with the layout of an HDR histogram at three
//! significant digits (2048 exact values, then 1024 sub-buckets per power of two), recorded in
//! microseconds, with an exact sum beside it so means are not quantised.
//!
//! Written here rather than taken from `hdrhistogram` because recording is on the engine's
//! hottest path (twice per request): this is a bit scan, a shift and an increment, and clearing
//! or merging a bucket's histogram touches only the range its latencies reached.

/// Exact values below this; above it, relative resolution 1/1024 (three significant digits).
const LINEAR: u64 = 2048;
const SUB_BITS: u32 = 10;
const SUB: u64 = 1 << SUB_BITS;

/// One hour in microseconds: longer values are clamped (and still counted).
const HIGHEST_US: u64 = 3_600_000_000;

#[derive(Clone, Default)]
pub struct LatencyHist {
    /// Grows on demand up to the highest index recorded.
    counts: Vec<u64>,
    total: u64,
    /// Exact: an integer sum is cheaper to add to than a float, and never rounds.
    sum_ns: u128,
    max_ns: u64,
}

/// The bucket of `us`: its own index below `LINEAR`, else its top eleven bits.
fn index_of(us: u64) -> usize {
    if us < LINEAR {
        return us as usize;
    }
    let shift = 63 - us.leading_zeros() - SUB_BITS;
    (LINEAR + u64::from(shift - 1) * SUB + ((us >> shift) - SUB)) as usize
}

/// The lowest value of bucket `index`, and its width.
fn bucket_of(index: usize) -> (u64, u64) {
    let i = index as u64;
    if i < LINEAR {
        return (i, 1);
    }
    let shift = (i - LINEAR) / SUB + 1;
    let sub = (i - LINEAR) % SUB + SUB;
    (sub << shift, 1 << shift)
}

impl LatencyHist {
    // Forced inline: three records a request (bench-mmc), each paid a call's register saves
    // and the bounds of an out-of-line body (callgrind: 32 instructions a request fewer).
    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        let i = index_of((ns / 1_000).min(HIGHEST_US));
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.total += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// The value at quantile `q` (0..=1) in milliseconds; 0 when empty. It is the midpoint of
    /// the bucket holding the ⌈q·n⌉-th smallest latency, so a constant latency reads back as
    /// itself to three digits.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        self.quantiles_ms([q])[0]
    }

    /// Several quantiles (each as `quantile_ms`), in ascending order of `qs`, in one pass.
    pub fn quantiles_ms<const N: usize>(&self, qs: [f64; N]) -> [f64; N] {
        let mut out = [0.0; N];
        if self.total == 0 {
            return out;
        }
        debug_assert!(qs.is_sorted(), "quantiles in ascending order");
        let ranks = qs.map(|q| ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1));
        // `seen` counts the latencies below bucket `i`. Whole chunks are skipped by their sum
        // (which vectorises), since a bucket's array is long and mostly passed over.
        const CHUNK: usize = 16;
        let counts = &self.counts;
        let (mut i, mut seen) = (0, 0);
        for (q, &rank) in ranks.iter().enumerate() {
            while let Some(chunk) = counts.get(i..i + CHUNK) {
                let sum: u64 = chunk.iter().sum();
                if seen + sum >= rank {
                    break;
                }
                seen += sum;
                i += CHUNK;
            }
            while seen + counts[i] < rank {
                seen += counts[i];
                i += 1;
            }
            let (low, width) = bucket_of(i);
            out[q] = (low + width / 2) as f64 / 1_000.0;
        }
        out
    }

    pub fn mean_ms(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.total as f64 / 1e6
        }
    }

    pub fn max_ms(&self) -> f64 {
        self.max_ns as f64 / 1e6
    }

    pub fn merge(&mut self, other: &LatencyHist) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.total += other.total;
        self.sum_ns += other.sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    pub fn reset(&mut self) {
        // Emptied, not zeroed: `record` zeroes the range again only as far as new latencies
        // reach, and merges and quantiles scan only that far.
        self.counts.clear();
        self.total = 0;
        self.sum_ns = 0;
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
        assert!((h.quantile_ms(1.0) - 1000.0).abs() < 1.0);
        h.reset();
        assert_eq!(h.count(), 0);
        assert_eq!(h.quantile_ms(0.5), 0.0);
    }

    #[test]
    fn buckets_tile_the_range_with_three_significant_digits() {
        // Every value falls in the bucket whose range holds it, buckets are contiguous, and a
        // bucket is never wider than a 1/1024 of its lowest value (above the exact range).
        let mut expected_low = 0;
        for index in 0..index_of(HIGHEST_US) + 1 {
            let (low, width) = bucket_of(index);
            assert_eq!(
                low, expected_low,
                "bucket {index} starts where the last ended"
            );
            assert_eq!(index_of(low), index);
            assert_eq!(index_of(low + width - 1), index);
            if low >= LINEAR {
                assert!(width * 1024 <= low);
            }
            expected_low = low + width;
        }
        assert_eq!(index_of(2047), 2047);
        assert_eq!(index_of(2048), 2048);
        assert_eq!(bucket_of(2048), (2048, 2));
        assert_eq!(bucket_of(3072), (4096, 4));
    }

    #[test]
    fn exact_below_two_milliseconds_and_clamped_at_an_hour() {
        let mut h = LatencyHist::default();
        h.record(1_234_000);
        assert_eq!(h.quantile_ms(0.5), 1.234);
        h.reset();
        h.record(10 * 3_600_000_000_000);
        assert!((h.quantile_ms(0.5) / 3_600_000.0 - 1.0).abs() < 1e-3);
        assert_eq!(h.max_ms(), 36_000_000.0, "the maximum is kept exactly");
    }

    #[test]
    fn quantile_rank_is_the_ceiling() {
        // Four values: the median is the 2nd, p75 the 3rd, p76 the 4th.
        let mut h = LatencyHist::default();
        for us in [100u64, 200, 300, 400] {
            h.record(us * 1_000);
        }
        assert_eq!(h.quantile_ms(0.5), 0.2);
        assert_eq!(h.quantile_ms(0.75), 0.3);
        assert_eq!(h.quantile_ms(0.76), 0.4);
        assert_eq!(h.quantile_ms(0.0), 0.1);
        assert_eq!(h.quantiles_ms([0.0, 0.5, 0.75, 0.76]), [0.1, 0.2, 0.3, 0.4]);
    }
}
