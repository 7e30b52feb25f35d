//! Adaptive concurrency limit on a client's call path, as Netflix concurrency-limits does it: a
//! `SimpleLimiter` (reject when inflight ≥ limit, no waiting) whose limit comes from AIMD, Vegas
//! or Gradient2, fed through `WindowedLimit` (one aggregate sample per window, see `windowed`).
//! `window = None` feeds every call straight to the algorithm, which is what the library does
//! when the limit is not wrapped in a `WindowedLimit`.
//!
//! A sample is (RTT, inflight when the call started, dropped). The library's `inflight` is the
//! count right after the call took its permit (itself included), carried in the
//! `LimitPermit` `try_acquire` hands out and handed back with the sample. "Dropped" is the library's `onDropped`: the call timed out or the
//! server shed it. A call whose result says nothing about the server's capacity (cancelled,
//! failed before sending) gives its permit back with `ignore`, which records nothing.
//!
//! The limit is an integer, as in the library (`Limit.getLimit()` is an `int` and the
//! semaphore holds that many permits); it is never below 1 here so a path cannot lock itself
//! out for good.
//!
//! Sources read: concurrency-limits-core `limiter/SimpleLimiter.java`,
//! `limiter/AbstractLimiter.java`, `limit/WindowedLimit.java`,
//! `limit/window/ImmutableAverageSampleWindow.java`, `limit/AIMDLimit.java`,
//! `limit/VegasLimit.java`, `limit/functions/Log10RootFunction.java`,
//! `limit/Gradient2Limit.java`, `limit/measurement/ExpAvgMeasurement.java`.

mod aimd;
mod gradient2;
mod vegas;
mod windowed;

pub use aimd::{Aimd, AimdConfig};
pub use gradient2::{Gradient2, Gradient2Config};
pub use vegas::{Vegas, VegasConfig};
pub use windowed::{Sample, WindowConfig, Windowed};

use crate::outcome::Outcome;
use crate::time::Nanos;
use std::num::NonZeroU32;

#[derive(Debug, Clone, PartialEq)]
pub enum LimitAlgorithm {
    Aimd(AimdConfig),
    Gradient2(Gradient2Config),
    Vegas(VegasConfig),
}

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct LimitConfig {
        algorithm: LimitAlgorithm,
        window: Option<WindowConfig>,
    }
}

getters!(LimitConfig {
    /// The algorithm that moves the limit, with its settings.
    algorithm: &LimitAlgorithm,
    /// `None`: every call is a sample.
    window: Option<&WindowConfig>,
});

impl Default for LimitConfig {
    /// The library's default limit (Vegas), windowed with `WindowedLimit`'s defaults.
    fn default() -> LimitConfig {
        LimitConfig {
            algorithm: LimitAlgorithm::Vegas(VegasConfig::default()),
            window: Some(WindowConfig::default()),
        }
    }
}

#[derive(Debug, Clone)]
enum Algorithm {
    Aimd(Aimd),
    Gradient2(Gradient2),
    Vegas(Vegas),
}

/// Leave for one call to be in flight under the limit, made only by `try_acquire` and handed
/// back once: to `release` with the call's sample, or to `ignore`. It carries the in-flight
/// count right after the call took it (the library's `inflight` of the sample), so the sample
/// cannot be given a count read at another time.
#[derive(Debug, PartialEq, Eq)]
#[must_use = "a limit permit goes back through `release` or `ignore`"]
pub struct LimitPermit {
    inflight: NonZeroU32,
}

impl LimitPermit {
    /// The calls in flight right after this one took its permit, itself included.
    pub fn inflight(&self) -> u32 {
        self.inflight.get()
    }
}

#[derive(Debug, Clone)]
pub struct Limiter {
    algorithm: Algorithm,
    window: Option<Windowed>,
    inflight: u32,
}

impl Limiter {
    pub fn new(cfg: &LimitConfig) -> Limiter {
        let algorithm = match &cfg.algorithm {
            LimitAlgorithm::Aimd(c) => Algorithm::Aimd(Aimd::new(c.clone())),
            LimitAlgorithm::Gradient2(c) => Algorithm::Gradient2(Gradient2::new(c.clone())),
            LimitAlgorithm::Vegas(c) => Algorithm::Vegas(Vegas::new(c.clone())),
        };
        Limiter {
            algorithm,
            window: cfg.window.clone().map(Windowed::new),
            inflight: 0,
        }
    }

    /// Takes a permit if one is free. SimpleLimiter never waits: none is a rejection.
    pub fn try_acquire(&mut self) -> Option<LimitPermit> {
        if self.inflight >= self.limit() {
            return None;
        }
        self.inflight += 1;
        NonZeroU32::new(self.inflight).map(|inflight| LimitPermit { inflight })
    }

