//! A latency histogram as Prometheus keeps it, in seconds: its buckets (a classic histogram's
//! `le` bounds, or a native histogram's exponential buckets), its sum and count; read as
//! quantiles the way `histogram_quantile` reads classic buckets, and written as the rows of
//! an `empirical` distribution.
//!
//! **Inside a bucket the density is uniform** (linear interpolation), for three reasons:
//! it is how `histogram_quantile` interpolates classic buckets, so the quantiles imported are
//! the ones the team's dashboards show; cascade's `empirical` interpolates linearly between
//! rows, so the rows are exactly the bucket bounds, nothing invented between them; and the
//! imported distribution's mean can be checked against the exact `_sum / _count`. Log-linear
//! interpolation would suit wide exponential buckets better, but it is undefined for the first
//! bucket (from 0) and would put rows where the histogram has no bound.
//!
//! **The `+Inf` bucket** holds the observations above the largest finite bound, whose upper
//! end the histogram does not say. They are spread uniformly from that bound up to a maximum:
//! `--tail-max` when given, else the one that gives them the mean `_sum` leaves for them
//! (the sum less the other buckets' midpoints, over their count). With neither (no `_sum`, as
//! in a `rate()` of buckets, or a sum that leaves the tail no more than its lower bound) the
//! histogram makes no distribution and the importer says why. A quantile that falls in that
//! bucket is not read (`histogram_quantile` would answer the largest finite bound).

/// Observations in (`lo`, `hi`]; `hi` is infinite for a classic histogram's `+Inf` bucket.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    pub lo: f64,
    pub hi: f64,
    pub count: f64,
}

/// Buckets ascending, not overlapping, in seconds; counts (or per-second rates) per bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct Hist {
    pub buckets: Vec<Bucket>,
    pub sum: Option<f64>,
}

