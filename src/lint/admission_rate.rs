//! A service's rate limit below the rate offered to it, whose refusals are retried without a
//! Retry-After to wait for (`admission-limit-below-offered`): in steady state it refuses the
//! excess, and the callers that retry it re-send it on their own backoff, into a limiter
//! already over its rate — a retry storm the limit itself feeds. Refusals nobody retries are
//! the limit doing its work (a tenant held to its share): quiet.

use super::facts::Facts;
use super::{ADMISSION_LIMIT_BELOW_OFFERED, Finding, per_s};
use crate::model::RateLimitKey;
use crate::number::sig3;
use cascade_policy::rate_limiter::RateLimiterConfig;

/// Whether `limiter` refuses, in steady state, what it is offered past its rate (tower's and
/// Guava's `acquire()` hold it instead: `limit-holds-past-deadline`).
fn refuses_the_excess(limiter: &RateLimiterConfig) -> bool {
    !matches!(
        limiter,
        RateLimiterConfig::TowerRate(_) | RateLimiterConfig::SmoothBursty { timeout: None, .. }
    )
}

/// `admission-limit-below-offered`: an unkeyed service limit whose fleet-wide rate is below the
/// base rate offered to the service, whose refusals some caller's retry re-sends, unless the
/// limit sends Retry-After and every such caller honours it.
pub fn admission_limit_below_offered(facts: &Facts, out: &mut Vec<Finding>) {
    for (s, service) in facts.model.services.iter().enumerate() {
        let Some(limit) = &service.rate_limit else {
            continue;
        };
        // A tenant's share of the offered rate is not known before the run.
        if limit.key != RateLimitKey::None || !refuses_the_excess(&limit.limiter) {
            continue;
        }
        let offered = facts.offered(s).base;
        let admits = limit.fleet_per_second(service.instances);
        if offered <= 0.0 || admits >= offered {
            continue;
        }
        let refusal = limit.refusal();
        let callers: Vec<_> = (facts.sites.iter())
            .filter(|site| site.spec.to == s)
            .filter_map(|site| {
                let retry = site.spec.policy.retry()?;
                retry
                    .on()
                    .contains(refusal)
                    .then_some((site, retry.retry_after()))
            })
            .collect();
        if callers.is_empty() || limit.retry_after && callers.iter().all(|(_, honours)| *honours) {
            continue;
        }
        let retried = match (callers.first(), limit.retry_after) {
            (None, _) => continue,
            (Some((site, _)), false) => format!(
                "{} retries them on its own backoff, and the limit sends no Retry-After \
                 (`retry_after = true` sends when it would pass one)",
                facts.call_name(site)
            ),
            (Some(_), true) => {
                let (site, _) = (callers.iter())
                    .find(|(_, honours)| !honours)
                    .expect("one caller does not honour it");
                format!(
                    "{} retries them without honouring their Retry-After (`retry.retry_after`)",
                    facts.call_name(site)
                )
            }
        };
        out.push(Finding {
            id: ADMISSION_LIMIT_BELOW_OFFERED,
            field: format!("service.{}.rate_limit", service.name),
            message: format!(
                "{}'s rate limit admits {} in all in the long run, below the base rate of {} \
                 offered to it (first attempts): in steady state it refuses {}% of them \
                 (answered {}), and {retried}, into a limiter already over its rate",
                service.name,
                per_s(admits),
                per_s(offered),
                sig3(100.0 * (1.0 - admits / offered)),
                limit.status,
            ),
        });
    }
}
