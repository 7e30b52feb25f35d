//! A whole `[policy.NAME]` table compiled: its presets applied (`preset.rs`), then each part
//! through its own `from_table`, in the order a scenario's errors have always come, and the
//! checks that look across parts (hedges sharing the retry budget).

use super::error::{Checked, TableError};
use super::outcomes::outcomes;
use super::raw::RawPolicy;
use super::raw_parts::RawFallback;
use super::retry::retry_and_budget;
use crate::accrual::AccrualConfig;
use crate::breaker::BreakerPolicy;
use crate::budget::BudgetConfig;
use crate::bulkhead::{BulkheadConfig, BulkheadRelease, Wraps};
use crate::hedge::HedgeConfig;
use crate::limit::LimitConfig;
use crate::outcome::{Outcome, OutcomeSet};
use crate::retry::RetryPolicy;
use crate::throttle::ThrottleConfig;
use crate::time::Nanos;
use crate::token_bucket::TokenBucketConfig;

config! {
    /// One call path's policies as a `[policy.NAME]` table describes them, every default filled
    /// and every range checked. `T` is what a fallback's `to` names once resolved: a service's
    /// name as written (`PolicyConfig::new`), or whatever the caller resolves it to
    /// (`PolicyConfig::resolving`; cascade's scenario compiler, a service index). `Default` is
    /// the empty table's: no policy at all, the caller's deadline propagated.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PolicyConfig<T = String> {
        timeout: Option<Nanos>,
        total_timeout: Option<Nanos>,
        reserve: Nanos,
        min_attempt: Nanos,
        cancel: bool,
        propagate_deadline: bool,
        retry: Option<RetryPolicy>,
        budget: Option<BudgetConfig>,
        breaker: Option<BreakerPolicy>,
        fallback: Option<FallbackConfig<T>>,
        hedge: Option<HedgeConfig>,
        throttle: Option<ThrottleConfig>,
        bulkhead: Option<BulkheadConfig>,
        limit: Option<LimitConfig>,
        rate_limit: Option<TokenBucketConfig>,
        failure_accrual: Option<AccrualConfig>,
    }
}

impl<T> Default for PolicyConfig<T> {
    fn default() -> PolicyConfig<T> {
        PolicyConfig {
            timeout: None,
            total_timeout: None,
            reserve: Nanos::ZERO,
            min_attempt: Nanos::ZERO,
            cancel: false,
            propagate_deadline: true,
            retry: None,
            budget: None,
            breaker: None,
            fallback: None,
            hedge: None,
            throttle: None,
            bulkhead: None,
            limit: None,
            rate_limit: None,
            failure_accrual: None,
        }
    }
}

/// Read access (the fields are private so that only `resolving` builds one; `getters.rs`).
impl<T> PolicyConfig<T> {
    /// Per-attempt timeout.
    pub fn timeout(&self) -> Option<Nanos> {
        self.timeout
    }
    /// The timeout over the whole call, every attempt and backoff.
    pub fn total_timeout(&self) -> Option<Nanos> {
        self.total_timeout
    }
    /// Kept back from the caller's deadline for its own work after the call.
    pub fn reserve(&self) -> Nanos {
        self.reserve
    }
    /// No attempt starts with less than this left before the deadline.
    pub fn min_attempt(&self) -> Nanos {
        self.min_attempt
    }
    /// A give-up stops the callee's work.
    pub fn cancel(&self) -> bool {
        self.cancel
    }
    /// `false`: the call takes no deadline from its caller's request, so each attempt (and
    /// the callee's request) is bounded by the attempt's own timeout only.
    pub fn propagate_deadline(&self) -> bool {
        self.propagate_deadline
    }
    /// The retry loop: attempts, retryable kinds, backoff.
    pub fn retry(&self) -> Option<&RetryPolicy> {
        self.retry.as_ref()
    }
    /// The retry budget (`retry.budget`).
    pub fn budget(&self) -> Option<&BudgetConfig> {
        self.budget.as_ref()
    }
    /// The circuit breaker and where it sits.
    pub fn breaker(&self) -> Option<&BreakerPolicy> {
        self.breaker.as_ref()
    }
    /// What answers a call that finally failed.
    pub fn fallback(&self) -> Option<&FallbackConfig<T>> {
        self.fallback.as_ref()
    }
    /// Hedged copies of a slow attempt.
    pub fn hedge(&self) -> Option<&HedgeConfig> {
        self.hedge.as_ref()
    }
    /// Client-side adaptive throttling (the SRE book's).
    pub fn throttle(&self) -> Option<&ThrottleConfig> {
        self.throttle.as_ref()
    }
    /// The bulkhead: permits, its line, what a permit covers.
    pub fn bulkhead(&self) -> Option<&BulkheadConfig> {
        self.bulkhead.as_ref()
    }
    /// The adaptive concurrency limit (Netflix concurrency-limits).
    pub fn limit(&self) -> Option<&LimitConfig> {
        self.limit.as_ref()
    }
    /// The token bucket per caller instance (Envoy's local rate limit).
    pub fn rate_limit(&self) -> Option<&TokenBucketConfig> {
        self.rate_limit.as_ref()
    }
    /// Finagle's failure accrual per callee host.
    pub fn failure_accrual(&self) -> Option<&AccrualConfig> {
        self.failure_accrual.as_ref()
    }

