//! The policy tables of a scenario as written (`[policy.NAME]` sub-tables).

use super::schema::Dur;
use crate::model::{BreakerScope, Wraps};
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffKind {
    Constant,
    Linear,
    Exponential,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JitterKind {
    None,
    Full,
    Equal,
    Decorrelated,
    Proportional,
}

/// `retry.retry_after_wait`: how an honoured Retry-After makes the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryAfterWaitKind {
    Replace,
    Max,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRetry {
    pub attempts: Option<u32>,
    pub retries: Option<u32>,
    pub on: Option<Vec<String>>,
    pub backoff: Option<BackoffKind>,
    pub base: Option<Dur>,
    pub max: Option<Dur>,
    pub multiplier: Option<f64>,
    pub jitter: Option<JitterKind>,
    pub jitter_factor: Option<f64>,
    pub retry_after: Option<bool>,
    pub retry_after_wait: Option<RetryAfterWaitKind>,
    pub budget: Option<RawBudget>,
    pub timeout: Option<Dur>,
}

/// `budget = 0.1` (a ratio) or a table.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RawBudget {
    Ratio(f64),
    Table(RawBudgetTable),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    #[default]
    Ratio,
    TokenBucket,
    Concurrency,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBudgetTable {
    pub kind: Option<BudgetKind>,
    pub ratio: Option<f64>,
    pub min_per_s: Option<f64>,
    pub window: Option<Dur>,
    pub max_tokens: Option<f64>,
    pub token_ratio: Option<f64>,
    pub percent: Option<f64>,
    pub min: Option<u32>,
}

/// `window = 100` (calls) or `window = "10s"` (time).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RawWindow {
    Calls(u32),
    Time(String),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBreaker {
    pub window: Option<RawWindow>,
    pub min_calls: Option<u32>,
    pub failure_rate: Option<f64>,
    pub slow_call_rate: Option<f64>,
    pub slow_call_duration: Option<Dur>,
    pub consecutive_failures: Option<u32>,
    pub open: Option<Dur>,
    pub open_multiplier: Option<f64>,
    pub open_max: Option<Dur>,
    pub half_open_calls: Option<u32>,
    pub count: Option<Vec<String>>,
    pub wraps: Option<Wraps>,
    pub scope: Option<BreakerScope>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBulkhead {
    pub max_concurrent: Option<u32>,
    pub queue: Option<u32>,
    pub max_wait: Option<Dur>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawThrottle {
    pub k: Option<f64>,
    pub window: Option<Dur>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFallback {
    pub latency: Option<Dur>,
    pub to: Option<String>,
    pub policy: Option<String>,
    pub on: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHedge {
    /// A duration (`"50ms"`) or a percentile of recent latencies (`"p95"`).
    pub delay: String,
    pub max: Option<u32>,
    pub budget: Option<f64>,
    pub min_samples: Option<u32>,
    pub period: Option<Dur>,
}

/// `limit = { algorithm = "aimd" | "gradient2" | "vegas", ... }`: which keys apply depends on
/// the algorithm (checked in `compile`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimit {
    pub algorithm: String,
    pub initial: Option<u32>,
    pub min: Option<u32>,
    pub max: Option<u32>,
    pub backoff_ratio: Option<f64>,
    pub timeout: Option<Dur>,
    pub smoothing: Option<f64>,
    pub probe_multiplier: Option<u32>,
    pub queue_size: Option<u32>,
    pub long_window: Option<u32>,
    pub rtt_tolerance: Option<f64>,
    pub window: Option<RawLimitWindow>,
}

/// `WindowedLimit`: one aggregate sample per window.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimitWindow {
    pub min: Option<Dur>,
    pub max: Option<Dur>,
    pub size: Option<u32>,
    pub min_rtt: Option<Dur>,
}

/// `codel = { target, interval }` on a service (folly/Envoy CoDel).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCodel {
    pub target: Option<Dur>,
    pub interval: Option<Dur>,
}

/// `outlier = { ... }` on a service: Envoy consecutive-failure ejection at its balancer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutlier {
    pub consecutive_failures: Option<u32>,
    pub interval: Option<Dur>,
    pub base_ejection_time: Option<Dur>,
    pub max_ejection_time: Option<Dur>,
    pub max_ejection_percent: Option<u32>,
    pub always_eject_one: Option<bool>,
}
