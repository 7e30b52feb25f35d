//! The `[[service]]` tables of a scenario as written: a service, its operations, its steps
//! and calls, its admission and contention tables.

use super::schema::{Dur, RawDist};
use super::schema_json::EnumOf;
use crate::model::overload::ContentionCounts;
use crate::model::{AdmissionMeasure, BalancerKind, Criticality, Discipline};
use schemars::JsonSchema;
use serde::Deserialize;

/// `[[service]]`: a server with instances, workers and a queue; a service without `calls` is a
/// leaf dependency.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawService {
    /// Service name (unique, not also a client name).
    pub name: String,
    /// Identical instances, each with its own workers and queue.
    #[schemars(extend("default" = 1))]
    pub instances: Option<u32>,
    /// Workers per instance: requests handled at once by one instance, or "unbounded".
    #[schemars(extend("default" = 1))]
    pub workers: Option<super::workers::RawWorkers>,
    /// Queue capacity per instance; 0 = no queue (default: unbounded).
    pub queue: Option<u64>,
    /// Which queued request a freed worker takes: the oldest or the newest.
    #[schemars(with = "Option<EnumOf<Discipline>>", extend("default" = "fifo"))]
    pub discipline: Option<Discipline>,
    /// When a worker takes a request from the queue, skip it if its deadline has passed.
    #[schemars(extend("default" = false))]
    pub drop_expired: Option<bool>,
    /// How each attempt picks an instance.
    #[schemars(with = "Option<EnumOf<BalancerKind>>", extend("default" = "round_robin"))]
    pub balancer: Option<BalancerKind>,
    /// The request's own processing time, drawn once per request. Not with `operation`.
    #[schemars(extend("default" = "0"))]
    pub work: Option<RawDist>,
    /// Downstream calls made after `work`, step by step. Not with `operation`.
    pub calls: Option<Vec<RawStep>>,
    /// Work after the last step's calls, holding the worker.
    pub after_work: Option<RawDist>,
    /// With `after_work`: also spend it when a required call failed.
    #[schemars(extend("default" = false))]
    pub after_work_on_failure: Option<bool>,
    /// Shedding by criticality on arrival.
    pub admission: Option<RawAdmission>,
    /// Envoy's local rate limit on each instance's inbound listener: a token bucket checked
    /// on arrival, before `admission` and the queue; refusals are answered at once (429).
    pub rate_limit: Option<super::rate_limit::RawServiceRateLimit>,
    /// CoDel at each instance's queue (folly/Envoy): sheds at dequeue.
    pub codel: Option<cascade_policy::table::RawCodel>,
    /// While this many or more requests wait at an instance, serve the newest first.
    pub adaptive_lifo: Option<u64>,
    /// Envoy outlier ejection at the service's balancer, shared by all callers.
    pub outlier: Option<cascade_policy::table::RawOutlier>,
    /// Envoy slow start at the service's balancer: an instance coming into rotation gets a
    /// share of the traffic that grows over a window (round_robin and least_outstanding).
    pub slow_start: Option<super::slow_start::RawSlowStart>,
    /// `[service.contention]`: work that grows with the instance's concurrency.
    pub contention: Option<RawContention>,
    /// Worker time each refusal occupies.
    #[schemars(extend("default" = "0"))]
    pub reject_work: Option<Dur>,
    /// Idempotency store: attempts of one keyed non-idempotent call arriving while an earlier
    /// one runs wait for its answer, and within this long after its success are answered
    /// from it without work. 0 = no deduplication.
    #[schemars(extend("default" = "0"))]
    pub dedup_window: Option<Dur>,
    /// `[[service.operation]]`: named operations sharing the service's workers and queue.
    pub operation: Option<Vec<RawOperation>>,
    /// Kubernetes health probes of each instance: `liveness`, `readiness`, `startup`.
    pub probe: Option<super::schema_orchestration::RawProbes>,
    /// How an instance a probe failed restarts (CrashLoopBackOff).
    pub restart: Option<super::schema_orchestration::RawRestart>,
    /// How long a (re)started or added instance works slower (`cold_factor`).
    #[schemars(extend("default" = "0s"))]
    pub cold_start: Option<Dur>,
    /// Its work is multiplied by this during `cold_start` (>= 1).
    #[schemars(extend("default" = 1.0))]
    pub cold_factor: Option<f64>,
    /// While no instance is ready: send anyway (`fail_open`) or answer unavailable (`refuse`).
    #[schemars(
        with = "Option<EnumOf<crate::model::orchestration::NoneReady>>",
        extend("default" = "fail_open")
    )]
    pub when_none_ready: Option<crate::model::orchestration::NoneReady>,
    /// `[service.autoscale]`: a Horizontal Pod Autoscaler.
    pub autoscale: Option<super::schema_orchestration::RawAutoscale>,
}

