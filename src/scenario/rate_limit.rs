//! `rate_limit = { ... }` on a service: a token bucket at admission (`model/rate_limit.rs`).
//! The bucket's keys and checks are a call's `rate_limit` (Envoy's `max_tokens`,
//! `tokens_per_fill`, `fill_interval`, checked by `TokenBucketConfig::from_table`); a service's
//! adds whose bucket it is (`scope`, `key`) and whether a refusal says when to come back
//! (`retry_after`).

use super::document::{Located, Source};
use super::schema::Dur;
use super::schema_json::EnumOf;
use crate::model::rate_limit::AdmissionLimit;
use crate::model::{RateLimitKey, RateLimitScope};
use cascade_policy::table::RawRateLimit;
use cascade_policy::token_bucket::{Refill, TokenBucketConfig};
use schemars::JsonSchema;
use serde::Deserialize;

/// `rate_limit = { ... }` on a service: Envoy's local rate limit filter on each instance's
/// inbound listener; a request finding the bucket empty is answered at once (429).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawServiceRateLimit {
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
    /// A refusal carries Retry-After: the time until the bucket holds a token again.
    #[schemars(extend("default" = false))]
    pub retry_after: Option<bool>,
}

/// The service's admission limit, its bucket checked as a call's is; errors name the field
/// under `at` (`service.<s>.rate_limit`).
pub fn rate_limit(src: &Source, at: &str, raw: &RawServiceRateLimit) -> Located<AdmissionLimit> {
    let bucket = TokenBucketConfig::from_table(&RawRateLimit {
        max_tokens: raw.max_tokens,
        tokens_per_fill: raw.tokens_per_fill,
        fill_interval: raw.fill_interval,
        refill: raw.refill,
    })
    .map_err(|e| src.error_at(&e.path_under(at), e.message))?;
    Ok(AdmissionLimit {
        bucket,
        scope: raw.scope.unwrap_or_default(),
        key: raw.key.unwrap_or_default(),
        retry_after: raw.retry_after.unwrap_or(false),
    })
}
