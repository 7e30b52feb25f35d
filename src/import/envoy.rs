//! `cascade import envoy`: Envoy v3 clusters and routes (a bootstrap's `static_resources`, a
//! route configuration, a virtual host, a route or a cluster on its own), YAML or JSON.
//!
//! A route becomes a policy: `retry_policy` its `retry` and `timeout` (per try); the route's
//! cluster gives `circuit_breakers` (the DEFAULT priority's `max_requests` as a bulkhead,
//! `retry_budget` or `max_retries` as a concurrency budget). The route's `timeout` and the
//! cluster's `outlier_detection` belong to the client and the callee's `[[service]]`: they are
//! printed as `--set` arguments. Envoy's defaults apply where the file is silent, as they do in
//! Envoy (docs/policies.md §13, "Envoy"); each such line says so.

use super::out::{Elsewhere, Imported, PolicyOut, Toml};
use super::read::{Ctx, Read, duration_text, policy_name};
use super::tree::{Node, Value};
use crate::time::NANOS_PER_MS;

/// Envoy's defaults (`route_components.proto`, `circuit_breaker.proto`, `backoff_strategy.cc`).
const ROUTE_TIMEOUT_NS: u64 = 15_000 * NANOS_PER_MS;
const NUM_RETRIES: u32 = 1;
const BASE_INTERVAL_NS: u64 = 25 * NANOS_PER_MS;
const MAX_REQUESTS: u32 = 1024;
const MAX_RETRIES: u32 = 3;
const BUDGET_PERCENT: f64 = 20.0;
const MIN_RETRY_CONCURRENCY: u32 = 3;

/// Keys that hold clusters or routes further down (a bootstrap's, a listener's).
const CONTAINERS: [&str; 9] = [
    "static_resources",
    "listeners",
    "filter_chains",
    "filters",
    "typed_config",
    "route_config",
    "resources",
    "clusters",
    "virtual_hosts",
];

struct Route<'a> {
    name: Option<String>,
    action: Option<&'a Node>,
    /// The virtual host's `retry_policy`, used when the route has none.
    vhost_retry: Option<&'a Node>,
}

#[derive(Default)]
struct Found<'a> {
    clusters: Vec<(String, &'a Node)>,
    routes: Vec<Route<'a>>,
}

pub fn import(ctx: &mut Ctx, root: &Node) -> Read<Imported> {
    let mut found = Found::default();
    walk(ctx, root, "", false, &mut found)?;
    if found.clusters.is_empty() && found.routes.is_empty() {
        return Err(ctx.error(
            root,
            "",
            "no Envoy cluster or route found: expected a bootstrap (`static_resources`), a route \
             configuration (`virtual_hosts`), a virtual host (`routes`), a route (`match` and \
             `route`) or a cluster (`circuit_breakers`, `outlier_detection`, `connect_timeout`)",
        ));
    }
    let mut clusters = Vec::new();
    for (name, node) in &found.clusters {
        clusters.push(read_cluster(ctx, name, node)?);
    }
    let mut out = Imported::default();
    let mut used = vec![false; clusters.len()];
    for (i, route) in found.routes.iter().enumerate() {
        let target = route
            .action
            .and_then(|a| field(a, "cluster"))
            .and_then(|n| match &n.value {
                Value::Text(s) => Some(s.clone()),
                _ => None,
            });
        let cluster = target
            .as_ref()
            .and_then(|t| clusters.iter().position(|c| &c.name == t));
        if let Some(c) = cluster {
            used[c] = true;
        }
        let name = route
            .name
            .clone()
            .or_else(|| target.clone())
            .unwrap_or_else(|| format!("route-{}", i + 1));
        let mut p = PolicyOut::new(&policy_name(&name));
        read_route(ctx, route, &mut p, &mut out.elsewhere)?;
        let defaults = ClusterOut::defaults(target.as_deref());
        apply_cluster(&mut p, cluster.map_or(&defaults, |c| &clusters[c]));
        out.policies.push(p);
    }
    for (c, cluster) in clusters.iter().enumerate() {
        if !used[c] {
            let mut p = PolicyOut::new(&policy_name(&cluster.name));
            apply_cluster(&mut p, cluster);
            out.policies.push(p);
        }
        out.elsewhere.extend(cluster.outlier.iter().cloned());
    }
    Ok(out)
}

fn field<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    node.entries()
        .iter()
        .find(|(k, _)| k.text == key)
        .map(|(_, v)| v)
}

fn has(node: &Node, keys: &[&str]) -> bool {
    keys.iter().any(|k| field(node, k).is_some())
}