/// `[service.contention]`: a law (`k`, `knee`) or a `table` of (busy, factor) points.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawContention {
    /// factor = 1 + k x max(0, busy - knee) (k >= 0).
    pub k: Option<f64>,
    /// Busy workers below which work is not slowed, in [0, workers].
    #[schemars(extend("default" = 0))]
    pub knee: Option<f64>,
    /// `[busy, factor]` points instead of `k`: busy increasing, factors >= 1.
    #[serde(
        default,
        // Not serialized: only keeps the JSON Schema from giving `null` as its default.
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::pair::pairs::<_, f64, f64, super::pair::Busy>"
    )]
    pub table: Option<Vec<(f64, f64)>>,
    /// Which workers count as busy: every one held, or only those doing work of their own.
    #[schemars(with = "Option<EnumOf<ContentionCounts>>", extend("default" = "held"))]
    pub counts: Option<ContentionCounts>,
}

/// One operation of a service: its own work and calls, as a service without operations has.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOperation {
    /// Unique among the service's operations; its metrics are `service.<s>.op.<name>.*`.
    pub name: String,
    /// For people (`GET /product`): the summary table shows it beside the name.
    pub label: Option<String>,
    /// This operation's own processing time.
    #[schemars(extend("default" = "0"))]
    pub work: Option<RawDist>,
    /// This operation's downstream calls, as a service's `calls`.
    pub calls: Option<Vec<RawStep>>,
    /// The class its requests take on arrival at this service (default: the caller's).
    #[schemars(with = "Option<EnumOf<Criticality>>")]
    pub criticality: Option<Criticality>,
    /// A partition: at most this many of each instance's workers.
    pub workers: Option<u32>,
    /// With `workers`: what a request finding the partition full does.
    #[schemars(extend("default" = "queue"))]
    pub overflow: Option<Overflow>,
    /// This operation's work after its calls, holding the worker.
    pub after_work: Option<RawDist>,
    /// With `after_work`: also spend it when a required call failed.
    #[schemars(extend("default" = false))]
    pub after_work_on_failure: Option<bool>,
}

/// What a request does when its operation's partition is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    /// Waits in the service's queue for a worker of its partition.
    #[default]
    Queue,
    /// Answered at once as overloaded.
    Refuse,
}

/// Shedding by criticality at a service: a request is turned away on arrival when its
/// instance's load (`by`) has reached the threshold of the request's class.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAdmission {
    /// The load compared with the thresholds: requests queued, or queued and in service.
    #[schemars(with = "Option<EnumOf<AdmissionMeasure>>", extend("default" = "queue"))]
    pub by: Option<AdmissionMeasure>,
    /// Load at which `critical_plus` requests are shed (default: never).
    pub critical_plus: Option<u64>,
    /// Load at which `critical` requests are shed (default: the class above's).
    pub critical: Option<u64>,
    /// Load at which `sheddable_plus` requests are shed (default: the class above's).
    pub sheddable_plus: Option<u64>,
    /// Load at which `sheddable` requests are shed (default: the class above's).
    pub sheddable: Option<u64>,
    /// Retry-After carried by every shed answer (default: none).
    pub retry_after: Option<Dur>,
}

