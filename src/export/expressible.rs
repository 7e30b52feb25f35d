//! What each format expresses, defined once: `expressible(format, policy)` is the policy as
//! `cascade import` of what `cascade export` writes compiles back (docs/import.md, "Export").
//! Every setting it changes or drops is listed, with the reason, in `unexpressed`; the
//! writers (`envoy.rs`, `grpc.rs`, `resilience4j.rs`) then write the restricted policy as it
//! is, and tests/suite/export.rs checks import(export(p)) == expressible(p) for every policy of
//! scenarios/ in every format.

use super::retried;
use crate::import::Format;
use crate::model::{BreakerScope, BudgetConfig, HedgeDelay, Policy, Wraps};
use crate::outcome::Outcome;
use crate::policy::backoff::{Jitter, Schedule};
use crate::policy::breaker::Window;
use crate::policy::bulkhead::{BulkheadConfig, BulkheadRelease};
use crate::policy::retry::{RetryAfterWait, outcome_set};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;
/// Envoy's default `max_requests`: a policy without a bulkhead has this cap in Envoy anyway.
pub(crate) const ENVOY_MAX_REQUESTS: u32 = 1024;
/// Envoy's default `max_retries`, the cap on retries in flight a cluster always has.
const ENVOY_MAX_RETRIES: u32 = 3;
/// Envoy's smallest `base_interval`.
const ENVOY_MIN_BASE: u64 = MS;
/// gRPC clamps `maxAttempts` to this (A6).
pub(crate) const GRPC_MAX_ATTEMPTS: u32 = 5;
/// The queue import writes for a semaphore bulkhead's unbounded waiters.
pub(crate) const R4J_UNBOUNDED_QUEUE: u32 = 1000;
/// The wait import writes for a thread-pool bulkhead's queued task (no limit but the deadline).
const R4J_THREAD_POOL_WAIT: u64 = 3600 * S;
/// What import writes for resilience4j's "no cap": a day.
pub(crate) const R4J_NO_CAP: u64 = 86_400 * S;
/// The kinds a resilience4j retry retries: every exception.
pub(crate) const R4J_RETRIED: [Outcome; 5] = [
    Outcome::Timeout,
    Outcome::Unavailable,
    Outcome::Overloaded,
    Outcome::Internal,
    Outcome::Refused,
];

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
        Format::Envoy => envoy(&mut q, &mut notes),
        Format::Grpc => grpc(&mut q, &mut notes),
        Format::Resilience4j => resilience4j(&mut q, &mut notes),
    }
    let own_bulkhead = policy.bulkhead.is_some() && q.bulkhead.is_some();
    let kept = q.timeout.is_some()
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
    if q.reserve > 0 {
        q.reserve = 0;
        n.add(
            "reserve",
            "no library keeps time back from the caller's deadline",
        );
    }
    if q.min_attempt > 0 {
        q.min_attempt = 0;
        n.add(
            "min_attempt",
            "no library refuses an attempt for lack of time left",
        );
    }
    if q.ignores_caller_deadline {
        q.ignores_caller_deadline = false;
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
        r.on &= outcome_set(keep);
    }
}

fn drop_part<T>(part: &mut Option<T>, key: &str, n: &mut Notes, reason: &str) {
    if part.take().is_some() {
        n.add(key, reason);
    }
}

