//! Accumulators of one window (a time bucket, or the whole measured run) for each kind of
//! entity, and the metrics each yields. A bucket's accumulator is merged into the run's total
//! when the bucket closes, so per-bucket counts add up to the summary's by construction.

use super::level::Area;
use super::names::{self, PROBE_KINDS, SHED_METRICS, error_metric};
use cascade_policy::hist::LatencyHist;
use cascade_policy::outcome::{OUTCOME_COUNT, Outcome};

pub use super::edge_acc::EdgeAcc;

/// Receives `(metric suffix, value)` pairs in a fixed order.
pub type Emit<'a> = &'a mut dyn FnMut(&str, f64);

pub(super) fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 { num / den } else { 0.0 }
}

/// Per-kind failure counters.
#[derive(Clone, Default)]
pub struct Outcomes {
    pub counts: [u64; OUTCOME_COUNT],
}

impl Outcomes {
    pub fn record(&mut self, o: Outcome) {
        self.counts[o.index()] += 1;
    }
    pub fn success(&self) -> u64 {
        self.counts[Outcome::Ok.index()] + self.counts[Outcome::Degraded.index()]
    }
    pub fn finished(&self) -> u64 {
        self.counts.iter().sum()
    }
    pub(super) fn merge(&mut self, o: &Outcomes) {
        for (a, b) in self.counts.iter_mut().zip(o.counts.iter()) {
            *a += b;
        }
    }
    fn emit_errors(&self, emit: Emit) {
        for o in Outcome::failures() {
            emit(error_metric(*o), self.counts[o.index()] as f64);
        }
    }
    /// success, degraded, success_ratio, then `goodput` per second over `span_ns`, then errors
    /// by kind: the same set at every client, service and edge.
    pub(super) fn emit_all(&self, span_ns: u64, goodput: u64, emit: Emit) {
        let success = self.success() as f64;
        emit("success", success);
        emit("degraded", self.counts[Outcome::Degraded.index()] as f64);
        emit("success_ratio", ratio(success, self.finished() as f64));
        // A fallback's answer is a success (`degraded`): a gate on success_ratio alone passes
        // while every order goes uncharged. This one counts only plain successes.
        let ok = self.counts[Outcome::Ok.index()] as f64;
        emit("ok_ratio", ratio(ok, self.finished() as f64));
        emit("goodput_rps", ratio(goodput as f64, span_ns as f64 / 1e9));
        self.emit_errors(emit);
    }
}

#[derive(Clone, Default)]
pub struct ClientAcc {
    pub requests: u64,
    pub outcomes: Outcomes,
    pub latency: LatencyHist,
    /// The latency of the requests answered ok or degraded alone: fast refusals (an open
    /// breaker's) lower the all-answers percentiles, never these.
    pub success_latency: LatencyHist,
}

impl ClientAcc {
    pub fn merge(&mut self, o: &ClientAcc) {
        self.requests += o.requests;
        self.outcomes.merge(&o.outcomes);
        self.latency.merge(&o.latency);
        self.success_latency.merge(&o.success_latency);
    }
    pub fn reset(&mut self) {
        self.requests = 0;
        self.outcomes = Outcomes::default();
        self.latency.reset();
        self.success_latency.reset();
    }
    pub fn emit(&self, span_ns: u64, emit: Emit) {
        emit("requests", self.requests as f64);
        emit(
            "offered_rps",
            ratio(self.requests as f64, span_ns as f64 / 1e9),
        );
        self.outcomes
            .emit_all(span_ns, self.outcomes.success(), emit);
        let [p50, p90, p99, p999] = self.latency.quantiles_ms([0.5, 0.9, 0.99, 0.999]);
        emit("latency_p50_ms", p50);
        emit("latency_p90_ms", p90);
        emit("latency_p99_ms", p99);
        emit("latency_p999_ms", p999);
        emit("latency_mean_ms", self.latency.mean_ms());
        emit("latency_max_ms", self.latency.max_ms());
        let [ok_p50, ok_p99] = self.success_latency.quantiles_ms([0.5, 0.99]);
        emit("success_latency_p50_ms", ok_p50);
        emit("success_latency_p99_ms", ok_p99);
    }
}

