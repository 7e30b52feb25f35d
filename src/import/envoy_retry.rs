//! An Envoy route's `retry_policy` as a cascade `retry` (docs/import.md).

use super::envoy::*;
use super::out::{PolicyOut, Toml};
use super::read::{Ctx, Read, duration_text};
use super::tree::{Node, Value};

pub(super) fn read_retry(ctx: &mut Ctx, node: &Node, key: &str, p: &mut PolicyOut) -> Read<()> {
    let mut retries = None;
    let mut on: Option<(Vec<&'static str>, String)> = None;
    let mut codes: Option<&Node> = None;
    let mut wants_codes = false;
    let mut base = None;
    let mut max = None;
    let mut retry_after = None;
    let (mut host_predicates, mut host_attempts) = (None, None);
    for (k, v) in node.entries() {
        let path = format!("{key}.{}", k.text);
        match k.text.as_str() {
            "num_retries" => retries = Some((ctx.count(v, &path)?, ctx.at(v))),
            "per_try_timeout" => {
                let ns = ctx.proto_duration(v, &path)?;
                if ns == 0 {
                    ctx.skip(
                        v,
                        &path,
                        "0s means no per-try timeout: the policy has no `timeout`",
                    );
                } else {
                    p.set(
                        "",
                        "timeout",
                        Toml::Str(duration_text(ns)),
                        format!("{path} ({})", ctx.at(v)),
                    );
                }
            }
            "retry_on" => {
                let text = ctx.text(v, &path)?;
                let (kinds, codes_wanted) = retry_on(ctx, v, &path, text)?;
                wants_codes = codes_wanted;
                on = Some((kinds, format!("{path} = \"{text}\" ({})", ctx.at(v))));
            }
            "retriable_status_codes" => codes = Some(v),
            "retry_back_off" => {
                for (bk, bv) in v.entries() {
                    let bpath = format!("{path}.{}", bk.text);
                    match bk.text.as_str() {
                        "base_interval" => {
                            base =
                                Some((ctx.proto_duration(bv, &bpath)?, bpath.clone(), ctx.at(bv)))
                        }
                        "max_interval" => {
                            max = Some((ctx.proto_duration(bv, &bpath)?, bpath.clone(), ctx.at(bv)))
                        }
                        _ => {
                            return Err(ctx.error(
                                bv,
                                &bpath,
                                "unknown field of a BackoffStrategy",
                            ));
                        }
                    }
                }
            }
            "rate_limited_retry_back_off" => {
                retry_after = Some(format!("{path} ({})", ctx.at(v)));
                for (rk, rv) in v.entries() {
                    let rpath = format!("{path}.{}", rk.text);
                    match rk.text.as_str() {
                        "reset_headers" => {}
                        "max_interval" => ctx.skip(rv, &rpath, "cascade honours any Retry-After that fits the deadline (Envoy: up to this, 300s by default)"),
                        _ => ctx.skip(rv, &rpath, NOT_RESILIENCE),
                    }
                }
            }
            "per_try_idle_timeout" => ctx.skip(v, &path, "idle timeouts are not simulated"),
            "retry_host_predicate" => host_predicates = Some(v),
            "host_selection_retry_max_attempts" => host_attempts = Some(v),
            _ => ctx.skip(v, &path, NOT_RESILIENCE),
        }
    }
    let (retries_n, from) = match retries {
        Some((n, at)) => (
            n,
            format!("{key}.num_retries ({at}): Envoy does not count the first try"),
        ),
        None => (
            NUM_RETRIES,
            format!("{key}.num_retries: Envoy's default, the first try not counted"),
        ),
    };
    p.set("retry", "retries", Toml::Int(retries_n.into()), from);
    let mut kinds = on.as_ref().map(|(k, _)| k.clone()).unwrap_or_default();
    if let Some(codes) = codes {
        let path = format!("{key}.retriable_status_codes");
        if wants_codes {
            status_codes(ctx, codes, &path, &mut kinds)?;
        } else {
            ctx.skip(
                codes,
                &path,
                "used by Envoy only with retry_on: retriable-status-codes",
            );
        }
    }
    let from = match &on {
        Some((_, from)) => from.clone(),
        None => format!("{key}.retry_on: not set, so Envoy retries nothing"),
    };
    p.set(
        "retry",
        "on",
        Toml::List(kinds.iter().map(|s| s.to_string()).collect()),
        from,
    );
    p.set(
        "retry",
        "backoff",
        Toml::Str("exponential".into()),
        format!("{key}.retry_back_off: Envoy's exponential backoff"),
    );
    p.set(
        "retry",
        "multiplier",
        Toml::Float(2.0),
        format!("{key}.retry_back_off: Envoy doubles each interval"),
    );
    let (base_ns, base_from) = match base {
        Some((ns, path, at)) => (ns, format!("{path} ({at})")),
        None => (
            BASE_INTERVAL_NS,
            format!("{key}.retry_back_off.base_interval: Envoy's default"),
        ),
    };
    if base_ns == 0 {
        return Err(ctx.error(
            node,
            &format!("{key}.retry_back_off.base_interval"),
            "must be greater than zero, as Envoy requires",
        ));
    }
    let (max_ns, max_from) = match max {
        Some((ns, path, at)) => (ns, format!("{path} ({at})")),
        None => (
            10 * base_ns,
            format!("{key}.retry_back_off.max_interval: Envoy's default, 10 × base_interval"),
        ),
    };
    if max_ns < base_ns {
        return Err(ctx.error(
            node,
            &format!("{key}.retry_back_off.max_interval"),
            "must be at least base_interval, as Envoy requires",
        ));
    }
    p.set(
        "retry",
        "base",
        Toml::Str(duration_text(base_ns)),
        base_from,
    );
    p.set("retry", "max", Toml::Str(duration_text(max_ns)), max_from);
    p.set(
        "retry",
        "jitter",
        Toml::Str("full".into()),
        format!("{key}.retry_back_off: Envoy draws each wait uniformly below the interval"),
    );
    match retry_after {
        Some(from) => p.set("retry", "retry_after", Toml::Bool(true), from),
        None => p.set(
            "retry",
            "retry_after",
            Toml::Bool(false),
            format!("{key}.rate_limited_retry_back_off: not set, so Envoy ignores Retry-After"),
        ),
    }
    super::envoy_retry_hosts::read_host_selection(ctx, host_predicates, host_attempts, key, p)
}

/// `retry_on`'s conditions as cascade outcome kinds (docs/policies.md §13), and whether
/// `retriable-status-codes` asks for the code list.
pub(super) fn retry_on(
    ctx: &mut Ctx,
    node: &Node,
    path: &str,
    text: &str,
) -> Read<(Vec<&'static str>, bool)> {
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut codes = false;
    for cond in text.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let add: &[&'static str] = match cond {
            "5xx" => &["internal", "unavailable", "timeout"],
            "gateway-error" => &["unavailable", "timeout"],
            "reset" | "connect-failure" | "refused-stream" | "reset-before-request" => &["refused"],
            "unavailable" => &["unavailable"],
            "internal" => &["internal"],
            "deadline-exceeded" => &["deadline_exceeded"],
            "resource-exhausted" => &["overloaded"],
            "retriable-status-codes" => {
                codes = true;
                &[]
            }
            "retriable-4xx" => {
                ctx.skip(
                    node,
                    &format!("{path}: retriable-4xx"),
                    "a 409 has no cascade outcome kind",
                );
                &[]
            }
            "cancelled" => {
                ctx.skip(
                    node,
                    &format!("{path}: cancelled"),
                    "gRPC CANCELLED has no cascade outcome kind",
                );
                &[]
            }
            "envoy-ratelimited" => {
                ctx.skip(
                    node,
                    &format!("{path}: envoy-ratelimited"),
                    "Envoy's own rate limiting is not simulated",
                );
                &[]
            }
            "retriable-headers" | "http3-post-connect-failure" => {
                ctx.skip(
                    node,
                    &format!("{path}: {cond}"),
                    "response headers and HTTP/3 are not simulated",
                );
                &[]
            }
            other => {
                return Err(ctx.error(node, path, format!("unknown retry condition `{other}`")));
            }
        };
        for k in add {
            if !kinds.contains(k) {
                kinds.push(k);
            }
        }
    }
    Ok((kinds, codes))
}

pub(super) fn status_codes(
    ctx: &mut Ctx,
    node: &Node,
    path: &str,
    kinds: &mut Vec<&'static str>,
) -> Read<()> {
    let Value::List(items) = &node.value else {
        return Err(ctx.error(node, path, "expected a list of HTTP status codes"));
    };
    for item in items {
        let code = ctx.uint(item, path)?;
        let kind = match code {
            429 => "overloaded",
            500 => "internal",
            502 | 503 => "unavailable",
            504 => "timeout",
            _ => {
                ctx.skip(
                    item,
                    &format!("{path}: {code}"),
                    "no cascade outcome kind for this status",
                );
                continue;
            }
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(())
}
