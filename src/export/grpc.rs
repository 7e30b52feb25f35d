//! `cascade export grpc`: a service config (JSON) with one `methodConfig` for the policy's
//! service name and, for a token-bucket budget, `retryThrottling`.

use super::{proto_seconds, retried};
use crate::model::{BudgetConfig, HedgeDelay, Policy};
use cascade_policy::backoff::Schedule;
use cascade_policy::outcome::Outcome;
use serde_json::{Map, Value, json};

/// Writes `p`, already restricted to what gRPC expresses (`expressible`).
pub fn export(name: &str, p: &Policy) -> String {
    let mut method = Map::new();
    method.insert("name".into(), json!([{ "service": name }]));
    // The method's timeout: the call's own deadline over every attempt and hedge.
    if let Some(t) = p.total_timeout() {
        method.insert("timeout".into(), json!(proto_seconds(t.0)));
    }
    let retrying = p.retry().filter(|r| r.attempts() > 1);
    if let Some(r) = retrying {
        let b = &r.backoff();
        // `expressible` has made every schedule exponential (a constant wait grows by 1).
        let multiplier = match b.schedule() {
            Schedule::Exponential { multiplier } => multiplier,
            Schedule::Constant | Schedule::Linear => 1.0,
        };
        let codes: Vec<&str> = retried(p)
            .into_iter()
            .filter_map(|k| match k {
                Outcome::Unavailable => Some("UNAVAILABLE"),
                Outcome::Overloaded => Some("RESOURCE_EXHAUSTED"),
                Outcome::Internal => Some("INTERNAL"),
                Outcome::DeadlineExceeded => Some("DEADLINE_EXCEEDED"),
                _ => None,
            })
            .collect();
        let mut retry = json!({
            "maxAttempts": r.attempts(),
            "initialBackoff": proto_seconds(b.base().0),
            "maxBackoff": proto_seconds(b.max().0),
            "backoffMultiplier": multiplier,
            "retryableStatusCodes": codes,
        });
        // A field of the RetryPolicy message (A6), not of the method config.
        if let Some(t) = p.timeout() {
            retry["perAttemptRecvTimeout"] = json!(proto_seconds(t.0));
        }
        method.insert("retryPolicy".into(), retry);
    }
    if let Some(h) = &p.hedge()
        && let HedgeDelay::Fixed(d) = h.delay()
    {
        method.insert(
            "hedgingPolicy".into(),
            json!({ "maxAttempts": h.max() + 1, "hedgingDelay": proto_seconds(d.0) }),
        );
    }
    let mut config = Map::new();
    config.insert(
        "methodConfig".into(),
        Value::Array(vec![Value::Object(method)]),
    );
    if let Some(BudgetConfig::TokenBucket {
        max_tokens,
        token_ratio,
    }) = &p.budget()
    {
        config.insert(
            "retryThrottling".into(),
            json!({ "maxTokens": max_tokens, "tokenRatio": token_ratio }),
        );
    }
    serde_json::to_string_pretty(&Value::Object(config)).expect("JSON values print") + "\n"
}
