//! The policy tables of a scenario as written (`[policy.NAME]` sub-tables).

use super::schema::Dur;
use super::schema_json::EnumOf;
use crate::model::{BreakerScope, BulkheadRelease, Wraps};
use schemars::JsonSchema;
use serde::Deserialize;

/// `[policy.NAME]`: caller-side settings for a call (docs/policies.md).
#[derive(Debug, Clone, Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    /// A library's defaults for every part written here (resilience4j, envoy, grpc, polly,
    /// finagle, aws-sdk-standard, tower); the policy's own keys win (`cascade presets`).
    pub preset: Option<super::preset::Preset>,
    /// Per-attempt timeout (> 0; default: none).
    pub timeout: Option<Dur>,
    /// Time kept back from the caller's deadline for its own work after the call.
    #[schemars(extend("default" = "0"))]
    pub reserve: Option<Dur>,
    /// No attempt starts with less than this left before the deadline.
    #[schemars(extend("default" = "0"))]
    pub min_attempt: Option<Dur>,
    /// A give-up stops the callee's work, down the whole tree.
    #[schemars(extend("default" = false))]
    pub cancel: Option<bool>,
    /// `false`: the call takes no deadline from its caller's request (gRPC without a
    /// propagated Context).
    #[schemars(extend("default" = true))]
    pub propagate_deadline: Option<bool>,
    /// Retries: attempts, `on`, backoff and jitter, Retry-After, a retry budget.
    pub retry: Option<super::schema_policy::RawRetry>,
    /// Circuit breaker around each attempt or the whole call.
    pub breaker: Option<super::schema_policy::RawBreaker>,
    /// A cap on attempts in flight, with an optional wait.
    pub bulkhead: Option<super::schema_policy::RawBulkhead>,
    /// Client-side adaptive throttling (Google SRE).
    pub throttle: Option<super::schema_policy::RawThrottle>,
    /// Adaptive concurrency limit (Netflix concurrency-limits).
    pub limit: Option<super::schema_policy::RawLimit>,
    /// A degraded answer when the call finally fails: canned, or a call to another service.
    pub fallback: Option<super::schema_policy::RawFallback>,
    /// Copies of a slow attempt after a fixed or learned delay; the first success wins.
    pub hedge: Option<super::schema_policy::RawHedge>,
    /// Finagle's failure accrual: a host with consecutive failures is marked dead and the
    /// balancer avoids it (per callee instance, per caller instance).
    pub failure_accrual: Option<super::schema_policy::RawAccrual>,
}

/// The schedule of retry waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BackoffKind {
    Constant,
    Linear,
    Exponential,
}

/// How a retry wait is randomised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JitterKind {
    None,
    Full,
    Equal,
    Decorrelated,
    Proportional,
}

/// `retry.retry_after_wait`: how an honoured Retry-After makes the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RetryAfterWaitKind {
    Replace,
    Max,
}

/// `retry`: the retry loop around a call's attempts.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRetry {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// Attempts in all, the first included (>= 1).
    #[schemars(extend("default" = 3))]
    pub attempts: Option<u32>,
    /// Retries after the first attempt, instead of `attempts` (default: attempts - 1).
    pub retries: Option<u32>,
    /// The outcome kinds that are retried.
    #[schemars(extend("default" = ["timeout", "unavailable", "overloaded", "refused"]))]
    pub on: Option<Vec<String>>,
    /// The schedule of waits between attempts.
    #[schemars(extend("default" = "exponential"))]
    pub backoff: Option<BackoffKind>,
    /// The first wait.
    #[schemars(extend("default" = "100ms"))]
    pub base: Option<Dur>,
    /// The longest wait (>= `base`).
    #[schemars(extend("default" = "10s"))]
    pub max: Option<Dur>,
    /// Exponential backoff: each wait this many times the last (>= 1).
    #[schemars(extend("default" = 2.0))]
    pub multiplier: Option<f64>,
    /// How each wait is randomised.
    #[schemars(extend("default" = "full"))]
    pub jitter: Option<JitterKind>,
    /// Proportional jitter: the wait varies by this share either way, in [0, 1].
    #[schemars(extend("default" = 0.2))]
    pub jitter_factor: Option<f64>,
    /// Honour a Retry-After carried by a failed answer.
    #[schemars(extend("default" = true))]
    pub retry_after: Option<bool>,
    /// With `retry_after`: the Retry-After replaces the backoff wait, or the longer of the two.
    #[schemars(extend("default" = "replace"))]
    pub retry_after_wait: Option<RetryAfterWaitKind>,
    /// A retry budget: a ratio in [0, 1], or a table (ratio, token bucket or concurrency).
    pub budget: Option<RawBudget>,
    /// The timeout of the retries (> 0; default: the policy's `timeout`).
    pub timeout: Option<Dur>,
}

