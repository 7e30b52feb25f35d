//! `cascade export envoy`: a route part (`route.retry_policy`, under `routes[i]`) and a
//! cluster part (`circuit_breakers`), two YAML documents that `cascade import envoy` reads back
//! as one route and its cluster.

use super::yaml::{Y, write};
use super::{note, note_common, proto_seconds, retried};
use crate::model::{BudgetConfig, Policy};
use crate::outcome::Outcome;
use crate::policy::backoff::{Jitter, Schedule};
use crate::policy::bulkhead::BulkheadRelease;
use crate::policy::retry::RetryAfterWait;

/// Envoy's default `max_requests`: a policy without a bulkhead has this cap in Envoy anyway.
const MAX_REQUESTS: u32 = 1024;

pub fn export(name: &str, p: &Policy, out: &mut Vec<String>) -> String {
    note_common(p, out);
    let mut retry = Vec::new();
    if let Some(r) = &p.retry {
        retry.push(("retry_on", Y::text(retry_on(&retried(p), out))));
        let codes = status_codes(&retried(p));
        if !codes.is_empty() {
            retry.push((
                "retriable_status_codes",
                Y::List(codes.iter().map(Y::num).collect()),
            ));
        }
        retry.push(("num_retries", Y::num(r.attempts.saturating_sub(1))));
        if let Some(t) = p.timeout {
            retry.push(("per_try_timeout", Y::text(proto_seconds(t))));
        }
        let b = &r.backoff;
        match b.schedule {
            Schedule::Exponential { multiplier: 2.0 } => {}
            _ => note(
                out,
                "retry.backoff",
                "Envoy's back-off doubles each interval (exponential, multiplier 2)",
            ),
        }
        if b.jitter != Jitter::Full {
            note(out, "retry.jitter", "Envoy's jitter is full jitter");
        }
        retry.push((
            "retry_back_off",
            Y::map(vec![
                (
                    "base_interval",
                    Y::text(proto_seconds(b.base.max(1_000_000))),
                ),
                (
                    "max_interval",
                    Y::text(proto_seconds(b.max.max(b.base).max(1_000_000))),
                ),
            ]),
        ));
        if b.base < 1_000_000 {
            note(
                out,
                "retry.base",
                "Envoy's base_interval is at least 1 ms: written as 1 ms",
            );
        }
        if r.retry_after {
            let header = Y::map(vec![
                ("name", Y::text("Retry-After")),
                ("format", Y::text("SECONDS")),
            ]);
            retry.push((
                "rate_limited_retry_back_off",
                Y::map(vec![("reset_headers", Y::List(vec![header]))]),
            ));
            if r.retry_after_wait == RetryAfterWait::Max {
                note(
                    out,
                    "retry.retry_after_wait",
                    "Envoy waits U[I, 1.5 I) after the header, not the longer of header and backoff",
                );
            }
        }
    } else if p.timeout.is_some() {
        note(
            out,
            "timeout",
            "Envoy's per-try timeout lives in a retry_policy; this policy has no retry",
        );
    }
    let mut threshold = vec![("priority", Y::text("DEFAULT"))];
    match &p.bulkhead {
        Some(b) => {
            threshold.push(("max_requests", Y::num(b.max_concurrent)));
            if b.queue > 0 {
                note(
                    out,
                    "bulkhead.queue",
                    "Envoy's max_requests has no queue (max_pending_requests waits for a connection)",
                );
            }
            if b.release == BulkheadRelease::Answer {
                note(
                    out,
                    "bulkhead.release",
                    "Envoy counts a request until its response, as `return` does",
                );
            }
        }
        None => threshold.push(("max_requests", Y::num(MAX_REQUESTS))),
    }
    match (&p.retry, &p.budget) {
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
        (Some(_), Some(_)) => note(
            out,
            "retry.budget",
            "Envoy's retry budget is a concurrency budget (kind = \"concurrency\")",
        ),
        (Some(_), None) => note(
            out,
            "retry.budget",
            "Envoy always caps retries in flight (max_retries, 3 by default); this policy has no cap",
        ),
        _ => {}
    }
    if p.breaker.is_some() {
        note(
            out,
            "breaker",
            "Envoy's circuit breakers are caps; its per-host breaker is outlier_detection, set on the service (`outlier`)",
        );
    }
    if p.throttle.is_some() {
        note(
            out,
            "throttle",
            "the admission control filter is an HTTP filter of the listener, not a route or cluster setting",
        );
    }
    if p.hedge.is_some() {
        note(
            out,
            "hedge",
            "Envoy hedges only on a per-try timeout (hedge_on_per_try_timeout)",
        );
    }
    if p.cancel {
        note(
            out,
            "cancel",
            "Envoy resets the upstream stream on a timeout anyway; whether the server stops is the server's",
        );
    }
    let mut route = vec![("cluster", Y::text(name))];
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
    let mut text =
        format!("# Route part: one entry of a virtual host's `routes` (policy `{name}`).\n");
    write(&mut text, &route_doc, 0);
    text.push_str(&format!(
        "---\n# Cluster part: merge into cluster `{name}`.\n"
    ));
    write(&mut text, &cluster_doc, 0);
    text
}

/// `retry_on` conditions whose import gives back exactly `kinds` (with `status_codes`).
fn retry_on(kinds: &[Outcome], out: &mut Vec<String>) -> String {
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
    for k in kinds {
        if matches!(k, Outcome::Shed) {
            note(
                out,
                "retry.on: shed",
                "no Envoy retry condition for a shed request",
            );
        }
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
