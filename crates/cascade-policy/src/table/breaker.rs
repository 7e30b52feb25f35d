//! `breaker`: count or time window, trip rules, open time and its growth, half-open probes,
//! which kinds count, and whether it wraps each attempt or the whole call. Defaults are
//! resilience4j's (docs/policies.md).

use super::duration::parse_duration;
use super::error::{Checked, TableError};
use super::outcomes::outcomes;
use super::raw_parts::{RawBreaker, RawWindow};
use crate::breaker::{BreakerConfig, BreakerPolicy, BreakerScope, Window};
use crate::bulkhead::Wraps;
use crate::outcome::{Outcome, OutcomeSet};
use crate::time::Nanos;

const S: Nanos = Nanos::from_secs(1);

/// Failure kinds a breaker counts unless `count` is given.
pub const DEFAULT_BREAKER_COUNT: [Outcome; 6] = [
    Outcome::Timeout,
    Outcome::DeadlineExceeded,
    Outcome::Unavailable,
    Outcome::Overloaded,
    Outcome::Internal,
    Outcome::Refused,
];

/// Kinds a breaker may never count: the callee did not fail, the caller's own request did.
const NEVER_COUNTED: [Outcome; 8] = Outcome::NOT_CALLEE_FAILURES;

impl BreakerPolicy {
    /// The breaker a `breaker` table describes; errors name the field relative to it.
    pub fn from_table(b: &RawBreaker) -> Checked<BreakerPolicy> {
        let window = match &b.window {
            None => Window::Calls(100),
            Some(RawWindow::Calls(0)) => {
                return Err(TableError::at("window", "must be at least 1 call"));
            }
            Some(RawWindow::Calls(n)) => Window::Calls(*n),
            Some(RawWindow::Time(text)) => match parse_duration(text) {
                Ok(ns) if ns >= 10 => Window::Time(Nanos(ns)),
                Ok(_) => return Err(TableError::at("window", "must be longer than zero")),
                Err(e) => {
                    return Err(TableError::at(
                        "window",
                        format!("a call count like 100 or a duration like \"10s\": {e}"),
                    ));
                }
            },
        };
        let rate = |v: Option<f64>, default: f64, f: &str| {
            let v = v.unwrap_or(default);
            if v > 0.0 && v <= 1.0 {
                Ok(v)
            } else {
                Err(TableError::at(f, "must be in (0, 1]"))
            }
        };
        let open = b.open.map_or(60 * S, Nanos::from);
        if open == Nanos::ZERO {
            return Err(TableError::at("open", "must be longer than zero"));
        }
        let open_multiplier = b.open_multiplier.unwrap_or(1.0);
        if !(open_multiplier >= 1.0 && open_multiplier.is_finite()) {
            return Err(TableError::at("open_multiplier", "must be 1 or more"));
        }
        let open_max = b.open_max.map_or(
            if open_multiplier > 1.0 {
                open * 10
            } else {
                open
            },
            Nanos::from,
        );
        if open_max < open {
            return Err(TableError::at("open_max", "must be at least `open`"));
        }
        let half_open_calls = b.half_open_calls.unwrap_or(10);
        if half_open_calls == 0 {
            return Err(TableError::at("half_open_calls", "must be at least 1"));
        }
        let count = match &b.count {
            None => DEFAULT_BREAKER_COUNT.to_vec(),
            Some(names) => outcomes("count", names, &NEVER_COUNTED, "never counts as a failure")?,
        };
        let config = BreakerConfig {
            window,
            min_calls: b.min_calls.unwrap_or(100),
            failure_rate: rate(b.failure_rate, 0.5, "failure_rate")?,
            slow_call_rate: rate(b.slow_call_rate, 1.0, "slow_call_rate")?,
            slow_call_duration: b.slow_call_duration.map_or(60 * S, Nanos::from),
            consecutive_failures: b.consecutive_failures.unwrap_or(0),
            open,
            open_multiplier,
            open_max,
            half_open_calls,
            count: OutcomeSet::of(&count),
        };
        let (wraps, scope) = (b.wraps.unwrap_or_default(), b.scope.unwrap_or_default());
        if wraps == Wraps::Call && scope == BreakerScope::Instance {
            return Err(TableError::at(
                "scope",
                "a breaker around the whole call (wraps = \"call\") cannot be per callee instance: the instance is chosen per attempt",
            ));
        }
        let retries_only = b.retries_only.unwrap_or(false);
        if retries_only && wraps == Wraps::Call {
            return Err(TableError::at(
                "retries_only",
                "a retry-only breaker stands before each attempt (wraps = \"attempt\"): around the whole call it would stop first tries too",
            ));
        }
        if config.min_calls == 0 {
            return Err(TableError::at("min_calls", "must be at least 1"));
        }
        if config.slow_call_duration == Nanos::ZERO {
            return Err(TableError::at(
                "slow_call_duration",
                "must be longer than zero",
            ));
        }
        Ok(BreakerPolicy {
            config,
            wraps,
            scope,
            retries_only,
        })
    }
}
