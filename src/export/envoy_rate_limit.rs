//! `cascade export envoy SCENARIO --service NAME`: a service's admission `rate_limit`
//! (`model/rate_limit.rs`) as Envoy's local rate limit filter
//! (`envoy.filters.http.local_ratelimit`, v3 `LocalRateLimit`) on the inbound listener of each
//! instance's sidecar: the inverse of `import/envoy_rate_limit.rs`, which reads this listener
//! back into the same `--set service.<s>.rate_limit` lines (tests/suite/export.rs).
//!
//! What the local filter cannot say is refused or listed: a fleet-wide bucket is a global
//! rate-limit service and a per-tenant one needs descriptors on a tenant header, neither of
//! which is this filter's single bucket, so writing it would admit N times the rate or limit
//! every tenant together; such a limit is an error rather than a config that means another
//! thing, as is a limiter that holds requests (x/time/rate's `Wait`, nginx, Guava): Envoy's
//! filter never does. A Retry-After of the time to the next token is not something Envoy
//! sends, nor is a status other than 429 written (both listed).

use super::Exported;
use super::proto_seconds;
use super::yaml::{Doc, Y, render};
use crate::error::Error;
use crate::model::rate_limit::AdmissionLimit;
use crate::model::{RateLimitKey, RateLimitScope};
use cascade_policy::rate_limiter::RateLimiterConfig;
use cascade_policy::token_bucket::{Refill, TokenBucketConfig};

const HCM: &str = "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager";
const LOCAL_RATELIMIT: &str =
    "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
const ROUTER: &str = "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router";

/// Service `name`'s limit as a bootstrap fragment with its inbound listener, or why it cannot be.
pub fn export(name: &str, limit: &AdmissionLimit) -> Result<Exported, Error> {
    let bucket = match &limit.limiter {
        RateLimiterConfig::TokenBucket {
            bucket,
            wait: false,
        } => bucket,
        RateLimiterConfig::TokenBucket { wait: true, .. } => {
            return Err(Error::Usage(format!(
                "service `{name}`'s rate_limit has wait = true (x/time/rate's Wait, holding a request for its token): Envoy's filter never holds one, it answers 429 at once"
            )));
        }
        RateLimiterConfig::LimitReq(_)
        | RateLimiterConfig::SmoothBursty { .. }
        | RateLimiterConfig::Resilience4j(_)
        | RateLimiterConfig::TowerRate(_) => {
            return Err(Error::Usage(format!(
                "service `{name}`'s rate_limit is not a token bucket (its limiter is nginx's, Guava's, resilience4j's or tower's): Envoy's local rate limit filter has none of their semantics"
            )));
        }
    };
    if limit.scope == RateLimitScope::Fleet {
        return Err(Error::Usage(format!(
            "service `{name}`'s rate_limit has scope = \"fleet\", one bucket for all its instances: Envoy's local rate limit is one bucket per Envoy process (N sidecars admit N times it), and a global rate limit service's config is not written"
        )));
    }
    if limit.key != RateLimitKey::None {
        return Err(Error::Usage(format!(
            "service `{name}`'s rate_limit is keyed by tenant: Envoy needs descriptors on a tenant header for that, which cascade does not know; the filter's single bucket would limit every tenant together"
        )));
    }
    let mut unexpressed = Vec::new();
    if limit.retry_after {
        unexpressed.push(
            "`rate_limit.retry_after`: Envoy's local rate limit sends no Retry-After (its 429 carries x-envoy-ratelimited)"
                .to_string(),
        );
    }
    if limit.status != 429 {
        unexpressed.push(format!(
            "`rate_limit.status`: {} is written as Envoy's default 429 (the filter's `status` is not written)",
            limit.status
        ));
    }
    if bucket.refill() == Refill::Tick {
        unexpressed.push(
            "`rate_limit.refill`: `tick` is this same config under Envoy before 1.31; 1.31 and later refill continuously, and `cascade import` reads it so"
                .to_string(),
        );
    }
    Ok(Exported {
        text: render(&[listener(name, bucket)]),
        unexpressed,
    })
}

/// The inbound listener: a connection manager named after the service (its `stat_prefix`,
/// which the importer reads as the service when no route names a cluster), the local rate
/// limit filter enforcing on every request, then the router.
fn listener(name: &str, b: &TokenBucketConfig) -> Doc {
    let everyone = || {
        Y::map(vec![(
            "default_value",
            Y::map(vec![
                ("numerator", Y::num(100)),
                ("denominator", Y::text("HUNDRED")),
            ]),
        )])
    };
    let rate_limit = Y::map(vec![
        ("name", Y::text("envoy.filters.http.local_ratelimit")),
        (
            "typed_config",
            Y::map(vec![
                ("@type", Y::text(LOCAL_RATELIMIT)),
                ("stat_prefix", Y::text(format!("{name}_local_rate_limit"))),
                (
                    "token_bucket",
                    Y::map(vec![
                        ("max_tokens", Y::num(b.max_tokens())),
                        ("tokens_per_fill", Y::num(b.tokens_per_fill())),
                        ("fill_interval", Y::text(proto_seconds(b.fill_interval().0))),
                    ]),
                ),
                ("filter_enabled", everyone()),
                ("filter_enforced", everyone()),
            ]),
        ),
    ]);
    let router = Y::map(vec![
        ("name", Y::text("envoy.filters.http.router")),
        ("typed_config", Y::map(vec![("@type", Y::text(ROUTER))])),
    ]);
    let manager = Y::map(vec![
        (
            "name",
            Y::text("envoy.filters.network.http_connection_manager"),
        ),
        (
            "typed_config",
            Y::map(vec![
                ("@type", Y::text(HCM)),
                ("stat_prefix", Y::text(name)),
                ("http_filters", Y::List(vec![rate_limit, router])),
            ]),
        ),
    ]);
    let listener = Y::map(vec![
        ("name", Y::text(format!("{name}_inbound"))),
        (
            "filter_chains",
            Y::List(vec![Y::map(vec![("filters", Y::List(vec![manager]))])]),
        ),
    ]);
    Doc {
        comment: format!(
            "Inbound listener of each `{name}` instance's sidecar: merge its http_filters into yours (a bucket per Envoy process, as scope = \"instance\")."
        ),
        body: Y::map(vec![(
            "static_resources",
            Y::map(vec![("listeners", Y::List(vec![listener]))]),
        )]),
    }
}
