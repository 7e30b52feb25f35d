//! Envoy's local rate limit filter (`envoy.filters.http.local_ratelimit`, v3 `LocalRateLimit`)
//! in an HTTP connection manager's `http_filters`: the admission `rate_limit` of the service
//! behind the listener, printed as `--set` lines (docs/import.md, "Envoy").
//!
//! The filter sits on the listener that receives the service's requests (its sidecar's inbound
//! listener), so it limits what the service admits, not what a caller sends: it belongs to the
//! `[[service]]`, as a cluster's outlier detection does, not to a policy. Read as Envoy 1.31 and
//! later do: the bucket refills continuously (`AtomicTokenBucketImpl`).

use super::envoy::{NOT_RESILIENCE, field};
use super::out::Elsewhere;
use super::read::{Ctx, Read, duration_text, policy_name};
use super::tree::{Node, Value};

pub(super) const FILTER: &str = "envoy.filters.http.local_ratelimit";
pub(super) const TYPE_URL: &str =
    "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
/// The router carries the routes this import reads; it sets nothing of its own that is simulated.
const ROUTER: &str = "envoy.filters.http.router";

/// Reads an HTTP connection manager's `http_filters` (`hcm` is the manager, for its routes),
/// adding the `--set` lines of each local rate limit filter to `out`.
pub(super) fn http_filters(
    ctx: &mut Ctx,
    filters: &Node,
    hcm: &Node,
    out: &mut Vec<Elsewhere>,
) -> Read<()> {
    let Value::List(items) = &filters.value else {
        return Err(ctx.error(
            filters,
            "http_filters",
            format!("expected a list of filters, found {}", filters.kind()),
        ));
    };
    for filter in items {
        let name = match field(filter, "name") {
            Some(n) => ctx.text(n, "http_filters.name")?.to_string(),
            None => String::new(),
        };
        let config = field(filter, "typed_config");
        let type_url = match config.and_then(|c| field(c, "@type")) {
            Some(t) => Some(ctx.text(t, "http_filters.typed_config.@type")?),
            None => None,
        };
        let key = format!("http_filters.{name}");
        if type_url == Some(TYPE_URL) || (name == FILTER && type_url.is_none()) {
            match config {
                Some(c) => out.extend(local_rate_limit(ctx, c, &service(hcm))?),
                None => ctx.skip(filter, &key, "no typed_config: the filter limits nothing"),
            }
        } else if name == FILTER {
            return Err(ctx.error(
                filter,
                &format!("{key}.typed_config.@type"),
                format!("expected {TYPE_URL}"),
            ));
        } else if name != ROUTER {
            ctx.skip(filter, &key, NOT_RESILIENCE);
        }
    }
    Ok(())
}

/// The service the listener admits for: the one cluster its routes send to (an inbound
/// sidecar's routes all lead to the local application), else the manager's `stat_prefix`.
fn service(hcm: &Node) -> (String, String) {
    let mut clusters: Vec<String> = Vec::new();
    collect_clusters(hcm, &mut clusters);
    clusters.dedup();
    match clusters.as_slice() {
        [one] => (policy_name(one), format!("the routes' cluster `{one}`")),
        _ => {
            let prefix = field(hcm, "stat_prefix").and_then(|n| match &n.value {
                Value::Text(s) => Some(s.clone()),
                _ => None,
            });
            let name = prefix.unwrap_or_else(|| "service".into());
            let why = if clusters.is_empty() {
                "no route names a cluster"
            } else {
                "the routes name several clusters"
            };
            (policy_name(&name), format!("`stat_prefix` ({why})"))
        }
    }
}

/// True if a connection manager's `stat_prefix` is read, as the name of the service its local
/// rate limit admits for (`service`): the manager has such a filter and its routes do not name
/// exactly one cluster. Otherwise the prefix only names Envoy's stats and is not imported.
pub(super) fn stat_prefix_names_service(hcm: &Node) -> bool {
    let Some(Value::List(filters)) = field(hcm, "http_filters").map(|f| &f.value) else {
        return false;
    };
    let is_limit = |f: &Node| {
        let named =
            matches!(field(f, "name").map(|n| &n.value), Some(Value::Text(t)) if t == FILTER);
        let typed = field(f, "typed_config")
            .and_then(|c| field(c, "@type"))
            .is_some_and(|t| matches!(&t.value, Value::Text(t) if t == TYPE_URL));
        named || typed
    };
    let mut clusters = Vec::new();
    collect_clusters(hcm, &mut clusters);
    clusters.dedup();
    filters.iter().any(is_limit) && clusters.len() != 1
}