    /// Whether a breaker guards this path around `what`: each attempt, or the whole call.
    pub fn breaker_wraps(&self, what: Wraps) -> bool {
        self.breaker.as_ref().is_some_and(|b| b.wraps == what)
    }

    /// Whether this path's bulkhead keeps a permit until the callee answers (a connection
    /// pool), not only while the caller waits.
    pub fn bulkhead_releases_on_answer(&self) -> bool {
        (self.bulkhead.as_ref()).is_some_and(|b| b.release == BulkheadRelease::Answer)
    }

    /// Whether this path's bulkhead permit covers the whole call (`wraps = "call"`), taken
    /// before the first attempt and held across backoffs and retries.
    pub fn bulkhead_wraps_call(&self) -> bool {
        (self.bulkhead.as_ref()).is_some_and(|b| b.wraps == Wraps::Call)
    }
}

config! {
    /// `fallback`: the kinds that fall back, and a canned answer after `latency` or a call to
    /// `to` (with the policy named for that call): the call's success is a degraded answer, and
    /// its failure leaves the original one.
    #[derive(Debug, Clone, PartialEq)]
    pub struct FallbackConfig<T = String> {
        on: OutcomeSet,
        latency: Nanos,
        to: Option<(T, Option<String>)>,
    }
}

impl<T> FallbackConfig<T> {
    /// The failure kinds that fall back.
    pub fn on(&self) -> OutcomeSet {
        self.on
    }
    /// How long a canned answer takes.
    pub fn latency(&self) -> Nanos {
        self.latency
    }
    /// The service to call instead, and the policy named for that call; `None`: a canned
    /// answer.
    pub fn to(&self) -> Option<&(T, Option<String>)> {
        self.to.as_ref()
    }

    /// Whether it answers a call that failed with `outcome`: a kind it is `on`, and once per
    /// call (`fell_back`: the call already fell back, and this is its fallback's failure).
    pub fn answers(&self, outcome: Outcome, fell_back: bool) -> bool {
        self.on.contains(outcome) && !fell_back
    }
}

impl PolicyConfig<String> {
    /// The policies a table describes, a fallback's `to` kept as the name written.
    pub fn new(table: &RawPolicy) -> Checked<PolicyConfig<String>> {
        PolicyConfig::resolving(table, |name| Ok(name.to_string()))
    }
}

