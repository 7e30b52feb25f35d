//! A service's rate limiter that holds requests longer than anyone waits for them
//! (`limit-holds-past-deadline`): nginx's `limit_req` whose burst past `delay` drains slower
//! than the callers' deadline, resilience4j's `timeout_duration` or Guava's `tryAcquire`
//! timeout past it, or a limiter that never refuses (tower's, Guava's `acquire()`) offered
//! more than its rate, whose line grows without bound. A request held that long reaches the
//! application after its caller gave up: its work is wasted, and a retry adds to the line.

use super::facts::Facts;
use super::{Finding, LIMIT_HOLDS_PAST_DEADLINE, dur, per_s};
use cascade_policy::rate_limiter::RateLimiterConfig;

/// The longest a limiter holds one request (ns), or `None` when nothing bounds it at the
/// offered rate `offered` (per second); and how it comes to that.
fn longest_hold(limiter: &RateLimiterConfig, offered: f64) -> Option<(Option<u64>, String)> {
    let rate = limiter.per_second();
    match limiter {
        // x/time/rate's Wait never waits past the request's deadline.
        RateLimiterConfig::TokenBucket { .. } => None,
        RateLimiterConfig::LimitReq(cfg) if cfg.delays() => {
            let held = cfg.burst() - cfg.undelayed();
            let ns = (held as f64 / rate * 1e9).round() as u64;
            Some((
                Some(ns),
                format!(
                    "nginx holds the {held} requests of its burst past `delay` until they drain at {}",
                    per_s(rate)
                ),
            ))
        }
        RateLimiterConfig::LimitReq(_) => None,
        RateLimiterConfig::Resilience4j(cfg) => Some((
            Some(cfg.timeout.0),
            "resilience4j holds a request up to its `timeout_duration`, and parks a refused one that long".into(),
        )),
        RateLimiterConfig::SmoothBursty {
            timeout: Some(t), ..
        } => Some((Some(t.0), "Guava's tryAcquire holds a request up to its `timeout`".into())),
        RateLimiterConfig::SmoothBursty { timeout: None, .. } | RateLimiterConfig::TowerRate(_)
            if offered > rate =>
        {
            Some((
                None,
                format!(
                    "it refuses nothing, and at the base rate of {} it is offered more than its {}: its line of held requests grows without bound",
                    per_s(offered),
                    per_s(rate)
                ),
            ))
        }
        RateLimiterConfig::SmoothBursty { .. } | RateLimiterConfig::TowerRate(_) => None,
    }
}

/// `limit-holds-past-deadline`: a service's limiter whose longest hold is longer than the
/// longest any caller waits for one of its requests, or unbounded.
pub fn limit_holds_past_deadline(facts: &Facts, out: &mut Vec<Finding>) {
    for (s, service) in facts.model.services.iter().enumerate() {
        let Some(limit) = &service.rate_limit else {
            continue;
        };
        let offered = facts.offered(s).base;
        // Per instance, each limiter sees its share of the round of instances.
        let offered_each = match limit.scope {
            crate::model::RateLimitScope::Instance => offered / f64::from(service.instances),
            crate::model::RateLimitScope::Fleet => offered,
        };
        let Some((hold, how)) = longest_hold(&limit.limiter, offered_each) else {
            continue;
        };
        let waits = (0..=service.operations.len()).filter_map(|plan| facts.wait(s, plan));
        let longest_wait = waits.max_by_key(|w| w.ns.unwrap_or(u64::MAX));
        let message = match (hold, longest_wait) {
            (None, _) => format!("{}'s rate limit: {how}", service.name),
            (Some(h), Some(w)) if w.ns.is_some_and(|wait| h > wait) => format!(
                "{}'s rate limit holds a request up to {} ({how}), longer than any caller waits for it ({}, {}): a request held that long is served after its caller gave up, its work wasted",
                service.name,
                dur(h),
                dur(w.ns.expect("bounded")),
                w.why,
            ),
            _ => continue,
        };
        out.push(Finding {
            id: LIMIT_HOLDS_PAST_DEADLINE,
            field: format!("service.{}.rate_limit", service.name),
            message,
        });
    }
}
