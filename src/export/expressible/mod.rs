//! What each format expresses, defined once: `expressible(format, policy)` is the policy as
//! `cascade import` of what `cascade export` writes compiles back (docs/import.md, "Export").
//! Every setting it changes or drops is listed, with the reason, in `unexpressed`; the
//! writers (`envoy.rs`, `grpc.rs`, `resilience4j.rs`) then write the restricted policy as it
//! is, and tests/suite/export.rs checks import(export(p)) == expressible(p) for every policy of
//! scenarios/ in every format.

mod envoy;
mod grpc;
mod resilience4j;

use super::retried;
use crate::import::Format;
use crate::model::Policy;
use cascade_policy::Nanos;
use cascade_policy::outcome::Outcome;
use cascade_policy::outcome::OutcomeSet;
pub(crate) use resilience4j::{R4J_NO_CAP, R4J_UNBOUNDED_QUEUE};

const MS: Nanos = Nanos::from_ms(1);
const S: Nanos = Nanos::from_secs(1);

/// A policy restricted to what a format expresses, and what was left out or changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Restricted {
    pub policy: Policy,
    /// `` `key`: reason ``, one per setting not written as it is.
    pub unexpressed: Vec<String>,
    /// None of the policy's own settings is left (what remains is the format's own defaults,
    /// or nothing): export refuses it rather than write a config that says nothing.
    pub nothing_left: bool,
}

/// `policy` as `format` can say it: the definition of "restricted to what the format
/// expresses".
pub fn expressible(format: Format, policy: &Policy) -> Restricted {
    let mut notes = Notes(Vec::new());
    let mut q = policy.clone();
    common(&mut q, &mut notes);
    match format {
        Format::Envoy => envoy::restrict(&mut q, &mut notes),
        Format::Grpc => grpc::restrict(&mut q, &mut notes),
        Format::Resilience4j => resilience4j::restrict(&mut q, &mut notes),
    }
    let own_bulkhead = policy.bulkhead.is_some() && q.bulkhead.is_some();
    let kept = q.timeout.is_some()
        || q.total_timeout.is_some()
        || q.retry.is_some()
        || q.breaker.is_some()
        || q.hedge.is_some()
        || q.cancel
        || own_bulkhead;
    Restricted {
        policy: q,
        unexpressed: notes.0,
        nothing_left: !kept,
    }
}

struct Notes(Vec<String>);

impl Notes {
    fn add(&mut self, key: &str, reason: &str) {
        self.0.push(format!("`{key}`: {reason}"));
    }
}

/// The policy-wide keys none of the formats has.
fn common(q: &mut Policy, n: &mut Notes) {
    if q.reserve > Nanos::ZERO {
        q.reserve = Nanos::ZERO;
        n.add(
            "reserve",
            "no library keeps time back from the caller's deadline",
        );
    }
    if q.min_attempt > Nanos::ZERO {
        q.min_attempt = Nanos::ZERO;
        n.add(
            "min_attempt",
            "no library refuses an attempt for lack of time left",
        );
    }
    if !q.propagate_deadline {
        q.propagate_deadline = true;
        n.add(
            "propagate_deadline",
            "a fresh context per call is the application's choice, not a setting",
        );
    }
    if q.limit.take().is_some() {
        n.add(
            "limit",
            "adaptive concurrency limits are Netflix concurrency-limits', not this library's",
        );
    }
    if q.fallback.take().is_some() {
        n.add(
            "fallback",
            "a fallback is code (a decorator or a handler), not a setting",
        );
    }
    if q.failure_accrual.take().is_some() {
        n.add(
            "failure_accrual",
            "failure accrual is Finagle's, not this library's",
        );
    }
    if let Some(r) = &mut q.retry
        && r.timeout.take().is_some()
    {
        n.add("retry.timeout", "no separate timeout for retries");
    }
}

/// Drops `kinds` not in `keep` from the retry's `on`, noting each.
fn keep_kinds(q: &mut Policy, keep: &[Outcome], n: &mut Notes, reason: &str) {
    for kind in retried(q) {
        if !keep.contains(&kind) {
            n.add(&format!("retry.on: {}", kind.name()), reason);
        }
    }
    if let Some(r) = &mut q.retry {
        r.on = r.on.intersection(OutcomeSet::of(keep));
    }
}

/// Turns `retry.other_host` off, noting why: only Envoy's retry says which host a retry avoids.
fn drop_other_host(q: &mut Policy, n: &mut Notes, reason: &str) {
    if let Some(r) = &mut q.retry
        && r.other_host.take().is_some()
    {
        n.add("retry.other_host", reason);
    }
}

fn drop_part<T>(part: &mut Option<T>, key: &str, n: &mut Notes, reason: &str) {
    if part.take().is_some() {
        n.add(key, reason);
    }
}