/// A quantile and the bucket it lies in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantile {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Hist {
    /// From a classic histogram's cumulative counts by upper bound (`le`), ascending, the
    /// last one `+Inf`. The first bucket starts at 0 (latencies are not negative), as
    /// `histogram_quantile` starts it when its bound is positive.
    pub fn from_cumulative(cumulative: &[(f64, f64)], sum: Option<f64>) -> Hist {
        let mut buckets = Vec::with_capacity(cumulative.len());
        let (mut lo, mut below) = (0.0, 0.0);
        for &(le, cum) in cumulative {
            buckets.push(Bucket {
                lo,
                hi: le,
                count: cum - below,
            });
            lo = le;
            below = cum;
        }
        Hist { buckets, sum }
    }

    pub fn count(&self) -> f64 {
        self.buckets.iter().map(|b| b.count).sum()
    }

    /// The observations between two snapshots: `self` less `earlier`, bucket by bucket.
    /// `Err` names the first bucket that went down (a counter reset: the process restarted).
    pub fn since(&self, earlier: &Hist) -> Result<Hist, String> {
        // Matched by bounds: a native histogram grows buckets as observations reach them.
        let same = |a: &Bucket, b: &Bucket| a.lo == b.lo && a.hi == b.hi;
        if let Some(gone) = earlier
            .buckets
            .iter()
            .find(|b| !self.buckets.iter().any(|a| same(a, b)))
        {
            return Err(format!(
                "the bucket from {} to {} of the earlier snapshot is not in the later one: the buckets differ between the snapshots",
                gone.lo,
                bound(gone.hi)
            ));
        }
        let mut buckets = Vec::with_capacity(self.buckets.len());
        for a in &self.buckets {
            let before = earlier
                .buckets
                .iter()
                .find(|b| same(a, b))
                .map_or(0.0, |b| b.count);
            if a.count < before {
                return Err(format!(
                    "the bucket up to {} went down from {} to {} between the snapshots: a counter reset (the process restarted); take both snapshots within one process's life",
                    bound(a.hi),
                    before,
                    a.count
                ));
            }
            buckets.push(Bucket {
                count: a.count - before,
                ..*a
            });
        }
        let sum = match (self.sum, earlier.sum) {
            (Some(a), Some(b)) => Some(a - b),
            _ => None,
        };
        Ok(Hist { buckets, sum })
    }

    /// The exact mean, `_sum / _count`, when the sum is known.
    pub fn mean(&self) -> Option<f64> {
        let n = self.count();
        self.sum.filter(|_| n > 0.0).map(|s| s / n)
    }

    /// Quantile `q` (0 < q < 1), interpolated linearly in its bucket; `None` when there are no
    /// observations or it lies in the `+Inf` bucket.
    pub fn quantile(&self, q: f64) -> Option<Quantile> {
        let n = self.count();
        if n <= 0.0 {
            return None;
        }
        let rank = q * n;
        let mut below = 0.0;
        for b in &self.buckets {
            if b.count > 0.0 && below + b.count >= rank {
                if b.hi.is_infinite() {
                    return None;
                }
                let value = b.lo + (b.hi - b.lo) * ((rank - below) / b.count);
                return Some(Quantile {
                    value,
                    lo: b.lo,
                    hi: b.hi,
                });
            }
            below += b.count;
        }
        None
    }

    /// The upper end of the `+Inf` bucket's observations, when it holds any: `tail_max`, else
    /// the one `_sum` implies (module doc). `Ok(None)` when the bucket is empty.
    pub fn tail_end(&self, tail_max: Option<f64>) -> Result<Option<f64>, String> {
        let Some(tail) = self.buckets.last().filter(|b| b.hi.is_infinite()) else {
            return Ok(None);
        };
        if tail.count <= 0.0 {
            return Ok(None);
        }
        if let Some(max) = tail_max {
            if max <= tail.lo {
                return Err(format!(
                    "--tail-max must be above the largest finite bound, {}",
                    bound(tail.lo)
                ));
            }
            return Ok(Some(max));
        }
        let Some(sum) = self.sum else {
            return Err(format!(
                "{} observations lie above the largest bound, {}, and without a `_sum` nothing says how far: give --tail-max",
                tail.count,
                bound(tail.lo)
            ));
        };
        let finite: f64 = self
            .buckets
            .iter()
            .filter(|b| b.hi.is_finite())
            .map(|b| b.count * (b.lo + b.hi) / 2.0)
            .sum();
        let mean = (sum - finite) / tail.count;
        if mean <= tail.lo {
            return Err(format!(
                "{} observations lie above the largest bound, {}, and `_sum` leaves them a mean of {} s, not above it: give --tail-max",
                tail.count,
                bound(tail.lo),
                sig(mean)
            ));
        }
        Ok(Some(2.0 * mean - tail.lo))
    }

    /// The rows of an `empirical` distribution, `(percent, seconds)`: every bucket bound
    /// where the cumulative share changes, from the lower bound of the first bucket holding
    /// observations (0 %) to the upper bound of the last (100 %); the `+Inf` bucket's end from
    /// `tail_end`. A run of empty buckets between two others is a gap no observation fell in:
    /// it gets a share of 10⁻⁶ %, the least a row's percent moves (percents are written to six
    /// decimals and must increase).
    pub fn percentiles(&self, tail_max: Option<f64>) -> Result<Vec<(f64, f64)>, String> {
        let n = self.count();
        if n <= 0.0 {
            return Err("no observations".into());
        }
        let tail_end = self.tail_end(tail_max)?;
        let mut rows: Vec<(f64, f64)> = Vec::new();
        let mut below = 0.0;
        for b in self.buckets.iter().filter(|b| b.count > 0.0) {
            let hi = if b.hi.is_infinite() {
                tail_end.expect("a tail end for a non-empty +Inf bucket")
            } else {
                b.hi
            };
            match rows.last().copied() {
                None => rows.push((0.0, b.lo)),
                Some((p, d)) if d < b.lo => rows.push((((p + 1e-6) * 1e6).round() / 1e6, b.lo)),
                Some(_) => {}
            }
            below += b.count;
            let p = if below >= n {
                100.0
            } else {
                (100.0 * below / n * 1e6).round() / 1e6
            };
            match rows.last_mut() {
                // A bucket too small to move the percent at six decimals: its bound replaces
                // the previous row's, which keeps the durations in order.
                Some(last) if p <= last.0 => last.1 = hi,
                _ => rows.push((p, hi)),
            }
        }
        if let Some(last) = rows.last_mut() {
            last.0 = 100.0;
        }
        Ok(rows)
    }
}

/// A bucket bound as the format writes it.
pub fn bound(le: f64) -> String {
    if le.is_infinite() {
        "+Inf".into()
    } else {
        le.to_string()
    }
}

