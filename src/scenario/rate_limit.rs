//! `rate_limit = { ... }` on a service: a limiter at admission (`model/rate_limit.rs`). The
//! default, `limiter = "token_bucket"`, has a call's `rate_limit` keys (Envoy's `max_tokens`,
//! `tokens_per_fill`, `fill_interval`, checked by `TokenBucketConfig::from_table`) and `wait`
//! (x/time/rate's `Wait`); `limit_req` has nginx's (`rate`, `burst`, `delay`, `nodelay`);
//! `smooth_bursty` Guava's (`permits_per_second`, `timeout`). Every kind adds whose limiter it
//! is (`scope`, `key`), the refusal's `status` and whether it says when to come back
//! (`retry_after`). A key of another kind is refused, naming the kind it belongs to.

use super::document::{Located, Source};
use super::schema::Dur;
use super::schema_json::EnumOf;
use crate::model::rate_limit::AdmissionLimit;
use crate::model::{RateLimitKey, RateLimitScope, RateLimiterKind};
use cascade_policy::Nanos;
use cascade_policy::cycle_limiter::{Resilience4jConfig, TowerRateConfig};
use cascade_policy::limit_req::LimitReqConfig;
use cascade_policy::rate_limiter::RateLimiterConfig;
use cascade_policy::table::RawRateLimit;
use cascade_policy::token_bucket::{Refill, TokenBucketConfig};
use schemars::JsonSchema;
use serde::Deserialize;

/// `rate_limit = { ... }` on a service: by default Envoy's local rate limit filter on each
/// instance's inbound listener (a request finding the bucket empty is answered at once, 429);
/// nginx's `limit_req` or Guava's `RateLimiter` with `limiter`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawServiceRateLimit {
    /// `token_bucket` (Envoy; x/time/rate with `wait`), `limit_req` (nginx),
    /// `smooth_bursty` (Guava), `resilience4j` or `tower`.
    #[schemars(with = "Option<EnumOf<RateLimiterKind>>", extend("default" = "token_bucket"))]
    pub limiter: Option<RateLimiterKind>,
    /// The bucket's size and its fill at the start (>= 1; required).
    pub max_tokens: Option<u64>,
    /// Tokens added per `fill_interval` (>= 1).
    #[schemars(extend("default" = 1))]
    pub tokens_per_fill: Option<u64>,
    /// The refill period (> 0; required).
    pub fill_interval: Option<Dur>,
    /// `continuous` (Envoy >= 1.31) or `tick` (tokens_per_fill at once each interval, as
    /// before 1.31).
    #[schemars(with = "Option<EnumOf<Refill>>", extend("default" = "continuous"))]
    pub refill: Option<Refill>,
    /// `instance`: a bucket per instance (Envoy's local limit; N instances admit N times the
    /// rate); `fleet`: one bucket shared by all instances (a global rate-limit service).
    #[schemars(with = "Option<EnumOf<RateLimitScope>>", extend("default" = "instance"))]
    pub scope: Option<RateLimitScope>,
    /// `none`: every arrival takes from the same bucket; `client`: a bucket per client the
    /// request came from (a tenant); `client_operation`: per operation of a client's mix.
    /// Within the scope: per instance and key, or per key for the fleet.
    #[schemars(with = "Option<EnumOf<RateLimitKey>>", extend("default" = "none"))]
    pub key: Option<RateLimitKey>,
    /// token_bucket: a request finding no token waits for it, as x/time/rate's `Wait` does,
    /// refused at once if the wait would pass its deadline (continuous refill only).
    #[schemars(extend("default" = false))]
    pub wait: Option<bool>,
    /// limit_req: nginx's `rate`, whole requests per second or minute ("10r/s", "30r/m").
    pub rate: Option<String>,
    /// limit_req: requests over the rate held (or, with nodelay, passed) before refusing.
    #[schemars(extend("default" = 0))]
    pub burst: Option<u64>,
    /// limit_req: how many of the burst pass undelayed (`delay=N`, <= burst).
    #[schemars(extend("default" = 0))]
    pub delay: Option<u64>,
    /// limit_req: the whole burst passes undelayed.
    #[schemars(extend("default" = false))]
    pub nodelay: Option<bool>,
    /// smooth_bursty: Guava's `permitsPerSecond` (> 0; required).
    pub permits_per_second: Option<f64>,
    /// smooth_bursty: `tryAcquire(timeout)`: a request granted later than this is refused;
    /// left out, `acquire()`: every request waits its turn.
    pub timeout: Option<Dur>,
    /// resilience4j: permits per cycle (`limitForPeriod`, >= 1).
    #[schemars(extend("default" = 50))]
    pub limit_for_period: Option<u64>,
    /// resilience4j: the cycle (`limitRefreshPeriod`, > 0).
    #[schemars(extend("default" = "500ns"))]
    pub limit_refresh_period: Option<Dur>,
    /// resilience4j: how long a caller may wait for its permit (`timeoutDuration`); one
    /// refused is parked this long first.
    #[schemars(extend("default" = "5s"))]
    pub timeout_duration: Option<Dur>,
    /// tower: requests per window (`Rate::new(num, per)`, >= 1; required).
    pub num: Option<u64>,
    /// tower: the window (> 0; required).
    pub per: Option<Dur>,
    /// The status a refusal answers with (400 to 599): 429 (overloaded) by default, nginx's
    /// `limit_req_status` 503 (unavailable) for limit_req.
    pub status: Option<u16>,
    /// A refusal carries Retry-After: the time until the limiter would pass a request.
    #[schemars(extend("default" = false))]
    pub retry_after: Option<bool>,
}