fn envoy(q: &mut Policy, n: &mut Notes) {
    let has_retry = q.retry.is_some();
    if has_retry {
        keep_kinds(
            q,
            &[
                Outcome::Timeout,
                Outcome::DeadlineExceeded,
                Outcome::Unavailable,
                Outcome::Overloaded,
                Outcome::Internal,
                Outcome::Refused,
            ],
            n,
            "no Envoy retry condition stands for it",
        );
    }
    if let Some(r) = &mut q.retry {
        let b = &mut r.backoff;
        if b.schedule != (Schedule::Exponential { multiplier: 2.0 }) {
            b.schedule = Schedule::Exponential { multiplier: 2.0 };
            n.add(
                "retry.backoff",
                "Envoy's back-off doubles each interval (exponential, multiplier 2)",
            );
        }
        if b.jitter != Jitter::Full {
            b.jitter = Jitter::Full;
            n.add("retry.jitter", "Envoy's jitter is full jitter");
        }
        if b.base < ENVOY_MIN_BASE {
            b.base = ENVOY_MIN_BASE;
            n.add(
                "retry.base",
                "Envoy's base_interval is at least 1 ms: written as 1 ms",
            );
        }
        b.max = b.max.max(b.base);
        if r.retry_after && r.retry_after_wait == RetryAfterWait::Max {
            n.add(
                "retry.retry_after_wait",
                "Envoy waits U[I, 1.5 I) after the header, not the longer of header and backoff",
            );
        }
        r.retry_after_wait = RetryAfterWait::default();
        match &q.budget {
            Some(BudgetConfig::Concurrency { .. }) => {}
            other => {
                n.add(
                    "retry.budget",
                    if other.is_some() {
                        "Envoy's retry budget is a concurrency budget (kind = \"concurrency\"): its default cap, max_retries 3, is written"
                    } else {
                        "Envoy always caps retries in flight (max_retries, 3 by default); this policy has no cap"
                    },
                );
                q.budget = Some(BudgetConfig::Concurrency {
                    percent: 0.0,
                    min: ENVOY_MAX_RETRIES,
                });
            }
        }
    } else {
        q.budget = None;
        if q.timeout.take().is_some() {
            n.add(
                "timeout",
                "Envoy's per-try timeout lives in a retry_policy; this policy has no retry",
            );
        }
    }
    let cap = q.bulkhead.as_ref().map(|b| b.max_concurrent);
    if let Some(b) = &q.bulkhead {
        if b.queue > 0 {
            n.add(
                "bulkhead.queue",
                "Envoy's max_requests has no queue (max_pending_requests waits for a connection)",
            );
        }
        if b.release == BulkheadRelease::Answer {
            n.add(
                "bulkhead.release",
                "Envoy counts a request until its response, as `return` does",
            );
        }
        if b.wraps == Wraps::Call {
            n.add(
                "bulkhead.wraps",
                "Envoy's max_requests counts each request to the cluster, retries included",
            );
        }
        if b.pool.is_some() {
            n.add(
                "bulkhead.pool",
                "a cluster's circuit breakers are the cluster's own",
            );
        }
    }
    q.bulkhead = Some(plain_bulkhead(cap.unwrap_or(ENVOY_MAX_REQUESTS)));
    drop_part(
        &mut q.breaker,
        "breaker",
        n,
        "Envoy's circuit breakers are caps; its per-host breaker is outlier_detection, set on the service (`outlier`)",
    );
    drop_part(
        &mut q.throttle,
        "throttle",
        n,
        "the admission control filter is an HTTP filter of the listener, not a route or cluster setting",
    );
    drop_part(
        &mut q.hedge,
        "hedge",
        n,
        "Envoy hedges only on a per-try timeout (hedge_on_per_try_timeout)",
    );
    if q.cancel {
        q.cancel = false;
        n.add(
            "cancel",
            "Envoy resets the upstream stream on a timeout anyway; whether the server stops is the server's",
        );
    }
}

/// A bulkhead of `max_concurrent` permits and nothing else (cascade's defaults).
fn plain_bulkhead(max_concurrent: u32) -> BulkheadConfig {
    BulkheadConfig {
        max_concurrent,
        queue: 0,
        max_wait: 0,
        release: BulkheadRelease::default(),
        wraps: Wraps::default(),
        pool: None,
    }
}