impl<T> PolicyConfig<T> {
    /// The policies a table describes, a fallback's `to` resolved by `resolve` (its error is
    /// the message at `fallback.to`). Errors name the field relative to the table.
    pub fn resolving(
        table: &RawPolicy,
        resolve: impl FnOnce(&str) -> Result<T, String>,
    ) -> Checked<PolicyConfig<T>> {
        let p = &*super::preset::apply(table)?;
        if p.timeout.is_some_and(|d| d.0 == 0) {
            return Err(TableError::at(
                "timeout",
                "must be longer than zero (leave it out for none)",
            ));
        }
        if p.total_timeout.is_some_and(|d| d.0 == 0) {
            return Err(TableError::at(
                "total_timeout",
                "must be longer than zero (leave it out for none)",
            ));
        }
        let (retry, budget) = match &p.retry {
            Some(r) => {
                let (retry, budget) = retry_and_budget(r).map_err(|e| e.under("retry"))?;
                (Some(retry), budget)
            }
            None => (None, None),
        };
        fn part<R, C>(
            raw: &Option<R>,
            key: &str,
            compile: impl FnOnce(&R) -> Checked<C>,
        ) -> Checked<Option<C>> {
            raw.as_ref()
                .map(|r| compile(r).map_err(|e| e.under(key)))
                .transpose()
        }
        let policy = PolicyConfig {
            timeout: p.timeout.map(Nanos::from),
            total_timeout: p.total_timeout.map(Nanos::from),
            reserve: p.reserve.map_or(Nanos::ZERO, Nanos::from),
            min_attempt: p.min_attempt.map_or(Nanos::ZERO, Nanos::from),
            cancel: p.cancel.unwrap_or(false),
            propagate_deadline: p.propagate_deadline != Some(false),
            retry,
            budget,
            breaker: part(&p.breaker, "breaker", BreakerPolicy::from_table)?,
            fallback: part(&p.fallback, "fallback", |f| fallback(f, resolve))?,
            hedge: part(&p.hedge, "hedge", HedgeConfig::from_table)?,
            throttle: part(&p.throttle, "throttle", ThrottleConfig::from_table)?,
            bulkhead: part(&p.bulkhead, "bulkhead", BulkheadConfig::from_table)?,
            limit: part(&p.limit, "limit", LimitConfig::from_table)?,
            rate_limit: part(&p.rate_limit, "rate_limit", TokenBucketConfig::from_table)?,
            failure_accrual: part(
                &p.failure_accrual,
                "failure_accrual",
                AccrualConfig::from_table,
            )?,
        };
        policy
            .check_shared_hedge_budget()
            .map_err(|m| TableError::at("hedge.uses_retry_budget", m))?;
        Ok(policy)
    }

    /// Hedges drawing on the retry budget need one that a hedge can ask: a concurrency budget
    /// counts retries until their attempt ends, which a hedged copy does not report.
    fn check_shared_hedge_budget(&self) -> Result<(), &'static str> {
        if !self.hedge.as_ref().is_some_and(|h| h.uses_retry_budget) {
            return Ok(());
        }
        match self.budget {
            None => Err(
                "hedges can draw on the retry budget only when the policy has one (`retry.budget`)",
            ),
            Some(BudgetConfig::Concurrency { .. }) => Err(
                "a concurrency budget (Envoy's) cannot be shared with hedges; use a ratio, token_bucket or adaptive budget",
            ),
            Some(_) => Ok(()),
        }
    }
}

/// `fallback`, its `to` resolved by `resolve`; errors relative to the fallback table.
fn fallback<T>(
    f: &RawFallback,
    resolve: impl FnOnce(&str) -> Result<T, String>,
) -> Checked<FallbackConfig<T>> {
    let on = match &f.on {
        None => Outcome::failures()
            .iter()
            .copied()
            .filter(|o| *o != Outcome::Invalid)
            .collect(),
        Some(names) => outcomes(
            "on",
            names,
            &[Outcome::Ok, Outcome::Degraded],
            "is not a failure",
        )?,
    };
    let to = match &f.to {
        None => {
            if f.policy.is_some() {
                return Err(TableError::at(
                    "policy",
                    "applies only to a fallback that calls a service (`to`)",
                ));
            }
            None
        }
        Some(name) => {
            if f.latency.is_some() {
                return Err(TableError::at(
                    "latency",
                    "a fallback either answers after `latency` or calls `to`, not both",
                ));
            }
            let target = resolve(name).map_err(|m| TableError::at("to", m))?;
            Some((target, f.policy.clone()))
        }
    };
    Ok(FallbackConfig {
        on: OutcomeSet::of(&on),
        latency: f.latency.map_or(Nanos::ZERO, Nanos::from),
        to,
    })
}