/// The keys only one kind of limiter takes, with that kind.
fn kind_keys(raw: &RawServiceRateLimit) -> [(&'static str, bool, RateLimiterKind); 16] {
    use RateLimiterKind::*;
    [
        ("max_tokens", raw.max_tokens.is_some(), TokenBucket),
        (
            "tokens_per_fill",
            raw.tokens_per_fill.is_some(),
            TokenBucket,
        ),
        ("fill_interval", raw.fill_interval.is_some(), TokenBucket),
        ("refill", raw.refill.is_some(), TokenBucket),
        ("wait", raw.wait.is_some(), TokenBucket),
        ("rate", raw.rate.is_some(), LimitReq),
        ("burst", raw.burst.is_some(), LimitReq),
        ("delay", raw.delay.is_some(), LimitReq),
        ("nodelay", raw.nodelay.is_some(), LimitReq),
        (
            "permits_per_second",
            raw.permits_per_second.is_some(),
            SmoothBursty,
        ),
        ("timeout", raw.timeout.is_some(), SmoothBursty),
        (
            "limit_for_period",
            raw.limit_for_period.is_some(),
            Resilience4j,
        ),
        (
            "limit_refresh_period",
            raw.limit_refresh_period.is_some(),
            Resilience4j,
        ),
        (
            "timeout_duration",
            raw.timeout_duration.is_some(),
            Resilience4j,
        ),
        ("num", raw.num.is_some(), Tower),
        ("per", raw.per.is_some(), Tower),
    ]
}

fn kind_name(kind: RateLimiterKind) -> &'static str {
    match kind {
        RateLimiterKind::TokenBucket => "token_bucket",
        RateLimiterKind::LimitReq => "limit_req",
        RateLimiterKind::SmoothBursty => "smooth_bursty",
        RateLimiterKind::Resilience4j => "resilience4j",
        RateLimiterKind::Tower => "tower",
    }
}

/// The service's admission limit, checked as its library checks it; errors name the field
/// under `at` (`service.<s>.rate_limit`).
pub fn rate_limit(src: &Source, at: &str, raw: &RawServiceRateLimit) -> Located<AdmissionLimit> {
    let kind = raw.limiter.unwrap_or_default();
    if let Some((key, _, owner)) = kind_keys(raw).into_iter().find(|k| k.1 && k.2 != kind) {
        return Err(src.error_at(
            &format!("{at}.{key}"),
            format!(
                "belongs to limiter = \"{}\", not \"{}\"",
                kind_name(owner),
                kind_name(kind)
            ),
        ));
    }
    let limiter = match kind {
        RateLimiterKind::TokenBucket => token_bucket(src, at, raw)?,
        RateLimiterKind::LimitReq => limit_req(src, at, raw)?,
        RateLimiterKind::SmoothBursty => smooth_bursty(src, at, raw)?,
        RateLimiterKind::Resilience4j => resilience4j(src, at, raw)?,
        RateLimiterKind::Tower => tower(src, at, raw)?,
    };
    let status = raw.status.unwrap_or(match kind {
        RateLimiterKind::LimitReq => 503,
        _ => 429,
    });
    if !(400..=599).contains(&status) {
        return Err(src.error_at(
            &format!("{at}.status"),
            format!("must be an HTTP error status, 400 to 599, not {status}"),
        ));
    }
    Ok(AdmissionLimit {
        limiter,
        status,
        scope: raw.scope.unwrap_or_default(),
        key: raw.key.unwrap_or_default(),
        retry_after: raw.retry_after.unwrap_or(false),
    })
}

