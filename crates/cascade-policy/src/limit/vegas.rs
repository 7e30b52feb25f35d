//! Netflix `VegasLimit` (concurrency-limits-core `limit/VegasLimit.java`), after TCP Vegas: the
//! queue a limit L builds is estimated as ⌈L · (1 − rtt_noload / rtt)⌉, where rtt_noload is the
//! lowest RTT seen since the last probe. With log = `Log10RootIntFunction` of ⌊L⌋ (⌊log10⌋, at
//! least 1), α = 3·log, β = 6·log, threshold = log:
//!
//! * a drop: L − log;
//! * else, inflight × 2 < L (app-limited): no change;
//! * else queue ≤ threshold: L + β; queue < α: L + log; queue > β: L − log; otherwise none.
//!
//! The new value is kept within [1, max] then smoothed: L ← (1 − s)·L + s·new. A sample that
//! lowers rtt_noload only records it. Every U(0.5, 1) · `probe_multiplier` · L samples the
//! limit probes: rtt_noload is reset to that sample's RTT and nothing else changes.
//!
//! The library draws the probe jitter from `ThreadLocalRandom` at construction and after each
//! probe; here it is drawn from the `u` given with the first sample after those points.

use super::windowed::Sample;
use crate::time::Nanos;

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct VegasConfig {
        initial_limit: u32,
        max_limit: u32,
        smoothing: f64,
        probe_multiplier: u32,
    }
}

getters!(VegasConfig {
    /// The limit before any sample.
    initial_limit: u32,
    /// The limit never rises above this.
    max_limit: u32,
    /// 1.0 takes each new value whole.
    smoothing: f64,
    /// Probe for a new base RTT every `probe_multiplier` × limit samples.
    probe_multiplier: u32,
});

impl Default for VegasConfig {
    /// The library's builder defaults.
    fn default() -> VegasConfig {
        VegasConfig {
            initial_limit: 20,
            max_limit: 1000,
            smoothing: 1.0,
            probe_multiplier: 30,
        }
    }
}

/// The library's `Log10RootIntFunction` with baseline 0, which today's `VegasLimit` uses:
/// max(1, ⌊log10 L⌋) from a table below 1000, ⌊log10 L⌋ above. (The older `Log10RootFunction`
/// it replaced switched to ⌊√L⌋ from 1000 up: 31 instead of 3 at L = 1000.)
fn log10_int(limit: u32) -> u32 {
    // log10(0) is −∞, which the cast saturates to 0; the floor of 1 covers it.
    (f64::from(limit).log10() as u32).max(1)
}

#[derive(Debug, Clone)]
pub struct Vegas {
    cfg: VegasConfig,
    estimated: f64,
    /// Zero until the first sample.
    rtt_noload: Nanos,
    probe_count: u64,
    /// In [0.5, 1); `None` until the next sample draws it.
    probe_jitter: Option<f64>,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Vegas {
        Vegas {
            estimated: f64::from(cfg.initial_limit),
            cfg,
            rtt_noload: Nanos::ZERO,
            probe_count: 0,
            probe_jitter: None,
        }
    }

    /// `u` is a uniform draw in [0, 1), used only when a new probe jitter is due.
    pub fn update(&mut self, s: Sample, u: f64) {
        let jitter = *self.probe_jitter.get_or_insert(0.5 + 0.5 * u);
        self.probe_count += 1;
        let probe_every = jitter * f64::from(self.cfg.probe_multiplier) * self.estimated;
        if probe_every <= self.probe_count as f64 {
            self.probe_jitter = None;
            self.probe_count = 0;
            self.rtt_noload = s.rtt;
            return;
        }
        if self.rtt_noload == Nanos::ZERO || s.rtt < self.rtt_noload {
            self.rtt_noload = s.rtt;
            return;
        }
        // rtt ≥ rtt_noload > 0 here, so the ratio is in (0, 1].
        let queue =
            (self.estimated * (1.0 - self.rtt_noload.0 as f64 / s.rtt.0 as f64)).ceil() as i64;
        let est = self.estimated;
        let log = log10_int(est as u32);
        let new = if s.dropped {
            est - f64::from(log)
        } else if f64::from(s.inflight) * 2.0 < est {
            return;
        } else {
            let (alpha, beta, threshold) = (3 * log, 6 * log, log);
            if queue <= i64::from(threshold) {
                est + f64::from(beta)
            } else if queue < i64::from(alpha) {
                est + f64::from(log)
            } else if queue > i64::from(beta) {
                est - f64::from(log)
            } else {
                return;
            }
        };
        let new = new.min(f64::from(self.cfg.max_limit)).max(1.0);
        self.estimated = (1.0 - self.cfg.smoothing) * est + self.cfg.smoothing * new;
    }

