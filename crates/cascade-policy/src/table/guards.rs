//! The parts that guard a path without deciding a retry: `bulkhead` (resilience4j's
//! semaphore bulkhead), `throttle` (the SRE book's client-side throttling) and
//! `failure_accrual` (Finagle's), each with its library's defaults.

use super::error::{Checked, TableError};
use super::names::check_name;
use super::raw_parts::{RawAccrual, RawBulkhead, RawRateLimit, RawThrottle};
use crate::accrual::AccrualConfig;
use crate::bulkhead::BulkheadConfig;
use crate::throttle::ThrottleConfig;
use crate::time::Nanos;
use crate::token_bucket::{BucketError, TokenBucketConfig};

const S: Nanos = Nanos::from_secs(1);

impl BulkheadConfig {
    /// The bulkhead a `bulkhead` table describes; errors name the field relative to it.
    pub fn from_table(b: &RawBulkhead) -> Checked<BulkheadConfig> {
        let max_concurrent = b.max_concurrent.unwrap_or(25);
        if max_concurrent == 0 {
            return Err(TableError::at("max_concurrent", "must be at least 1"));
        }
        let queue = b.queue.unwrap_or(0);
        let max_wait = b.max_wait.map_or(Nanos::ZERO, Nanos::from);
        if queue == 0 && max_wait > Nanos::ZERO {
            return Err(TableError::at(
                "max_wait",
                "waiting needs room to wait: set `queue` too",
            ));
        }
        if queue > 0 && max_wait == Nanos::ZERO {
            return Err(TableError::at(
                "max_wait",
                "a bulkhead queue needs `max_wait`, how long a call may wait for a permit",
            ));
        }
        if let Some(pool) = &b.pool {
            check_name(pool).map_err(|m| TableError::at("pool", m))?;
        }
        Ok(BulkheadConfig {
            max_concurrent,
            queue,
            max_wait,
            release: b.release.unwrap_or_default(),
            wraps: b.wraps.unwrap_or_default(),
            pool: b.pool.clone(),
        })
    }
}

impl ThrottleConfig {
    /// The throttle a `throttle` table describes; errors name the field relative to it.
    pub fn from_table(t: &RawThrottle) -> Checked<ThrottleConfig> {
        let k = t.k.unwrap_or(2.0);
        if !(k > 0.0 && k.is_finite()) {
            return Err(TableError::at(
                "k",
                "must be positive (the SRE book uses 2)",
            ));
        }
        let window = t.window.map_or(120 * S, Nanos::from);
        if window < Nanos(10) {
            return Err(TableError::at("window", "must be longer than zero"));
        }
        Ok(ThrottleConfig { k, window })
    }
}

impl TokenBucketConfig {
    /// The bucket a `rate_limit` table describes, Envoy's `tokens_per_fill` of 1 filled;
    /// errors name the field relative to it.
    pub fn from_table(t: &RawRateLimit) -> Checked<TokenBucketConfig> {
        let max_tokens = t.max_tokens.ok_or_else(|| {
            TableError::at(
                "max_tokens",
                "is required: the bucket's size and first fill",
            )
        })?;
        let fill_interval = t.fill_interval.map(Nanos::from).ok_or_else(|| {
            TableError::at(
                "fill_interval",
                "is required: how often tokens_per_fill is added",
            )
        })?;
        let cfg = TokenBucketConfig::new(
            max_tokens,
            t.tokens_per_fill.unwrap_or(1),
            fill_interval,
            t.refill.unwrap_or_default(),
        );
        cfg.map_err(|e| match e {
            BucketError::ZeroMaxTokens => TableError::at("max_tokens", "must be at least 1"),
            BucketError::ZeroTokensPerFill => {
                TableError::at("tokens_per_fill", "must be at least 1")
            }
            BucketError::ZeroFillInterval => {
                TableError::at("fill_interval", "must be longer than zero")
            }
        })
    }
}

impl AccrualConfig {
    /// Failure accrual as a `failure_accrual` table describes it, Finagle's defaults filled;
    /// errors name the field relative to it.
    pub fn from_table(a: &RawAccrual) -> Checked<AccrualConfig> {
        let d = AccrualConfig::default();
        let consecutive_failures = a.consecutive_failures.unwrap_or(d.consecutive_failures);
        if consecutive_failures == 0 {
            return Err(TableError::at(
                "consecutive_failures",
                "must be at least 1 (Finagle's default is 5)",
            ));
        }
        let mark_dead_for = a.mark_dead_for.map_or(d.mark_dead_for, Nanos::from);
        if mark_dead_for == Nanos::ZERO {
            return Err(TableError::at("mark_dead_for", "must be longer than zero"));
        }
        // Without a maximum of its own, a mark longer than Finagle's 300 s stays constant.
        let mark_dead_max = a
            .mark_dead_max
            .map_or(d.mark_dead_max.max(mark_dead_for), Nanos::from);
        if mark_dead_max < mark_dead_for {
            return Err(TableError::at(
                "mark_dead_max",
                "must be at least `mark_dead_for` (equal for a constant mark)",
            ));
        }
        Ok(AccrualConfig {
            consecutive_failures,
            mark_dead_for,
            mark_dead_max,
        })
    }
}
