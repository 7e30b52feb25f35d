//! What an Envoy cluster and route express of a policy.

use super::{MS, Notes, drop_part, keep_kinds};
use crate::model::{BudgetConfig, Policy, Wraps};
use cascade_policy::Nanos;
use cascade_policy::backoff::{Jitter, Schedule};
use cascade_policy::bulkhead::{BulkheadConfig, BulkheadRelease};
use cascade_policy::outcome::Outcome;
use cascade_policy::retry::RetryAfterWait;

/// Envoy's default `max_requests`: a policy without a bulkhead has this cap in Envoy anyway.
pub(crate) const ENVOY_MAX_REQUESTS: u32 = 1024;
/// Envoy's default `max_retries`, the cap on retries in flight a cluster always has.
const ENVOY_MAX_RETRIES: u32 = 3;
/// Envoy's smallest `base_interval`.
const ENVOY_MIN_BASE: Nanos = MS;

/// Restricts `q` to what the format expresses, noting in `n` each setting changed or dropped.
pub(super) fn restrict(q: &mut Policy, n: &mut Notes) {
    let has_retry = q.retry.is_some();
    if has_retry {
        keep_kinds(
            q,
            &[
                Outcome::Timeout,
                Outcome::DeadlineExceeded,
                Outcome::Unavailable,
                Outcome::Overloaded,
                Outcome::Internal,
                Outcome::Refused,
            ],
            n,
            "no Envoy retry condition stands for it",
        );
    }
    if let Some(r) = &mut q.retry {
        let b = &mut r.backoff;
        if b.schedule != (Schedule::Exponential { multiplier: 2.0 }) {
            b.schedule = Schedule::Exponential { multiplier: 2.0 };
            n.add(
                "retry.backoff",
                "Envoy's back-off doubles each interval (exponential, multiplier 2)",
            );
        }
        if b.jitter != Jitter::Full {
            b.jitter = Jitter::Full;
            n.add("retry.jitter", "Envoy's jitter is full jitter");
        }
        if b.base < ENVOY_MIN_BASE {
            b.base = ENVOY_MIN_BASE;
            n.add(
                "retry.base",
                "Envoy's base_interval is at least 1 ms: written as 1 ms",
            );
        }
        b.max = b.max.max(b.base);
        if r.retry_after && r.retry_after_wait == RetryAfterWait::Max {
            n.add(
                "retry.retry_after_wait",
                "Envoy waits U[I, 1.5 I) after the header, not the longer of header and backoff",
            );
        }
        r.retry_after_wait = RetryAfterWait::default();
        match &q.budget {
            Some(BudgetConfig::Concurrency { .. }) => {}
            other => {
                n.add(
                    "retry.budget",
                    if other.is_some() {
                        "Envoy's retry budget is a concurrency budget (kind = \"concurrency\"): its default cap, max_retries 3, is written"
                    } else {
                        "Envoy always caps retries in flight (max_retries, 3 by default); this policy has no cap"
                    },
                );
                q.budget = Some(BudgetConfig::Concurrency {
                    percent: 0.0,
                    min: ENVOY_MAX_RETRIES,
                });
            }
        }
    } else {
        q.budget = None;
        if q.timeout.take().is_some() {
            n.add(
                "timeout",
                "Envoy's per-try timeout lives in a retry_policy; this policy has no retry",
            );
        }
    }
    let cap = q.bulkhead.as_ref().map(|b| b.max_concurrent);
    if let Some(b) = &q.bulkhead {
        if b.queue > 0 {
            n.add(
                "bulkhead.queue",
                "Envoy's max_requests has no queue (max_pending_requests waits for a connection)",
            );
        }
        if b.release == BulkheadRelease::Answer {
            n.add(
                "bulkhead.release",
                "Envoy counts a request until its response, as `return` does",
            );
        }
        if b.wraps == Wraps::Call {
            n.add(
                "bulkhead.wraps",
                "Envoy's max_requests counts each request to the cluster, retries included",
            );
        }
        if b.pool.is_some() {
            n.add(
                "bulkhead.pool",
                "a cluster's circuit breakers are the cluster's own",
            );
        }
    }
    q.bulkhead = Some(plain_bulkhead(cap.unwrap_or(ENVOY_MAX_REQUESTS)));
    drop_part(
        &mut q.breaker,
        "breaker",
        n,
        "Envoy's circuit breakers are caps; its per-host breaker is outlier_detection, set on the service (`outlier`)",
    );
    drop_part(
        &mut q.rate_limit,
        "rate_limit",
        n,
        "the local rate limit is an HTTP filter of the listener (local_ratelimit), not a route or cluster setting; its export is not written yet",
    );
    drop_part(
        &mut q.throttle,
        "throttle",
        n,
        "the admission control filter is an HTTP filter of the listener, not a route or cluster setting",
    );
    drop_part(
        &mut q.hedge,
        "hedge",
        n,
        "Envoy hedges only on a per-try timeout (hedge_on_per_try_timeout)",
    );
    if q.cancel {
        q.cancel = false;
        n.add(
            "cancel",
            "Envoy resets the upstream stream on a timeout anyway; whether the server stops is the server's",
        );
    }
}

/// A bulkhead of `max_concurrent` permits and nothing else (cascade's defaults).
fn plain_bulkhead(max_concurrent: u32) -> BulkheadConfig {
    BulkheadConfig {
        max_concurrent,
        queue: 0,
        max_wait: Nanos::ZERO,
        release: BulkheadRelease::default(),
        wraps: Wraps::default(),
        pool: None,
    }
}
