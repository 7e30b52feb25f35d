//! The `[policy.NAME]` table as written, and its `retry` part with the retry budget: every key
//! optional (a default fills it when compiled, `PolicyConfig::new`), durations as `Dur`.
//! `Deserialize` behind the `serde` feature, the JSON Schema behind `schema`; the doc
//! comments are the keys' descriptions in `cascade schema`.

use super::duration::Dur;
use super::raw_parts::*;
/// `[policy.NAME]`: caller-side settings for a call (docs/policies.md).
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawPolicy {
    /// A library's defaults for every part written here (resilience4j, envoy, grpc, polly,
    /// finagle, aws-sdk-standard, tower); the policy's own keys win (`cascade presets`).
    pub preset: Option<super::preset::Preset>,
    /// Per-attempt timeout (> 0; default: none).
    pub timeout: Option<Dur>,
    /// A timeout over the whole call, every attempt and backoff (> 0; default: none): Envoy's
    /// route `timeout`, Polly's outer timeout, a gRPC call's own deadline. The call's deadline
    /// becomes the earlier of its caller's (less `reserve`) and its start plus this.
    pub total_timeout: Option<Dur>,
    /// Time kept back from the caller's deadline for its own work after the call.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "0")))]
    pub reserve: Option<Dur>,
    /// No attempt starts with less than this left before the deadline.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "0")))]
    pub min_attempt: Option<Dur>,
    /// A give-up stops the callee's work, down the whole tree.
    #[cfg_attr(feature = "schema", schemars(extend("default" = false)))]
    pub cancel: Option<bool>,
    /// `false`: the call takes no deadline from its caller's request (gRPC without a
    /// propagated Context).
    #[cfg_attr(feature = "schema", schemars(extend("default" = true)))]
    pub propagate_deadline: Option<bool>,
    /// Retries: attempts, `on`, backoff and jitter, Retry-After, a retry budget.
    pub retry: Option<RawRetry>,
    /// Circuit breaker around each attempt or the whole call.
    pub breaker: Option<RawBreaker>,
    /// A cap on attempts in flight, with an optional wait.
    pub bulkhead: Option<RawBulkhead>,
    /// Client-side adaptive throttling (Google SRE).
    pub throttle: Option<RawThrottle>,
    /// Adaptive concurrency limit (Netflix concurrency-limits).
    pub limit: Option<RawLimit>,
    /// A token bucket per caller instance (Envoy's local rate limit): a call finding it empty
    /// is refused as `rate_limited`.
    pub rate_limit: Option<RawRateLimit>,
    /// A degraded answer when the call finally fails: canned, or a call to another service.
    pub fallback: Option<RawFallback>,
    /// Copies of a slow attempt after a fixed or learned delay; the first success wins.
    pub hedge: Option<RawHedge>,
    /// Finagle's failure accrual: a host with consecutive failures is marked dead and the
    /// balancer avoids it (per callee instance, per caller instance).
    pub failure_accrual: Option<RawAccrual>,
}

/// The schedule of retry waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BackoffKind {
    Constant,
    Linear,
    Exponential,
}

/// How a retry wait is randomised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum JitterKind {
    None,
    Full,
    Equal,
    Decorrelated,
    Proportional,
}

/// `retry.retry_after_wait`: how an honoured Retry-After makes the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RetryAfterWaitKind {
    Replace,
    Max,
}