/// `budget = 0.1` (a ratio) or a table.
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged)]
pub enum RawBudget {
    Ratio(f64),
    Table(RawBudgetTable),
}

/// By hand rather than `untagged`: serde's untagged enums drop the inner error, so a table
/// with a bad key or value (`earn_on = "retry"`) was reported as "expected a budget" at the
/// table instead of naming the key and its valid values.
impl<'de> Deserialize<'de> for RawBudget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RawBudget, D::Error> {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    #[default]
    Ratio,
    TokenBucket,
    Concurrency,
    Adaptive,
}

/// What earns an adaptive budget its `token_ratio`: each success (Brooker) or each call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EarnOnKind {
    Success,
    Call,
}

/// `retry.budget` as a table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBudgetTable {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// Which budget.
    #[schemars(extend("default" = "ratio"))]
    pub kind: Option<BudgetKind>,
    /// `ratio`: retries allowed per call, in [0, 1] (required for that kind).
    pub ratio: Option<f64>,
    /// `ratio`: retries per second always allowed.
    #[schemars(extend("default" = 10))]
    pub min_per_s: Option<f64>,
    /// `ratio`: the window calls are counted over (> 0).
    #[schemars(extend("default" = "10s"))]
    pub window: Option<Dur>,
    /// `token_bucket`, `adaptive`: the bucket's size, in (0, 1000].
    #[schemars(extend("default" = 10))]
    pub max_tokens: Option<f64>,
    /// `token_bucket`: tokens a success puts back (> 0); `adaptive`: tokens a success (or a
    /// call) earns, in [0.001, `max_tokens`], to a thousandth.
    #[schemars(extend("default" = 0.1))]
    pub token_ratio: Option<f64>,
    /// `adaptive`: what earns `token_ratio`, each success or each call.
    #[schemars(extend("default" = "success"))]
    pub earn_on: Option<EarnOnKind>,
    /// `concurrency`: retries in flight allowed, as a percentage of calls in flight.
    #[schemars(extend("default" = 20))]
    pub percent: Option<f64>,
    /// `concurrency`: retries in flight always allowed.
    #[schemars(extend("default" = 3))]
    pub min: Option<u32>,
}

/// `window = 100` (calls) or `window = "10s"` (time).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "BreakerWindow")]
pub enum RawWindow {
    Calls(u32),
    Time(String),
}

/// `breaker`: a circuit breaker (resilience4j's defaults).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBreaker {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// A count window (calls, an integer) or a time window (a duration string).
    #[schemars(extend("default" = 100))]
    pub window: Option<RawWindow>,
    /// Calls in the window before the rates are judged.
    #[schemars(extend("default" = 100))]
    pub min_calls: Option<u32>,
    /// Trips when this share of the window's calls failed, in (0, 1].
    #[schemars(extend("default" = 0.5))]
    pub failure_rate: Option<f64>,
    /// Trips when this share of the window's calls were slow, in (0, 1].
    #[schemars(extend("default" = 1.0))]
    pub slow_call_rate: Option<f64>,
    /// A call this long or longer is slow (> 0).
    #[schemars(extend("default" = "60s"))]
    pub slow_call_duration: Option<Dur>,
    /// Trips after this many failures in a row (0 = off).
    #[schemars(extend("default" = 0))]
    pub consecutive_failures: Option<u32>,
    /// How long the breaker stays open (> 0).
    #[schemars(extend("default" = "60s"))]
    pub open: Option<Dur>,
    /// Each further opening lasts this many times the last (>= 1).
    #[schemars(extend("default" = 1.0))]
    pub open_multiplier: Option<f64>,
    /// The longest opening (default: `open`, or 10 x `open` when `open_multiplier` > 1).
    pub open_max: Option<Dur>,
    /// Probe calls let through half-open.
    #[schemars(extend("default" = 10))]
    pub half_open_calls: Option<u32>,
    /// The outcome kinds that count as failures.
    #[schemars(extend("default" = ["timeout", "deadline_exceeded", "unavailable", "overloaded", "internal", "refused"]))]
    pub count: Option<Vec<String>>,
    /// Around each attempt, or the whole call (retries inside).
    #[schemars(with = "Option<EnumOf<Wraps>>", extend("default" = "attempt"))]
    pub wraps: Option<Wraps>,
    /// One breaker per call path, or one per callee instance.
    #[schemars(with = "Option<EnumOf<BreakerScope>>", extend("default" = "edge"))]
    pub scope: Option<BreakerScope>,
    /// Brooker's retry-only breaker: open, it stops retries; first tries always go out.
    #[schemars(extend("default" = false))]
    pub retries_only: Option<bool>,
}