#[derive(Clone, Default)]
pub struct ServiceAcc {
    pub arrivals: u64,
    /// Arrivals taken in (started or queued), not turned away on arrival.
    pub admitted: u64,
    /// The answers it gave, by outcome; `useful` are the ok or degraded ones whose caller
    /// still waited for them.
    pub answers: Outcomes,
    pub useful: u64,
    /// Arrivals never answered: swallowed by a blackhole, lost in a blackhole crash, or
    /// cancelled by their caller.
    pub unanswered: u64,
    pub served: u64,
    pub rejected: u64,
    pub dropped_expired: u64,
    /// Shed on arrival, by criticality class (critical_plus first).
    pub shed: [u64; 4],
    /// Shed at dequeue by CoDel.
    pub shed_codel: u64,
    /// Refused on arrival by the service's rate limit; emitted only when it has one
    /// (`has_rate_limit`), so other services' metrics stay as they were.
    pub rate_limited: u64,
    pub has_rate_limit: bool,
    /// The delays of arrivals the rate limit held before letting them on (nginx's
    /// `limit_req`, x/time/rate's `Wait`, Guava's `acquire`); emitted only when its limiter
    /// can hold one (`rate_limit_delays`).
    pub rate_delay: LatencyHist,
    pub rate_limit_delays: bool,
    /// Per key of a keyed rate limit (`metrics/rate_keys.rs`), arrivals it passed and
    /// refused; only on the service's own slot, empty elsewhere and for an unkeyed limit.
    /// Emitted by the recorder, which holds the keys' names.
    pub rate_keys: Vec<[u64; 2]>,
    /// Instances ejected by outlier detection, and the integral (ns × instances) ejected.
    pub ejections: u64,
    pub ejected_area: Area,
    pub wait: LatencyHist,
    /// Exact, as the histograms' sums are: an integer add is cheaper than a float one.
    pub sojourn_sum_ns: u128,
    /// Integrals over time (ns × count) of busy workers and of queued requests. A request in
    /// the system is in exactly one of the two, so their sum integrates the number in system.
    pub busy_area: Area,
    pub queue_area: Area,
    /// The integral of workers still working for a caller that has given up: booked in the
    /// span it was spent, as busy time is, so a bucket's or window's share never exceeds 1.
    pub wasted_area: Area,
    /// Worker time contention added to work, and refusals took (`Service::overload`), ns.
    pub contention_ns: u64,
    pub refusal_ns: u64,
    /// Whether its service has contention and costly refusals: only then are the two emitted,
    /// so other services' metrics stay as they were.
    pub has_contention: bool,
    pub has_refusal_work: bool,
    /// Attempts its idempotency store answered without work (from the execution in progress
    /// or a stored success), and the worker time those executions held, ns; emitted only when
    /// the service has a `dedup_window` (`has_dedup`).
    pub dedup_hits: u64,
    pub dedup_saved_work_ns: u64,
    pub has_dedup: bool,
    /// Workers across all instances, for utilization.
    pub capacity: f64,
    /// Its service has unbounded workers (`Service::UNBOUNDED`): busy over infinitely many
    /// is no measure of anything, so `utilization` is left out rather than emitted as 0.
    pub unbounded: bool,
    /// With orchestration (`model/orchestration.rs`) the number of instances varies: then
    /// utilization is busy workers over `workers` × the integral of existing instances.
    pub capacity_varies: bool,
    pub workers: f64,
    pub instances_area: Area,
    /// The platform's metrics, emitted only for an orchestrated service's own slot
    /// (`has_orchestration`): restarts, probes sent and failed per kind (the kinds it has),
    /// instance-time out of rotation, scale decisions (with an autoscaler).
    pub has_orchestration: bool,
    pub probe_kinds: [bool; 3],
    pub has_autoscale: bool,
    pub restarts: u64,
    pub probes: [u64; 3],
    pub probe_failures: [u64; 3],
    pub not_ready_area: Area,
    pub scale_ups: u64,
    pub scale_downs: u64,
    /// Per step, how often a job reaching it made its calls or skipped it: one entry per
    /// step when a step of the service has a `p` (`Service::branches`), else none. Emitted by
    /// the recorder, which holds their names.
    pub steps: Vec<StepCount>,
    /// Per option of each `choose` step, how often a job reaching it drew that option (the
    /// recorder holds which entries are whose).
    pub options: Vec<u64>,
}

