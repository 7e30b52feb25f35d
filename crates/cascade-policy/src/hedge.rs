//! Hedging: after `delay` without an answer, send the same idempotent request again (up to
//! `max` extra copies); the first success wins. The delay is fixed, or a percentile of recent
//! attempt latencies on the call path (tower's `Hedge`): the previous `period`'s histogram,
//! used only once it holds `min_samples` latencies; until then, no hedging.

use crate::budget::BudgetConfig;
use crate::hist::LatencyHist;
use crate::time::Nanos;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HedgeDelay {
    Fixed(Nanos),
    /// A quantile in (0, 1) of recent latencies.
    Percentile(f64),
}

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct HedgeConfig {
        delay: HedgeDelay,
        max: u32,
        budget: Option<f64>,
        uses_retry_budget: bool,
        min_samples: u32,
        period: Nanos,
    }
}

getters!(HedgeConfig {
    /// How long to wait for an answer before hedging: fixed, or a quantile of recent latencies.
    delay: HedgeDelay,
    /// Extra attempts at most (1 to 3).
    max: u32,
    /// Hedges may not exceed this share of calls (over ten seconds), when set.
    budget: Option<f64>,
    /// Hedges ask the call path's retry budget instead (gRPC A6: retryThrottling throttles
    /// retries and hedged RPCs alike); refused hedges are counted as `hedge_budget_exhausted`.
    uses_retry_budget: bool,
    /// Latencies a learned delay needs in the previous period before hedging starts.
    min_samples: u32,
    /// The span a learned delay's latencies are gathered over.
    period: Nanos,
});

impl HedgeConfig {
    /// The budget hedges of their own draw on (`budget`): a ratio of calls over ten seconds,
    /// with no minimum rate; `None` without one.
    pub fn own_budget(&self) -> Option<BudgetConfig> {
        self.budget.map(|ratio| BudgetConfig::Ratio {
            ratio,
            min_per_s: 0.0,
            window: Nanos::from_secs(10),
        })
    }
}

/// Recent attempt latencies of one call path, in two rotating periods.
#[derive(Clone)]
pub struct LatencyTracker {
    current: LatencyHist,
    previous: LatencyHist,
    period: Nanos,
    period_start: Nanos,
}

impl LatencyTracker {
    pub fn new(period: Nanos) -> LatencyTracker {
        LatencyTracker {
            current: LatencyHist::default(),
            previous: LatencyHist::default(),
            period: period.max(Nanos(1)),
            period_start: Nanos::ZERO,
        }
    }

    pub fn record(&mut self, now: Nanos, latency: Nanos) {
        self.rotate(now);
        self.current.record(latency.0);
    }

    /// The hedge delay at `now`, or `None` while too few latencies are known.
    pub fn delay(&mut self, now: Nanos, cfg: &HedgeConfig) -> Option<Nanos> {
        match cfg.delay {
            HedgeDelay::Fixed(d) => Some(d),
            HedgeDelay::Percentile(q) => {
                self.rotate(now);
                (self.previous.count() >= u64::from(cfg.min_samples))
                    .then(|| Nanos((self.previous.quantile_ms(q) * 1e6) as u64))
            }
        }
    }

    fn rotate(&mut self, now: Nanos) {
        let elapsed = now.saturating_sub(self.period_start);
        if elapsed < self.period {
            return;
        }
        // One period on: the current one becomes the previous. Two or more: both are stale.
        std::mem::swap(&mut self.previous, &mut self.current);
        if elapsed >= self.period * 2 {
            self.previous.reset();
        }
        self.current.reset();
        self.period_start = Nanos(now.0 - elapsed.0 % self.period.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);
    const S: Nanos = Nanos::from_secs(1);

    fn cfg(delay: HedgeDelay) -> HedgeConfig {
        HedgeConfig {
            delay,
            max: 1,
            budget: None,
            uses_retry_budget: false,
            min_samples: 10,
            period: S,
        }
    }

    #[test]
    fn fixed_delay_is_always_known() {
        let mut t = LatencyTracker::new(S);
        assert_eq!(
            t.delay(Nanos::ZERO, &cfg(HedgeDelay::Fixed(50 * MS))),
            Some(50 * MS)
        );
    }

    #[test]
    fn learned_delay_comes_from_the_previous_period_once_it_has_enough_samples() {
        let c = cfg(HedgeDelay::Percentile(0.9));
        let mut t = LatencyTracker::new(S);
        for ms in 1..=100 {
            t.record(500 * MS, ms * MS);
        }
        assert_eq!(
            t.delay(500 * MS, &c),
            None,
            "nothing from a previous period yet"
        );
        let d = t
            .delay(S + Nanos(1), &c)
            .expect("the first period is now the previous one");
        assert!((d.0 as f64 / 1e6 - 90.0).abs() < 0.5, "{d:?}");
        // Too few samples in a period: no hedging.
        let mut t = LatencyTracker::new(S);
        for ms in 1..=5 {
            t.record(Nanos::ZERO, ms * MS);
        }
        assert_eq!(t.delay(S, &c), None);
        // A quiet stretch of two periods forgets everything.
        let mut t = LatencyTracker::new(S);
        for ms in 1..=100 {
            t.record(Nanos::ZERO, ms * MS);
        }
        assert_eq!(t.delay(3 * S, &c), None);
    }
}
