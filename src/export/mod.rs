//! `cascade export`: a compiled policy written back in a library's format (Envoy's route and
//! cluster parts, a gRPC service config, resilience4j Spring Boot YAML), the inverse of
//! `cascade::import`'s mappings (docs/policies.md §13), plus the list of what the format cannot
//! express. `import` of what `export` writes gives back the same keys (tests/suite/export.rs).

pub mod envoy;
pub mod grpc;
pub mod resilience4j;
mod yaml;

use crate::import::Format;
use crate::model::Policy;
use crate::outcome::Outcome;

/// A policy in a library's format, and what that format cannot say.
pub struct Exported {
    pub text: String,
    /// `key: reason`, one per setting not written.
    pub unexpressed: Vec<String>,
}

/// Writes `policy` (named `name`) as `format`.
pub fn export(format: Format, name: &str, policy: &Policy) -> Exported {
    let mut out = Vec::new();
    let text = match format {
        Format::Envoy => envoy::export(name, policy, &mut out),
        Format::Grpc => grpc::export(name, policy, &mut out),
        Format::Resilience4j => resilience4j::export(name, policy, &mut out),
    };
    Exported {
        text,
        unexpressed: out,
    }
}

/// The outcome kinds a retry retries, in `Outcome::ALL`'s order.
pub(crate) fn retried(policy: &Policy) -> Vec<Outcome> {
    policy.retry.as_ref().map_or_else(Vec::new, |r| {
        Outcome::ALL
            .iter()
            .copied()
            .filter(|o| r.retries(*o))
            .collect()
    })
}

/// Seconds as protobuf JSON writes a Duration (`"0.25s"`).
pub(crate) fn proto_seconds(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let frac = ns % 1_000_000_000;
    if frac == 0 {
        format!("{secs}s")
    } else {
        let digits = format!("{frac:09}");
        format!("{secs}.{}s", digits.trim_end_matches('0'))
    }
}

/// The parts every format leaves out, noted once (breaker, throttle, … as each format says).
pub(crate) fn note(out: &mut Vec<String>, key: &str, reason: &str) {
    out.push(format!("`{key}`: {reason}"));
}

/// Notes the policy-wide keys none of the formats has.
pub(crate) fn note_common(p: &Policy, out: &mut Vec<String>) {
    if p.reserve > 0 {
        note(
            out,
            "reserve",
            "no library keeps time back from the caller's deadline",
        );
    }
    if p.min_attempt > 0 {
        note(
            out,
            "min_attempt",
            "no library refuses an attempt for lack of time left",
        );
    }
    if p.ignores_caller_deadline {
        note(
            out,
            "propagate_deadline",
            "a fresh context per call is the application's choice, not a setting",
        );
    }
    if p.limit.is_some() {
        note(
            out,
            "limit",
            "adaptive concurrency limits are Netflix concurrency-limits', not this library's",
        );
    }
    if p.fallback.is_some() {
        note(
            out,
            "fallback",
            "a fallback is code (a decorator or a handler), not a setting",
        );
    }
    if p.retry.as_ref().is_some_and(|r| r.timeout.is_some()) {
        note(out, "retry.timeout", "no separate timeout for retries");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn proto_seconds_are_exact() {
        assert_eq!(super::proto_seconds(250_000_000), "0.25s");
        assert_eq!(super::proto_seconds(15_000_000_000), "15s");
        assert_eq!(super::proto_seconds(1), "0.000000001s");
    }
}
