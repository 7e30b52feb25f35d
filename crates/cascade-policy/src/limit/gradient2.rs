//! Netflix `Gradient2Limit` (concurrency-limits-core `limit/Gradient2Limit.java`): compares the
//! latest RTT (the short RTT: the sample itself, no averaging) with a long-term average of them
//! (the long RTT: `ExpAvgMeasurement(long_window, 10)`, the plain mean of the first ten samples,
//! then an EMA with factor 2 / (long_window + 1)). Each sample:
//!
//! 1. the long RTT takes the sample; if long / short > 2 (latency back to normal after a long
//!    overload), the stored long RTT is multiplied by 0.95 — after it was read for this update;
//! 2. if inflight < L / 2 (app-limited), nothing more;
//! 3. gradient = clamp(rtt_tolerance · long / short, 0.5, 1);
//!    L ← (1 − s)·L + s·(L·gradient + queue_size), kept within [min, max].
//!
//! Drops are ignored: only the RTT speaks.

use super::windowed::Sample;

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Gradient2Config {
        initial_limit: u32,
        min_limit: u32,
        max_limit: u32,
        smoothing: f64,
        queue_size: u32,
        long_window: u32,
        rtt_tolerance: f64,
    }
}

getters!(Gradient2Config {
    /// The limit before any sample.
    initial_limit: u32,
    /// The limit never falls below this.
    min_limit: u32,
    /// The limit never rises above this.
    max_limit: u32,
    /// Weight of a new value in the limit's smoothing (1 takes it whole).
    smoothing: f64,
    /// Headroom added to L·gradient (the library allows a function of L; a constant here).
    queue_size: u32,
    /// Samples in the long RTT's EMA.
    long_window: u32,
    /// How far the short RTT may exceed the long one before the limit falls.
    rtt_tolerance: f64,
});

impl Default for Gradient2Config {
    /// The library's builder defaults.
    fn default() -> Gradient2Config {
        Gradient2Config {
            initial_limit: 20,
            min_limit: 20,
            max_limit: 200,
            smoothing: 0.2,
            queue_size: 4,
            long_window: 600,
            rtt_tolerance: 1.5,
        }
    }
}

/// The library's `ExpAvgMeasurement`.
#[derive(Debug, Clone)]
struct ExpAvg {
    value: f64,
    sum: f64,
    count: u32,
    window: u32,
}

/// Samples averaged plainly before the EMA takes over.
const WARMUP: u32 = 10;

impl ExpAvg {
    fn add(&mut self, sample: f64) -> f64 {
        if self.count < WARMUP {
            self.count += 1;
            self.sum += sample;
            self.value = self.sum / f64::from(self.count);
        } else {
            let factor = 2.0 / (f64::from(self.window) + 1.0);
            self.value = self.value * (1.0 - factor) + sample * factor;
        }
        self.value
    }
}

#[derive(Debug, Clone)]
pub struct Gradient2 {
    cfg: Gradient2Config,
    estimated: f64,
    /// ns
    long_rtt: ExpAvg,
}

impl Gradient2 {
    pub fn new(cfg: Gradient2Config) -> Gradient2 {
        Gradient2 {
            estimated: f64::from(cfg.initial_limit),
            long_rtt: ExpAvg {
                value: 0.0,
                sum: 0.0,
                count: 0,
                window: cfg.long_window,
            },
            cfg,
        }
    }

    pub fn update(&mut self, s: Sample) {
        let short = s.rtt.0 as f64;
        let long = self.long_rtt.add(short);
        if long / short > 2.0 {
            self.long_rtt.value *= 0.95;
        }
        let est = self.estimated;
        if f64::from(s.inflight) < est / 2.0 {
            return;
        }
        // A zero RTT (possible only unwindowed) shows no queueing; it would make a NaN here.
        let gradient = if short > 0.0 {
            (self.cfg.rtt_tolerance * long / short).clamp(0.5, 1.0)
        } else {
            1.0
        };
        let new = est * gradient + f64::from(self.cfg.queue_size);
        let new = est * (1.0 - self.cfg.smoothing) + new * self.cfg.smoothing;
        self.estimated = new
            .min(f64::from(self.cfg.max_limit))
            .max(f64::from(self.cfg.min_limit));
    }