/// `bulkhead`: a cap on attempts in flight (resilience4j `SemaphoreBulkhead`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBulkhead {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// Attempts in flight at most (>= 1).
    #[schemars(extend("default" = 25))]
    pub max_concurrent: Option<u32>,
    /// Attempts that may wait for a permit (> 0 needs `max_wait`).
    #[schemars(extend("default" = 0))]
    pub queue: Option<u32>,
    /// How long an attempt may wait for a permit (> 0 needs `queue`).
    #[schemars(extend("default" = "0"))]
    pub max_wait: Option<Dur>,
    /// When a permit comes back: when the caller stops waiting (`return`), or once the
    /// callee's answer arrives or its work is gone (`answer`, a connection pool).
    #[schemars(with = "Option<EnumOf<BulkheadRelease>>", extend("default" = "return"))]
    pub release: Option<BulkheadRelease>,
    /// What a permit covers: each attempt (`attempt`), or the whole call, held across its
    /// backoffs and retries (`call`).
    #[schemars(with = "Option<EnumOf<Wraps>>", extend("default" = "attempt"))]
    pub wraps: Option<Wraps>,
    /// A pool shared by name: every path of one caller naming it shares one permit count and
    /// one line (its settings must agree). Default: the path's own bulkhead.
    pub pool: Option<String>,
}

/// `throttle`: client-side adaptive throttling (SRE book, chapter 21).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawThrottle {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// The multiplier K: requests are rejected once they pass K x accepts (> 0).
    #[schemars(extend("default" = 2.0))]
    pub k: Option<f64>,
    /// The span requests and accepts are counted over (> 0).
    #[schemars(extend("default" = "120s"))]
    pub window: Option<Dur>,
}

/// `failure_accrual`: Finagle's `FailureAccrualFactory` with its consecutive-failures policy.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAccrual {
    /// Consecutive failures from one host that mark it dead (>= 1).
    #[schemars(extend("default" = 5))]
    pub consecutive_failures: Option<u32>,
    /// How long the first mark lasts (> 0); later ones grow with equal jitter.
    #[schemars(extend("default" = "5s"))]
    pub mark_dead_for: Option<Dur>,
    /// The longest mark (>= `mark_dead_for`; equal to it for a constant mark).
    #[schemars(extend("default" = "300s"))]
    pub mark_dead_max: Option<Dur>,
}

/// `fallback`: a degraded answer when the call finally fails.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFallback {
    /// A canned answer after this long (not with `to`).
    #[schemars(extend("default" = "0"))]
    pub latency: Option<Dur>,
    /// A service called instead (default: a canned answer).
    pub to: Option<String>,
    /// With `to`: the policy of the fallback call.
    pub policy: Option<String>,
    /// The failure kinds that fall back (default: every failure but `invalid`).
    pub on: Option<Vec<String>>,
}

/// `hedge`: copies of a slow attempt.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawHedge {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// A duration (`"50ms"`) or a percentile of recent latencies (`"p95"`); required unless a
    /// preset gives it.
    pub delay: Option<String>,
    /// Hedged copies at most, 1 to 3.
    #[schemars(extend("default" = 1))]
    pub max: Option<u32>,
    /// Hedges allowed per call, in (0, 1] (default: none).
    pub budget: Option<f64>,
    /// Hedges draw on the policy's `retry.budget` (gRPC's retryThrottling governs both).
    #[schemars(extend("default" = false))]
    pub uses_retry_budget: Option<bool>,
    /// With a percentile `delay`: latencies needed before hedging.
    #[schemars(extend("default" = 20))]
    pub min_samples: Option<u32>,
    /// With a percentile `delay`: how often the delay is learned again (> 0).
    #[schemars(extend("default" = "1s"))]
    pub period: Option<Dur>,
}

