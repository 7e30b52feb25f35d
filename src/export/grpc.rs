//! `cascade export grpc`: a service config (JSON) with one `methodConfig` for the policy's
//! service name and, for a token-bucket budget, `retryThrottling`.

use super::{note, note_common, proto_seconds, retried};
use crate::model::{BudgetConfig, HedgeDelay, Policy};
use crate::outcome::Outcome;
use crate::policy::backoff::{Jitter, Schedule};
use serde_json::{Map, Value, json};

/// gRPC clamps `maxAttempts` to this (A6).
const MAX_ATTEMPTS: u32 = 5;

pub fn export(name: &str, p: &Policy, out: &mut Vec<String>) -> String {
    note_common(p, out);
    let mut method = Map::new();
    method.insert("name".into(), json!([{ "service": name }]));
    if let Some(t) = p.timeout {
        method.insert("perAttemptRecvTimeout".into(), json!(proto_seconds(t)));
    }
    let retrying = p.retry.as_ref().filter(|r| r.attempts > 1);
    if let Some(r) = retrying {
        let attempts = r.attempts.min(MAX_ATTEMPTS);
        if r.attempts > MAX_ATTEMPTS {
            note(out, "retry.attempts", "gRPC clamps maxAttempts to 5");
        }
        let b = &r.backoff;
        let (multiplier, max) = match b.schedule {
            Schedule::Exponential { multiplier } => (multiplier, b.max),
            // A constant wait is exponential growth by 1.
            Schedule::Constant => (1.0, b.base),
            Schedule::Linear => {
                note(
                    out,
                    "retry.backoff",
                    "gRPC's backoff is exponential (linear is not expressible)",
                );
                (1.0, b.max)
            }
        };
        if b.jitter != (Jitter::Proportional { factor: 0.2 }) {
            note(
                out,
                "retry.jitter",
                "gRPC's jitter is ×U(0.8, 1.2) (proportional, 0.2)",
            );
        }
        if !r.retry_after {
            note(
                out,
                "retry.retry_after",
                "gRPC always honours grpc-retry-pushback-ms",
            );
        }
        let mut codes = Vec::new();
        for k in retried(p) {
            match k {
                Outcome::Unavailable => codes.push("UNAVAILABLE"),
                Outcome::Overloaded => codes.push("RESOURCE_EXHAUSTED"),
                Outcome::Internal => codes.push("INTERNAL"),
                Outcome::DeadlineExceeded => codes.push("DEADLINE_EXCEEDED"),
                other => note(
                    out,
                    &format!("retry.on: {}", other.name()),
                    "no gRPC status stands for it",
                ),
            }
        }
        // A6 refuses a retryPolicy without a positive initialBackoff or with no status to
        // retry: written anyway, closest to the policy, and said.
        if b.base == 0 {
            note(
                out,
                "retry.base",
                "gRPC requires initialBackoff and maxBackoff > 0: 1 ns is written for 0",
            );
        }
        if codes.is_empty() {
            note(
                out,
                "retry.on",
                "gRPC requires at least one retryableStatusCode, and none of these is one: the config will be refused as written",
            );
        }
        method.insert(
            "retryPolicy".into(),
            json!({
                "maxAttempts": attempts,
                "initialBackoff": proto_seconds(b.base.max(1)),
                "maxBackoff": proto_seconds(max.max(b.base).max(1)),
                "backoffMultiplier": multiplier,
                "retryableStatusCodes": codes,
            }),
        );
    }
    if let Some(h) = &p.hedge {
        if retrying.is_some() {
            note(
                out,
                "hedge",
                "gRPC takes a retryPolicy or a hedgingPolicy, not both: the retry is written",
            );
        } else {
            match h.delay {
                HedgeDelay::Fixed(d) => {
                    method.insert(
                        "hedgingPolicy".into(),
                        json!({ "maxAttempts": h.max + 1, "hedgingDelay": proto_seconds(d) }),
                    );
                }
                HedgeDelay::Percentile(_) => {
                    note(out, "hedge.delay", "gRPC's hedgingDelay is fixed")
                }
            }
            if h.budget.is_some() {
                note(
                    out,
                    "hedge.budget",
                    "gRPC throttles hedges with retryThrottling only",
                );
            }
        }
    }
    let mut config = Map::new();
    config.insert(
        "methodConfig".into(),
        Value::Array(vec![Value::Object(method)]),
    );
    match &p.budget {
        Some(BudgetConfig::TokenBucket {
            max_tokens,
            token_ratio,
        }) => {
            config.insert(
                "retryThrottling".into(),
                json!({ "maxTokens": max_tokens, "tokenRatio": token_ratio }),
            );
        }
        Some(_) => note(
            out,
            "retry.budget",
            "gRPC's budget is retryThrottling (kind = \"token_bucket\")",
        ),
        None => {}
    }
    for (part, there) in [
        ("breaker", p.breaker.is_some()),
        ("bulkhead", p.bulkhead.is_some()),
        ("throttle", p.throttle.is_some()),
    ] {
        if there {
            note(out, part, "a gRPC service config has no such setting");
        }
    }
    if p.cancel {
        note(
            out,
            "cancel",
            "cancellation reaches the server through its Context, not a setting",
        );
    }
    serde_json::to_string_pretty(&Value::Object(config)).expect("JSON values print") + "\n"
}