fn looks_like_cluster(node: &Node) -> bool {
    has(
        node,
        &[
            "circuit_breakers",
            "outlier_detection",
            "connect_timeout",
            "load_assignment",
        ],
    )
}

fn walk<'a>(
    ctx: &mut Ctx,
    node: &'a Node,
    path: &str,
    in_clusters: bool,
    found: &mut Found<'a>,
) -> Read<()> {
    match &node.value {
        Value::List(items) => {
            for item in items {
                walk(ctx, item, path, in_clusters, found)?;
            }
            Ok(())
        }
        Value::Map(entries) => {
            if in_clusters || looks_like_cluster(node) {
                let name = match field(node, "name") {
                    Some(n) => ctx.text(n, &format!("{path}name"))?.to_string(),
                    None => format!("cluster-{}", found.clusters.len() + 1),
                };
                found.clusters.push((name, node));
                return Ok(());
            }
            if field(node, "routes").is_some() {
                return vhost(ctx, node, found);
            }
            if field(node, "match").is_some() || field(node, "route").is_some() {
                route_entry(ctx, node, None, found);
                return Ok(());
            }
            if has(node, &["retry_policy", "cluster", "timeout"]) {
                found.routes.push(Route {
                    name: None,
                    action: Some(node),
                    vhost_retry: None,
                });
                return Ok(());
            }
            for (k, v) in entries {
                if CONTAINERS.contains(&k.text.as_str()) {
                    let key = format!("{path}{}.", k.text);
                    walk(ctx, v, &key, k.text == "clusters", found)?;
                } else if !matches!(k.text.as_str(), "name" | "@type") {
                    ctx.skip(
                        v,
                        &format!("{path}{}", k.text),
                        "outside clusters and routes",
                    );
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn vhost<'a>(ctx: &mut Ctx, node: &'a Node, found: &mut Found<'a>) -> Read<()> {
    let retry = field(node, "retry_policy");
    for (k, v) in node.entries() {
        match k.text.as_str() {
            "routes" => {
                if let Value::List(items) = &v.value {
                    for r in items {
                        route_entry(ctx, r, retry, found);
                    }
                }
            }
            "retry_policy" | "name" => {}
            "hedge_policy" => ctx.skip(v, "virtual_hosts.hedge_policy", HEDGE),
            other => ctx.skip(v, &format!("virtual_hosts.{other}"), NOT_RESILIENCE),
        }
    }
    Ok(())
}

fn route_entry<'a>(
    ctx: &mut Ctx,
    node: &'a Node,
    vhost_retry: Option<&'a Node>,
    found: &mut Found<'a>,
) {
    for (k, v) in node.entries() {
        match k.text.as_str() {
            "route" | "name" => {}
            "match" => ctx.skip(v, "route.match", "request matching is not simulated"),
            other => ctx.skip(v, &format!("route.{other}"), NOT_RESILIENCE),
        }
    }
    let name = field(node, "name").and_then(|n| match &n.value {
        Value::Text(s) => Some(s.clone()),
        _ => None,
    });
    found.routes.push(Route {
        name,
        action: field(node, "route"),
        vhost_retry,
    });
}

const NOT_RESILIENCE: &str = "not a resilience setting cascade simulates";
const HEDGE: &str = "hedge_on_per_try_timeout (a per-try timeout that keeps the attempt running) is not simulated; cascade's `hedge` hedges on a delay";

fn read_route(
    ctx: &mut Ctx,
    route: &Route,
    p: &mut PolicyOut,
    elsewhere: &mut Vec<Elsewhere>,
) -> Read<()> {
    let mut timeout = None;
    let mut retry = route.vhost_retry.map(|r| (r, "virtual_hosts.retry_policy"));
    if let Some(action) = route.action {
        for (k, v) in action.entries() {
            let key = format!("route.{}", k.text);
            match k.text.as_str() {
                "cluster" => {}
                "timeout" => timeout = Some((ctx.proto_duration(v, &key)?, ctx.at(v))),
                "retry_policy" => retry = Some((v, "route.retry_policy")),
                "hedge_policy" => ctx.skip(v, &key, HEDGE),
                "idle_timeout" | "max_stream_duration" => {
                    ctx.skip(v, &key, "stream timeouts are not simulated")
                }
                _ => ctx.skip(v, &key, NOT_RESILIENCE),
            }
        }
    }
    match timeout {
        Some((0, at)) => ctx.skip_at(
            at,
            "route.timeout",
            "0s turns Envoy's route timeout off: give the client no `deadline`",
        ),
        Some((ns, at)) => elsewhere.push(Elsewhere {
            set: format!("client.<CLIENT>.deadline={}", duration_text(ns)),
            from: format!("route.timeout ({at}): covers every attempt and backoff"),
        }),
        None => elsewhere.push(Elsewhere {
            set: format!(
                "client.<CLIENT>.deadline={}",
                duration_text(ROUTE_TIMEOUT_NS)
            ),
            from: "route.timeout: Envoy's default, covers every attempt and backoff".into(),
        }),
    }
    if let Some((node, key)) = retry {
        read_retry(ctx, node, key, p)?;
    }
    Ok(())
}

fn read_retry(ctx: &mut Ctx, node: &Node, key: &str, p: &mut PolicyOut) -> Read<()> {
    let mut retries = None;
    let mut on: Option<(Vec<&'static str>, String)> = None;
    let mut codes: Option<&Node> = None;
    let mut wants_codes = false;
    let mut base = None;
    let mut max = None;
    let mut retry_after = None;
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
            "retry_host_predicate" | "host_selection_retry_max_attempts" => ctx.skip(
                v,
                &path,
                "each attempt goes through the balancer afresh; host predicates are not simulated",
            ),
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
    Ok(())
}

/// `retry_on`'s conditions as cascade outcome kinds (docs/policies.md §13), and whether
/// `retriable-status-codes` asks for the code list.
fn retry_on(ctx: &mut Ctx, node: &Node, path: &str, text: &str) -> Read<(Vec<&'static str>, bool)> {
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

fn status_codes(ctx: &mut Ctx, node: &Node, path: &str, kinds: &mut Vec<&'static str>) -> Read<()> {
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

/// What a cluster gives a policy, and the `--set` lines for its callee's outlier detector.
struct ClusterOut {
    name: String,
    max_requests: (u32, String),
    /// `retry_budget` (percent, min) if written, else `max_retries`.
    budget: Budget,
    outlier: Vec<Elsewhere>,
}

enum Budget {
    Percent(f64, u32, String),
    MaxRetries(u32, String),
}

impl ClusterOut {
    fn defaults(target: Option<&str>) -> ClusterOut {
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
        }
    }
}

fn read_cluster(ctx: &mut Ctx, name: &str, node: &Node) -> Read<ClusterOut> {
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
    };
    for (k, v) in node.entries() {
        let path = k.text.as_str();
        match path {
            "name" => {}
            "circuit_breakers" => circuit_breakers(ctx, v, &mut c)?,
            "outlier_detection" => outlier(ctx, v, &mut c)?,
            "connect_timeout" => ctx.skip(v, path, "connection setup is not simulated"),
            "health_checks" => ctx.skip(v, path, "active health checking is not simulated"),
            _ => ctx.skip(v, path, NOT_RESILIENCE),
        }
    }
    Ok(c)
}

fn circuit_breakers(ctx: &mut Ctx, node: &Node, c: &mut ClusterOut) -> Read<()> {
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

fn threshold(ctx: &mut Ctx, node: &Node, path: &str, c: &mut ClusterOut) -> Read<()> {
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
                if !matches!(c.budget, Budget::Percent(..)) {
                    c.budget = Budget::MaxRetries(ctx.count(v, &key)?, format!("{key} ({})", ctx.at(v)));
                }
            }
            "retry_budget" => {
                let mut percent = (BUDGET_PERCENT, "Envoy's default budget_percent".to_string());
                let mut min = (MIN_RETRY_CONCURRENCY, "Envoy's default min_retry_concurrency".to_string());
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
                c.budget = Budget::Percent(percent.0, min.0, format!("{key} ({}): {}, {}", ctx.at(v), percent.1, min.1));
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

fn outlier(ctx: &mut Ctx, node: &Node, c: &mut ClusterOut) -> Read<()> {
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

fn positive(ctx: &Ctx, v: &Node, key: &str) -> Read<u64> {
    match ctx.proto_duration(v, key)? {
        0 => Err(ctx.error(v, key, "must be longer than zero")),
        ns => Ok(ns),
    }
}

fn apply_cluster(p: &mut PolicyOut, c: &ClusterOut) {
    p.set(
        "bulkhead",
        "max_concurrent",
        Toml::Int(c.max_requests.0.into()),
        c.max_requests.1.clone(),
    );
    if !p.has_table("retry") {
        return;
    }
    let (percent, min, from) = match &c.budget {
        Budget::Percent(pct, min, from) => (*pct, *min, from.clone()),
        Budget::MaxRetries(n, from) => (0.0, *n, format!("{from}: retries in flight at most")),
    };
    p.set(
        "retry.budget",
        "kind",
        Toml::Str("concurrency".into()),
        from.clone(),
    );
    p.set(
        "retry.budget",
        "percent",
        Toml::Float(percent),
        from.clone(),
    );
    p.set("retry.budget", "min", Toml::Int(min.into()), from);
}
