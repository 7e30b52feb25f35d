//! `cascade export resilience4j`: Spring Boot YAML, one instance named after the policy in each
//! module the policy uses (circuitbreaker, retry, bulkhead, timelimiter).

use super::expressible::{R4J_NO_CAP, R4J_UNBOUNDED_QUEUE};
use super::yaml::{Doc, Y, render};
use crate::import::read::duration_text;
use crate::model::Policy;
use cascade_policy::backoff::{Jitter, Schedule};
use cascade_policy::breaker::Window;

const NS_PER_S: u64 = 1_000_000_000;

fn dur(ns: u64) -> Y {
    Y::text(duration_text(ns))
}

fn instance(name: &str, keys: Vec<(&str, Y)>) -> Y {
    Y::map(vec![("instances", Y::map(vec![(name, Y::map(keys))]))])
}

/// Writes `p`, already restricted to what resilience4j expresses (`expressible`).
pub fn export(name: &str, p: &Policy) -> String {
    render(&documents(name, p))
}

/// The one document of `p`, as `export` writes it.
pub(super) fn documents(name: &str, p: &Policy) -> Vec<Doc> {
    let mut modules = Vec::new();
    if let Some(b) = &p.breaker() {
        let c = &b.config();
        let mut k = Vec::new();
        match c.window() {
            Window::Calls(n) => {
                k.push(("slidingWindowType", Y::text("COUNT_BASED")));
                k.push(("slidingWindowSize", Y::num(n)));
            }
            Window::Time(ns) => {
                k.push(("slidingWindowType", Y::text("TIME_BASED")));
                k.push(("slidingWindowSize", Y::num(ns.0 / NS_PER_S)));
            }
        }
        k.push(("minimumNumberOfCalls", Y::num(c.min_calls())));
        k.push(("failureRateThreshold", Y::num(c.failure_rate() * 100.0)));
        k.push(("slowCallRateThreshold", Y::num(c.slow_call_rate() * 100.0)));
        k.push(("slowCallDurationThreshold", dur(c.slow_call_duration().0)));
        k.push(("waitDurationInOpenState", dur(c.open().0)));
        k.push((
            "permittedNumberOfCallsInHalfOpenState",
            Y::num(c.half_open_calls()),
        ));
        if c.open_multiplier() > 1.0 {
            k.push(("enableExponentialBackoff", Y::Plain("true".into())));
            k.push(("exponentialBackoffMultiplier", Y::num(c.open_multiplier())));
            if c.open_max() < R4J_NO_CAP {
                k.push(("exponentialMaxWaitDurationInOpenState", dur(c.open_max().0)));
            }
        }
        modules.push(("circuitbreaker", instance(name, k)));
    }
    if let Some(r) = &p.retry() {
        let b = &r.backoff();
        let mut k = vec![
            ("maxAttempts", Y::num(r.attempts())),
            ("waitDuration", dur(b.base().0)),
        ];
        if let Schedule::Exponential { multiplier } = b.schedule() {
            k.push(("enableExponentialBackoff", Y::Plain("true".into())));
            k.push(("exponentialBackoffMultiplier", Y::num(multiplier)));
            if b.max() < R4J_NO_CAP {
                k.push(("exponentialMaxWaitDuration", dur(b.max().0)));
            }
        }
        if let Jitter::Proportional { factor } = b.jitter() {
            k.push(("enableRandomizedWait", Y::Plain("true".into())));
            k.push(("randomizedWaitFactor", Y::num(factor)));
        }
        modules.push(("retry", instance(name, k)));
    }
    if let Some(b) = &p.bulkhead() {
        if b.queue() > 0 && b.queue() != R4J_UNBOUNDED_QUEUE {
            // A bounded queue is a thread-pool bulkhead's (core threads, then the queue).
            let k = vec![
                ("coreThreadPoolSize", Y::num(b.max_concurrent())),
                ("maxThreadPoolSize", Y::num(b.max_concurrent())),
                ("queueCapacity", Y::num(b.queue())),
            ];
            modules.push(("thread-pool-bulkhead", instance(name, k)));
        } else {
            let k = vec![
                ("maxConcurrentCalls", Y::num(b.max_concurrent())),
                ("maxWaitDuration", dur(b.max_wait().0)),
            ];
            modules.push(("bulkhead", instance(name, k)));
        }
    }
    if let Some(t) = p.timeout() {
        let k = vec![
            ("timeoutDuration", dur(t.0)),
            ("cancelRunningFuture", Y::Plain(p.cancel().to_string())),
        ];
        modules.push(("timelimiter", instance(name, k)));
    }
    vec![Doc {
        comment: format!("resilience4j Spring Boot configuration of policy `{name}`."),
        body: Y::map(vec![("resilience4j", Y::map(modules))]),
    }]
}
