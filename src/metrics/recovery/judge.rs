//! One goodput series judged around one episode: its level before, during and after, and
//! whether and when it came back.

use std::ops::Range;

/// The buckets and instants one episode is judged over, shared by every series judged.
#[derive(Debug, Clone)]
pub struct Span {
    /// The baseline's buckets: steady, and touched by no fault.
    pub baseline: Range<usize>,
    /// The buckets from the one the episode starts in to the last it is active in.
    pub during: Range<usize>,
    /// The buckets watched after the episode: from the first starting at or after its end to
    /// the next episode's first (or the run's end).
    pub after: Range<usize>,
    /// The episode's end, ns.
    pub end: u64,
    /// Where watching stops, ns: the next episode's start or the run's end (a diverged run
    /// ends early).
    pub watch_end: u64,
    pub bucket: u64,
    /// `recovery_hold` in whole buckets, at least one.
    pub hold: usize,
    /// `recovery_tolerance`.
    pub tolerance: f64,
}

/// The verdict on one series.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub before: f64,
    pub during: f64,
    pub after: f64,
    /// The lowest goodput that counts as back: `before` less its band.
    pub floor: f64,
    pub recovered: bool,
    /// From the episode's end to the first bucket of the hold; when not recovered, the time
    /// watched after the end (a lower bound).
    pub recovery_s: f64,
    /// When recovered, the instant its hold began, ns: where the next episode's baseline can
    /// start.
    pub settled_at: Option<u64>,
    /// Not recovered, watched for a hold or more, and goodput after the episode below the
    /// floor on average: stuck degraded with the trigger gone.
    pub metastable: bool,
    /// Watched for less than a hold (the run or the next episode came first): not recovered,
    /// but nothing is said of whether it would have.
    pub cut_short: bool,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Judges `goodput` (per bucket, per second) over `span`. Recovery is one-sided: goodput at or
/// above the floor for a whole hold is back, however far above the baseline it is (a backlog
/// served after the fault lifts goodput over its old level; that is recovery, not a failure).
/// The floor is the baseline less the wider of `tolerance` of it and three standard deviations
/// of a Poisson count at that rate over one bucket.
pub fn judge(goodput: &[f64], span: &Span) -> Judged {
    let at = |r: &Range<usize>| {
        let end = r.end.min(goodput.len());
        &goodput[r.start.min(end)..end]
    };
    let before = mean(at(&span.baseline));
    let during = mean(at(&span.during));
    let watched = at(&span.after);
    let after = mean(watched);
    let bucket_s = span.bucket as f64 / 1e9;
    let band = (span.tolerance * before).max(3.0 * (before / bucket_s).sqrt());
    let floor = before - band;
    let back = watched
        .windows(span.hold)
        .position(|w| w.iter().all(|g| *g >= floor));
    let cut_short = span.end.saturating_add(span.hold as u64 * span.bucket) > span.watch_end;
    let settled_at = back.map(|k| (span.after.start + k) as u64 * span.bucket);
    let recovered = settled_at.is_some();
    let recovery_s = match settled_at {
        Some(first) => first.saturating_sub(span.end) as f64 / 1e9,
        None => span.watch_end.saturating_sub(span.end) as f64 / 1e9,
    };
    Judged {
        before,
        during,
        after,
        floor,
        recovered,
        recovery_s,
        settled_at,
        metastable: !recovered && !cut_short && after < floor,
        cut_short: !recovered && cut_short,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 s buckets, a 3-bucket hold, baseline buckets 0..5, the episode in 5..8.
    fn span(after_end: usize) -> Span {
        Span {
            baseline: 0..5,
            during: 5..8,
            after: 8..after_end,
            end: 8_000_000_000,
            watch_end: after_end as u64 * 1_000_000_000,
            bucket: 1_000_000_000,
            hold: 3,
            tolerance: 0.05,
        }
    }

    #[test]
    fn goodput_above_its_baseline_is_recovered_not_metastable() {
        // The two-fault report's shape: after (504/s) above before (348/s).
        let g = [
            348.0, 348.0, 348.0, 348.0, 348.0, 0.0, 0.0, 0.0, 504.0, 504.0, 504.0, 504.0,
        ];
        let j = judge(&g, &span(12));
        assert!(j.recovered && !j.metastable);
        assert_eq!(j.recovery_s, 0.0);
    }

    #[test]
    fn the_first_bucket_of_the_first_whole_hold_at_or_above_the_floor_is_the_recovery() {
        // Baseline 1000/s: band max(50, 3 * sqrt(1000) = 94.9), floor 905.1.
        let g = [
            1e3, 1e3, 1e3, 1e3, 1e3, 0.0, 0.0, 0.0, 500.0, 906.0, 2e3, 1e3, 300.0, 1e3, 1e3, 1e3,
        ];
        let j = judge(&g, &span(16));
        assert!((j.floor - (1000.0 - 3.0 * 1000f64.sqrt())).abs() < 1e-9);
        assert!(j.recovered);
        assert_eq!(
            j.recovery_s, 1.0,
            "bucket 9 starts 1 s after the end at 8 s"
        );
    }

    #[test]
    fn goodput_below_the_floor_for_good_is_metastable_and_a_swing_around_it_is_not() {
        let mut g = vec![1e3; 5];
        g.extend([0.0; 3]);
        g.extend([400.0; 8]);
        let j = judge(&g, &span(16));
        assert!(!j.recovered && j.metastable && !j.cut_short);
        assert_eq!(j.recovery_s, 8.0);
        // Back above the baseline on average, but never for a whole hold: not recovered, and
        // not metastable (its level after is not below the floor).
        let mut g = vec![1e3; 5];
        g.extend([0.0; 3]);
        g.extend([2e3, 2e3, 0.0, 2e3, 2e3, 0.0, 2e3, 2e3]);
        let j = judge(&g, &span(16));
        assert!(!j.recovered && !j.metastable && !j.cut_short);
    }

    #[test]
    fn a_watch_shorter_than_the_hold_is_cut_short_and_never_metastable() {
        let mut g = vec![1e3; 5];
        g.extend([0.0; 5]);
        let j = judge(&g, &span(10));
        assert!(!j.recovered && j.cut_short && !j.metastable);
        assert_eq!(j.recovery_s, 2.0);
    }
}