/// `limit = { algorithm = "aimd" | "gradient2" | "vegas", ... }`: which keys apply depends on
/// the algorithm (checked in `compile`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLimit {
    /// Netflix concurrency-limits' algorithm.
    #[schemars(extend("enum" = ["aimd", "vegas", "gradient2"]))]
    pub algorithm: String,
    /// The limit at the start, 1 to `max`.
    #[schemars(extend("default" = 20))]
    pub initial: Option<u32>,
    /// `aimd`, `gradient2`: the lowest limit.
    #[schemars(extend("default" = 20))]
    pub min: Option<u32>,
    /// The highest limit (default: 200 for aimd and gradient2, 1000 for vegas).
    pub max: Option<u32>,
    /// `aimd`: the limit is multiplied by this on a drop, in (0, 1).
    #[schemars(extend("default" = 0.9))]
    pub backoff_ratio: Option<f64>,
    /// `aimd`: an attempt this slow counts as a drop.
    #[schemars(extend("default" = "5s"))]
    pub timeout: Option<Dur>,
    /// `vegas`, `gradient2`: smoothing of limit changes, in (0, 1] (default: 1.0 vegas, 0.2 gradient2).
    pub smoothing: Option<f64>,
    /// `vegas`: probe for a new minimum RTT every this many limits' worth of samples.
    #[schemars(extend("default" = 30))]
    pub probe_multiplier: Option<u32>,
    /// `gradient2`: the queue allowed above the gradient's limit.
    #[schemars(extend("default" = 4))]
    pub queue_size: Option<u32>,
    /// `gradient2`: samples in the long-term RTT average (>= 1).
    #[schemars(extend("default" = 600))]
    pub long_window: Option<u32>,
    /// `gradient2`: how far the short RTT may pass the long one before the limit falls (>= 1).
    #[schemars(extend("default" = 1.5))]
    pub rtt_tolerance: Option<f64>,
    /// One aggregate sample per window (`{}` for the defaults; default: every attempt a sample).
    pub window: Option<RawLimitWindow>,
}

/// `WindowedLimit`: one aggregate sample per window.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLimitWindow {
    /// The shortest window (> 0).
    #[schemars(extend("default" = "1s"))]
    pub min: Option<Dur>,
    /// The longest window (>= `min`).
    #[schemars(extend("default" = "1s"))]
    pub max: Option<Dur>,
    /// Samples that close a window (>= 1).
    #[schemars(extend("default" = 10))]
    pub size: Option<u32>,
    /// Attempts faster than this are not sampled.
    #[schemars(extend("default" = "100us"))]
    pub min_rtt: Option<Dur>,
}

/// `codel = { target, interval }` on a service (folly/Envoy CoDel).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCodel {
    /// Acceptable queueing delay (> 0).
    #[schemars(extend("default" = "5ms"))]
    pub target: Option<Dur>,
    /// Period over which the smallest queueing delay is judged (>= `target`).
    #[schemars(extend("default" = "100ms"))]
    pub interval: Option<Dur>,
}

/// `outlier = { ... }` on a service: Envoy consecutive-failure ejection at its balancer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOutlier {
    /// Failures in a row of one instance that eject it (>= 1).
    #[schemars(extend("default" = 5))]
    pub consecutive_failures: Option<u32>,
    /// Every `interval`, instances whose ejection time is up come back (> 0).
    #[schemars(extend("default" = "10s"))]
    pub interval: Option<Dur>,
    /// A first ejection's length; each further one lasts one more (> 0).
    #[schemars(extend("default" = "30s"))]
    pub base_ejection_time: Option<Dur>,
    /// The longest ejection (>= `base_ejection_time`).
    #[schemars(extend("default" = "300s"))]
    pub max_ejection_time: Option<Dur>,
    /// Ejections allowed while 100 x (ejected + 1) / instances stays at or below this.
    #[schemars(extend("default" = 10))]
    pub max_ejection_percent: Option<u32>,
    /// Allow one ejection whatever the cap.
    #[schemars(extend("default" = false))]
    pub always_eject_one: Option<bool>,
}
