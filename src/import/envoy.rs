//! `cascade import envoy`: Envoy v3 clusters and routes (a bootstrap's `static_resources`, a
//! route configuration, a virtual host, a route or a cluster on its own), YAML or JSON.
//!
//! A route becomes a policy: `retry_policy` its `retry` and `timeout` (per try), the route's
//! `timeout` its `total_timeout`; the route's cluster gives `circuit_breakers` (the DEFAULT
//! priority's `max_requests` as a bulkhead, `retry_budget` or `max_retries` as a concurrency
//! budget). The cluster's `outlier_detection` belongs to the callee's `[[service]]`: it is
//! printed as `--set` arguments. Envoy's defaults apply where the file is silent, as they do in
//! Envoy (docs/policies.md §13, "Envoy"); each such line says so.

use super::envoy_cluster::*;
use super::envoy_retry::*;
use super::out::{Elsewhere, Imported, PolicyOut, Toml};
use super::read::{Ctx, Read, duration_text, policy_name};
use super::tree::{Node, Value};
use crate::time::NANOS_PER_MS;

/// Envoy's defaults (`route_components.proto`, `circuit_breaker.proto`, `backoff_strategy.cc`).
pub(super) const ROUTE_TIMEOUT_NS: u64 = 15_000 * NANOS_PER_MS;
pub(super) const NUM_RETRIES: u32 = 1;
pub(super) const BASE_INTERVAL_NS: u64 = 25 * NANOS_PER_MS;
pub(super) const MAX_REQUESTS: u32 = 1024;
pub(super) const MAX_RETRIES: u32 = 3;
pub(super) const BUDGET_PERCENT: f64 = 20.0;
pub(super) const MIN_RETRY_CONCURRENCY: u32 = 3;

/// Keys that hold clusters or routes further down (a bootstrap's, a listener's).
pub(super) const CONTAINERS: [&str; 9] = [
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

pub(super) struct Route<'a> {
    name: Option<String>,
    action: Option<&'a Node>,
    /// The virtual host's `retry_policy`, used when the route has none.
    vhost_retry: Option<&'a Node>,
}

#[derive(Default)]
pub(super) struct Found<'a> {
    clusters: Vec<(String, &'a Node)>,
    routes: Vec<Route<'a>>,
    /// `--set` lines of the local rate limit filters met (`envoy_rate_limit.rs`).
    rate_limits: Vec<Elsewhere>,
}

pub fn import(ctx: &mut Ctx, root: &Node) -> Read<Imported> {
    let mut found = Found::default();
    walk(ctx, root, "", false, &mut found)?;
    if found.clusters.is_empty() && found.routes.is_empty() && found.rate_limits.is_empty() {
        return Err(ctx.error(
            root,
            "",
            "no Envoy cluster or route found: expected a bootstrap (`static_resources`), a route \
             configuration (`virtual_hosts`), a virtual host (`routes`), a route (`match` and \
             `route`) or a cluster (`circuit_breakers`, `outlier_detection`, `connect_timeout`, `lb_policy`)",
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
        read_route(ctx, route, &mut p)?;
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
        out.elsewhere.extend(cluster.balancer.iter().cloned());
    }
    out.elsewhere.extend(found.rate_limits);
    Ok(out)
}

pub(super) fn field<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    node.entries()
        .iter()
        .find(|(k, _)| k.text == key)
        .map(|(_, v)| v)
}

pub(super) fn has(node: &Node, keys: &[&str]) -> bool {
    keys.iter().any(|k| field(node, k).is_some())
}

pub(super) fn looks_like_cluster(node: &Node) -> bool {
    has(
        node,
        &[
            "circuit_breakers",
            "outlier_detection",
            "connect_timeout",
            "load_assignment",
            "lb_policy",
            "round_robin_lb_config",
            "least_request_lb_config",
        ],
    )
}

pub(super) fn walk<'a>(
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
                if k.text == "http_filters" {
                    // An HTTP connection manager's filters: its local rate limit is the
                    // admission limit of the service behind the listener.
                    super::envoy_rate_limit::http_filters(ctx, v, node, &mut found.rate_limits)?;
                } else if CONTAINERS.contains(&k.text.as_str()) {
                    let key = format!("{path}{}.", k.text);
                    walk(ctx, v, &key, k.text == "clusters", found)?;
                } else if !(matches!(k.text.as_str(), "name" | "@type")
                    || k.text == "stat_prefix"
                        && super::envoy_rate_limit::stat_prefix_names_service(node))
                {
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

pub(super) fn vhost<'a>(ctx: &mut Ctx, node: &'a Node, found: &mut Found<'a>) -> Read<()> {
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

pub(super) fn route_entry<'a>(
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

pub(super) const NOT_RESILIENCE: &str = "not a resilience setting cascade simulates";
pub(super) const HEDGE: &str = "hedge_on_per_try_timeout (a per-try timeout that keeps the attempt running) is not simulated; cascade's `hedge` hedges on a delay";

pub(super) fn read_route(ctx: &mut Ctx, route: &Route, p: &mut PolicyOut) -> Read<()> {
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
    // The route timeout bounds the call's every attempt and backoff: the policy's own
    // `total_timeout`, whichever caller (a client or a service) calls through the route.
    match timeout {
        Some((0, at)) => ctx.skip_at(
            at,
            "route.timeout",
            "0s turns Envoy's route timeout off: no `total_timeout`",
        ),
        Some((ns, at)) => p.set(
            "",
            "total_timeout",
            Toml::Str(duration_text(ns)),
            format!("route.timeout ({at}): covers every attempt and backoff"),
        ),
        None => p.set(
            "",
            "total_timeout",
            Toml::Str(duration_text(ROUTE_TIMEOUT_NS)),
            "route.timeout: Envoy's default, covers every attempt and backoff",
        ),
    }
    if let Some((node, key)) = retry {
        read_retry(ctx, node, key, p)?;
    }
    Ok(())
}