fn grpc(q: &mut Policy, n: &mut Notes) {
    let retries = q.retry.as_ref().is_some_and(|r| r.attempts > 1);
    if retries {
        keep_kinds(
            q,
            &[
                Outcome::DeadlineExceeded,
                Outcome::Unavailable,
                Outcome::Overloaded,
                Outcome::Internal,
            ],
            n,
            "no gRPC status stands for it",
        );
        if q.retry.as_ref().is_some_and(|r| r.on == 0) {
            // A6 refuses a retryPolicy with no status to retry.
            q.retry = None;
            n.add(
                "retry",
                "gRPC requires at least one retryableStatusCode, and none of the kinds it retries has one",
            );
        }
    }
    if let Some(r) = q.retry.as_mut().filter(|r| r.attempts > 1) {
        if r.attempts > GRPC_MAX_ATTEMPTS {
            r.attempts = GRPC_MAX_ATTEMPTS;
            n.add("retry.attempts", "gRPC clamps maxAttempts to 5");
        }
        let b = &mut r.backoff;
        match b.schedule {
            Schedule::Exponential { .. } => {}
            // A constant wait is exponential growth by 1.
            Schedule::Constant => {
                b.schedule = Schedule::Exponential { multiplier: 1.0 };
                b.max = b.base;
            }
            Schedule::Linear => {
                b.schedule = Schedule::Exponential { multiplier: 1.0 };
                n.add(
                    "retry.backoff",
                    "gRPC's backoff is exponential (linear is not expressible): growth by 1 is written",
                );
            }
        }
        if b.jitter != (Jitter::Proportional { factor: 0.2 }) {
            b.jitter = Jitter::Proportional { factor: 0.2 };
            n.add(
                "retry.jitter",
                "gRPC's jitter is ×U(0.8, 1.2) (proportional, 0.2)",
            );
        }
        if b.base == 0 {
            b.base = 1;
            n.add(
                "retry.base",
                "gRPC requires initialBackoff and maxBackoff > 0: 1 ns is written for 0",
            );
        }
        b.max = b.max.max(b.base);
        if !r.retry_after {
            r.retry_after = true;
            n.add(
                "retry.retry_after",
                "gRPC always honours grpc-retry-pushback-ms",
            );
        }
        if r.retry_after_wait == RetryAfterWait::Max {
            r.retry_after_wait = RetryAfterWait::default();
            n.add(
                "retry.retry_after_wait",
                "gRPC waits the pushback instead of the backoff, not the longer of the two",
            );
        }
    }
    if q.retry.as_ref().is_none_or(|r| r.attempts <= 1) && q.timeout.take().is_some() {
        n.add(
            "timeout",
            "gRPC's per-attempt timeout (perAttemptRecvTimeout) is a field of a retryPolicy; this policy has none",
        );
    }
    hedge_grpc(q, n);
    match &q.budget {
        Some(BudgetConfig::TokenBucket { .. }) | None => {}
        Some(_) => {
            q.budget = None;
            n.add(
                "retry.budget",
                "gRPC's budget is retryThrottling (kind = \"token_bucket\")",
            );
        }
    }
    throttling_grpc(q, n);
    for (part, there) in [
        ("breaker", q.breaker.take().is_some()),
        ("bulkhead", q.bulkhead.take().is_some()),
        ("throttle", q.throttle.take().is_some()),
    ] {
        if there {
            n.add(part, "a gRPC service config has no such setting");
        }
    }
    if q.cancel {
        q.cancel = false;
        n.add(
            "cancel",
            "cancellation reaches the server through its Context, not a setting",
        );
    }
}

/// retryThrottling is the service config's, shared by every retry and hedge of it: a method
/// that only hedges carries it in a one-attempt retry (as import writes it), a hedge under it
/// is throttled by it, and without either there is nothing for it to throttle.
fn throttling_grpc(q: &mut Policy, n: &mut Notes) {
    if q.budget.is_none() {
        return;
    }
    let retries = q.retry.as_ref().is_some_and(|r| r.attempts > 1);
    match &mut q.hedge {
        Some(h) => {
            if !h.uses_retry_budget {
                h.uses_retry_budget = true;
                n.add(
                    "hedge.uses_retry_budget",
                    "gRPC's retryThrottling throttles hedges as well as retries",
                );
            }
            if !retries {
                q.retry = Some(crate::scenario::single_attempt_retry());
            }
        }
        None if !retries => {
            q.budget = None;
            q.retry = None;
            n.add(
                "retry.budget",
                "retryThrottling throttles retries and hedges, and this policy has neither",
            );
        }
        None => {}
    }
}

fn hedge_grpc(q: &mut Policy, n: &mut Notes) {
    let retries = q.retry.as_ref().is_some_and(|r| r.attempts > 1);
    let Some(h) = &mut q.hedge else { return };
    if retries {
        q.hedge = None;
        n.add(
            "hedge",
            "gRPC takes a retryPolicy or a hedgingPolicy, not both: the retry is written",
        );
        return;
    }
    if let HedgeDelay::Percentile(_) = h.delay {
        q.hedge = None;
        n.add("hedge.delay", "gRPC's hedgingDelay is fixed");
        return;
    }
    if h.budget.take().is_some() {
        n.add(
            "hedge.budget",
            "gRPC throttles hedges with retryThrottling only",
        );
    }
}