    pub fn limit(&self) -> u32 {
        self.estimated as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Nanos;

    const MS: Nanos = Nanos::from_ms(1);

    fn s(rtt_ms: u64, inflight: u32) -> Sample {
        Sample {
            rtt: rtt_ms * MS,
            inflight,
            dropped: false,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn warm_up_averages_the_long_rtt_and_the_limit_moves_by_a_fifth() {
        let mut g = Gradient2::new(Gradient2Config::default());
        // long = short = 10 ms: gradient min(1, 1.5) = 1; 0.8·20 + 0.2·(20 + 4) = 20.8.
        g.update(s(10, 20));
        assert!(close(g.estimated, 20.8));
        assert_eq!(g.limit(), 20);
        // long = (10 + 20) / 2 = 15: 1.5 · 15 / 20 = 1.125, capped at 1: 0.8·20.8 + 0.2·24.8.
        g.update(s(20, 20));
        assert!(close(g.long_rtt.value, 15.0 * MS.0 as f64));
        assert!(close(g.estimated, 21.6));
        assert_eq!(g.limit(), 21);
        // long = 70/3 ≈ 23.3: gradient 1.5 · 23.3 / 40 = 0.875; 0.8·21.6 + 0.2·(21.6·0.875 + 4).
        g.update(s(40, 20));
        assert!(close(g.estimated, 21.86));
    }

    #[test]
    fn after_ten_samples_the_long_rtt_is_an_ema_and_the_gradient_floors_at_half() {
        let mut g = Gradient2::new(Gradient2Config {
            min_limit: 1,
            ..Gradient2Config::default()
        });
        for ms in 1..=10 {
            g.update(s(ms, 0)); // app-limited: only the long RTT moves
        }
        assert_eq!(g.estimated, 20.0);
        assert!(
            close(g.long_rtt.value, 5.5 * MS.0 as f64),
            "the mean of 1..=10 ms"
        );
        g.update(s(100, 20));
        let f = 2.0 / 601.0;
        let long = 5.5e6 * (1.0 - f) + 100e6 * f;
        assert!(close(g.long_rtt.value, long), "{}", g.long_rtt.value);
        // 1.5 · 5.8 / 100 < 0.5: gradient 0.5; 0.8·20 + 0.2·(20·0.5 + 4) = 18.8.
        assert!(close(g.estimated, 18.8));
        assert_eq!(g.limit(), 18);
    }

    #[test]
    fn a_long_rtt_over_twice_the_short_one_decays_by_five_percent() {
        let mut g = Gradient2::new(Gradient2Config::default());
        for _ in 0..10 {
            g.update(s(100, 0));
        }
        // Latency recovers: long = 100·599/601 + 10·2/601 ≈ 99.7 ms > 2 × 10 ms, so it is
        // cut to 95% (even while app-limited: the measurement runs before that check).
        g.update(s(10, 0));
        let f = 2.0 / 601.0;
        let long = (100e6 * (1.0 - f) + 10e6 * f) * 0.95;
        assert!(close(g.long_rtt.value, long));
        assert_eq!(g.estimated, 20.0);
        // Not cut when the ratio is exactly 2.
        let mut g = Gradient2::new(Gradient2Config::default());
        g.update(s(30, 0));
        g.update(s(10, 0));
        assert!(
            close(g.long_rtt.value, 20.0 * MS.0 as f64),
            "20 / 10 is not over 2"
        );
    }

    #[test]
    fn app_limited_below_half_the_limit_and_drops_ignored() {
        let mut g = Gradient2::new(Gradient2Config::default());
        g.update(s(10, 9));
        assert_eq!(g.estimated, 20.0, "9 < 20 / 2");
        g.update(s(10, 10));
        assert!(close(g.estimated, 20.8), "10 is not below 10");
        let mut dropped = Gradient2::new(Gradient2Config::default());
        dropped.update(Sample {
            dropped: true,
            ..s(10, 9)
        });
        dropped.update(Sample {
            dropped: true,
            ..s(10, 10)
        });
        assert_eq!(dropped.estimated, g.estimated);
    }

    #[test]
    fn kept_within_min_and_max() {
        let mut g = Gradient2::new(Gradient2Config {
            initial_limit: 199,
            ..Gradient2Config::default()
        });
        g.update(s(10, 199));
        assert!(close(g.estimated, 199.8), "0.8·199 + 0.2·203");
        g.update(s(10, 199));
        assert_eq!(g.estimated, 200.0, "200.6 capped");
        // The default min of 20 holds a falling limit up.
        let mut g = Gradient2::new(Gradient2Config::default());
        for _ in 0..10 {
            g.update(s(10, 0));
        }
        g.update(s(100, 20));
        assert_eq!(g.estimated, 20.0, "18.8 raised to 20");
    }
}