    /// The call that took `permit` ended at `now` after `rtt`: its permit comes back with
    /// a sample. `u` is a uniform draw in [0, 1) (Vegas's probe jitter uses it when one is
    /// due; the others never).
    pub fn release(&mut self, now: Nanos, rtt: Nanos, permit: LimitPermit, dropped: bool, u: f64) {
        self.inflight = self.inflight.saturating_sub(1);
        let sample = Sample {
            rtt,
            inflight: permit.inflight(),
            dropped,
        };
        self.learn(now, sample, u);
    }

    /// Feeds a sample to the window, or straight to the algorithm.
    fn learn(&mut self, now: Nanos, sample: Sample, u: f64) {
        let sample = match &mut self.window {
            Some(w) => w.add(now, sample),
            None => Some(sample),
        };
        if let Some(s) = sample {
            match &mut self.algorithm {
                Algorithm::Aimd(a) => a.update(s),
                Algorithm::Gradient2(g) => g.update(s),
                Algorithm::Vegas(v) => v.update(s, u),
            }
        }
    }

    /// The call that took `permit` ended without a sample (the library's `onIgnore`).
    pub fn ignore(&mut self, permit: LimitPermit) {
        let _ = permit;
        self.inflight = self.inflight.saturating_sub(1);
    }

    /// The current limit: the algorithm's integer limit, at least 1.
    pub fn limit(&self) -> u32 {
        let limit = match &self.algorithm {
            Algorithm::Aimd(a) => a.limit(),
            Algorithm::Gradient2(g) => g.limit(),
            Algorithm::Vegas(v) => v.limit(),
        };
        limit.max(1)
    }

    pub fn inflight(&self) -> u32 {
        self.inflight
    }
}