/// One step of a service's calls: a single call (`to = ...`) or `parallel = [ calls ]`; with
/// `p`, made only with that probability (the whole step), its draws keyed by `name`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    /// The callee service (a single call).
    pub to: Option<String>,
    /// Calls made at once; the step ends when every one has ended.
    pub parallel: Option<Vec<RawCall>>,
    /// Names the step: paths address it by name, and a step with `p` keys its draws by it.
    pub name: Option<String>,
    /// The step is made with this probability, in [0, 1] (default: always).
    pub p: Option<f64>,
    /// A weighted choice among sequences of steps, instead of `to` or `parallel`.
    pub choose: Option<Vec<RawOption>>,
    /// With `to`: the callee's operation (required when it has operations).
    pub operation: Option<String>,
    /// Name of a `[policy.NAME]` for this call (default: a bare call).
    pub policy: Option<String>,
    /// A failure of this call makes the request `degraded` instead of failing it.
    #[schemars(extend("default" = false))]
    pub optional: Option<bool>,
    /// One-way network latency, drawn for the request and again for the reply (default: zero).
    pub latency: Option<RawDist>,
    /// What the request becomes when this required call fails: a failure kind or `propagate`.
    #[schemars(extend("default" = "unavailable"))]
    pub fail_as: Option<String>,
    /// Safe to repeat: `false` forbids retries and hedges (unless `idempotency_key`).
    #[schemars(extend("default" = true))]
    pub idempotent: Option<bool>,
    /// The call carries an idempotency key, so a non-idempotent call may be retried.
    #[schemars(extend("default" = false))]
    pub idempotency_key: Option<bool>,
    /// With `to`: the call made this many times at once (a fan-out), each its own call:
    /// 1 to 10,000 (the calls of one step together at most 10,000).
    #[schemars(range(min = 1, max = super::limits::MAX_CALLS), extend("default" = 1))]
    pub count: Option<u32>,
    /// With `to`: `false` makes it fire-and-forget (an event-bus publish): the step does not
    /// wait for it.
    #[schemars(extend("default" = true))]
    pub wait: Option<bool>,
}

/// One option of a `choose` step: its share (relative to the other options) and the steps it
/// makes in turn (none: the option does nothing).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOption {
    /// The option's share: drawn with probability weight / the sum of the weights (> 0).
    pub weight: f64,
    /// The steps the option makes in turn.
    pub calls: Option<Vec<RawStep>>,
}

/// One call of a `parallel` step.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCall {
    /// The callee service.
    pub to: String,
    /// Known only to be refused with a pointer to `p` beside `parallel`: a probability per
    /// call of a parallel step is not simulated.
    pub p: Option<f64>,
    /// The callee's operation (required when it has operations).
    pub operation: Option<String>,
    /// Name of a `[policy.NAME]` for this call (default: a bare call).
    pub policy: Option<String>,
    /// A failure of this call makes the request `degraded` instead of failing it.
    #[schemars(extend("default" = false))]
    pub optional: Option<bool>,
    /// One-way network latency, drawn for the request and again for the reply (default: zero).
    pub latency: Option<RawDist>,
    /// What the request becomes when this required call fails: a failure kind or `propagate`.
    #[schemars(extend("default" = "unavailable"))]
    pub fail_as: Option<String>,
    /// Safe to repeat: `false` forbids retries and hedges (unless `idempotency_key`).
    #[schemars(extend("default" = true))]
    pub idempotent: Option<bool>,
    /// The call carries an idempotency key, so a non-idempotent call may be retried.
    #[schemars(extend("default" = false))]
    pub idempotency_key: Option<bool>,
    /// The call made this many times at once, each its own call (its own policy state):
    /// 1 to 10,000 (the calls of one step together at most 10,000).
    #[schemars(range(min = 1, max = super::limits::MAX_CALLS), extend("default" = 1))]
    pub count: Option<u32>,
    /// `false`: the caller does not wait for it (fire-and-forget).
    #[schemars(extend("default" = true))]
    pub wait: Option<bool>,
}
