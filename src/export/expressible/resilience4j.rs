//! What resilience4j's YAML (breaker, retry, bulkhead, time limiter) expresses of a policy.

use super::{Notes, S, drop_other_host, drop_part, retried};
use crate::model::{BreakerScope, Policy, Wraps};
use cascade_policy::Nanos;
use cascade_policy::backoff::{Jitter, Schedule};
use cascade_policy::breaker::Window;
use cascade_policy::bulkhead::BulkheadRelease;
use cascade_policy::outcome::Outcome;
use cascade_policy::outcome::OutcomeSet;
use cascade_policy::retry::RetryAfterWait;

/// The queue import writes for a semaphore bulkhead's unbounded waiters.
pub(crate) const R4J_UNBOUNDED_QUEUE: u32 = 1000;
/// The wait import writes for a thread-pool bulkhead's queued task (no limit but the deadline).
const R4J_THREAD_POOL_WAIT: Nanos = Nanos::from_secs(3600);
/// What import writes for resilience4j's "no cap": a day.
pub(crate) const R4J_NO_CAP: Nanos = Nanos::from_secs(86_400);
/// The kinds a resilience4j retry retries: every exception.
pub(crate) const R4J_RETRIED: [Outcome; 5] = [
    Outcome::Timeout,
    Outcome::Unavailable,
    Outcome::Overloaded,
    Outcome::Internal,
    Outcome::Refused,
];

/// Restricts `q` to what the format expresses, noting in `n` each setting changed or dropped.
pub(super) fn restrict(q: &mut Policy, n: &mut Notes) {
    drop_other_host(
        q,
        n,
        "resilience4j retries a call, not a host: the client's load balancer picks each attempt's host",
    );
    if q.total_timeout.take().is_some() {
        n.add(
            "total_timeout",
            "resilience4j's TimeLimiter sits inside the Retry (the default aspect order): it bounds each attempt, never all of them",
        );
    }
    if let Some(b) = &mut q.breaker {
        let c = &mut b.config;
        if let Window::Time(ns) = c.window {
            let whole = (ns.0 / S.0).max(1) * S;
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
        let default_count = OutcomeSet::of(&crate::scenario::DEFAULT_BREAKER_COUNT);
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
        r.on = OutcomeSet::of(&R4J_RETRIED);
        let b = &mut r.backoff;
        match b.schedule {
            // A fixed wait's max is unused; cascade wants it above 0.
            Schedule::Constant => b.max = b.base.max(Nanos(1)),
            Schedule::Exponential { .. } => b.max = b.max.min(R4J_NO_CAP),
            Schedule::Linear => {
                b.schedule = Schedule::Constant;
                b.max = b.base.max(Nanos(1));
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
    drop_part(
        &mut q.rate_limit,
        "rate_limit",
        n,
        "resilience4j's RateLimiter counts permits per cycle, not a token bucket",
    );
}
