//! `cascade export resilience4j`: Spring Boot YAML, one instance named after the policy in each
//! module the policy uses (circuitbreaker, retry, bulkhead, timelimiter).

use super::yaml::{Y, write};
use super::{note, note_common, retried};
use crate::import::read::duration_text;
use crate::model::{BreakerScope, Policy, Wraps};
use crate::outcome::Outcome;
use crate::policy::backoff::{Jitter, Schedule};
use crate::policy::breaker::Window;
use crate::policy::bulkhead::BulkheadRelease;

const NS_PER_S: u64 = 1_000_000_000;
/// The queue import writes for a semaphore bulkhead's unbounded waiters.
const UNBOUNDED_QUEUE: i64 = 1000;
/// What import writes for resilience4j's "no cap": a day.
const NO_CAP: u64 = 86_400 * NS_PER_S;

fn dur(ns: u64) -> Y {
    Y::text(duration_text(ns))
}

fn instance(name: &str, keys: Vec<(&str, Y)>) -> Y {
    Y::map(vec![("instances", Y::map(vec![(name, Y::map(keys))]))])
}

pub fn export(name: &str, p: &Policy, out: &mut Vec<String>) -> String {
    note_common(p, out);
    let mut modules = Vec::new();
    if let Some(b) = &p.breaker {
        let c = &b.config;
        let mut k = Vec::new();
        match c.window {
            Window::Calls(n) => {
                k.push(("slidingWindowType", Y::text("COUNT_BASED")));
                k.push(("slidingWindowSize", Y::num(n)));
            }
            Window::Time(ns) => {
                k.push(("slidingWindowType", Y::text("TIME_BASED")));
                k.push(("slidingWindowSize", Y::num((ns / NS_PER_S).max(1))));
                if !ns.is_multiple_of(NS_PER_S) {
                    note(
                        out,
                        "breaker.window",
                        "resilience4j's time window is whole seconds: rounded down",
                    );
                }
            }
        }
        k.push(("minimumNumberOfCalls", Y::num(c.min_calls)));
        k.push(("failureRateThreshold", Y::num(c.failure_rate * 100.0)));
        k.push(("slowCallRateThreshold", Y::num(c.slow_call_rate * 100.0)));
        k.push(("slowCallDurationThreshold", dur(c.slow_call_duration)));
        k.push(("waitDurationInOpenState", dur(c.open)));
        k.push((
            "permittedNumberOfCallsInHalfOpenState",
            Y::num(c.half_open_calls),
        ));
        if c.open_multiplier > 1.0 {
            k.push(("enableExponentialBackoff", Y::Plain("true".into())));
            k.push(("exponentialBackoffMultiplier", Y::num(c.open_multiplier)));
            if c.open_max < NO_CAP {
                k.push(("exponentialMaxWaitDurationInOpenState", dur(c.open_max)));
            }
        }
        if c.consecutive_failures > 0 {
            note(
                out,
                "breaker.consecutive_failures",
                "resilience4j trips on rates only",
            );
        }
        if b.wraps == Wraps::Call {
            note(
                out,
                "breaker.wraps",
                "a breaker outside the retry is the aspect order (circuitBreakerAspectOrder), not an instance setting",
            );
        }
        if b.scope == BreakerScope::Instance {
            note(
                out,
                "breaker.scope",
                "one breaker per callee instance is one resilience4j instance per host, named by the application",
            );
        }
        if b.retries_only {
            note(
                out,
                "breaker.retries_only",
                "a resilience4j breaker guards every call",
            );
        }
        if c.count != crate::policy::retry::outcome_set(&crate::scenario::DEFAULT_BREAKER_COUNT) {
            note(
                out,
                "breaker.count",
                "resilience4j records exceptions (recordExceptions), which the application maps from outcome kinds",
            );
        }
        modules.push(("circuitbreaker", instance(name, k)));
    }
    if let Some(r) = &p.retry {
        let b = &r.backoff;
        let mut k = vec![
            ("maxAttempts", Y::num(r.attempts)),
            ("waitDuration", dur(b.base)),
        ];
        match b.schedule {
            Schedule::Constant => {}
            Schedule::Exponential { multiplier } => {
                k.push(("enableExponentialBackoff", Y::Plain("true".into())));
                k.push(("exponentialBackoffMultiplier", Y::num(multiplier)));
                if b.max < NO_CAP {
                    k.push(("exponentialMaxWaitDuration", dur(b.max)));
                }
            }
            Schedule::Linear => note(
                out,
                "retry.backoff",
                "resilience4j's Spring properties give a fixed or an exponential wait",
            ),
        }
        match b.jitter {
            Jitter::None => {}
            Jitter::Proportional { factor } => {
                k.push(("enableRandomizedWait", Y::Plain("true".into())));
                k.push(("randomizedWaitFactor", Y::num(factor)));
            }
            _ => note(
                out,
                "retry.jitter",
                "resilience4j randomises proportionally (enableRandomizedWait) or not at all",
            ),
        }
        let all = [
            Outcome::Timeout,
            Outcome::Unavailable,
            Outcome::Overloaded,
            Outcome::Internal,
            Outcome::Refused,
        ];
        if retried(p) != all {
            note(
                out,
                "retry.on",
                "resilience4j retries exceptions (retryExceptions), which the application maps from outcome kinds",
            );
        }
        if r.retry_after {
            note(
                out,
                "retry.retry_after",
                "resilience4j reads no Retry-After without custom code (intervalBiFunction)",
            );
        }
        if p.budget.is_some() {
            note(out, "retry.budget", "resilience4j has no retry budget");
        }
        modules.push(("retry", instance(name, k)));
    }
    if let Some(b) = &p.bulkhead {
        if b.release == BulkheadRelease::Answer {
            note(
                out,
                "bulkhead.release",
                "a permit comes back when the call returns",
            );
        }
        if b.queue > 0 && i64::from(b.queue) != UNBOUNDED_QUEUE {
            // A bounded queue is a thread-pool bulkhead's (core threads, then the queue).
            let k = vec![
                ("coreThreadPoolSize", Y::num(b.max_concurrent)),
                ("maxThreadPoolSize", Y::num(b.max_concurrent)),
                ("queueCapacity", Y::num(b.queue)),
            ];
            note(
                out,
                "bulkhead.max_wait",
                "a thread-pool bulkhead's queued task waits for a thread without a limit",
            );
            modules.push(("thread-pool-bulkhead", instance(name, k)));
        } else {
            let k = vec![
                ("maxConcurrentCalls", Y::num(b.max_concurrent)),
                ("maxWaitDuration", dur(b.max_wait)),
            ];
            modules.push(("bulkhead", instance(name, k)));
        }
    }
    if let Some(t) = p.timeout {
        let k = vec![
            ("timeoutDuration", dur(t)),
            ("cancelRunningFuture", Y::Plain(p.cancel.to_string())),
        ];
        modules.push(("timelimiter", instance(name, k)));
    } else if p.cancel {
        note(
            out,
            "cancel",
            "cancelRunningFuture belongs to a TimeLimiter: the policy has no timeout",
        );
    }
    for (part, there) in [
        ("throttle", p.throttle.is_some()),
        ("hedge", p.hedge.is_some()),
    ] {
        if there {
            note(out, part, "resilience4j has no such module");
        }
    }
    let mut text = format!("# resilience4j Spring Boot configuration of policy `{name}`.\n");
    write(
        &mut text,
        &Y::map(vec![("resilience4j", Y::map(modules))]),
        0,
    );
    text
}