/// What an attempt's outcome tells an adaptive limit: a sample (`Some(dropped)`), or nothing.
/// As in concurrency-limits' gRPC and servlet integrations: an answer is a sample; a timeout or
/// an overload answer (429, shed, refused, unavailable) is a drop, the congestion signal; a
/// request the callee judged bad (`invalid`) or an internal error says nothing of capacity.
/// The caller releases its permit with `release` for a sample and `ignore` for nothing.
#[inline]
pub fn sample_of(outcome: Outcome) -> Option<bool> {
    match outcome {
        Outcome::Ok | Outcome::Degraded => Some(false),
        Outcome::Timeout
        | Outcome::DeadlineExceeded
        | Outcome::Overloaded
        | Outcome::Shed
        | Outcome::Refused
        | Outcome::Unavailable => Some(true),
        Outcome::Internal
        | Outcome::Invalid
        | Outcome::BreakerOpen
        | Outcome::BulkheadFull
        | Outcome::Throttled
        | Outcome::Limited
        | Outcome::RateLimited => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);
    const S: Nanos = Nanos::from_secs(1);

    /// Feeds a sample as a call started with `inflight` in flight would give it (the
    /// algorithms' tests need counts no run of permits here would make).
    fn sample(l: &mut Limiter, now: Nanos, rtt: Nanos, inflight: u32, dropped: bool, u: f64) {
        let sample = Sample {
            rtt,
            inflight,
            dropped,
        };
        l.learn(now, sample, u);
    }

    fn aimd(window: Option<WindowConfig>) -> LimitConfig {
        LimitConfig {
            algorithm: LimitAlgorithm::Aimd(AimdConfig::default()),
            window,
        }
    }

    #[test]
    fn rejects_at_the_limit_and_a_release_frees_a_permit() {
        let mut l = Limiter::new(&aimd(None));
        let mut permits = Vec::new();
        for i in 1..=20 {
            let permit = l.try_acquire().expect("below the limit");
            assert_eq!((l.inflight(), permit.inflight()), (i, i));
            permits.push(permit);
        }
        assert_eq!(l.try_acquire(), None, "21st at limit 20");
        assert_eq!(l.inflight(), 20, "a rejection holds nothing");
        l.ignore(permits.pop().unwrap());
        assert_eq!(l.inflight(), 19);
        assert_eq!(l.limit(), 20, "ignore feeds no sample");
        assert!(l.try_acquire().is_some());
    }

    #[test]
    fn without_a_window_every_release_is_a_sample() {
        let mut l = Limiter::new(&aimd(None));
        let mut permits: Vec<_> = (0..10).map(|_| l.try_acquire().unwrap()).collect();
        // The last one started with 10 in flight: 10 × 2 ≥ 20 grows the limit at once.
        l.release(S, 10 * MS, permits.pop().unwrap(), false, 0.0);
        assert_eq!(l.limit(), 21);
        assert_eq!(l.inflight(), 9);
    }

    #[test]
    fn with_the_default_window_the_algorithm_sees_one_aggregate_per_window() {
        let mut l = Limiter::new(&aimd(Some(WindowConfig::default())));
        // The first sample closes a window of one: nothing changes; the next closes after 2 s.
        sample(&mut l, S, 10 * MS, 10, false, 0.0);
        for i in 1..=10 {
            sample(&mut l, S + i * 100 * MS, 10 * MS, 10, false, 0.0);
            assert_eq!(l.limit(), 20, "still inside the window");
        }
        // Closing it with eleven samples: one AIMD step (+1), not eleven.
        sample(&mut l, 2 * S + Nanos(1), 10 * MS, 10, false, 0.0);
        assert_eq!(l.limit(), 21);
        // A window with a drop backs off once: 21 × 0.9 = 18.9 → 18, raised to min 20.
        for i in 1..=10 {
            sample(&mut l, 2 * S + i * 10 * MS, 10 * MS, 10, i == 3, 0.0);
        }
        sample(&mut l, 3 * S + Nanos(2), 10 * MS, 10, false, 0.0);
        assert_eq!(l.limit(), 20);
    }

    #[test]
    fn the_draw_reaches_vegas_probe_jitter() {
        // probe_multiplier 1: a probe every U(0.5, 1) · 20 samples, so at the 10th for u = 0
        // and not before the 20th for u = 0.99. The 10th sample is slower (20 ms): a probe
        // takes it as the no-load RTT (then 20 ms is no queue: 20 + 6); otherwise the 11th
        // sees a queue of ⌈20 · (1 − 10/20)⌉ = 10 > β and backs off (20 − 1).
        for (u, want) in [(0.0, 26), (0.99, 19)] {
            let mut l = Limiter::new(&LimitConfig {
                algorithm: LimitAlgorithm::Vegas(VegasConfig {
                    probe_multiplier: 1,
                    ..VegasConfig::default()
                }),
                window: None,
            });
            for _ in 1..10 {
                sample(&mut l, S, 10 * MS, 0, false, u);
            }
            sample(&mut l, S, 20 * MS, 0, false, u);
            sample(&mut l, S, 20 * MS, 20, false, u);
            assert_eq!(l.limit(), want, "u = {u}");
        }
    }

    #[test]
    fn the_limit_never_falls_below_one() {
        let cfg = LimitConfig {
            algorithm: LimitAlgorithm::Aimd(AimdConfig {
                initial_limit: 1,
                min_limit: 0,
                ..AimdConfig::default()
            }),
            window: None,
        };
        let mut l = Limiter::new(&cfg);
        let permit = l.try_acquire().unwrap();
        l.release(S, 10 * MS, permit, true, 0.0);
        assert_eq!(l.limit(), 1, "AIMD says ⌊1 × 0.9⌋ = 0; the limiter keeps 1");
        let _held = l.try_acquire().unwrap();
        assert_eq!(l.try_acquire(), None);
    }

    #[test]
    fn each_algorithm_is_reachable_through_the_config() {
        let vegas = LimitConfig {
            window: None,
            ..LimitConfig::default()
        };
        let mut l = Limiter::new(&vegas);
        sample(&mut l, S, 10 * MS, 20, false, 0.5); // sets the no-load RTT
        sample(&mut l, S, 10 * MS, 20, false, 0.5);
        assert_eq!(l.limit(), 26, "Vegas: no queue, 20 + 6");
        let mut l = Limiter::new(&LimitConfig {
            algorithm: LimitAlgorithm::Gradient2(Gradient2Config {
                initial_limit: 30,
                ..Gradient2Config::default()
            }),
            window: None,
        });
        sample(&mut l, S, 10 * MS, 30, false, 0.0);
        assert_eq!(l.limit(), 30, "Gradient2: 0.8·30 + 0.2·34 = 30.8");
        sample(&mut l, S, 10 * MS, 30, false, 0.0);
        assert_eq!(l.limit(), 31, "0.8·30.8 + 0.2·34.8 = 31.6");
    }

    #[test]
    fn answers_are_samples_congestion_is_a_drop_and_the_rest_says_nothing() {
        let by_kind: Vec<(&str, Option<bool>)> = Outcome::ALL
            .iter()
            .map(|o| (o.name(), sample_of(*o)))
            .collect();
        assert_eq!(
            by_kind,
            [
                ("ok", Some(false)),
                ("degraded", Some(false)),
                ("timeout", Some(true)),
                ("deadline_exceeded", Some(true)),
                ("unavailable", Some(true)),
                ("overloaded", Some(true)),
                ("internal", None),
                ("invalid", None),
                ("refused", Some(true)),
                ("breaker_open", None),
                ("bulkhead_full", None),
                ("throttled", None),
                ("shed", Some(true)),
                ("limited", None),
                ("rate_limited", None),
            ]
        );
    }
}
