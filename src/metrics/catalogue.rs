//! Every metric name, its unit and exactly what it means. `cascade metrics` prints this, and a
//! test checks that every name a run emits is described here and every entry is emitted.

pub struct MetricDoc {
    /// The name, with `<c>` (client), `<s>` (service), `<from>`/`<to>` and `<kind>` placeholders.
    pub pattern: &'static str,
    pub unit: &'static str,
    pub meaning: &'static str,
}

const fn doc(pattern: &'static str, unit: &'static str, meaning: &'static str) -> MetricDoc {
    MetricDoc {
        pattern,
        unit,
        meaning,
    }
}

/// All metrics. Counts are of events in the window (the measured run for the summary, one
/// bucket in timeseries.csv); means and percentiles are over the events they name.
pub const CATALOGUE: &[MetricDoc] = &[
    doc(
        "client.<c>.requests",
        "count",
        "logical requests the client started",
    ),
    doc(
        "client.<c>.offered_rps",
        "1/s",
        "requests started per second: the load offered, whatever became of it",
    ),
    doc(
        "client.<c>.in_flight_end",
        "count",
        "requests still unanswered when the run ended (summary only): requests = success + errors + this, with no warm-up",
    ),
    doc(
        "client.<c>.pool.<p>.in_use_mean",
        "count",
        "permits of the client's connection pool `<p>` (`bulkhead.pool`) held, time average over the measured run (summary only)",
    ),
    doc(
        "client.<c>.pool.<p>.waiting_mean",
        "count",
        "calls waiting in line for a permit of the client's pool `<p>`, time average over the measured run (summary only)",
    ),
    doc(
        "client.<c>.success",
        "count",
        "requests answered ok or degraded within the deadline",
    ),
    doc(
        "client.<c>.degraded",
        "count",
        "requests answered degraded (an optional call failed, or a fallback answered)",
    ),
    doc(
        "client.<c>.success_ratio",
        "ratio",
        "success / requests that finished in the window (0 when none finished)",
    ),
    doc(
        "client.<c>.goodput_rps",
        "1/s",
        "success per second of the window",
    ),
    doc(
        "client.<c>.latency_p50_ms",
        "ms",
        "median time from start to answer or give-up, over every finished request",
    ),
    doc(
        "client.<c>.latency_p90_ms",
        "ms",
        "90th percentile of that latency",
    ),
    doc(
        "client.<c>.latency_p99_ms",
        "ms",
        "99th percentile of that latency",
    ),
    doc(
        "client.<c>.latency_p999_ms",
        "ms",
        "99.9th percentile of that latency",
    ),
    doc(
        "client.<c>.latency_mean_ms",
        "ms",
        "mean of that latency (exact, not from the histogram)",
    ),
    doc("client.<c>.latency_max_ms", "ms", "largest such latency"),
    doc(
        "client.<c>.errors.<kind>",
        "count",
        "requests that failed with this outcome kind",
    ),
    doc(
        "service.<s>.arrivals",
        "count",
        "attempts that reached the service (all instances)",
    ),
    doc(
        "service.<s>.admitted",
        "count",
        "arrivals taken in (started or queued): not turned away on arrival by a full queue, admission shedding or a fault",
    ),
    doc(
        "service.<s>.success",
        "count",
        "answers it gave ok or degraded, whether or not the caller still waited",
    ),
    doc("service.<s>.degraded", "count", "answers it gave degraded"),
    doc(
        "service.<s>.success_ratio",
        "ratio",
        "success / all answers it gave (faults' and shedding's included)",
    ),
    doc(
        "service.<s>.goodput_rps",
        "1/s",
        "answers ok or degraded per second whose caller still waited for them",
    ),
    doc(
        "service.<s>.errors.<kind>",
        "count",
        "answers it gave with this failure kind (overloaded for a full queue or shedding, the kind of an errors fault, unavailable for a crash)",
    ),
    doc(
        "service.<s>.unanswered",
        "count",
        "arrivals never answered: swallowed by a blackhole, lost in a blackhole crash, or cancelled by their caller",
    ),
    doc(
        "service.<s>.in_flight_end",
        "count",
        "arrivals still queued or in work when the run ended (summary only): arrivals = answers + unanswered + this, with no warm-up",
    ),
    doc(
        "service.<s>.pool.<p>.in_use_mean",
        "count",
        "permits of the service's connection pool `<p>` (`bulkhead.pool`) held, time average over the measured run (summary only), summed over its instances; the pool's paths each count their own rejected_bulkhead",
    ),
    doc(
        "service.<s>.pool.<p>.waiting_mean",
        "count",
        "calls waiting in line for a permit of the service's pool `<p>`, time average over the measured run (summary only), summed over its instances",
    ),
    doc(
        "service.<s>.served",
        "count",
        "requests that held a worker and finished",
    ),
    doc(
        "service.<s>.rejected",
        "count",
        "arrivals turned away because the instance's queue was full (answered overloaded)",
    ),
    doc(
        "service.<s>.dropped_expired",
        "count",
        "queued requests skipped unserved because their deadline had passed (drop_expired)",
    ),
    doc(
        "service.<s>.shed.<class>",
        "count",
        "arrivals of a criticality class (critical_plus, critical, sheddable_plus, sheddable) shed by admission, answered overloaded",
    ),
    doc(
        "service.<s>.shed_codel",
        "count",
        "queued requests shed at dequeue by CoDel (waited over 2 x target while the queue's minimum delay stayed above target), answered overloaded",
    ),
    doc(
        "service.<s>.ejections",
        "count",
        "instances ejected from the balancer by outlier detection",
    ),
    doc(
        "service.<s>.ejected_mean",
        "instances",
        "time-average of instances ejected from the balancer",
    ),
    doc("service.<s>.throughput_rps", "1/s", "served per second"),
    doc(
        "service.<s>.attempts_per_request",
        "ratio",
        "attempts that reached the service per logical request of all clients: end-to-end amplification",
    ),
    doc(
        "service.<s>.step.<step>.taken",
        "count",
        "jobs that reached a step with a `p` of the service's calls (<step>: the step's name, or its index from 0 when unnamed) and made its calls: its draw said yes",
    ),
    doc(
        "service.<s>.step.<step>.skipped",
        "count",
        "jobs that reached that step and went on to the next without calling: taken + skipped = jobs that reached it",
    ),
    doc(
        "service.<s>.step.<step>.option.<k>",
        "count",
        "jobs that reached a `choose` step (<step>: its name, or its index from 0) and drew its option k (from 0, in the order written): the options' counts add up to the jobs that reached it",
    ),
    doc(
        "service.<s>.utilization",
        "ratio",
        "time-average share of all workers that are busy; at a service with orchestration (probes, restarts, autoscaling), busy workers over `workers` times the time-integral of its existing instances",
    ),
    doc(
        "service.<s>.wait_mean_ms",
        "ms",
        "mean time from arrival to getting a worker, over requests that got one",
    ),
    doc(
        "service.<s>.wait_p99_ms",
        "ms",
        "99th percentile of that wait",
    ),
    doc(
        "service.<s>.sojourn_mean_ms",
        "ms",
        "mean time from arrival to finishing, over served requests",
    ),
    doc(
        "service.<s>.in_system_mean",
        "requests",
        "time-average number queued or being served",
    ),
    doc(
        "service.<s>.queue_mean",
        "requests",
        "time-average number queued",
    ),
    doc(
        "service.<s>.wasted_work_s",
        "worker-seconds",
        "worker time spent on requests after their caller had given up (until they finished, or were cancelled)",
    ),
    doc(
        "service.<s>.wasted_share",
        "ratio",
        "wasted_work_s over all worker time held: the share of its work nobody waited for",
    ),
    doc(
        "service.<s>.contention_work_s",
        "worker-seconds",
        "worker time contention added to work (its `[service.contention]` factor over 1, times the work), spent: the whole of a segment that ran to its end, and of one cut short (cancelled, crashed) the part that ran, counted as overhead first; only at a service with `contention`",
    ),
    doc(
        "service.<s>.refusal_work_s",
        "worker-seconds",
        "worker time spent refusing (`reject_work` for each full-queue, shed, CoDel, drop_expired, partition or `errors`-fault refusal, done by a worker before any queued request, booked when done); only at a service with `reject_work`",
    ),
    doc(
        "service.<s>.restarts",
        "count",
        "times an instance was killed and restarted because its liveness or startup probe failed `failure_threshold` times in a row; only at a service with orchestration",
    ),
    doc(
        "service.<s>.probes.<kind>",
        "count",
        "probes of that kind (liveness, readiness, startup) sent to its instances; a probe in the queue is also an arrival of its operation, so the service's arrivals are its callers' attempts plus these; only for the kinds it has",
    ),
    doc(
        "service.<s>.probe_failures.<kind>",
        "count",
        "probes of that kind that failed: answered other than ok or degraded, or not within their `timeout`; only for the kinds it has",
    ),
    doc(
        "service.<s>.not_ready_s",
        "instance-seconds",
        "time-integral of its existing instances out of the balancer's rotation (starting, restarting, failing readiness, not yet past their startup probe, draining); only at a service with orchestration",
    ),
    doc(
        "service.<s>.instances_mean",
        "instances",
        "time-average number of its instances that exist (starting, running or draining); only at a service with orchestration",
    ),
    doc(
        "service.<s>.scale_ups",
        "count",
        "autoscaler syncs that added instances (each may add several); only at a service with `autoscale`",
    ),
    doc(
        "service.<s>.scale_downs",
        "count",
        "autoscaler syncs that removed instances (each may remove several); only at a service with `autoscale`",
    ),
    doc(
        "service.<s>.dedup_hits",
        "count",
        "attempts of keyed non-idempotent calls its idempotency store answered without executing them: parked while an attempt of the same call ran and answered with its success, or answered from a success stored within `dedup_window`; only at a service with `dedup_window`",
    ),
    doc(
        "service.<s>.dedup_saved_work_s",
        "worker-seconds",
        "worker time the deduplicated attempts did not spend: for each of `dedup_hits`, the worker time (start of work to answer) of the execution whose success answered it; only at a service with `dedup_window`",
    ),
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
        "ratio",
        "attempts per logical call",
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
    doc(
        "client.<c>.op.<o>.<metric>",
        "as <metric>",
        "any client metric above, over the requests of one operation of a client's `mix` (the client's own metrics are their sum)",
    ),
    doc(
        "service.<s>.op.<o>.<metric>",
        "as <metric>",
        "any service metric above, over the requests of operation o alone (the service's own metrics are the sum over its operations; utilization is the share of all the service's workers that o holds)",
    ),
    doc(
        "edge.<from>.<to>.op.<o>.<metric>",
        "as <metric>",
        "any edge metric above, over the calls to operation o of the callee (the pair's edge.<from>.<to>.* metrics are the sum over its operations)",
    ),
    doc(
        "window.<w>.<metric>",
        "as <metric>",
        "any metric above measured over [[window]] <w> alone: the buckets that start inside it (a fault's phase, or a start and end)",
    ),
    doc(
        "run.diverged",
        "0/1",
        "1 when the run stopped early because more than scenario.max_in_flight requests (logical calls plus jobs at services; default 1,000,000) were in flight: an overloaded open system growing without bound. Every other metric then covers the run up to run.stopped_at_s (summary only)",
    ),
    doc(
        "run.stopped_at_s",
        "s",
        "simulated time at which the run stopped, from the start of the warm-up: warm-up plus duration, or earlier when it diverged (summary only)",
    ),
    doc(
        "fault.<i>.goodput_before_rps",
        "1/s",
        "all clients' goodput over the measured buckets before fault i (its [[fault]] position, from 0) started: the level to come back to",
    ),
    doc(
        "fault.<i>.goodput_during_rps",
        "1/s",
        "all clients' goodput while fault i was active",
    ),
    doc(
        "fault.<i>.goodput_after_rps",
        "1/s",
        "all clients' goodput from fault i's end to the end of the run",
    ),
    doc(
        "fault.<i>.recovered",
        "0/1",
        "1 when goodput came back within recovery_tolerance (5%) of its level before fault i and held there for recovery_hold (10 s)",
    ),
    doc(
        "fault.<i>.recovery_s",
        "s",
        "from fault i's end to the start of the first bucket of that hold (bucket resolution); when not recovered, the time watched after the end",
    ),
    doc(
        "fault.<i>.client.<c>.goodput_before_rps",
        "1/s",
        "client c's own goodput before fault i; the fault.<i>.client.<c>.* verdict exists only for a client that sent requests in the measured buckets before the fault",
    ),
    doc(
        "fault.<i>.client.<c>.goodput_during_rps",
        "1/s",
        "client c's goodput while fault i was active",
    ),
    doc(
        "fault.<i>.client.<c>.goodput_after_rps",
        "1/s",
        "client c's goodput from fault i's end to the end of the run",
    ),
    doc(
        "fault.<i>.client.<c>.recovered",
        "0/1",
        "fault.<i>.recovered judged on client c's goodput alone: 0 for a client still down behind others that recovered",
    ),
    doc(
        "fault.<i>.client.<c>.recovery_s",
        "s",
        "fault.<i>.recovery_s judged on client c's goodput alone",
    ),
];

