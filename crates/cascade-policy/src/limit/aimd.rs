//! Netflix `AIMDLimit` (concurrency-limits-core `limit/AIMDLimit.java`): a loss-based limit.
//! A drop, or an RTT above `timeout`, multiplies the limit by `backoff_ratio` (truncated to an
//! integer, as the Java `(int)` cast does); otherwise, when the limit is in use (inflight × 2 ≥
//! limit), it grows by one; otherwise it stays. The result is kept within [min, max]; the
//! initial limit is not clamped, as in the library.

use super::windowed::Sample;
use crate::time::Nanos;

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct AimdConfig {
        initial_limit: u32,
        min_limit: u32,
        max_limit: u32,
        backoff_ratio: f64,
        timeout: Nanos,
    }
}

getters!(AimdConfig {
    /// The limit before any sample.
    initial_limit: u32,
    /// The limit never falls below this.
    min_limit: u32,
    /// The limit never rises above this.
    max_limit: u32,
    /// In [0.5, 1) in the library.
    backoff_ratio: f64,
    /// A slower sample counts as a drop.
    timeout: Nanos,
});

impl Default for AimdConfig {
    /// The library's builder defaults.
    fn default() -> AimdConfig {
        AimdConfig {
            initial_limit: 20,
            min_limit: 20,
            max_limit: 200,
            backoff_ratio: 0.9,
            timeout: Nanos::from_secs(5),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Aimd {
    cfg: AimdConfig,
    limit: u32,
}

impl Aimd {
    pub fn new(cfg: AimdConfig) -> Aimd {
        Aimd {
            limit: cfg.initial_limit,
            cfg,
        }
    }

    pub fn update(&mut self, s: Sample) {
        let limit = if s.dropped || s.rtt > self.cfg.timeout {
            (f64::from(self.limit) * self.cfg.backoff_ratio) as u32
        } else if u64::from(s.inflight) * 2 >= u64::from(self.limit) {
            self.limit.saturating_add(1)
        } else {
            self.limit
        };
        // Java's min(max, max(min, limit)): with min above max, max wins.
        self.limit = limit.max(self.cfg.min_limit).min(self.cfg.max_limit);
    }

    pub fn limit(&self) -> u32 {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);

    fn s(rtt: Nanos, inflight: u32, dropped: bool) -> Sample {
        Sample {
            rtt,
            inflight,
            dropped,
        }
    }

    #[test]
    fn grows_by_one_only_when_the_limit_is_in_use() {
        let mut a = Aimd::new(AimdConfig::default());
        assert_eq!(a.limit(), 20);
        a.update(s(10 * MS, 9, false));
        assert_eq!(a.limit(), 20, "9 × 2 < 20: app-limited, unchanged");
        a.update(s(10 * MS, 10, false));
        assert_eq!(a.limit(), 21, "10 × 2 ≥ 20");
        a.update(s(10 * MS, 11, false));
        assert_eq!(a.limit(), 22, "11 × 2 ≥ 21");
    }

    #[test]
    fn a_drop_or_a_timeout_backs_off_truncating_and_clamped_to_min() {
        let cfg = AimdConfig {
            initial_limit: 30,
            min_limit: 5,
            ..AimdConfig::default()
        };
        let mut a = Aimd::new(cfg.clone());
        a.update(s(10 * MS, 30, true));
        assert_eq!(a.limit(), 27, "30 × 0.9");
        a.update(s(10 * MS, 30, true));
        assert_eq!(a.limit(), 24, "27 × 0.9 = 24.3");
        // Slower than the 5 s timeout counts as a drop, even when app-limited.
        a.update(s(5_000 * MS + Nanos(1), 0, false));
        assert_eq!(a.limit(), 21, "24 × 0.9 = 21.6");
        a.update(s(5_000 * MS, 21, false));
        assert_eq!(a.limit(), 22, "exactly the timeout is not slow");
        // The default min is 20: 20 × 0.9 = 18 is raised back to 20.
        let mut a = Aimd::new(AimdConfig::default());
        a.update(s(10 * MS, 20, true));
        assert_eq!(a.limit(), 20);
    }

    #[test]
    fn stays_at_most_max() {
        let mut a = Aimd::new(AimdConfig {
            initial_limit: 199,
            ..AimdConfig::default()
        });
        a.update(s(10 * MS, 199, false));
        assert_eq!(a.limit(), 200);
        a.update(s(10 * MS, 200, false));
        assert_eq!(a.limit(), 200);
        // An initial limit outside [min, max] stands until the first update.
        let mut a = Aimd::new(AimdConfig {
            initial_limit: 500,
            ..AimdConfig::default()
        });
        assert_eq!(a.limit(), 500);
        a.update(s(10 * MS, 0, false));
        assert_eq!(a.limit(), 200);
    }
}