fn resilience4j(q: &mut Policy, n: &mut Notes) {
    if let Some(b) = &mut q.breaker {
        let c = &mut b.config;
        if let Window::Time(ns) = c.window {
            let whole = (ns / S).max(1) * S;
            if whole != ns {
                c.window = Window::Time(whole);
                n.add(
                    "breaker.window",
                    "resilience4j's time window is whole seconds: rounded down",
                );
            }
        }
        // Without exponential growth open_max is unused, and cascade's default for it is
        // `open`; with it, past a day is "no cap".
        if c.open_multiplier <= 1.0 {
            c.open_max = c.open;
        } else {
            c.open_max = c.open_max.min(R4J_NO_CAP);
        }
        if c.consecutive_failures > 0 {
            c.consecutive_failures = 0;
            n.add(
                "breaker.consecutive_failures",
                "resilience4j trips on rates only",
            );
        }
        if b.wraps == Wraps::Call {
            n.add(
                "breaker.wraps",
                "a breaker outside the retry is the aspect order (circuitBreakerAspectOrder), not an instance setting",
            );
        }
        b.wraps = Wraps::default();
        if b.scope == BreakerScope::Instance {
            n.add(
                "breaker.scope",
                "one breaker per callee instance is one resilience4j instance per host, named by the application",
            );
        }
        b.scope = BreakerScope::default();
        if b.retries_only {
            b.retries_only = false;
            n.add(
                "breaker.retries_only",
                "a resilience4j breaker guards every call",
            );
        }
        let default_count = outcome_set(&crate::scenario::DEFAULT_BREAKER_COUNT);
        if c.count != default_count {
            c.count = default_count;
            n.add(
                "breaker.count",
                "resilience4j records exceptions (recordExceptions), which the application maps from outcome kinds",
            );
        }
    }
    if q.retry.is_some() {
        if retried(q) != R4J_RETRIED {
            n.add(
                "retry.on",
                "resilience4j retries exceptions (retryExceptions), which the application maps from outcome kinds",
            );
        }
        drop_part(
            &mut q.budget,
            "retry.budget",
            n,
            "resilience4j has no retry budget",
        );
    }
    if let Some(r) = &mut q.retry {
        r.on = outcome_set(&R4J_RETRIED);
        let b = &mut r.backoff;
        match b.schedule {
            // A fixed wait's max is unused; cascade wants it above 0.
            Schedule::Constant => b.max = b.base.max(1),
            Schedule::Exponential { .. } => b.max = b.max.min(R4J_NO_CAP),
            Schedule::Linear => {
                b.schedule = Schedule::Constant;
                b.max = b.base.max(1);
                n.add(
                    "retry.backoff",
                    "resilience4j's Spring properties give a fixed or an exponential wait: the fixed wait is written",
                );
            }
        }
        match b.jitter {
            Jitter::None | Jitter::Proportional { .. } => {}
            _ => {
                b.jitter = Jitter::None;
                n.add(
                    "retry.jitter",
                    "resilience4j randomises proportionally (enableRandomizedWait) or not at all",
                );
            }
        }
        if r.retry_after {
            r.retry_after = false;
            n.add(
                "retry.retry_after",
                "resilience4j reads no Retry-After without custom code (intervalBiFunction)",
            );
        }
        r.retry_after_wait = RetryAfterWait::default();
    }
    if let Some(b) = &mut q.bulkhead {
        if b.release == BulkheadRelease::Answer {
            b.release = BulkheadRelease::default();
            n.add(
                "bulkhead.release",
                "a permit comes back when the call returns",
            );
        }
        if b.wraps == Wraps::Call {
            n.add(
                "bulkhead.wraps",
                "a bulkhead around the retry is the aspect order (bulkheadAspectOrder), not an instance setting",
            );
        }
        b.wraps = Wraps::default();
        if b.pool.take().is_some() {
            n.add(
                "bulkhead.pool",
                "a pool shared by several calls is one instance the application names for each",
            );
        }
        if b.queue > 0 && b.queue != R4J_UNBOUNDED_QUEUE {
            // A bounded queue is a thread-pool bulkhead's (core threads, then the queue).
            if b.max_wait != R4J_THREAD_POOL_WAIT {
                b.max_wait = R4J_THREAD_POOL_WAIT;
                n.add(
                    "bulkhead.max_wait",
                    "a thread-pool bulkhead's queued task waits for a thread without a limit",
                );
            }
        }
    }
    if q.timeout.is_none() && q.cancel {
        q.cancel = false;
        n.add(
            "cancel",
            "cancelRunningFuture belongs to a TimeLimiter: the policy has no timeout",
        );
    }
    drop_part(
        &mut q.throttle,
        "throttle",
        n,
        "resilience4j has no such module",
    );
    drop_part(&mut q.hedge, "hedge", n, "resilience4j has no such module");
}