    pub fn limit(&self) -> u32 {
        self.estimated as u32
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

    /// Default Vegas whose no-load RTT is 10 ms (the first sample only sets it).
    fn warmed(cfg: VegasConfig) -> Vegas {
        let initial = cfg.initial_limit;
        let mut v = Vegas::new(cfg);
        v.update(s(10 * MS, 20, false), 0.999);
        assert_eq!((v.rtt_noload, v.limit()), (10 * MS, initial));
        v
    }

    #[test]
    fn log10_is_floored_at_one_and_stays_log10_from_1000_up() {
        let got: Vec<u32> = [0, 1, 9, 10, 99, 100, 999, 1000, 1500, 9999, 10_000, 100_000]
            .map(log10_int)
            .to_vec();
        assert_eq!(got, vec![1, 1, 1, 1, 1, 2, 2, 3, 3, 3, 4, 5]);
    }

    #[test]
    fn at_a_limit_of_1000_no_queue_grows_by_18_not_186() {
        // β = 6 · ⌊log10 1000⌋ = 18 (the old √ function gave 6 · 31 = 186).
        let mut v = warmed(VegasConfig {
            initial_limit: 1000,
            max_limit: 5000,
            ..VegasConfig::default()
        });
        v.update(s(10 * MS, 1000, false), 0.999);
        assert_eq!(v.limit(), 1018);
    }

    #[test]
    fn no_queue_grows_by_beta_and_the_sweet_spot_holds() {
        let mut v = warmed(VegasConfig::default());
        // queue = ⌈20 · (1 − 10/10)⌉ = 0 ≤ threshold 1: 20 + β (6 · 1).
        v.update(s(10 * MS, 10, false), 0.0);
        assert_eq!(v.limit(), 26);
        // queue = ⌈26 · (1 − 10/12.5)⌉ = ⌈5.2⌉ = 6: not < α (3), not > β (6): unchanged.
        v.update(s(Nanos(12_500_000), 26, false), 0.0);
        assert_eq!(v.limit(), 26);
        // queue = ⌈26 · (1 − 10/10.5)⌉ = ⌈1.24⌉ = 2 < α: 26 + 1.
        v.update(s(Nanos(10_500_000), 26, false), 0.0);
        assert_eq!(v.limit(), 27);
        // queue = ⌈27 · (1 − 10/20)⌉ = 14 > β: 27 − 1.
        v.update(s(20 * MS, 27, false), 0.0);
        assert_eq!(v.limit(), 26);
    }

    #[test]
    fn at_100_alpha_beta_and_threshold_double() {
        let mut v = warmed(VegasConfig {
            initial_limit: 100,
            ..VegasConfig::default()
        });
        // log = 2: queue = ⌈100 · (1 − 10/10.2)⌉ = ⌈1.96⌉ = 2 ≤ threshold 2: 100 + 12.
        v.update(s(Nanos(10_200_000), 100, false), 0.0);
        assert_eq!(v.limit(), 112);
        // queue = ⌈112 · (1 − 10/10.5)⌉ = ⌈5.33⌉ = 6, not < α 6, not > β 12: unchanged.
        v.update(s(Nanos(10_500_000), 112, false), 0.0);
        assert_eq!(v.limit(), 112);
    }

    #[test]
    fn drops_decrease_even_when_app_limited_and_low_use_holds() {
        let mut v = warmed(VegasConfig::default());
        v.update(s(10 * MS, 9, false), 0.0);
        assert_eq!(v.limit(), 20, "9 × 2 < 20: no change");
        v.update(s(10 * MS, 0, true), 0.0);
        assert_eq!(v.limit(), 19, "a drop: 20 − 1");
    }

    #[test]
    fn a_faster_sample_only_lowers_the_no_load_rtt() {
        let mut v = warmed(VegasConfig::default());
        v.update(s(8 * MS, 20, true), 0.0);
        assert_eq!((v.rtt_noload, v.limit()), (8 * MS, 20), "even a drop");
    }

    #[test]
    fn clamps_to_max_and_to_one_and_smooths() {
        let mut v = warmed(VegasConfig {
            max_limit: 22,
            ..VegasConfig::default()
        });
        v.update(s(10 * MS, 20, false), 0.0);
        assert_eq!(v.limit(), 22, "26 capped at 22");
        let mut v = warmed(VegasConfig {
            initial_limit: 1,
            ..VegasConfig::default()
        });
        v.update(s(10 * MS, 1, true), 0.0);
        assert_eq!(v.estimated, 1.0, "1 − 1 raised to 1");
        let mut v = warmed(VegasConfig {
            smoothing: 0.5,
            ..VegasConfig::default()
        });
        v.update(s(10 * MS, 20, false), 0.0);
        assert_eq!(v.estimated, 23.0, "0.5 · 20 + 0.5 · 26");
    }

    #[test]
    fn probes_reset_the_no_load_rtt_after_jitter_times_multiplier_times_limit_samples() {
        // u = 0 draws jitter 0.5: a probe every 0.5 · 2 · 20 = 20 samples.
        let mut v = Vegas::new(VegasConfig {
            probe_multiplier: 2,
            ..VegasConfig::default()
        });
        v.update(s(10 * MS, 0, false), 0.0);
        for _ in 2..20 {
            v.update(s(15 * MS, 0, false), 0.7);
        }
        assert_eq!((v.probe_count, v.rtt_noload), (19, 10 * MS));
        assert_eq!(v.probe_jitter, Some(0.5), "drawn once, at the first sample");
        v.update(s(15 * MS, 20, false), 0.7);
        assert_eq!((v.probe_count, v.rtt_noload), (0, 15 * MS), "the probe");
        assert_eq!(v.limit(), 20, "a probe changes nothing else");
        assert_eq!(v.probe_jitter, None);
        // The next sample draws the next jitter from its own u: 0.5 + 0.5 · 0.7.
        v.update(s(15 * MS, 0, false), 0.7);
        assert_eq!(v.probe_jitter, Some(0.85));
    }
}