/// How often a step with a `p` was made (its draw said yes) or skipped.
#[derive(Clone, Copy, Default)]
pub struct StepCount {
    pub taken: u64,
    pub skipped: u64,
}

impl ServiceAcc {
    pub fn merge(&mut self, o: &ServiceAcc) {
        self.arrivals += o.arrivals;
        self.admitted += o.admitted;
        self.answers.merge(&o.answers);
        self.useful += o.useful;
        self.unanswered += o.unanswered;
        self.served += o.served;
        self.rejected += o.rejected;
        self.dropped_expired += o.dropped_expired;
        for (a, b) in self.shed.iter_mut().zip(o.shed) {
            *a += b;
        }
        self.shed_codel += o.shed_codel;
        self.rate_limited += o.rate_limited;
        self.rate_delay.merge(&o.rate_delay);
        self.ejections += o.ejections;
        self.ejected_area += o.ejected_area;
        self.wait.merge(&o.wait);
        self.sojourn_sum_ns += o.sojourn_sum_ns;
        self.busy_area += o.busy_area;
        self.queue_area += o.queue_area;
        self.wasted_area += o.wasted_area;
        self.contention_ns += o.contention_ns;
        self.refusal_ns += o.refusal_ns;
        self.dedup_hits += o.dedup_hits;
        self.dedup_saved_work_ns += o.dedup_saved_work_ns;
        self.instances_area += o.instances_area;
        self.restarts += o.restarts;
        for k in 0..3 {
            self.probes[k] += o.probes[k];
            self.probe_failures[k] += o.probe_failures[k];
        }
        self.not_ready_area += o.not_ready_area;
        self.scale_ups += o.scale_ups;
        self.scale_downs += o.scale_downs;
        for (a, b) in self.steps.iter_mut().zip(&o.steps) {
            a.taken += b.taken;
            a.skipped += b.skipped;
        }
        for (a, b) in self.options.iter_mut().zip(&o.options) {
            *a += b;
        }
        for (a, b) in self.rate_keys.iter_mut().zip(&o.rate_keys) {
            a[0] += b[0];
            a[1] += b[1];
        }
    }
    /// An operation's slot added into its service's: as `merge`, but the instances are the
    /// service's own (every slot of it integrates the same count).
    pub fn merge_part(&mut self, o: &ServiceAcc) {
        let instances = self.instances_area;
        self.merge(o);
        self.instances_area = instances;
    }

