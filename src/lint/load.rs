//! Lints on load: settings sized against the rate of calls a call path is offered. Each copy of
//! a policy's state (one per caller instance; a breaker per callee instance with `scope =
//! "instance"`) sees its share of the path's calls. Rates are first attempts only, from the
//! clients' rates down the call graph; each message says which rate it assumed.

use super::estimate::{Estimates, Stat};
use super::facts::{Facts, Site};
use super::{
    BREAKER_MIN_CALLS, BUDGET_FLOOR, BULKHEAD_BELOW_LITTLE, Finding, RATE_LIMIT_BELOW_OFFERED, dur,
    per_s,
};
use crate::model::{BreakerScope, BudgetConfig, Wraps};
use crate::number::sig3;
use cascade_policy::Nanos;
use cascade_policy::breaker::Window;

/// How the path's calls are split among the copies of a policy's state, for a message: empty
/// for one copy, else ` per copy of 3 (one per caller instance)`.
fn copies(facts: &Facts, site: &Site, per_callee_instance: bool) -> String {
    let callers = facts.caller_instances(site);
    let callees = facts.model.services[site.spec.to].instances;
    match (callers, per_callee_instance && callees > 1) {
        (1, false) => String::new(),
        (n, false) => format!(", split over {n} copies (one per caller instance)"),
        (n, true) => format!(
            ", split over {} copies ({n} caller × {callees} callee instances)",
            n * callees
        ),
    }
}

/// A breaker that cannot judge its failure rate: a count window shorter than `min_calls`
/// (the breaker judges on the window, as resilience4j caps it), or a time window that even at
/// the peak rate, every attempt counted, holds fewer calls than `min_calls`.
pub fn breaker_min_calls(facts: &Facts, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let policy = &site.spec.policy;
        let (Some(b), Some(name)) = (policy.breaker(), policy.name.as_deref()) else {
            continue;
        };
        let cfg = &b.config();
        let field = format!("policy.{name}.breaker.min_calls");
        let call = facts.call_name(site);
        let also = if cfg.consecutive_failures() > 0 {
            format!(
                "; only `consecutive_failures = {}` can open it",
                cfg.consecutive_failures()
            )
        } else {
            String::new()
        };
        match cfg.window() {
            Window::Calls(n) if cfg.min_calls() > n => out.push(Finding {
                id: BREAKER_MIN_CALLS,
                field,
                message: format!(
                    "{call}: `min_calls = {}` exceeds the {n} calls its count window holds: the \
                     breaker judges after {n} calls, not {}",
                    cfg.min_calls(),
                    cfg.min_calls()
                ),
            }),
            Window::Calls(_) => {}
            Window::Time(Nanos(w)) => {
                let Some(peak) = facts.site_rate(site).peak else {
                    continue;
                };
                let mut per = f64::from(facts.caller_instances(site));
                if b.scope() == BreakerScope::Instance {
                    per *= f64::from(facts.model.services[site.spec.to].instances);
                }
                let attempts = match (b.wraps(), policy.retry()) {
                    (Wraps::Attempt, Some(r)) => r.attempts(),
                    _ => 1,
                };
                let held = peak / per * f64::from(attempts) * w as f64 / 1e9;
                if f64::from(cfg.min_calls()) <= held {
                    continue;
                }
                let counted = if attempts > 1 {
                    format!(", each with up to {attempts} attempts")
                } else {
                    String::new()
                };
                out.push(Finding {
                    id: BREAKER_MIN_CALLS,
                    field,
                    message: format!(
                        "{call}: `min_calls = {}` exceeds what its {} window can hold: at the \
                         peak rate of {} (first attempts){}{}, it sees at most {} calls in \
                         a window, so its failure rate is never judged{also}",
                        cfg.min_calls(),
                        dur(w),
                        per_s(peak),
                        copies(facts, site, b.scope() == BreakerScope::Instance),
                        counted,
                        sig3(held),
                    ),
                });
            }
        }
    }
}

/// A ratio retry budget (Finagle's) whose per-second floor allows more retries than its ratio
/// even at the peak rate: `ratio` then hardly bounds anything (a 10% budget allowing 20%).
pub fn budget_floor(facts: &Facts, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let policy = &site.spec.policy;
        let Some(&BudgetConfig::Ratio {
            ratio, min_per_s, ..
        }) = policy.budget()
        else {
            continue;
        };
        let (Some(name), Some(peak)) = (policy.name.as_deref(), facts.site_rate(site).peak) else {
            continue;
        };
        if min_per_s <= 0.0 {
            continue;
        }
        let per = f64::from(facts.caller_instances(site));
        let rate = peak / per;
        if min_per_s <= ratio * rate {
            continue;
        }
        let floor_share = if rate > 0.0 {
            format!(
                "{}% of calls on top of its {}% ratio: {}% in all",
                sig3(100.0 * min_per_s / rate),
                sig3(100.0 * ratio),
                sig3(100.0 * (ratio + min_per_s / rate))
            )
        } else {
            "retries where no call is made".to_string()
        };
        out.push(Finding {
            id: BUDGET_FLOOR,
            field: format!("policy.{name}.retry.budget"),
            message: format!(
                "{}: at the peak rate of {} (first attempts){}, the budget's floor of {} \
                 allows {floor_share}; lower `min_per_s` for a budget that holds at this \
                 load",
                facts.call_name(site),
                per_s(peak),
                copies(facts, site, false),
                per_s(min_per_s),
            ),
        });
    }
}

