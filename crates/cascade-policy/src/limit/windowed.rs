//! Netflix `WindowedLimit`: samples are gathered into a window and the algorithm sees one
//! aggregate per window, not every call. A window closes at the first sample that ends after
//! `next_update`; the next one then runs for clamp(2 × the closed window's minimum RTT,
//! `min_window`, `max_window`) from that sample's end. A closed window reaches the algorithm
//! only if it holds at least `window_size` samples. Samples faster than `min_rtt_threshold` are
//! ignored entirely, drops included. (Older releases, before the sample-window factory, needed
//! more than `window_size` samples and kept a window open until it had them.)
//!
//! The aggregate is the library's default `AverageSampleWindow`: mean RTT (integer division, as
//! in Java), the largest in-flight count seen, and whether any sample was a drop. The minimum
//! RTT of the window only sizes the next window. (Read in concurrency-limits-core
//! `limit/WindowedLimit.java`, whose builder defaults `sampleWindowFactory` to
//! `AverageSampleWindowFactory`, and `limit/window/ImmutableAverageSampleWindow.java`.)

use crate::time::Nanos;

config! {
    /// `WindowedLimit`'s builder settings.
    #[derive(Debug, Clone, PartialEq)]
    pub struct WindowConfig {
        min_window: Nanos,
        max_window: Nanos,
        window_size: u32,
        min_rtt_threshold: Nanos,
    }
}

getters!(WindowConfig {
    /// The shortest window.
    min_window: Nanos,
    /// The longest window.
    max_window: Nanos,
    /// Samples a window needs to count.
    window_size: u32,
    /// Faster samples are ignored.
    min_rtt_threshold: Nanos,
});

impl Default for WindowConfig {
    /// The library's: 1 s windows, 10 samples, 100 µs.
    fn default() -> WindowConfig {
        WindowConfig {
            min_window: Nanos::from_secs(1),
            max_window: Nanos::from_secs(1),
            window_size: 10,
            min_rtt_threshold: Nanos::from_micros(100),
        }
    }
}

/// What the algorithm is given: one call's sample, or one window's aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub rtt: Nanos,
    pub inflight: u32,
    pub dropped: bool,
}

#[derive(Debug, Clone)]
pub struct Windowed {
    cfg: WindowConfig,
    /// 0 at the start, so the very first sample closes a window of one (too small to count).
    next_update: Nanos,
    min_rtt: Nanos,
    /// The window's RTTs added up (ns), for the integer mean.
    sum: u64,
    max_inflight: u32,
    count: u32,
    dropped: bool,
}

impl Windowed {
    pub fn new(cfg: WindowConfig) -> Windowed {
        Windowed {
            cfg,
            next_update: Nanos::ZERO,
            min_rtt: Nanos::MAX,
            sum: 0,
            max_inflight: 0,
            count: 0,
            dropped: false,
        }
    }

    /// Adds a call that ended at `now`; returns the window's aggregate when this call closed a
    /// window that is big enough.
    pub fn add(&mut self, now: Nanos, s: Sample) -> Option<Sample> {
        if s.rtt < self.cfg.min_rtt_threshold {
            return None;
        }
        self.min_rtt = self.min_rtt.min(s.rtt);
        self.sum = self.sum.saturating_add(s.rtt.0);
        self.max_inflight = self.max_inflight.max(s.inflight);
        self.count += 1;
        self.dropped |= s.dropped;
        if now <= self.next_update {
            return None;
        }
        let (min_rtt, count) = (self.min_rtt, self.count);
        let closed = Sample {
            rtt: Nanos(self.sum / u64::from(count)),
            inflight: self.max_inflight,
            dropped: self.dropped,
        };
        *self = Windowed::new(self.cfg.clone());
        // Java's min(max(..)) order, so a min_window above max_window gives max_window.
        let length = Nanos(min_rtt.0.saturating_mul(2))
            .max(self.cfg.min_window)
            .min(self.cfg.max_window);
        self.next_update = now.saturating_add(length);
        (count >= self.cfg.window_size).then_some(closed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);
    const S: Nanos = Nanos::from_secs(1);

    fn sample(rtt: Nanos, inflight: u32) -> Sample {
        Sample {
            rtt,
            inflight,
            dropped: false,
        }
    }

    #[test]
    fn first_sample_closes_a_window_of_one_that_does_not_count() {
        let mut w = Windowed::new(WindowConfig::default());
        assert_eq!(w.add(S, sample(10 * MS, 3)), None);
        assert_eq!(w.next_update, 2 * S, "2 × 10 ms raised to the 1 s minimum");
        assert_eq!(w.count, 0, "a fresh window");
    }

    #[test]
    fn a_full_window_gives_mean_rtt_max_inflight_and_any_drop() {
        let mut w = Windowed::new(WindowConfig::default());
        w.add(S, sample(10 * MS, 1));
        // Samples up to and including 2 s stay in the window (it closes strictly after).
        for i in 0..9u64 {
            let s = Sample {
                rtt: (10 + i) * MS,
                inflight: 4 + i as u32 % 3,
                dropped: i == 5,
            };
            assert_eq!(w.add(S + (i + 2) * 100 * MS, s), None);
        }
        // The tenth, ending after 2 s, is counted in and closes it with exactly window_size:
        // (10 + 11 + … + 18 + 22 ms + 7 ns) / 10 = 14.8 ms (integer division drops the 0.7 ns).
        let got = w.add(2 * S + Nanos(1), sample(22 * MS + Nanos(7), 2));
        assert_eq!(
            got,
            Some(Sample {
                rtt: Nanos(14_800_000),
                inflight: 6,
                dropped: true
            })
        );
        assert_eq!(w.next_update, 3 * S + Nanos(1));
    }

    #[test]
    fn too_few_samples_are_thrown_away_with_the_window() {
        let mut w = Windowed::new(WindowConfig::default());
        w.add(S, sample(10 * MS, 1));
        for i in 1..=8 {
            w.add(S + i * MS, sample(10 * MS, 1));
        }
        // Nine samples in the window when it closes: not enough; the next starts empty.
        assert_eq!(w.add(2 * S + Nanos(1), sample(10 * MS, 1)), None);
        assert_eq!((w.count, w.sum), (0, 0));
    }

    #[test]
    fn fast_samples_are_ignored_and_slow_windows_last_longer() {
        let cfg = WindowConfig {
            max_window: 5 * S,
            ..WindowConfig::default()
        };
        let mut w = Windowed::new(cfg);
        let fast = Sample {
            rtt: Nanos(99_999),
            inflight: 50,
            dropped: true,
        };
        assert_eq!(w.add(S, fast), None);
        assert_eq!(
            (w.count, w.next_update),
            (0, Nanos::ZERO),
            "not even counted"
        );
        w.add(S, sample(Nanos(100_000), 1));
        assert_eq!(
            w.next_update,
            2 * S,
            "exactly 100 µs counts: it closed a window"
        );
        // A 2 s minimum RTT makes the next window 4 s (between 1 s and 5 s).
        w.add(2 * S + Nanos(1), sample(2 * S, 1));
        assert_eq!(w.next_update, 6 * S + Nanos(1));
    }
}
