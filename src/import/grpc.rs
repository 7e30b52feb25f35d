//! `cascade import grpc`: a gRPC service config (JSON, gRFC A6 and the service-config
//! proto): each `methodConfig` becomes a policy, `retryThrottling` the retry budget of every
//! one of them. Keys are read in lowerCamelCase or snake_case, as protobuf's JSON mapping
//! accepts both. The method `timeout` spans every attempt: it is the policy's `total_timeout`.

use super::out::{Imported, PolicyOut, Toml};
use super::read::{Ctx, Read, canonical, duration_text, entry as get, policy_name};
use super::tree::{Node, Value};

/// gRPC clamps `maxAttempts` above this (A6).
const MAX_ATTEMPTS_CAP: u64 = 5;
/// Cascade's most hedged copies (docs/policies.md §9).
const HEDGE_COPIES_MAX: u64 = 3;

pub fn import(ctx: &mut Ctx, root: &Node) -> Read<Imported> {
    if !matches!(root.value, Value::Map(_)) {
        return Err(ctx.error(root, "", "a service config is a JSON object"));
    }
    let mut throttling = None;
    let mut methods: Option<&Node> = None;
    for (k, v) in root.entries() {
        match canonical(&k.text).as_str() {
            "methodconfig" => methods = Some(v),
            "retrythrottling" => throttling = Some(read_throttling(ctx, v, &k.text)?),
            "loadbalancingconfig" | "loadbalancingpolicy" => ctx.skip(
                v,
                &k.text,
                "cascade's balancer is set on the service (`balancer`)",
            ),
            "healthcheckconfig" => ctx.skip(v, &k.text, "health checking is not simulated"),
            _ => ctx.skip(v, &k.text, "not a resilience setting cascade simulates"),
        }
    }
    let Some(methods) = methods else {
        return Err(ctx.error(root, "methodConfig", "no `methodConfig`: nothing to import"));
    };
    let Value::List(items) = &methods.value else {
        return Err(ctx.error(methods, "methodConfig", "expected a list of method configs"));
    };
    let mut out = Imported::default();
    for (i, m) in items.iter().enumerate() {
        let key = format!("methodConfig[{i}]");
        let mut p = PolicyOut::new(&method_name(ctx, m, &key, i)?);
        read_method(ctx, m, &key, &mut p)?;
        if let Some((max_tokens, ratio, from)) = &throttling
            && (p.has_table("retry") || p.has_table("hedge"))
        {
            if !p.has_table("retry") {
                p.set("retry", "attempts", Toml::Int(1), "(no retryPolicy: one attempt; the table carries retryThrottling for the hedges)");
            }
            p.set(
                "retry.budget",
                "kind",
                Toml::Str("token_bucket".into()),
                from.clone(),
            );
            p.set(
                "retry.budget",
                "max_tokens",
                Toml::Float(*max_tokens),
                from.clone(),
            );
            p.set(
                "retry.budget",
                "token_ratio",
                Toml::Float(*ratio),
                from.clone(),
            );
            if p.has_table("hedge") {
                p.set(
                    "hedge",
                    "uses_retry_budget",
                    Toml::Bool(true),
                    format!("{from}: gRPC throttles hedges too"),
                );
            }
        }
        out.policies.push(p);
    }
    Ok(out)
}

/// The policy's name: the first `name` entry's `service` (and `method`), or `method-N`.
fn method_name(ctx: &Ctx, m: &Node, key: &str, i: usize) -> Read<String> {
    let first = get(m, "name").and_then(|(_, n)| match &n.value {
        Value::List(items) => items.first(),
        _ => None,
    });
    let Some(first) = first else {
        return Ok(format!("method-{}", i + 1));
    };
    let mut parts = Vec::new();
    for field in ["service", "method"] {
        if let Some((k, v)) = get(first, field) {
            parts.push(ctx.text(v, &format!("{key}.name[0].{k}"))?.to_string());
        }
    }
    if parts.iter().all(String::is_empty) {
        return Ok(format!("method-{}", i + 1));
    }
    Ok(policy_name(&parts.join("-")))
}

