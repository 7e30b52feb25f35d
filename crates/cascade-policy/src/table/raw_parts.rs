//! The parts of a `[policy.NAME]` table besides `retry`, as written: `breaker`, `bulkhead`,
//! `throttle`, `failure_accrual`, `fallback`, `hedge` and `limit`.

use super::duration::Dur;
use crate::breaker::BreakerScope;
use crate::bulkhead::{BulkheadRelease, Wraps};

/// `window = 100` (calls) or `window = "10s"` (time).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[cfg_attr(feature = "schema", schemars(rename = "BreakerWindow"))]
pub enum RawWindow {
    Calls(u32),
    Time(String),
}

/// `breaker`: a circuit breaker (resilience4j's defaults).
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawBreaker {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// A count window (calls, an integer) or a time window (a duration string).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 100)))]
    pub window: Option<RawWindow>,
    /// Calls in the window before the rates are judged.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 100)))]
    pub min_calls: Option<u32>,
    /// Trips when this share of the window's calls failed, in (0, 1].
    #[cfg_attr(feature = "schema", schemars(extend("default" = 0.5)))]
    pub failure_rate: Option<f64>,
    /// Trips when this share of the window's calls were slow, in (0, 1].
    #[cfg_attr(feature = "schema", schemars(extend("default" = 1.0)))]
    pub slow_call_rate: Option<f64>,
    /// A call this long or longer is slow (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "60s")))]
    pub slow_call_duration: Option<Dur>,
    /// Trips after this many failures in a row (0 = off).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 0)))]
    pub consecutive_failures: Option<u32>,
    /// How long the breaker stays open (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "60s")))]
    pub open: Option<Dur>,
    /// Each further opening lasts this many times the last (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 1.0)))]
    pub open_multiplier: Option<f64>,
    /// The longest opening (default: `open`, or 10 x `open` when `open_multiplier` > 1).
    pub open_max: Option<Dur>,
    /// Probe calls let through half-open.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 10)))]
    pub half_open_calls: Option<u32>,
    /// The outcome kinds that count as failures.
    #[cfg_attr(feature = "schema", schemars(extend("default" = ["timeout", "deadline_exceeded", "unavailable", "overloaded", "internal", "refused"])))]
    pub count: Option<Vec<String>>,
    /// Around each attempt, or the whole call (retries inside).
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::table::schema::EnumOf<Wraps>>", extend("default" = "attempt")))]
    pub wraps: Option<Wraps>,
    /// One breaker per call path, or one per callee instance.
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::table::schema::EnumOf<BreakerScope>>", extend("default" = "edge")))]
    pub scope: Option<BreakerScope>,
    /// Brooker's retry-only breaker: open, it stops retries; first tries always go out.
    #[cfg_attr(feature = "schema", schemars(extend("default" = false)))]
    pub retries_only: Option<bool>,
}

/// `bulkhead`: a cap on attempts in flight (resilience4j `SemaphoreBulkhead`).
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawBulkhead {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// Attempts in flight at most (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 25)))]
    pub max_concurrent: Option<u32>,
    /// Attempts that may wait for a permit (> 0 needs `max_wait`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 0)))]
    pub queue: Option<u32>,
    /// How long an attempt may wait for a permit (> 0 needs `queue`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "0")))]
    pub max_wait: Option<Dur>,
    /// When a permit comes back: when the caller stops waiting (`return`), or once the
    /// callee's answer arrives or its work is gone (`answer`, a connection pool).
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::table::schema::EnumOf<BulkheadRelease>>", extend("default" = "return")))]
    pub release: Option<BulkheadRelease>,
    /// What a permit covers: each attempt (`attempt`), or the whole call, held across its
    /// backoffs and retries (`call`).
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::table::schema::EnumOf<Wraps>>", extend("default" = "attempt")))]
    pub wraps: Option<Wraps>,
    /// A pool shared by name: every path of one caller naming it shares one permit count and
    /// one line (its settings must agree). Default: the path's own bulkhead.
    pub pool: Option<String>,
}

/// `throttle`: client-side adaptive throttling (SRE book, chapter 21).
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawThrottle {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// The multiplier K: requests are rejected once they pass K x accepts (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 2.0)))]
    pub k: Option<f64>,
    /// The span requests and accepts are counted over (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "120s")))]
    pub window: Option<Dur>,
}

