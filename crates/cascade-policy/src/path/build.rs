//! A call path's policy state built from its config: the one constructor cascade's engine
//! and a service (cascade-tower) both call, so the state they drive cannot drift apart.

use super::PathPolicies;
use crate::accrual::Accrual;
use crate::breaker::{Breaker, BreakerScope};
use crate::budget::Budget;
use crate::hedge::LatencyTracker;
use crate::limit::Limiter;
use crate::table::PolicyConfig;
use crate::throttle::Throttle;
use crate::time::Nanos;
use crate::token_bucket::TokenBucket;

/// The random streams of one call path, one per policy that draws, kept apart so that no
/// policy's draws shift another's. Seed each from its own name: a replay seeded alike draws
/// alike.
#[derive(Debug, Clone)]
pub struct PathStreams<R> {
    /// The throttle's rejection draws.
    pub throttle: R,
    /// Vegas's probe jitter.
    pub limit: R,
    /// Backoff jitter.
    pub jitter: R,
    /// The accrual's mark-dead jitter.
    pub accrual: R,
}

impl<R> PathPolicies<R> {
    /// The state of a call path following `policy`, fresh: one breaker (or one per callee
    /// instance for a breaker per host, `instances` of them), the budgets, throttle, limit and
    /// hedging tracker the config names, failure accrual per callee instance, and no
    /// bulkhead: the caller keeps bulkheads (paths may share one) and sets `bulkhead` itself.
    pub fn new<T>(policy: &PolicyConfig<T>, instances: u32, streams: PathStreams<R>) -> Self {
        let breakers = match &policy.breaker {
            None => Vec::new(),
            Some(b) => {
                let n = match b.scope {
                    BreakerScope::Instance => instances,
                    BreakerScope::Edge => 1,
                };
                (0..n).map(|_| Breaker::new(b.config.clone())).collect()
            }
        };
        let accrual = match &policy.failure_accrual {
            Some(_) => vec![Accrual::default(); instances as usize],
            None => Vec::new(),
        };
        PathPolicies {
            breakers,
            budget: policy.budget.as_ref().map(Budget::new),
            bulkhead: None,
            throttle: policy.throttle.as_ref().map(Throttle::new),
            hedge: (policy.hedge.as_ref()).map(|h| LatencyTracker::new(h.period)),
            hedge_budget: (policy.hedge.as_ref())
                .and_then(|h| h.own_budget())
                .map(|b| Budget::new(&b)),
            limit: policy.limit.as_ref().map(Limiter::new),
            // Full at the run's start (time 0); a tick bucket's ticks count from there.
            rate_limit: (policy.rate_limit.as_ref()).map(|b| TokenBucket::new(b, Nanos::ZERO)),
            accrual,
            throttle_rng: streams.throttle,
            limit_rng: streams.limit,
            jitter_rng: streams.jitter,
            accrual_rng: streams.accrual,
        }
    }
}