/// A bulkhead with fewer permits than Little's law says are in use at the base rate: calls ×
/// the mean time an attempt holds its permit (its callee's mean time, cut at its timeout unless
/// the permit waits for the answer).
pub fn bulkhead_below_little(facts: &Facts, out: &mut Vec<Finding>) {
    let means = Estimates::of(facts, Stat::Mean);
    for site in &facts.sites {
        let policy = &site.spec.policy;
        let (Some(b), Some(name)) = (policy.bulkhead(), policy.name.as_deref()) else {
            continue;
        };
        let base = facts.site_rate(site).base;
        if base <= 0.0 {
            continue;
        }
        let per = f64::from(facts.caller_instances(site));
        let mean = means.attempt(site.spec, facts.callee_name(site.spec));
        let held = match policy.timeout() {
            Some(t) if !policy.bulkhead_releases_on_answer() => mean.ns.min(t.0 as f64),
            _ => mean.ns,
        };
        let in_use = base / per * held / 1e9;
        if !in_use.is_finite() || f64::from(b.max_concurrent()) >= in_use {
            continue;
        }
        let cut = if held < mean.ns {
            format!(
                ", cut at its {} timeout",
                dur(policy.timeout().unwrap_or_default().0)
            )
        } else {
            String::new()
        };
        out.push(Finding {
            id: BULKHEAD_BELOW_LITTLE,
            field: format!("policy.{name}.bulkhead.max_concurrent"),
            message: format!(
                "{}: `max_concurrent = {}` is below the {} calls Little's law puts in flight at \
                 the base rate of {} (first attempts){} × a mean attempt of {}{cut}: the \
                 bulkhead refuses calls on a healthy day",
                facts.call_name(site),
                b.max_concurrent(),
                sig3(in_use),
                per_s(base),
                copies(facts, site, false),
                mean.explained(),
            ),
        });
    }
}

/// A rate limit (a token bucket per caller instance) whose long-run rate, `tokens_per_fill` per
/// `fill_interval`, is below the calls each caller instance is offered at the base rate: in
/// steady state it refuses 1 − sustained / offered of them. The burst (`max_tokens`) only
/// delays that. The refusals end `rate_limited` at once with no Retry-After, and the call's
/// retry never re-sends them (`PathPolicies::admit_call` refuses before any attempt).
pub fn rate_limit_below_offered(facts: &Facts, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let policy = &site.spec.policy;
        let (Some(b), Some(name)) = (policy.rate_limit(), policy.name.as_deref()) else {
            continue;
        };
        let base = facts.site_rate(site).base;
        if base <= 0.0 {
            continue;
        }
        let n = facts.caller_instances(site);
        let offered = base / f64::from(n);
        let sustained = b.per_second();
        if !sustained.is_finite() || sustained >= offered {
            continue;
        }
        let each = if n > 1 {
            format!(": {} each", per_s(offered))
        } else {
            String::new()
        };
        let fleet = if n > 1 {
            format!(
                "{} fleet-wide ({n} buckets of {})",
                per_s(sustained * f64::from(n)),
                per_s(sustained)
            )
        } else {
            per_s(sustained)
        };
        out.push(Finding {
            id: RATE_LIMIT_BELOW_OFFERED,
            field: format!("policy.{name}.rate_limit"),
            message: format!(
                "{}: the rate limit admits {} per caller instance in the long run (`tokens_per_fill = {}` every {}; \
                 the burst of `max_tokens = {}` only delays it), below the base rate of {} \
                 (first attempts){}{each}: in steady state it refuses {}% of calls and admits \
                 {fleet}; the refusals are final: they end `rate_limited` at once with no \
                 Retry-After, and no retry re-sends them",
                facts.call_name(site),
                per_s(sustained),
                b.tokens_per_fill(),
                dur(b.fill_interval().0),
                b.max_tokens(),
                per_s(base),
                copies(facts, site, false),
                sig3(100.0 * (1.0 - sustained / offered)),
            ),
        });
    }
}