fn read_throttling(ctx: &Ctx, node: &Node, key: &str) -> Read<(f64, f64, String)> {
    let mut max_tokens = None;
    let mut ratio = None;
    for (k, v) in node.entries() {
        let path = format!("{key}.{}", k.text);
        match canonical(&k.text).as_str() {
            "maxtokens" => {
                let n = ctx.number(v, &path)?;
                if !(n > 0.0 && n <= 1000.0) {
                    return Err(ctx.error(v, &path, "must be in (0, 1000], as gRPC requires"));
                }
                max_tokens = Some(n);
            }
            "tokenratio" => {
                let r = ctx.number(v, &path)?;
                if r <= 0.0 {
                    return Err(ctx.error(v, &path, "must be greater than zero, as gRPC requires"));
                }
                // gRPC keeps three decimals (grpc-java scales by 1000).
                ratio = Some((r * 1000.0).trunc() / 1000.0);
            }
            _ => {
                return Err(ctx.error(
                    v,
                    &path,
                    "unknown field of retryThrottling (maxTokens, tokenRatio)",
                ));
            }
        }
    }
    match (max_tokens, ratio) {
        (Some(m), Some(r)) if r > 0.0 => Ok((m, r, format!("{key} ({})", ctx.at(node)))),
        (Some(_), Some(_)) => Err(ctx.error(
            node,
            key,
            "tokenRatio keeps three decimals and rounds to zero here",
        )),
        _ => Err(ctx.error(
            node,
            key,
            "needs both maxTokens and tokenRatio (gRPC has no defaults)",
        )),
    }
}

fn read_method(ctx: &mut Ctx, m: &Node, key: &str, p: &mut PolicyOut) -> Read<()> {
    let mut has_retry = false;
    for (k, v) in m.entries() {
        let path = format!("{key}.{}", k.text);
        match canonical(&k.text).as_str() {
            "name" => {}
            // The method's timeout is the call's own deadline, the earlier of it and a
            // propagated one: the policy's `total_timeout`.
            "timeout" => match ctx.proto_duration(v, &path)? {
                0 => ctx.skip(v, &path, "a zero timeout sets no deadline"),
                ns => p.set(
                    "",
                    "total_timeout",
                    Toml::Str(duration_text(ns)),
                    format!("{path} ({}): spans every attempt and hedge", ctx.at(v)),
                ),
            },
            "retrypolicy" => {
                has_retry = true;
                read_retry(ctx, v, &path, p)?;
            }
            "hedgingpolicy" => {
                if has_retry || get(m, "retrypolicy").is_some() {
                    return Err(ctx.error(
                        v,
                        &path,
                        "gRPC allows a retryPolicy or a hedgingPolicy, not both",
                    ));
                }
                read_hedge(ctx, v, &path, p)?;
            }
            "waitforready" => ctx.skip(v, &path, "waiting for a ready connection is not simulated"),
            "maxrequestmessagebytes" | "maxresponsemessagebytes" => {
                ctx.skip(v, &path, "message sizes are not simulated")
            }
            _ => ctx.skip(v, &path, "not a resilience setting cascade simulates"),
        }
    }
    Ok(())
}