    /// Clears the window's values, keeping the capacity and the histogram's allocation.
    pub fn reset(&mut self) {
        self.arrivals = 0;
        self.admitted = 0;
        self.answers = Outcomes::default();
        self.useful = 0;
        self.unanswered = 0;
        self.served = 0;
        self.rejected = 0;
        self.dropped_expired = 0;
        self.shed = [0; 4];
        self.shed_codel = 0;
        self.rate_limited = 0;
        self.rate_delay.reset();
        self.ejections = 0;
        self.ejected_area = 0;
        self.wait.reset();
        self.sojourn_sum_ns = 0;
        self.busy_area = 0;
        self.queue_area = 0;
        self.wasted_area = 0;
        self.contention_ns = 0;
        self.refusal_ns = 0;
        self.dedup_hits = 0;
        self.dedup_saved_work_ns = 0;
        self.instances_area = 0;
        self.restarts = 0;
        self.probes = [0; 3];
        self.probe_failures = [0; 3];
        self.not_ready_area = 0;
        self.scale_ups = 0;
        self.scale_downs = 0;
        self.steps.fill(StepCount::default());
        self.options.fill(0);
        self.rate_keys.fill([0; 2]);
    }
    pub fn emit(&self, span_ns: u64, emit: Emit) {
        let span = span_ns as f64;
        emit("arrivals", self.arrivals as f64);
        emit("admitted", self.admitted as f64);
        emit("served", self.served as f64);
        self.answers.emit_all(span_ns, self.useful, emit);
        emit("unanswered", self.unanswered as f64);
        emit("rejected", self.rejected as f64);
        emit("dropped_expired", self.dropped_expired as f64);
        for (name, n) in SHED_METRICS.iter().zip(self.shed) {
            emit(name, n as f64);
        }
        emit("shed_codel", self.shed_codel as f64);
        if self.has_rate_limit {
            emit("rate_limited", self.rate_limited as f64);
        }
        if self.rate_limit_delays {
            emit("rate_limit.delayed", self.rate_delay.count() as f64);
            emit("rate_limit.delay_mean_ms", self.rate_delay.mean_ms());
            emit("rate_limit.delay_p99_ms", self.rate_delay.quantile_ms(0.99));
            emit("rate_limit.delay_max_ms", self.rate_delay.max_ms());
        }
        emit("ejections", self.ejections as f64);
        emit("ejected_mean", ratio(self.ejected_area as f64, span));
        emit("throughput_rps", ratio(self.served as f64, span / 1e9));
        if !self.unbounded {
            let capacity = if self.capacity_varies {
                self.workers * self.instances_area as f64
            } else {
                self.capacity * span
            };
            emit("utilization", ratio(self.busy_area as f64, capacity));
        }
        emit("wait_mean_ms", self.wait.mean_ms());
        emit("wait_p99_ms", self.wait.quantile_ms(0.99));
        emit(
            "sojourn_mean_ms",
            ratio(self.sojourn_sum_ns as f64, self.served as f64) / 1e6,
        );
        emit(
            "in_system_mean",
            ratio((self.busy_area + self.queue_area) as f64, span),
        );
        emit("queue_mean", ratio(self.queue_area as f64, span));
        emit("wasted_work_s", self.wasted_area as f64 / 1e9);
        emit(
            "wasted_share",
            ratio(self.wasted_area as f64, self.busy_area as f64),
        );
        if self.has_contention {
            emit("contention_work_s", self.contention_ns as f64 / 1e9);
        }
        if self.has_refusal_work {
            emit("refusal_work_s", self.refusal_ns as f64 / 1e9);
        }
        if self.has_dedup {
            emit("dedup_hits", self.dedup_hits as f64);
            emit("dedup_saved_work_s", self.dedup_saved_work_ns as f64 / 1e9);
        }
        if self.has_orchestration {
            self.emit_orchestration(span, emit);
        }
    }

    fn emit_orchestration(&self, span: f64, emit: Emit) {
        emit("restarts", self.restarts as f64);
        for k in (0..3).filter(|&k| self.probe_kinds[k]) {
            emit(&names::probes(PROBE_KINDS[k]), self.probes[k] as f64);
            emit(
                &names::probe_failures(PROBE_KINDS[k]),
                self.probe_failures[k] as f64,
            );
        }
        emit("not_ready_s", self.not_ready_area as f64 / 1e9);
        emit("instances_mean", ratio(self.instances_area as f64, span));
        if self.has_autoscale {
            emit("scale_ups", self.scale_ups as f64);
            emit("scale_downs", self.scale_downs as f64);
        }
    }
}