/// Four significant digits, for messages and comments.
pub fn sig(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return v.to_string();
    }
    let digits = (3 - v.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10 observations: 2 up to 0.1 s, 6 more up to 0.2 s, 1 more up to 0.4 s, 1 above.
    fn hist(sum: Option<f64>) -> Hist {
        Hist::from_cumulative(
            &[(0.1, 2.0), (0.2, 8.0), (0.4, 9.0), (f64::INFINITY, 10.0)],
            sum,
        )
    }

    #[test]
    fn quantiles_interpolate_linearly_in_their_bucket() {
        let h = hist(None);
        // Rank 0.5 × 10 = 5: 3 into the (0.1, 0.2] bucket of 6, so 0.1 + 0.1 × 3/6.
        let q = h.quantile(0.5).unwrap();
        assert!((q.value - 0.15).abs() < 1e-12, "{q:?}");
        assert_eq!((q.lo, q.hi), (0.1, 0.2));
        // Rank 1: half of the first bucket, which starts at 0.
        assert!((h.quantile(0.1).unwrap().value - 0.05).abs() < 1e-12);
        // Rank 8.5: half of the (0.2, 0.4] bucket of 1.
        assert!((h.quantile(0.85).unwrap().value - 0.3).abs() < 1e-12);
        // Rank 9.9 lies in +Inf: not read.
        assert_eq!(h.quantile(0.99), None);
    }

    #[test]
    fn the_tail_takes_the_mean_the_sum_leaves_it() {
        // Finite buckets by midpoints: 2 × 0.05 + 6 × 0.15 + 1 × 0.3 = 1.3; a sum of 2.3 leaves
        // the one tail observation a mean of 1.0, so it spreads over (0.4, 1.6].
        let h = hist(Some(2.3));
        assert!((h.tail_end(None).unwrap().unwrap() - 1.6).abs() < 1e-12);
        assert_eq!(h.tail_end(Some(0.9)).unwrap(), Some(0.9));
        let e = h.tail_end(Some(0.4)).unwrap_err();
        assert!(e.contains("above the largest finite bound, 0.4"), "{e}");
        let e = hist(Some(1.5)).tail_end(None).unwrap_err();
        assert!(e.contains("a mean of 0.2 s, not above it"), "{e}");
        let e = hist(None).tail_end(None).unwrap_err();
        assert!(e.contains("without a `_sum`"), "{e}");
        assert!((h.mean().unwrap() - 0.23).abs() < 1e-12);
    }

    #[test]
    fn percentiles_are_the_bounds_with_their_cumulative_share() {
        let rows = hist(Some(2.3)).percentiles(None).unwrap();
        let want = [
            (0.0, 0.0),
            (20.0, 0.1),
            (80.0, 0.2),
            (90.0, 0.4),
            (100.0, 1.6),
        ];
        assert_eq!(rows.len(), want.len(), "{rows:?}");
        for ((p, d), (wp, wd)) in rows.iter().zip(want) {
            assert!((p - wp).abs() < 1e-9 && (d - wd).abs() < 1e-9, "{rows:?}");
        }
    }

    #[test]
    fn empty_buckets_before_between_and_after() {
        // None up to 0.1, 4 in (0.1, 0.2], none in (0.2, 0.4], 4 in (0.4, 0.8], none above.
        let h = Hist::from_cumulative(
            &[
                (0.1, 0.0),
                (0.2, 4.0),
                (0.4, 4.0),
                (0.8, 8.0),
                (1.6, 8.0),
                (f64::INFINITY, 8.0),
            ],
            None,
        );
        let rows = h.percentiles(None).unwrap();
        assert_eq!(
            rows,
            vec![(0.0, 0.1), (50.0, 0.2), (50.000001, 0.4), (100.0, 0.8)]
        );
    }

    #[test]
    fn snapshots_subtract_and_a_reset_is_refused() {
        let later = hist(Some(2.3));
        let earlier = Hist::from_cumulative(
            &[(0.1, 1.0), (0.2, 3.0), (0.4, 4.0), (f64::INFINITY, 4.0)],
            Some(0.5),
        );
        let d = later.since(&earlier).unwrap();
        let counts: Vec<f64> = d.buckets.iter().map(|b| b.count).collect();
        assert_eq!(counts, [1.0, 4.0, 0.0, 1.0]);
        assert!((d.sum.unwrap() - 1.8).abs() < 1e-12);
        let e = earlier.since(&later).unwrap_err();
        assert!(e.contains("up to 0.1 went down from 2 to 1"), "{e}");
    }

    #[test]
    fn significant_digits() {
        assert_eq!(sig(12.3456), "12.35");
        assert_eq!(sig(0.0012346), "0.001235");
        assert_eq!(sig(1234.6), "1235");
        assert_eq!(sig(80.0), "80");
    }
}