/// A6 status codes as cascade outcome kinds (docs/policies.md §13); codes are names or numbers.
fn status_kind(ctx: &mut Ctx, item: &Node, path: &str) -> Read<Option<&'static str>> {
    let name = match &item.value {
        Value::Text(s) => s.to_ascii_uppercase(),
        Value::Int(i) => match i {
            4 => "DEADLINE_EXCEEDED".into(),
            8 => "RESOURCE_EXHAUSTED".into(),
            13 => "INTERNAL".into(),
            14 => "UNAVAILABLE".into(),
            0..=16 => format!("code {i}"),
            _ => {
                return Err(ctx.error(
                    item,
                    path,
                    format!("{i} is not a gRPC status code (0 to 16)"),
                ));
            }
        },
        _ => return Err(ctx.error(item, path, "expected a status code name or number")),
    };
    Ok(match name.as_str() {
        "UNAVAILABLE" => Some("unavailable"),
        "RESOURCE_EXHAUSTED" => Some("overloaded"),
        "INTERNAL" => Some("internal"),
        "DEADLINE_EXCEEDED" => Some("deadline_exceeded"),
        "OK" => return Err(ctx.error(item, path, "OK is not a failure, gRPC refuses it here")),
        "CANCELLED"
        | "UNKNOWN"
        | "INVALID_ARGUMENT"
        | "NOT_FOUND"
        | "ALREADY_EXISTS"
        | "PERMISSION_DENIED"
        | "FAILED_PRECONDITION"
        | "ABORTED"
        | "OUT_OF_RANGE"
        | "UNIMPLEMENTED"
        | "DATA_LOSS"
        | "UNAUTHENTICATED" => {
            ctx.skip(
                item,
                &format!("{path}: {name}"),
                "no cascade outcome kind for this status",
            );
            None
        }
        n if n.starts_with("CODE ") => {
            ctx.skip(
                item,
                &format!("{path}: {n}"),
                "no cascade outcome kind for this status",
            );
            None
        }
        other => return Err(ctx.error(item, path, format!("unknown gRPC status `{other}`"))),
    })
}

fn status_list(ctx: &mut Ctx, node: &Node, path: &str) -> Read<Vec<String>> {
    let Value::List(items) = &node.value else {
        return Err(ctx.error(node, path, "expected a list of status codes"));
    };
    let mut kinds: Vec<String> = Vec::new();
    for item in items {
        if let Some(kind) = status_kind(ctx, item, path)?
            && !kinds.iter().any(|k| k == kind)
        {
            kinds.push(kind.to_string());
        }
    }
    Ok(kinds)
}

fn max_attempts(ctx: &mut Ctx, v: &Node, path: &str) -> Read<u64> {
    let n = ctx.uint(v, path)?;
    if n < 2 {
        return Err(ctx.error(
            v,
            path,
            "must be at least 2: gRPC rejects the service config otherwise",
        ));
    }
    if n > MAX_ATTEMPTS_CAP {
        ctx.skip(
            v,
            path,
            format!("{n} is clamped to {MAX_ATTEMPTS_CAP}, as gRPC does"),
        );
        return Ok(MAX_ATTEMPTS_CAP);
    }
    Ok(n)
}