/// Every `route.cluster` under `node`, in file order, without repeats.
fn collect_clusters(node: &Node, out: &mut Vec<String>) {
    match &node.value {
        Value::Map(entries) => {
            for (k, v) in entries {
                if k.text == "route"
                    && let Some(Value::Text(c)) = field(v, "cluster").map(|n| &n.value)
                {
                    if !out.contains(c) {
                        out.push(c.clone());
                    }
                } else if k.text != "http_filters" {
                    collect_clusters(v, out);
                }
            }
        }
        Value::List(items) => items.iter().for_each(|i| collect_clusters(i, out)),
        _ => {}
    }
}

/// A `RuntimeFractionalPercent`'s `default_value` as a fraction of requests (Envoy caps a
/// numerator above its denominator at 100 %); its `runtime_key` is listed, as there is no runtime.
fn fraction(ctx: &mut Ctx, node: &Node, key: &str) -> Read<f64> {
    let mut value = 0.0;
    for (k, v) in node.entries() {
        let sub = format!("{key}.{}", k.text);
        match k.text.as_str() {
            "default_value" => {
                let mut numerator = 0.0;
                let mut denominator = 100.0;
                for (dk, dv) in v.entries() {
                    let dsub = format!("{sub}.{}", dk.text);
                    match dk.text.as_str() {
                        "numerator" => numerator = ctx.uint(dv, &dsub)? as f64,
                        "denominator" => {
                            denominator = match &dv.value {
                                Value::Text(t) if t == "HUNDRED" => 100.0,
                                Value::Text(t) if t == "TEN_THOUSAND" => 10_000.0,
                                Value::Text(t) if t == "MILLION" => 1_000_000.0,
                                Value::Int(0) => 100.0,
                                Value::Int(1) => 10_000.0,
                                Value::Int(2) => 1_000_000.0,
                                _ => {
                                    return Err(ctx.error(
                                        dv,
                                        &dsub,
                                        "expected HUNDRED, TEN_THOUSAND or MILLION",
                                    ));
                                }
                            }
                        }
                        _ => {
                            return Err(ctx.error(
                                dv,
                                &dsub,
                                "unknown field of a FractionalPercent",
                            ));
                        }
                    }
                }
                value = (numerator / denominator).min(1.0);
            }
            "runtime_key" => ctx.skip(v, &sub, "no runtime: its default_value is read"),
            _ => return Err(ctx.error(v, &sub, "unknown field of a RuntimeFractionalPercent")),
        }
    }
    Ok(value)
}

