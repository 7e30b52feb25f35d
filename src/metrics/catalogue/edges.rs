//! A caller-callee pair's metrics (`edge.<from>.<to>.*`): attempts, retries, policies, hedges.

use super::{MetricDoc, doc};

pub(super) const EDGES: &[MetricDoc] = &[
    doc(
        "edge.<from>.<to>.calls",
        "count",
        "logical calls from <from> (a client or service) to service <to>",
    ),
    doc(
        "edge.<from>.<to>.attempts",
        "count",
        "attempts sent on the edge (first tries and retries)",
    ),
    doc(
        "edge.<from>.<to>.retries",
        "count",
        "attempts after the first of their call",
    ),
    doc(
        "edge.<from>.<to>.hedges",
        "count",
        "hedged copies of attempts sent (counted in attempts too)",
    ),
    doc(
        "edge.<from>.<to>.amplification",
        "×",
        "attempts per logical call; a call refused before any attempt (an open breaker, a full bulkhead, a limit) counts with none, so during an outage behind a breaker it reads below 1",
    ),
    doc(
        "edge.<from>.<to>.amplification_sent",
        "×",
        "attempts / calls that sent their first attempt (attempts - retries - hedges): the load a caller adds per call it actually sends, whatever a breaker refuses; gate retry storms on this on an edge with a breaker",
    ),
    doc(
        "edge.<from>.<to>.success",
        "count",
        "calls that ended ok or degraded",
    ),
    doc(
        "edge.<from>.<to>.degraded",
        "count",
        "calls that ended degraded: an optional call of theirs failed, or a fallback answered",
    ),
    doc(
        "edge.<from>.<to>.success_ratio",
        "ratio",
        "calls ended ok or degraded / calls ended",
    ),
    doc(
        "edge.<from>.<to>.ok_ratio",
        "ratio",
        "calls ended ok, not degraded / calls ended",
    ),
    doc(
        "edge.<from>.<to>.goodput_rps",
        "1/s",
        "calls ended ok or degraded per second",
    ),
    doc(
        "edge.<from>.<to>.call_latency_p50_ms",
        "ms",
        "median of a logical call's time, first attempt to final answer (retries, backoff and fallback included)",
    ),
    doc(
        "edge.<from>.<to>.call_latency_p99_ms",
        "ms",
        "99th percentile of that call latency",
    ),
    doc(
        "edge.<from>.<to>.call_latency_mean_ms",
        "ms",
        "mean of that call latency",
    ),
    doc(
        "edge.<from>.<to>.attempt_latency_p50_ms",
        "ms",
        "median of one attempt's time, sent to answered or timed out (hedged copies: the copy that answered)",
    ),
    doc(
        "edge.<from>.<to>.attempt_latency_p99_ms",
        "ms",
        "99th percentile of that attempt latency",
    ),
    doc(
        "edge.<from>.<to>.attempt_latency_mean_ms",
        "ms",
        "mean of that attempt latency",
    ),
    doc(
        "edge.<from>.<to>.errors.<kind>",
        "count",
        "calls that ended with this failure kind",
    ),
    doc(
        "edge.<from>.<to>.rejected_breaker",
        "count",
        "attempts (or calls, with wraps = \"call\") an open breaker refused",
    ),
    doc(
        "edge.<from>.<to>.rejected_bulkhead",
        "count",
        "attempts a full bulkhead refused, at once or after waiting max_wait",
    ),
    doc(
        "edge.<from>.<to>.budget_exhausted",
        "count",
        "retries the retry budget refused (the call failed instead)",
    ),
    doc(
        "edge.<from>.<to>.hedge_budget_exhausted",
        "count",
        "hedges their budget refused: hedge.budget, or the retry budget with hedge.uses_retry_budget (the attempt went on waiting alone)",
    ),
    doc(
        "edge.<from>.<to>.limited",
        "count",
        "attempts the caller's adaptive concurrency limit rejected locally",
    ),
    doc(
        "edge.<from>.<to>.limit_mean",
        "permits",
        "time-average of the adaptive concurrency limit, summed over the caller's instances",
    ),
    doc(
        "edge.<from>.<to>.rate_limited",
        "count",
        "calls the caller's rate limit (a token bucket per caller instance) refused locally, never delayed",
    ),
    doc(
        "edge.<from>.<to>.throttled",
        "count",
        "attempts the caller's adaptive throttle rejected locally",
    ),
    doc(
        "edge.<from>.<to>.fallbacks",
        "count",
        "calls that failed and went to their policy's fallback (answered degraded when it succeeds)",
    ),
    doc(
        "edge.<from>.<to>.duplicates",
        "count",
        "executions of a non-idempotent call's operation beyond its first (a retried attempt whose predecessor also ran)",
    ),
    doc(
        "edge.<from>.<to>.abandoned",
        "count",
        "calls ended without an outcome because the job that made them was cancelled or lost in a crash",
    ),
    doc(
        "edge.<from>.<to>.in_flight_end",
        "count",
        "logical calls still going when the run ended (summary only): calls = success + errors + abandoned + this, with no warm-up",
    ),
    doc(
        "edge.<from>.<to>.breaker_opens",
        "count",
        "times a breaker on the edge opened (from closed or from half-open)",
    ),
    doc(
        "edge.<from>.<to>.breaker_open_s",
        "breaker-seconds",
        "time the edge's breakers spent open, summed over them (one per caller instance, or per callee instance too); per bucket it is the breakers' state over time",
    ),
    doc(
        "edge.<from>.<to>.breaker_half_open_s",
        "breaker-seconds",
        "time the edge's breakers spent half-open (from the first call after the open time, which moves a breaker to half-open, to its last probe's result)",
    ),
    doc(
        "edge.<from>.<to>.half_open_probes",
        "count",
        "calls a half-open breaker let through as probes",
    ),
    doc(
        "edge.<from>.<to>.accrual_removals",
        "count",
        "hosts the callers' failure accrual marked dead from alive (Finagle's `removals`; a failed probe marking again is not one); only with failure_accrual",
    ),
    doc(
        "edge.<from>.<to>.accrual_probes",
        "count",
        "requests sent as a marked host's one probe once its mark was over (Finagle's `probes`); only with failure_accrual",
    ),
    doc(
        "edge.<from>.<to>.accrual_revivals",
        "count",
        "marked hosts a successful probe made alive again (Finagle's `revivals`); only with failure_accrual",
    ),
    doc(
        "edge.<from>.<to>.accrual_panics",
        "count",
        "attempts and hedges sent while every host left was marked, so the balancer picked a marked one anyway (Finagle's panic mode); only with failure_accrual",
    ),
];