/// `rate_limit`: a token bucket as Envoy's local rate limit filter keeps one, per caller
/// instance; a call it finds empty is refused (`rate_limited`), never delayed.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawRateLimit {
    /// The bucket's size and its fill at the start (>= 1; required).
    pub max_tokens: Option<u64>,
    /// Tokens added per `fill_interval` (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 1)))]
    pub tokens_per_fill: Option<u64>,
    /// The refill period (> 0; required).
    pub fill_interval: Option<Dur>,
    /// `continuous` (Envoy >= 1.31) or `tick` (tokens_per_fill at once each interval, as
    /// before 1.31).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "continuous")))]
    pub refill: Option<crate::token_bucket::Refill>,
}

/// `failure_accrual`: Finagle's `FailureAccrualFactory` with its consecutive-failures policy.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawAccrual {
    /// Consecutive failures from one host that mark it dead (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 5)))]
    pub consecutive_failures: Option<u32>,
    /// How long the first mark lasts (> 0); later ones grow with equal jitter.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "5s")))]
    pub mark_dead_for: Option<Dur>,
    /// The longest mark (>= `mark_dead_for`; equal to it for a constant mark).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "300s")))]
    pub mark_dead_max: Option<Dur>,
}

/// `fallback`: a degraded answer when the call finally fails.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawFallback {
    /// A canned answer after this long (not with `to`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "0")))]
    pub latency: Option<Dur>,
    /// A service called instead (default: a canned answer).
    pub to: Option<String>,
    /// With `to`: the policy of the fallback call.
    pub policy: Option<String>,
    /// The failure kinds that fall back (default: every failure but `invalid`).
    pub on: Option<Vec<String>>,
}

/// `hedge`: copies of a slow attempt.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawHedge {
    /// A library's defaults for this table's keys not written (default: the policy's `preset`).
    pub preset: Option<super::preset::Preset>,
    /// A duration (`"50ms"`) or a percentile of recent latencies (`"p95"`); required unless a
    /// preset gives it.
    pub delay: Option<String>,
    /// Hedged copies at most, 1 to 3.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 1)))]
    pub max: Option<u32>,
    /// Hedges allowed per call, in (0, 1] (default: none).
    pub budget: Option<f64>,
    /// Hedges draw on the policy's `retry.budget` (gRPC's retryThrottling governs both).
    #[cfg_attr(feature = "schema", schemars(extend("default" = false)))]
    pub uses_retry_budget: Option<bool>,
    /// With a percentile `delay`: latencies needed before hedging.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 20)))]
    pub min_samples: Option<u32>,
    /// With a percentile `delay`: how often the delay is learned again (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "1s")))]
    pub period: Option<Dur>,
}

/// `limit = { algorithm = "aimd" | "gradient2" | "vegas", ... }`: which keys apply depends on
/// the algorithm (checked in `compile`).
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawLimit {
    /// Netflix concurrency-limits' algorithm.
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["aimd", "vegas", "gradient2"])))]
    pub algorithm: String,
    /// The limit at the start, 1 to `max`.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 20)))]
    pub initial: Option<u32>,
    /// `aimd`, `gradient2`: the lowest limit.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 20)))]
    pub min: Option<u32>,
    /// The highest limit (default: 200 for aimd and gradient2, 1000 for vegas).
    pub max: Option<u32>,
    /// `aimd`: the limit is multiplied by this on a drop, in (0, 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 0.9)))]
    pub backoff_ratio: Option<f64>,
    /// `aimd`: an attempt this slow counts as a drop.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "5s")))]
    pub timeout: Option<Dur>,
    /// `vegas`, `gradient2`: smoothing of limit changes, in (0, 1] (default: 1.0 vegas, 0.2 gradient2).
    pub smoothing: Option<f64>,
    /// `vegas`: probe for a new minimum RTT every this many limits' worth of samples.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 30)))]
    pub probe_multiplier: Option<u32>,
    /// `gradient2`: the queue allowed above the gradient's limit.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 4)))]
    pub queue_size: Option<u32>,
    /// `gradient2`: samples in the long-term RTT average (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 600)))]
    pub long_window: Option<u32>,
    /// `gradient2`: how far the short RTT may pass the long one before the limit falls (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 1.5)))]
    pub rtt_tolerance: Option<f64>,
    /// One aggregate sample per window (`{}` for the defaults; default: every attempt a sample).
    pub window: Option<RawLimitWindow>,
}

/// `WindowedLimit`: one aggregate sample per window.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawLimitWindow {
    /// The shortest window (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "1s")))]
    pub min: Option<Dur>,
    /// The longest window (>= `min`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "1s")))]
    pub max: Option<Dur>,
    /// Samples that close a window (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 10)))]
    pub size: Option<u32>,
    /// Attempts faster than this are not sampled.
    #[cfg_attr(feature = "schema", schemars(extend("default" = "100us")))]
    pub min_rtt: Option<Dur>,
}