/// One filter's `LocalRateLimit` config: the service's `rate_limit` lines, or none when the
/// filter limits nothing in Envoy (disabled, shadow mode, no bucket).
fn local_rate_limit(
    ctx: &mut Ctx,
    config: &Node,
    (service, chosen): &(String, String),
) -> Read<Vec<Elsewhere>> {
    let mut bucket = None;
    // Envoy's defaults: 0 % of requests enabled and enforced, "for safety".
    let mut enabled = None;
    let mut enforced = None;
    for (k, v) in config.entries() {
        let key = &format!("local_ratelimit.{}", k.text);
        match k.text.as_str() {
            // Names of Envoy's stats and the filter's type: nothing simulated.
            "@type" | "stat_prefix" => {}
            "token_bucket" => bucket = Some(v),
            "filter_enabled" => enabled = Some((fraction(ctx, v, key)?, v)),
            "filter_enforced" => enforced = Some((fraction(ctx, v, key)?, v)),
            "status" => {
                let code = field(v, "code").map_or(Ok(429), |c| ctx.uint(c, "local_ratelimit.status.code"))?;
                if code != 429 {
                    ctx.skip(
                        v,
                        "local_ratelimit.status.code",
                        format!("{code}: cascade answers a refusal `overloaded` (Envoy's 429) whatever the code"),
                    );
                }
            }
            "response_headers_to_add" => ctx.skip(
                v,
                key,
                "static headers; Envoy's local limit sends no Retry-After, so `retry_after` stays false",
            ),
            "enable_x_ratelimit_headers" => {
                if !matches!(&v.value, Value::Text(t) if t == "OFF") && !matches!(v.value, Value::Int(0)) {
                    ctx.skip(
                        v,
                        key,
                        "DRAFT_VERSION_03 sends X-RateLimit-Reset, not Retry-After, which cascade's retries do not read: `retry_after` stays false",
                    );
                }
            }
            "descriptors" => {
                if !matches!(&v.value, Value::List(l) if l.is_empty()) {
                    return Err(ctx.error(
                        v,
                        key,
                        "per-descriptor buckets (a bucket per matching request key) are not simulated: only the filter's token_bucket can be imported",
                    ));
                }
            }
            "local_rate_limit_per_downstream_connection" => {
                if ctx.boolean(v, key)? {
                    return Err(ctx.error(
                        v,
                        key,
                        "a bucket per downstream connection is not simulated (cascade has no connections): only false, a bucket per Envoy process, can be imported",
                    ));
                }
            }
            "rate_limited_as_resource_exhausted" => ctx.skip(
                v,
                key,
                "cascade's refusal is `overloaded` for HTTP and gRPC alike",
            ),
            _ => ctx.skip(v, key, NOT_RESILIENCE),
        }
    }
    let at = ctx.at(config);
    let Some(bucket) = bucket else {
        ctx.skip_at(
            at,
            "local_ratelimit.token_bucket",
            "none: the filter's own bucket limits nothing",
        );
        return Ok(Vec::new());
    };
    for (name, part) in [
        ("local_ratelimit.filter_enabled", enabled),
        ("local_ratelimit.filter_enforced", enforced),
    ] {
        match part {
            None => {
                ctx.skip_at(
                    at,
                    name,
                    "not set: Envoy's default is 0 % of requests, so the filter limits nothing and no `rate_limit` is written",
                );
                return Ok(Vec::new());
            }
            Some((0.0, node)) => {
                ctx.skip(
                    node,
                    name,
                    "0 %: the filter limits nothing, so no `rate_limit` is written",
                );
                return Ok(Vec::new());
            }
            Some((f, _)) if f >= 1.0 => {}
            Some((_, node)) => {
                return Err(ctx.error(
                    node,
                    name,
                    "only 100 % (or 0 %) can be imported: cascade's limit applies to every request, not a fraction",
                ));
            }
        }
    }
    let mut lines = Vec::new();
    let mut set = |field: &str, value: String, from: String| {
        lines.push(Elsewhere {
            set: format!("service.{service}.rate_limit.{field}={value}"),
            from,
        })
    };
    let mut max_tokens = None;
    let mut per_fill = None;
    let mut interval = None;
    for (k, v) in bucket.entries() {
        let key = format!("local_ratelimit.token_bucket.{}", k.text);
        match k.text.as_str() {
            "max_tokens" => max_tokens = Some((ctx.uint(v, &key)?, v)),
            "tokens_per_fill" => per_fill = Some((ctx.uint(v, &key)?, v)),
            "fill_interval" => interval = Some((ctx.proto_duration(v, &key)?, v)),
            _ => return Err(ctx.error(v, &key, "unknown field of a TokenBucket")),
        }
    }
    let Some((max, node)) = max_tokens else {
        return Err(ctx.error(
            bucket,
            "local_ratelimit.token_bucket.max_tokens",
            "required",
        ));
    };
    if max == 0 {
        return Err(ctx.error(
            node,
            "local_ratelimit.token_bucket.max_tokens",
            "must be at least 1",
        ));
    }
    set(
        "max_tokens",
        max.to_string(),
        format!(
            "local_ratelimit.token_bucket.max_tokens ({}), on a listener of {chosen}",
            ctx.at(node)
        ),
    );
    match per_fill {
        Some((0, node)) => {
            return Err(ctx.error(
                node,
                "local_ratelimit.token_bucket.tokens_per_fill",
                "must be at least 1",
            ));
        }
        Some((n, node)) => set(
            "tokens_per_fill",
            n.to_string(),
            format!(
                "local_ratelimit.token_bucket.tokens_per_fill ({})",
                ctx.at(node)
            ),
        ),
        None => set(
            "tokens_per_fill",
            "1".into(),
            "local_ratelimit.token_bucket.tokens_per_fill: Envoy's default".into(),
        ),
    }
    match interval {
        None => {
            return Err(ctx.error(
                bucket,
                "local_ratelimit.token_bucket.fill_interval",
                "required",
            ));
        }
        Some((0, node)) => {
            return Err(ctx.error(
                node,
                "local_ratelimit.token_bucket.fill_interval",
                "must be more than 0s",
            ));
        }
        Some((ns, node)) => set(
            "fill_interval",
            duration_text(ns),
            format!(
                "local_ratelimit.token_bucket.fill_interval ({})",
                ctx.at(node)
            ),
        ),
    }
    set(
        "refill",
        "continuous".into(),
        "Envoy 1.31 and later refill continuously (AtomicTokenBucketImpl); before, `tick`".into(),
    );
    set(
        "scope",
        "instance".into(),
        "local_ratelimit.local_rate_limit_per_downstream_connection false: a bucket per Envoy process".into(),
    );
    Ok(lines)
}