fn read_retry(ctx: &mut Ctx, node: &Node, key: &str, p: &mut PolicyOut) -> Read<()> {
    let mut required = vec![
        "maxattempts",
        "initialbackoff",
        "maxbackoff",
        "backoffmultiplier",
        "retryablestatuscodes",
    ];
    let mut base = None;
    let mut max = None;
    for (k, v) in node.entries() {
        let path = format!("{key}.{}", k.text);
        let from = format!("{path} ({})", ctx.at(v));
        let c = canonical(&k.text);
        required.retain(|r| *r != c);
        match c.as_str() {
            "maxattempts" => {
                let n = max_attempts(ctx, v, &path)?;
                p.set(
                    "retry",
                    "attempts",
                    Toml::Int(n as i64),
                    format!("{from}: the first attempt counted"),
                );
            }
            "initialbackoff" => {
                let ns = ctx.proto_duration(v, &path)?;
                if ns == 0 {
                    return Err(ctx.error(v, &path, "must be greater than zero, as gRPC requires"));
                }
                base = Some((ns, v, path.clone()));
                p.set("retry", "base", Toml::Str(duration_text(ns)), from);
            }
            "maxbackoff" => {
                let ns = ctx.proto_duration(v, &path)?;
                if ns == 0 {
                    return Err(ctx.error(v, &path, "must be greater than zero, as gRPC requires"));
                }
                max = Some(ns);
                p.set("retry", "max", Toml::Str(duration_text(ns)), from);
            }
            "backoffmultiplier" => {
                let m = ctx.number(v, &path)?;
                if m < 1.0 {
                    return Err(ctx.error(
                        v,
                        &path,
                        "cascade's backoff never shrinks: the multiplier must be at least 1",
                    ));
                }
                p.set("retry", "multiplier", Toml::Float(m), from);
            }
            "retryablestatuscodes" => {
                let kinds = status_list(ctx, v, &path)?;
                p.set("retry", "on", Toml::List(kinds), from);
            }
            "perattemptrecvtimeout" => {
                let ns = ctx.proto_duration(v, &path)?;
                if ns > 0 {
                    p.set(
                        "",
                        "timeout",
                        Toml::Str(duration_text(ns)),
                        format!("{from}: a timeout per attempt"),
                    );
                }
            }
            _ => return Err(ctx.error(v, &path, "unknown field of a retryPolicy")),
        }
    }
    if let Some(missing) = required.first() {
        return Err(ctx.error(
            node,
            key,
            format!("gRPC requires `{missing}` in a retryPolicy (A6)"),
        ));
    }
    if let (Some((b, v, path)), Some(m)) = (base, max)
        && m < b
    {
        return Err(ctx.error(v, &path, "initialBackoff is longer than maxBackoff"));
    }
    p.set(
        "retry",
        "backoff",
        Toml::Str("exponential".into()),
        format!("{key}: gRFC A6 backoff"),
    );
    p.set(
        "retry",
        "jitter",
        Toml::Str("proportional".into()),
        format!("{key}: gRFC A6 jitter, ×U(0.8, 1.2) (text since 2024-08-29)"),
    );
    p.set(
        "retry",
        "jitter_factor",
        Toml::Float(0.2),
        format!("{key}: gRFC A6 jitter, ±20 %"),
    );
    p.set(
        "retry",
        "retry_after",
        Toml::Bool(true),
        format!("{key}: gRFC A6 honours grpc-retry-pushback-ms"),
    );
    Ok(())
}

fn read_hedge(ctx: &mut Ctx, node: &Node, key: &str, p: &mut PolicyOut) -> Read<()> {
    let mut attempts = None;
    let mut delay = (
        0,
        format!("{key}.hedgingDelay: not set, 0s: every copy at once"),
    );
    for (k, v) in node.entries() {
        let path = format!("{key}.{}", k.text);
        match canonical(&k.text).as_str() {
            "maxattempts" => {
                let n = max_attempts(ctx, v, &path)?;
                if n - 1 > HEDGE_COPIES_MAX {
                    return Err(ctx.error(v, &path, format!("cascade sends at most {HEDGE_COPIES_MAX} hedged copies: maxAttempts at most {}", HEDGE_COPIES_MAX + 1)));
                }
                attempts = Some((n, format!("{path} ({}): the original counted", ctx.at(v))));
            }
            "hedgingdelay" => delay = (ctx.proto_duration(v, &path)?, format!("{path} ({})", ctx.at(v))),
            "nonfatalstatuscodes" => ctx.skip(v, &path, "a non-fatal status does not send the next hedge at once in cascade; every failure waits for the other copies"),
            _ => return Err(ctx.error(v, &path, "unknown field of a hedgingPolicy")),
        }
    }
    let Some((n, from)) = attempts else {
        return Err(ctx.error(node, key, "gRPC requires `maxAttempts` in a hedgingPolicy"));
    };
    p.set("hedge", "delay", Toml::Str(duration_text(delay.0)), delay.1);
    p.set("hedge", "max", Toml::Int(n as i64 - 1), from);
    Ok(())
}
