//! A service's metrics (`service.<s>.*`): arrivals, queueing, work, admission, orchestration.

use super::{MetricDoc, doc};

pub(super) const SERVICES: &[MetricDoc] = &[
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
        "service.<s>.ok_ratio",
        "ratio",
        "answers it gave ok, not degraded / all answers it gave",
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
        "permits of the service's connection pool `<p>` (`bulkhead.pool`) held, time average over the measured run, and over each bucket in the series, summed over its instances; the pool's paths each count their own rejected_bulkhead",
    ),
    doc(
        "service.<s>.pool.<p>.waiting_mean",
        "count",
        "calls waiting in line for a permit of the service's pool `<p>`, time average over the measured run, and over each bucket in the series, summed over its instances",
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
        "service.<s>.rate_limited",
        "count",
        "arrivals refused by the service's `rate_limit` (its limiter, the instance's or the fleet's, had no room: an empty token bucket, nginx's excess past the burst, a wait past the deadline or Guava's timeout), answered at once with the limit's `status` (429 overloaded by default, 503 unavailable for limit_req); only at a service with `rate_limit`",
    ),
    doc(
        "service.<s>.rate_limit.delayed",
        "count",
        "arrivals the rate limit held before letting them on (nginx's limit_req past its `delay`, x/time/rate's `Wait`, Guava's `acquire`); only when the limiter can hold one",
    ),
    doc(
        "service.<s>.rate_limit.delay_mean_ms",
        "ms",
        "the mean of those holds' delays (the delayed arrivals only); only when the limiter can hold one",
    ),
    doc(
        "service.<s>.rate_limit.delay_p99_ms",
        "ms",
        "the 99th percentile of those delays; only when the limiter can hold one",
    ),
    doc(
        "service.<s>.rate_limit.delay_max_ms",
        "ms",
        "the longest of those delays; only when the limiter can hold one",
    ),
    doc(
        "service.<s>.rate_limit.client.<c>.passed",
        "count",
        "arrivals from client <c> (however deep the service) that took a token of their tenant's bucket; only at a service whose `rate_limit` has `key = \"client\"`",
    ),
    doc(
        "service.<s>.rate_limit.client.<c>.refused",
        "count",
        "arrivals from client <c> that found their tenant's bucket empty (counted in rate_limited too); only with `key = \"client\"`",
    ),
    doc(
        "service.<s>.rate_limit.client.<c>.op.<o>.passed",
        "count",
        "arrivals of operation <o> of client <c>'s mix (or of client <c>, without a mix) that took a token of their key's bucket; only with `key = \"client_operation\"`",
    ),
    doc(
        "service.<s>.rate_limit.client.<c>.op.<o>.refused",
        "count",
        "arrivals of that client operation that found their key's bucket empty; only with `key = \"client_operation\"`",
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
        "×",
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
        "time-average share of all workers that are busy; at a service with orchestration (probes, restarts, autoscaling), busy workers over `workers` times the time-integral of its existing instances; not emitted for a service with `workers = \"unbounded\"`",
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
        "worker time spent on requests after their caller had given up (until they finished, or were cancelled), counted in the span it was spent, as busy time is: a bucket or window holds only its own",
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
        "probes of that kind (liveness, readiness, startup) sent to its instances; a probe in the queue is also an arrival of its operation, so the service's arrivals are its callers' attempts plus its in-queue probes; a probe served out of band is not an arrival; only for the kinds it has",
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
];
