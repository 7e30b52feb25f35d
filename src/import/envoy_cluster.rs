//! An Envoy cluster's circuit breakers, retry budget and outlier detection (docs/import.md).

use super::envoy::*;
use super::out::{Elsewhere, PolicyOut, Toml};
use super::read::{Ctx, Read, duration_text, policy_name};
use super::tree::{Node, Value};

/// What a cluster gives a policy, and the `--set` lines for its callee's outlier detector.
pub(super) struct ClusterOut {
    pub(super) name: String,
    max_requests: (u32, String),
    /// `retry_budget` (percent, min) if written, else `max_retries`.
    budget: Budget,
    pub(super) outlier: Vec<Elsewhere>,
    /// `--set` lines for its service's `balancer` and `slow_start`.
    pub(super) balancer: Vec<Elsewhere>,
}

enum Budget {
    /// `retry_budget`: its percent and minimum, each with the source it came from, and the
    /// table's own source (for `kind`).
    Percent {
        percent: (f64, String),
        min: (u32, String),
        from: String,
    },
    MaxRetries(u32, String),
}

impl ClusterOut {
    pub(super) fn defaults(target: Option<&str>) -> ClusterOut {
        let why = match target {
            Some(t) => format!("cluster `{t}` is not in this file"),
            None => "the route names no cluster".into(),
        };
        ClusterOut {
            name: target.unwrap_or("").to_string(),
            max_requests: (
                MAX_REQUESTS,
                format!("circuit_breakers.max_requests: Envoy's default ({why})"),
            ),
            budget: Budget::MaxRetries(
                MAX_RETRIES,
                format!("circuit_breakers.max_retries: Envoy's default ({why})"),
            ),
            outlier: Vec::new(),
            balancer: Vec::new(),
        }
    }
}

pub(super) fn read_cluster(ctx: &mut Ctx, name: &str, node: &Node) -> Read<ClusterOut> {
    let mut c = ClusterOut {
        name: name.to_string(),
        max_requests: (
            MAX_REQUESTS,
            "circuit_breakers.max_requests: Envoy's default".into(),
        ),
        budget: Budget::MaxRetries(
            MAX_RETRIES,
            "circuit_breakers.max_retries: Envoy's default".into(),
        ),
        outlier: Vec::new(),
        balancer: Vec::new(),
    };
    for (k, v) in node.entries() {
        let path = k.text.as_str();
        match path {
            "name" => {}
            "circuit_breakers" => circuit_breakers(ctx, v, &mut c)?,
            "outlier_detection" => outlier(ctx, v, &mut c)?,
            "connect_timeout" => ctx.skip(v, path, "connection setup is not simulated"),
            "health_checks" => ctx.skip(v, path, "active health checking is not simulated"),
            // Read together below: the config block that applies depends on the policy.
            "lb_policy" | "round_robin_lb_config" | "least_request_lb_config" => {}
            _ => ctx.skip(v, path, NOT_RESILIENCE),
        }
    }
    c.balancer = super::envoy_balancer::read_balancer(ctx, name, node)?;
    Ok(c)
}

pub(super) fn circuit_breakers(ctx: &mut Ctx, node: &Node, c: &mut ClusterOut) -> Read<()> {
    for (k, v) in node.entries() {
        let path = format!("circuit_breakers.{}", k.text);
        match k.text.as_str() {
            "thresholds" => {
                let Value::List(items) = &v.value else {
                    return Err(ctx.error(v, &path, "expected a list of thresholds"));
                };
                for t in items {
                    threshold(ctx, t, &path, c)?;
                }
            }
            "per_host_thresholds" => ctx.skip(v, &path, "per-host caps are not simulated"),
            _ => ctx.skip(v, &path, NOT_RESILIENCE),
        }
    }
    Ok(())
}

