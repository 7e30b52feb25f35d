//! `cascade export envoy`: a route part (`route.retry_policy`, under `routes[i]`) and a
//! cluster part (`circuit_breakers`), two YAML documents that `cascade import envoy` reads back
//! as one route and its cluster.

use super::yaml::{Doc, Y, render};
use super::{proto_seconds, retried};
use crate::model::{BudgetConfig, Policy};
use cascade_policy::outcome::Outcome;

/// The `previous_hosts` retry host predicate's typed config (v3).
const PREVIOUS_HOSTS_TYPE: &str =
    "type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate";

/// Writes `p`, already restricted to what Envoy expresses (`expressible`).
pub fn export(name: &str, p: &Policy) -> String {
    render(&documents(name, p))
}

/// The route part and the cluster part of `p`, as `export` writes them.
pub(super) fn documents(name: &str, p: &Policy) -> Vec<Doc> {
    let mut retry = Vec::new();
    if let Some(r) = &p.retry() {
        retry.push(("retry_on", Y::text(retry_on(&retried(p)))));
        let codes = status_codes(&retried(p));
        if !codes.is_empty() {
            retry.push((
                "retriable_status_codes",
                Y::List(codes.iter().map(Y::num).collect()),
            ));
        }
        retry.push(("num_retries", Y::num(r.attempts().saturating_sub(1))));
        if let Some(t) = p.timeout() {
            retry.push(("per_try_timeout", Y::text(proto_seconds(t.0))));
        }
        let b = &r.backoff();
        retry.push((
            "retry_back_off",
            Y::map(vec![
                ("base_interval", Y::text(proto_seconds(b.base().0))),
                ("max_interval", Y::text(proto_seconds(b.max().0))),
            ]),
        ));
        if r.retry_after() {
            let header = Y::map(vec![
                ("name", Y::text("Retry-After")),
                ("format", Y::text("SECONDS")),
            ]);
            retry.push((
                "rate_limited_retry_back_off",
                Y::map(vec![("reset_headers", Y::List(vec![header]))]),
            ));
        }
        if let Some(reselections) = r.other_host() {
            // Envoy finds the extension by its typed config's type; the name is descriptive.
            let predicate = Y::map(vec![
                (
                    "name",
                    Y::text("envoy.retry_host_predicates.previous_hosts"),
                ),
                (
                    "typed_config",
                    Y::map(vec![("@type", Y::text(PREVIOUS_HOSTS_TYPE))]),
                ),
            ]);
            retry.push(("retry_host_predicate", Y::List(vec![predicate])));
            retry.push(("host_selection_retry_max_attempts", Y::num(reselections)));
        }
    }
    let mut threshold = vec![("priority", Y::text("DEFAULT"))];
    if let Some(b) = &p.bulkhead() {
        threshold.push(("max_requests", Y::num(b.max_concurrent())));
    }
    match (&p.retry(), &p.budget()) {
        (Some(_), Some(BudgetConfig::Concurrency { percent, min })) if *percent == 0.0 => {
            threshold.push(("max_retries", Y::num(min)));
        }
        (Some(_), Some(BudgetConfig::Concurrency { percent, min })) => threshold.push((
            "retry_budget",
            Y::map(vec![
                (
                    "budget_percent",
                    Y::map(vec![("value", Y::num(percent * 100.0))]),
                ),
                ("min_retry_concurrency", Y::num(min)),
            ]),
        )),
        _ => {}
    }
    // The route timeout is the policy's `total_timeout`; without one, `0s` turns off the
    // 15 s Envoy would otherwise apply, which the policy does not have.
    let total = p.total_timeout().map_or(0, |t| t.0);
    let mut route = vec![
        ("cluster", Y::text(name)),
        ("timeout", Y::text(proto_seconds(total))),
    ];
    if !retry.is_empty() {
        route.push(("retry_policy", Y::map(retry)));
    }
    let route_doc = Y::map(vec![("name", Y::text(name)), ("route", Y::map(route))]);
    let cluster_doc = Y::map(vec![
        ("name", Y::text(name)),
        (
            "circuit_breakers",
            Y::map(vec![("thresholds", Y::List(vec![Y::map(threshold)]))]),
        ),
    ]);
    vec![
        Doc {
            comment: format!(
                "Route part: one entry of a virtual host's `routes` (policy `{name}`)."
            ),
            body: route_doc,
        },
        Doc {
            comment: format!("Cluster part: merge into cluster `{name}`."),
            body: cluster_doc,
        },
    ]
}

/// `retry_on` conditions whose import gives back exactly `kinds` (with `status_codes`).
fn retry_on(kinds: &[Outcome]) -> String {
    let mut conds = Vec::new();
    let has = |o| kinds.contains(&o);
    if has(Outcome::Internal) && has(Outcome::Unavailable) && has(Outcome::Timeout) {
        conds.push("5xx");
    } else if has(Outcome::Unavailable) && has(Outcome::Timeout) {
        conds.push("gateway-error");
    }
    if has(Outcome::Refused) {
        conds.extend(["reset", "connect-failure", "refused-stream"]);
    }
    if has(Outcome::DeadlineExceeded) {
        conds.push("deadline-exceeded");
    }
    if !status_codes(kinds).is_empty() {
        conds.push("retriable-status-codes");
    }
    conds.join(",")
}

/// HTTP codes for the kinds the conditions above leave out.
fn status_codes(kinds: &[Outcome]) -> Vec<u32> {
    let has = |o| kinds.contains(&o);
    let five = has(Outcome::Internal) && has(Outcome::Unavailable) && has(Outcome::Timeout);
    let gateway = !five && has(Outcome::Unavailable) && has(Outcome::Timeout);
    let mut codes = Vec::new();
    if has(Outcome::Overloaded) {
        codes.push(429);
    }
    if has(Outcome::Internal) && !five {
        codes.push(500);
    }
    if has(Outcome::Unavailable) && !five && !gateway {
        codes.push(503);
    }
    if has(Outcome::Timeout) && !five && !gateway {
        codes.push(504);
    }
    codes
}