/// Envoy's bucket, or x/time/rate's with `wait`.
fn token_bucket(src: &Source, at: &str, raw: &RawServiceRateLimit) -> Located<RateLimiterConfig> {
    let bucket = TokenBucketConfig::from_table(&RawRateLimit {
        max_tokens: raw.max_tokens,
        tokens_per_fill: raw.tokens_per_fill,
        fill_interval: raw.fill_interval,
        refill: raw.refill,
    })
    .map_err(|e| src.error_at(&e.path_under(at), e.message))?;
    let wait = raw.wait.unwrap_or(false);
    if wait && bucket.refill() == Refill::Tick {
        return Err(src.error_at(
            &format!("{at}.wait"),
            "needs refill = \"continuous\": x/time/rate refills continuously, and Envoy's tick \
             bucket never holds a request",
        ));
    }
    Ok(RateLimiterConfig::TokenBucket { bucket, wait })
}

/// nginx's `limit_req`.
fn limit_req(src: &Source, at: &str, raw: &RawServiceRateLimit) -> Located<RateLimiterConfig> {
    let Some(rate) = &raw.rate else {
        return Err(src.error_at(
            &format!("{at}.rate"),
            "is required for limit_req: requests per second or minute, as nginx writes it (\"10r/s\")",
        ));
    };
    let burst = raw.burst.unwrap_or(0);
    let cfg = LimitReqConfig::new(
        rate,
        burst,
        raw.delay.unwrap_or(0),
        raw.nodelay.unwrap_or(false),
    );
    let field = |e: &cascade_policy::limit_req::LimitReqError| match e {
        cascade_policy::limit_req::LimitReqError::Rate(_) => "rate",
        cascade_policy::limit_req::LimitReqError::DelayPastBurst { .. } => "delay",
    };
    if raw.nodelay == Some(true) && raw.delay.is_some() {
        return Err(src.error_at(
            &format!("{at}.nodelay"),
            "and delay exclude each other, as in nginx: nodelay passes the whole burst undelayed",
        ));
    }
    cfg.map(RateLimiterConfig::LimitReq)
        .map_err(|e| src.error_at(&format!("{at}.{}", field(&e)), e.to_string()))
}

/// Guava's `RateLimiter.create(permitsPerSecond)`.
fn smooth_bursty(src: &Source, at: &str, raw: &RawServiceRateLimit) -> Located<RateLimiterConfig> {
    match raw.permits_per_second {
        Some(r) if r.is_finite() && r > 0.0 => Ok(RateLimiterConfig::SmoothBursty {
            permits_per_second: r,
            timeout: raw.timeout.map(Nanos::from),
        }),
        Some(r) => Err(src.error_at(
            &format!("{at}.permits_per_second"),
            format!("must be a number above 0, as Guava requires, not {r}"),
        )),
        None => Err(src.error_at(
            &format!("{at}.permits_per_second"),
            "is required for smooth_bursty: Guava's permitsPerSecond",
        )),
    }
}

/// resilience4j's `RateLimiterConfig`, its defaults filled.
fn resilience4j(src: &Source, at: &str, raw: &RawServiceRateLimit) -> Located<RateLimiterConfig> {
    let d = Resilience4jConfig::DEFAULT;
    let cfg = Resilience4jConfig {
        limit_for_period: raw.limit_for_period.unwrap_or(d.limit_for_period),
        limit_refresh_period: raw
            .limit_refresh_period
            .map_or(d.limit_refresh_period, Nanos::from),
        timeout: raw.timeout_duration.map_or(d.timeout, Nanos::from),
    };
    if cfg.limit_for_period == 0 {
        return Err(src.error_at(
            &format!("{at}.limit_for_period"),
            "must be at least 1, as resilience4j requires",
        ));
    }
    if cfg.limit_refresh_period == Nanos::ZERO {
        return Err(src.error_at(
            &format!("{at}.limit_refresh_period"),
            "must be longer than zero (resilience4j requires at least 1 ns)",
        ));
    }
    Ok(RateLimiterConfig::Resilience4j(cfg))
}

/// tower's `Rate::new(num, per)`.
fn tower(src: &Source, at: &str, raw: &RawServiceRateLimit) -> Located<RateLimiterConfig> {
    let num = match raw.num {
        Some(n) if n >= 1 => n,
        Some(_) => {
            return Err(src.error_at(
                &format!("{at}.num"),
                "must be at least 1 (tower asserts it)",
            ));
        }
        None => {
            return Err(src.error_at(
                &format!("{at}.num"),
                "is required for tower: requests per window",
            ));
        }
    };
    match raw.per.map(Nanos::from) {
        Some(per) if per > Nanos::ZERO => {
            Ok(RateLimiterConfig::TowerRate(TowerRateConfig { num, per }))
        }
        Some(_) => Err(src.error_at(
            &format!("{at}.per"),
            "must be longer than zero (tower asserts it)",
        )),
        None => Err(src.error_at(&format!("{at}.per"), "is required for tower: the window")),
    }
}
