//! What a gRPC service config (A6 retry and hedging policies) expresses of a policy.

use super::{Notes, drop_other_host, keep_kinds};
use crate::model::{BudgetConfig, HedgeDelay, Policy};
use cascade_policy::Nanos;
use cascade_policy::backoff::{Jitter, Schedule};
use cascade_policy::outcome::Outcome;
use cascade_policy::retry::RetryAfterWait;

/// gRPC clamps `maxAttempts` to this (A6).
pub(crate) const GRPC_MAX_ATTEMPTS: u32 = 5;

/// Restricts `q` to what the format expresses, noting in `n` each setting changed or dropped.
pub(super) fn restrict(q: &mut Policy, n: &mut Notes) {
    drop_other_host(
        q,
        n,
        "a gRPC retry goes through the channel's load balancing policy afresh: no setting keeps it off the backends tried",
    );
    let retries = q.retry.as_ref().is_some_and(|r| r.attempts > 1);
    if retries {
        keep_kinds(
            q,
            &[
                Outcome::DeadlineExceeded,
                Outcome::Unavailable,
                Outcome::Overloaded,
                Outcome::Internal,
            ],
            n,
            "no gRPC status stands for it",
        );
        if q.retry.as_ref().is_some_and(|r| r.on.is_empty()) {
            // A6 refuses a retryPolicy with no status to retry.
            q.retry = None;
            n.add(
                "retry",
                "gRPC requires at least one retryableStatusCode, and none of the kinds it retries has one",
            );
        }
    }
    if let Some(r) = q.retry.as_mut().filter(|r| r.attempts > 1) {
        if r.attempts > GRPC_MAX_ATTEMPTS {
            r.attempts = GRPC_MAX_ATTEMPTS;
            n.add("retry.attempts", "gRPC clamps maxAttempts to 5");
        }
        let b = &mut r.backoff;
        match b.schedule {
            Schedule::Exponential { .. } => {}
            // A constant wait is exponential growth by 1.
            Schedule::Constant => {
                b.schedule = Schedule::Exponential { multiplier: 1.0 };
                b.max = b.base;
            }
            Schedule::Linear => {
                b.schedule = Schedule::Exponential { multiplier: 1.0 };
                n.add(
                    "retry.backoff",
                    "gRPC's backoff is exponential (linear is not expressible): growth by 1 is written",
                );
            }
        }
        if b.jitter != (Jitter::Proportional { factor: 0.2 }) {
            b.jitter = Jitter::Proportional { factor: 0.2 };
            n.add(
                "retry.jitter",
                "gRPC's jitter is ×U(0.8, 1.2) (proportional, 0.2)",
            );
        }
        if b.base == Nanos::ZERO {
            b.base = Nanos(1);
            n.add(
                "retry.base",
                "gRPC requires initialBackoff and maxBackoff > 0: 1 ns is written for 0",
            );
        }
        b.max = b.max.max(b.base);
        if !r.retry_after {
            r.retry_after = true;
            n.add(
                "retry.retry_after",
                "gRPC always honours grpc-retry-pushback-ms",
            );
        }
        if r.retry_after_wait == RetryAfterWait::Max {
            r.retry_after_wait = RetryAfterWait::default();
            n.add(
                "retry.retry_after_wait",
                "gRPC waits the pushback instead of the backoff, not the longer of the two",
            );
        }
    }
    if q.retry.as_ref().is_none_or(|r| r.attempts <= 1) && q.timeout.take().is_some() {
        n.add(
            "timeout",
            "gRPC's per-attempt timeout (perAttemptRecvTimeout) is a field of a retryPolicy; this policy has none",
        );
    }
    hedge_grpc(q, n);
    match &q.budget {
        Some(BudgetConfig::TokenBucket { .. }) | None => {}
        Some(_) => {
            q.budget = None;
            n.add(
                "retry.budget",
                "gRPC's budget is retryThrottling (kind = \"token_bucket\")",
            );
        }
    }
    throttling_grpc(q, n);
    for (part, there) in [
        ("breaker", q.breaker.take().is_some()),
        ("bulkhead", q.bulkhead.take().is_some()),
        ("throttle", q.throttle.take().is_some()),
        ("rate_limit", q.rate_limit.take().is_some()),
    ] {
        if there {
            n.add(part, "a gRPC service config has no such setting");
        }
    }
    if q.cancel {
        q.cancel = false;
        n.add(
            "cancel",
            "cancellation reaches the server through its Context, not a setting",
        );
    }
}

/// retryThrottling is the service config's, shared by every retry and hedge of it: a method
/// that only hedges carries it in a one-attempt retry (as import writes it), a hedge under it
/// is throttled by it, and without either there is nothing for it to throttle.
fn throttling_grpc(q: &mut Policy, n: &mut Notes) {
    if q.budget.is_none() {
        return;
    }
    let retries = q.retry.as_ref().is_some_and(|r| r.attempts > 1);
    match &mut q.hedge {
        Some(h) => {
            if !h.uses_retry_budget {
                h.uses_retry_budget = true;
                n.add(
                    "hedge.uses_retry_budget",
                    "gRPC's retryThrottling throttles hedges as well as retries",
                );
            }
            if !retries {
                q.retry = Some(crate::scenario::single_attempt_retry());
            }
        }
        None if !retries => {
            q.budget = None;
            q.retry = None;
            n.add(
                "retry.budget",
                "retryThrottling throttles retries and hedges, and this policy has neither",
            );
        }
        None => {}
    }
}

fn hedge_grpc(q: &mut Policy, n: &mut Notes) {
    let retries = q.retry.as_ref().is_some_and(|r| r.attempts > 1);
    let Some(h) = &mut q.hedge else { return };
    if retries {
        q.hedge = None;
        n.add(
            "hedge",
            "gRPC takes a retryPolicy or a hedgingPolicy, not both: the retry is written",
        );
        return;
    }
    if let HedgeDelay::Percentile(_) = h.delay {
        q.hedge = None;
        n.add("hedge.delay", "gRPC's hedgingDelay is fixed");
        return;
    }
    if h.budget.take().is_some() {
        n.add(
            "hedge.budget",
            "gRPC throttles hedges with retryThrottling only",
        );
    }
}
