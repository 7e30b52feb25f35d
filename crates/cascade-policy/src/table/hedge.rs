//! `hedge`: copies of a slow attempt after a fixed delay or a learned percentile, at most 1 to
//! 3 per call, with a budget of their own or the retry budget.

use super::duration::parse_duration;
use super::error::{Checked, TableError};
use super::raw_parts::RawHedge;
use crate::hedge::{HedgeConfig, HedgeDelay};
use crate::time::Nanos;

const S: Nanos = Nanos::from_secs(1);

impl HedgeConfig {
    /// The hedging a `hedge` table describes; errors name the field relative to it.
    pub fn from_table(h: &RawHedge) -> Checked<HedgeConfig> {
        let Some(delay) = &h.delay else {
            return Err(TableError::at(
                "",
                "a hedge needs `delay`: a duration like \"50ms\" or a percentile like \"p95\"",
            ));
        };
        let delay = match delay.strip_prefix('p').map(str::parse::<f64>) {
            Some(Ok(p)) if p > 0.0 && p < 100.0 => HedgeDelay::Percentile(p / 100.0),
            Some(_) => {
                return Err(TableError::at(
                    "delay",
                    "a percentile is written p50 to p99.9",
                ));
            }
            None => match parse_duration(delay) {
                Ok(ns) => HedgeDelay::Fixed(Nanos(ns)),
                Err(e) => {
                    return Err(TableError::at(
                        "delay",
                        format!("a duration like \"50ms\" or a percentile like \"p95\": {e}"),
                    ));
                }
            },
        };
        let max = h.max.unwrap_or(1);
        if !(1..=3).contains(&max) {
            return Err(TableError::at("max", "hedges per call must be 1 to 3"));
        }
        if let Some(b) = h.budget
            && !(b > 0.0 && b <= 1.0)
        {
            return Err(TableError::at(
                "budget",
                "must be in (0, 1]: hedges as a share of calls",
            ));
        }
        if h.min_samples.is_some() && !matches!(delay, HedgeDelay::Percentile(_)) {
            return Err(TableError::at(
                "min_samples",
                "applies only to a learned (percentile) delay",
            ));
        }
        if h.min_samples == Some(0) {
            return Err(TableError::at("min_samples", "must be at least 1"));
        }
        let period = h.period.map_or(S, Nanos::from);
        if period == Nanos::ZERO {
            return Err(TableError::at("period", "must be longer than zero"));
        }
        let uses_retry_budget = h.uses_retry_budget.unwrap_or(false);
        if uses_retry_budget && h.budget.is_some() {
            return Err(TableError::at(
                "uses_retry_budget",
                "hedges draw on either their own `budget` or the retry budget, not both",
            ));
        }
        Ok(HedgeConfig {
            delay,
            max,
            budget: h.budget,
            uses_retry_budget,
            min_samples: h.min_samples.unwrap_or(20),
            period,
        })
    }
}
