//! Lints against the callee's median time: a timeout or deadline below it fails most calls on a
//! healthy day; a hedge delay below it hedges most of them.

use super::estimate::Estimates;
use super::facts::{Facts, Site};
use super::{Finding, HEDGE_BELOW_MEDIAN, TIMEOUT_BELOW_MEDIAN, dur};
use crate::model::HedgeDelay;

/// An attempt timeout (`timeout`, `retry.timeout`) or a client's deadline shorter than the
/// estimated median of what it waits for.
pub fn timeout_below_median(facts: &Facts, medians: &Estimates, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let spec = site.spec;
        let median = medians.attempt(spec, facts.callee_name(spec));
        let below = |t: u64| (t as f64) < median.ns;
        let mut timeouts = Vec::new();
        if let Some(name) = spec.policy.name.as_deref() {
            timeouts.push((
                spec.policy.timeout().map(|t| t.0),
                format!("policy.{name}.timeout"),
                "timeout",
            ));
            let retry = spec.policy.retry().filter(|r| r.attempts() > 1);
            let later = retry.and_then(|r| r.timeout().map(|t| t.0));
            timeouts.push((
                later,
                format!("policy.{name}.retry.timeout"),
                "retry timeout",
            ));
        }
        if let Some(field) = &site.deadline_field {
            timeouts.push((site.client_deadline, field.clone(), "deadline"));
        }
        for (t, field, what) in timeouts {
            let Some(t) = t.filter(|&t| below(t)) else {
                continue;
            };
            out.push(Finding {
                id: TIMEOUT_BELOW_MEDIAN,
                field,
                message: format!(
                    "{}: the {} {what} is below the median of an attempt, about {} (medians \
                     added, no queueing): most calls would fail on a healthy day",
                    facts.call_name(site),
                    dur(t),
                    median.explained()
                ),
            });
        }
    }
}

/// A fixed hedge delay below the estimated median of an attempt: more than half the calls
/// send a hedge, doubling the callee's load for little gain.
pub fn hedge_below_median(facts: &Facts, medians: &Estimates, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let Some((name, delay)) = fixed_hedge(site) else {
            continue;
        };
        let median = medians.attempt(site.spec, facts.callee_name(site.spec));
        if (delay as f64) < median.ns {
            out.push(Finding {
                id: HEDGE_BELOW_MEDIAN,
                field: format!("policy.{name}.hedge.delay"),
                message: format!(
                    "{}: the {} hedge delay is below the median of an attempt, about {} \
                     (medians added, no queueing): more than half the calls send a hedge",
                    facts.call_name(site),
                    dur(delay),
                    median.explained()
                ),
            });
        }
    }
}

/// The call's policy name and its fixed hedge delay, if it hedges after a fixed delay.
fn fixed_hedge<'a>(site: &Site<'a>) -> Option<(&'a str, u64)> {
    let policy = &site.spec.policy;
    match policy.hedge()?.delay() {
        HedgeDelay::Fixed(d) => Some((policy.name.as_deref()?, d.0)),
        HedgeDelay::Percentile(_) => None,
    }
}
