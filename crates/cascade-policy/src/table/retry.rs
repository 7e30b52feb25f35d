//! `retry`: attempts, the kinds retried, backoff and jitter, Retry-After, the retries' own
//! timeout and the budget (`budget.rs`). Defaults are cascade's documented ones
//! (docs/policies.md §2): 3 attempts, exponential from 100 ms to 10 s, full jitter.

use super::error::{Checked, TableError};
use super::outcomes::outcomes;
use super::raw::{BackoffKind, JitterKind, RawRetry, RetryAfterWaitKind};
use crate::backoff::{Backoff, Jitter, Schedule};
use crate::budget::BudgetConfig;
use crate::outcome::OutcomeSet;
use crate::retry::{DEFAULT_RETRY_ON, NEVER_RETRIED, RetryAfterWait, RetryPolicy};
use crate::time::Nanos;

const MS: Nanos = Nanos::from_ms(1);
const S: Nanos = Nanos::from_secs(1);

impl RetryPolicy {
    /// The retry a `retry` table describes, its defaults filled and its ranges checked (its
    /// budget aside: `retry_and_budget` gives both).
    pub fn from_table(r: &RawRetry) -> Checked<RetryPolicy> {
        retry_and_budget(r).map(|(retry, _)| retry)
    }
}

/// What `retry = { attempts = 1 }` compiles to, every other key at its default: the retry
/// `cascade import grpc` writes to carry a hedging-only method's `retryThrottling`.
pub fn single_attempt_retry() -> RetryPolicy {
    let one = RawRetry {
        attempts: Some(1),
        ..RawRetry::default()
    };
    RetryPolicy::from_table(&one).expect("one attempt with the defaults compiles")
}

/// A `retry` table compiled: the retry and its budget, if it has one. Errors name the field
/// relative to the `retry` table, checked in the order the keys are read.
pub fn retry_and_budget(r: &RawRetry) -> Checked<(RetryPolicy, Option<BudgetConfig>)> {
    let attempts = match (r.attempts, r.retries) {
        (Some(_), Some(_)) => {
            return Err(TableError::at(
                "",
                "give `attempts` (first try included) or `retries` (extra tries), not both",
            ));
        }
        (Some(0), None) => {
            return Err(TableError::at(
                "attempts",
                "must be at least 1 (the first try)",
            ));
        }
        (Some(a), None) => a,
        (None, Some(n)) => n.saturating_add(1),
        (None, None) => 3,
    };
    let on = match &r.on {
        None => DEFAULT_RETRY_ON.to_vec(),
        Some(names) => outcomes("on", names, &NEVER_RETRIED, "is never retried")?,
    };
    let base = r.base.map_or(100 * MS, Nanos::from);
    let max = r.max.map_or(10 * S, Nanos::from);
    if max < base {
        return Err(TableError::at("max", "must be at least `base`"));
    }
    let exponential = r.backoff.unwrap_or(BackoffKind::Exponential) == BackoffKind::Exponential;
    if r.multiplier.is_some() && (!exponential || r.jitter == Some(JitterKind::Decorrelated)) {
        return Err(TableError::at(
            "multiplier",
            "applies only to exponential backoff without decorrelated jitter",
        ));
    }
    let multiplier = r.multiplier.unwrap_or(2.0);
    if !(multiplier >= 1.0 && multiplier.is_finite()) {
        return Err(TableError::at("multiplier", "must be 1 or more"));
    }
    let schedule = match r.backoff.unwrap_or(BackoffKind::Exponential) {
        BackoffKind::Constant => Schedule::Constant,
        BackoffKind::Linear => Schedule::Linear,
        BackoffKind::Exponential => Schedule::Exponential { multiplier },
    };
    let factor = r.jitter_factor.unwrap_or(0.2);
    if !(0.0..=1.0).contains(&factor) {
        return Err(TableError::at("jitter_factor", "must be between 0 and 1"));
    }
    if r.jitter_factor.is_some() && r.jitter != Some(JitterKind::Proportional) {
        return Err(TableError::at(
            "jitter_factor",
            "applies only to jitter = \"proportional\"",
        ));
    }
    let jitter = match r.jitter.unwrap_or(JitterKind::Full) {
        JitterKind::None => Jitter::None,
        JitterKind::Full => Jitter::Full,
        JitterKind::Equal => Jitter::Equal,
        JitterKind::Decorrelated => Jitter::Decorrelated,
        JitterKind::Proportional => Jitter::Proportional { factor },
    };
    let budget = r
        .budget
        .as_ref()
        .map(|b| BudgetConfig::from_table(b).map_err(|e| e.under("budget")))
        .transpose()?;
    let retry_after = r.retry_after.unwrap_or(true);
    if r.retry_after_wait.is_some() && !retry_after {
        return Err(TableError::at(
            "retry_after_wait",
            "applies only when a Retry-After is honoured (`retry_after = true`, the default)",
        ));
    }
    let other_host = other_host(r)?;
    let retry = RetryPolicy {
        attempts,
        on: OutcomeSet::of(&on),
        backoff: Backoff {
            schedule,
            base,
            max,
            jitter,
        },
        retry_after,
        retry_after_wait: match r.retry_after_wait {
            None | Some(RetryAfterWaitKind::Replace) => RetryAfterWait::Replace,
            Some(RetryAfterWaitKind::Max) => RetryAfterWait::Max,
        },
        timeout: match r.timeout {
            Some(d) if d.0 == 0 => {
                return Err(TableError::at("timeout", "must be longer than zero"));
            }
            t => t.map(Nanos::from),
        },
        other_host,
    };
    Ok((retry, budget))
}

/// The most re-picks `host_reselections` may ask for: each is a balancer pick, and when every
/// instance was tried already every one of them is made, so the cost of a retry is bounded
/// here rather than by the scenario.
pub const MAX_HOST_RESELECTIONS: u32 = 100;

/// `other_host` and `host_reselections`: the re-picks a retry's host gets, `None` when off.
/// Envoy's `host_selection_retry_max_attempts` defaults to 1.
fn other_host(r: &RawRetry) -> Checked<Option<u32>> {
    let on = r.other_host.unwrap_or(false);
    match r.host_reselections {
        Some(_) if !on => Err(TableError::at(
            "host_reselections",
            "applies only with `other_host = true`",
        )),
        Some(0) => Err(TableError::at(
            "host_reselections",
            "must be at least 1: with no re-pick the retry goes wherever the balancer's first pick lands, as without `other_host`",
        )),
        Some(n) if n > MAX_HOST_RESELECTIONS => Err(TableError::at(
            "host_reselections",
            format!("must be at most {MAX_HOST_RESELECTIONS}"),
        )),
        n => Ok(on.then_some(n.unwrap_or(1))),
    }
}