pub(super) fn threshold(ctx: &mut Ctx, node: &Node, path: &str, c: &mut ClusterOut) -> Read<()> {
    if let Some(prio) = field(node, "priority") {
        let text = ctx.text(prio, &format!("{path}.priority"))?;
        match text {
            "DEFAULT" => {}
            "HIGH" => {
                ctx.skip(
                    node,
                    &format!("{path} (priority HIGH)"),
                    "cascade has no request priorities: the DEFAULT thresholds are imported",
                );
                return Ok(());
            }
            other => {
                return Err(ctx.error(
                    prio,
                    &format!("{path}.priority"),
                    format!("unknown priority `{other}` (DEFAULT or HIGH)"),
                ));
            }
        }
    }
    for (k, v) in node.entries() {
        let key = format!("{path}.{}", k.text);
        match k.text.as_str() {
            "priority" => {}
            "max_requests" => {
                let n = ctx.count(v, &key)?;
                if n == 0 {
                    return Err(ctx.error(v, &key, "0 would refuse every request; cascade's bulkhead needs at least 1"));
                }
                c.max_requests = (n, format!("{key} ({})", ctx.at(v)));
            }
            "max_retries" => {
                if !matches!(c.budget, Budget::Percent { .. }) {
                    c.budget = Budget::MaxRetries(ctx.count(v, &key)?, format!("{key} ({})", ctx.at(v)));
                }
            }
            "retry_budget" => {
                let mut percent = (BUDGET_PERCENT, format!("{key}.budget_percent: Envoy's default"));
                let mut min = (MIN_RETRY_CONCURRENCY, format!("{key}.min_retry_concurrency: Envoy's default"));
                for (bk, bv) in v.entries() {
                    let bkey = format!("{key}.{}", bk.text);
                    match bk.text.as_str() {
                        "budget_percent" => {
                            let pct = ctx.number(bv, &bkey)?;
                            if !(0.0..=100.0).contains(&pct) {
                                return Err(ctx.error(bv, &bkey, "must be between 0 and 100"));
                            }
                            percent = (pct, format!("{bkey} ({})", ctx.at(bv)));
                        }
                        "min_retry_concurrency" => min = (ctx.count(bv, &bkey)?, format!("{bkey} ({})", ctx.at(bv))),
                        _ => return Err(ctx.error(bv, &bkey, "unknown field of a RetryBudget")),
                    }
                }
                let from = format!("{key} ({})", ctx.at(v));
                c.budget = Budget::Percent { percent, min, from };
            }
            "max_connections" => ctx.skip(v, &key, "connections are not simulated"),
            "max_pending_requests" => ctx.skip(v, &key, "requests waiting for a connection are not simulated (docs/policies.md §13: approximately a bulkhead queue)"),
            "max_connection_pools" => ctx.skip(v, &key, "connection pools are not simulated"),
            "track_remaining" => ctx.skip(v, &key, "a statistic, not a behaviour"),
            _ => ctx.skip(v, &key, NOT_RESILIENCE),
        }
    }
    Ok(())
}

pub(super) fn outlier(ctx: &mut Ctx, node: &Node, c: &mut ClusterOut) -> Read<()> {
    let service = policy_name(&c.name);
    let mut sets = Vec::new();
    for (k, v) in node.entries() {
        let key = format!("outlier_detection.{}", k.text);
        let at = ctx.at(v);
        let set = |field: &str, value: String| Elsewhere {
            set: format!("service.{service}.outlier.{field}={value}"),
            from: format!("{key} ({at})"),
        };
        match k.text.as_str() {
            "consecutive_5xx" => {
                let n = ctx.count(v, &key)?;
                if n == 0 {
                    return Err(ctx.error(
                        v,
                        &key,
                        "cascade's detector needs at least 1 failure in a row",
                    ));
                }
                sets.push(set("consecutive_failures", n.to_string()));
            }
            "interval" => sets.push(set("interval", duration_text(positive(ctx, v, &key)?))),
            "base_ejection_time" => sets.push(set(
                "base_ejection_time",
                duration_text(positive(ctx, v, &key)?),
            )),
            "max_ejection_time" => sets.push(set(
                "max_ejection_time",
                duration_text(positive(ctx, v, &key)?),
            )),
            "max_ejection_percent" => {
                let n = ctx.count(v, &key)?;
                if n > 100 {
                    return Err(ctx.error(v, &key, "a percentage, at most 100"));
                }
                sets.push(set("max_ejection_percent", n.to_string()));
            }
            "always_eject_one_host" => {
                sets.push(set("always_eject_one", ctx.boolean(v, &key)?.to_string()))
            }
            "enforcing_consecutive_5xx" => {
                if ctx.number(v, &key)? != 100.0 {
                    return Err(ctx.error(
                        v,
                        &key,
                        "cascade ejects on every detection (100 %); other values are not simulated",
                    ));
                }
            }
            "max_ejection_time_jitter" => {
                if ctx.proto_duration(v, &key)? != 0 {
                    ctx.skip(v, &key, "ejection jitter is not simulated");
                }
            }
            _ => ctx.skip(v, &key, "only the consecutive-5xx detector is simulated"),
        }
    }
    if sets.is_empty() {
        sets.push(Elsewhere {
            set: format!("service.{service}.outlier={{}}"),
            from: format!("outlier_detection ({}): Envoy's defaults", ctx.at(node)),
        });
    }
    c.outlier = sets;
    Ok(())
}

pub(super) fn positive(ctx: &Ctx, v: &Node, key: &str) -> Read<u64> {
    match ctx.proto_duration(v, key)? {
        0 => Err(ctx.error(v, key, "must be longer than zero")),
        ns => Ok(ns),
    }
}

pub(super) fn apply_cluster(p: &mut PolicyOut, c: &ClusterOut) {
    p.set(
        "bulkhead",
        "max_concurrent",
        Toml::Int(c.max_requests.0.into()),
        c.max_requests.1.clone(),
    );
    if !p.has_table("retry") {
        return;
    }
    let (kind_from, percent, min) = match &c.budget {
        Budget::Percent { percent, min, from } => (from.clone(), percent.clone(), min.clone()),
        Budget::MaxRetries(n, from) => (
            format!("{from}: a cap on retries in flight"),
            (0.0, "no share of the calls in flight, only the cap".into()),
            (*n, "the cap: retries in flight at most".into()),
        ),
    };
    p.set(
        "retry.budget",
        "kind",
        Toml::Str("concurrency".into()),
        kind_from,
    );
    p.set("retry.budget", "percent", Toml::Float(percent.0), percent.1);
    p.set("retry.budget", "min", Toml::Int(min.0.into()), min.1);
}