/// `retry`: the retry loop around a call's attempts.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawRetry {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// Attempts in all, the first included (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 3)))]
    pub attempts: Option<u32>,
    /// Retries after the first attempt, instead of `attempts` (default: attempts - 1).
    pub retries: Option<u32>,
    /// The outcome kinds that are retried.
    #[cfg_attr(feature = "schema", schemars(extend("default" = ["timeout", "unavailable", "overloaded", "refused"])))]
    pub on: Option<Vec<String>>,
    /// The schedule of waits between attempts.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "exponential")))]
    pub backoff: Option<BackoffKind>,
    /// The first wait.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "100ms")))]
    pub base: Option<Dur>,
    /// The longest wait (>= `base`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "10s")))]
    pub max: Option<Dur>,
    /// Exponential backoff: each wait this many times the last (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 2.0)))]
    pub multiplier: Option<f64>,
    /// How each wait is randomised.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "full")))]
    pub jitter: Option<JitterKind>,
    /// Proportional jitter: the wait varies by this share either way, in [0, 1].
    #[cfg_attr(feature = "schema", schemars(extend("default" = 0.2)))]
    pub jitter_factor: Option<f64>,
    /// Honour a Retry-After carried by a failed answer.
    #[cfg_attr(feature = "schema", schemars(extend("default" = true)))]
    pub retry_after: Option<bool>,
    /// With `retry_after`: the Retry-After replaces the backoff wait, or the longer of the two.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "replace")))]
    pub retry_after_wait: Option<RetryAfterWaitKind>,
    /// A retry budget: a ratio in [0, 1], or a table (ratio, token bucket or concurrency).
    pub budget: Option<RawBudget>,
    /// The timeout of the retries (> 0; default: the policy's `timeout`).
    pub timeout: Option<Dur>,
    /// A retry goes to another instance: the balancer's pick of a host this call already tried
    /// is picked again (Envoy's `previous_hosts` retry host predicate).
    #[cfg_attr(feature = "schema", schemars(extend("default" = false)))]
    pub other_host: Option<bool>,
    /// With `other_host`: how many times the balancer picks again before the retry takes its
    /// last pick anyway, in [1, 100] (Envoy's `host_selection_retry_max_attempts`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 1)))]
    pub host_reselections: Option<u32>,
}

/// `budget = 0.1` (a ratio) or a table.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", serde(untagged))]
pub enum RawBudget {
    Ratio(f64),
    Table(RawBudgetTable),
}

/// By hand rather than `untagged`: serde's untagged enums drop the inner error, so a table
/// with a bad key or value (`earn_on = "retry"`) was reported as "expected a budget" at the
/// table instead of naming the key and its valid values.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for RawBudget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RawBudget, D::Error> {
        use serde::Deserialize;
        use serde::de::{self, Visitor};
        struct BudgetVisitor;
        impl<'de> Visitor<'de> for BudgetVisitor {
            type Value = RawBudget;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a budget: a ratio (like 0.1) or a table (like { ratio = 0.1 })")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawBudget, E> {
                Ok(RawBudget::Ratio(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawBudget, E> {
                Ok(RawBudget::Ratio(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawBudget, E> {
                Ok(RawBudget::Ratio(v as f64))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RawBudget, A::Error> {
                RawBudgetTable::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(RawBudget::Table)
            }
        }
        d.deserialize_any(BudgetVisitor)
    }
}

/// The kinds of retry budget: Finagle's ratio, gRPC's token bucket, Envoy's concurrency,
/// Brooker's adaptive token bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BudgetKind {
    #[default]
    Ratio,
    TokenBucket,
    Concurrency,
    Adaptive,
}

/// What earns an adaptive budget its `token_ratio`: each success (Brooker) or each call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EarnOnKind {
    Success,
    Call,
}

/// `retry.budget` as a table.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawBudgetTable {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// Which budget.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "ratio")))]
    pub kind: Option<BudgetKind>,
    /// `ratio`: retries allowed per call, in [0, 1] (required for that kind).
    pub ratio: Option<f64>,
    /// `ratio`: retries per second always allowed.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 10)))]
    pub min_per_s: Option<f64>,
    /// `ratio`: the window calls are counted over (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "10s")))]
    pub window: Option<Dur>,
    /// `token_bucket`, `adaptive`: the bucket's size, in (0, 1000].
    #[cfg_attr(feature = "schema", schemars(extend("default" = 10)))]
    pub max_tokens: Option<f64>,
    /// `token_bucket`: tokens a success puts back (> 0); `adaptive`: tokens a success (or a
    /// call) earns, in [0.001, `max_tokens`], to a thousandth.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 0.1)))]
    pub token_ratio: Option<f64>,
    /// `adaptive`: what earns `token_ratio`, each success or each call.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "success")))]
    pub earn_on: Option<EarnOnKind>,
    /// `concurrency`: retries in flight allowed, as a percentage of calls in flight.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 20)))]
    pub percent: Option<f64>,
    /// `concurrency`: retries in flight always allowed.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 3)))]
    pub min: Option<u32>,
}