/// Whether `name` is an instance of `pattern` (each placeholder stands for one dotless segment;
/// `errors.<kind>` for a failure kind).
pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<&str> = pattern.split('.').collect();
    let n: Vec<&str> = name.split('.').collect();
    p.len() == n.len()
        && p.iter()
            .zip(&n)
            .all(|(p, n)| p == n || (p.starts_with('<') && !n.is_empty()))
}

/// The catalogue entry describing `name`. A windowed name, `window.<w>.<metric>`, is
/// described by its metric's entry.
pub fn describe(name: &str) -> Option<&'static MetricDoc> {
    let name = windowed(name).unwrap_or(name);
    let whole = whole_of(name);
    CATALOGUE.iter().find(|d| matches(d.pattern, &whole))
}

/// A part's metric named as its whole's (`service.api.op.login.arrivals` →
/// `service.api.arrivals`), which says what it measures; other names as they are.
pub fn whole_of(name: &str) -> String {
    if !super::select::is_part(name) {
        return name.to_string();
    }
    let at = if name.starts_with("edge.") { 3 } else { 2 };
    let mut segments: Vec<&str> = name.split('.').collect();
    segments.drain(at..at + 2);
    segments.join(".")
}

/// The metric a `window.<w>.<metric>` name measures.
pub fn windowed(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("window.")?;
    rest.split_once('.').map(|(_, metric)| metric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_concrete_names() {
        assert!(matches("client.<c>.requests", "client.web.requests"));
        assert!(matches(
            "edge.<from>.<to>.errors.<kind>",
            "edge.api.db.errors.timeout"
        ));
        assert!(!matches("client.<c>.requests", "client.web.success"));
        assert_eq!(
            describe("service.db.utilization").map(|d| d.unit),
            Some("ratio")
        );
    }
}
