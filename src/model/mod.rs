//! The validated model a run simulates: dense ids, units resolved, every reference checked.

pub mod alert;
pub mod callers;
pub mod choices;
pub mod fault;
pub mod latency;
pub mod orchestration;
pub mod overload;
pub mod rate;
pub mod rate_limit;
pub mod slow_start;

pub use cascade_policy::breaker::BreakerConfig;
pub use cascade_policy::budget::BudgetConfig;
pub use cascade_policy::bulkhead::{BulkheadConfig, BulkheadRelease};
pub use cascade_policy::hedge::{HedgeConfig, HedgeDelay};
pub use cascade_policy::outcome::Outcome;
pub use cascade_policy::retry::RetryPolicy;
pub use cascade_policy::table::{FallbackConfig, PolicyConfig};
pub use cascade_policy::throttle::ThrottleConfig;
pub use choices::{
    AdmissionMeasure, BalancerKind, BreakerScope, Criticality, Discipline, RateLimitKey,
    RateLimitScope, RateLimiterKind, WarmCurve, Wraps,
};
pub use latency::Latency;
pub use rate::RateSchedule;

/// Pending events per request of `Model::max_in_flight` past which a run diverges too: timers
/// stay on the event queue after their request is done, and can pile up on their own.
pub const PENDING_PER_IN_FLIGHT: u64 = 4;

#[derive(Debug, Clone)]
pub struct Model {
    pub name: String,
    pub seed: u64,
    /// Measured time after warm-up, ns.
    pub duration: u64,
    pub warmup: u64,
    /// Time-series resolution, ns; `warmup` is a whole number of buckets.
    pub bucket: u64,
    pub clients: Vec<Client>,
    pub services: Vec<Service>,
    /// One per (caller, callee) pair: the unit of edge metrics.
    pub edges: Vec<Edge>,
    /// Number of call specs (`CallSpec::id` runs over 0..call_specs).
    pub call_specs: usize,
    pub faults: Vec<crate::model::fault::Fault>,
    /// The calls policies fall back to (see `CallSpec::fallback`).
    pub fallbacks: Vec<CallSpec>,
    /// How long goodput must hold near its level before a fault to count as recovered, ns.
    pub recovery_hold: u64,
    /// How near: a share of that level.
    pub recovery_tolerance: f64,
    /// Requests (logical calls plus jobs) in flight past which the run counts as diverged and
    /// stops (`engine::watchdog`).
    pub max_in_flight: u64,
    /// Spans whose metrics the summary reports apart (`window.<name>.*`).
    pub windows: Vec<Window>,
    /// `[[alert]]`: rules evaluated over the run's time series once it is done.
    pub alerts: Vec<alert::Alert>,
}

/// A named span of the run, [start, end) in ns; measured in the buckets that start inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub name: String,
    pub start: u64,
    pub end: u64,
}

/// `scenario.max_in_flight` when the scenario does not set it: about 300 MB of requests.
pub const DEFAULT_MAX_IN_FLIGHT: u64 = 1_000_000;

impl Model {
    /// The simulated time at which the run stops: warm-up plus duration.
    pub fn end(&self) -> u64 {
        self.warmup + self.duration
    }

    /// Every call spec with how many caller instances run it, each with its own copy of the
    /// policy state: a client's call once, a service's calls once per instance, a fallback call
    /// as often as the call it backs. Clients' and services' calls first, then fallbacks.
    pub fn specs_with_callers(&self) -> Vec<(&CallSpec, u32)> {
        let client_specs = self
            .clients
            .iter()
            .flat_map(|c| c.calls().map(|call| (call, 1)));
        let service_specs = self
            .services
            .iter()
            .flat_map(|s| s.calls().map(move |c| (c, s.instance_slots())));
        let main: Vec<(&CallSpec, u32)> = client_specs.chain(service_specs).collect();
        let fallbacks: Vec<(&CallSpec, u32)> = main
            .iter()
            .filter_map(|(s, callers)| s.fallback.map(|f| (&self.fallbacks[f], *callers)))
            .collect();
        main.into_iter().chain(fallbacks).collect()
    }

    /// Clients, services and edges: the entities that each have a set of metrics.
    pub fn entities(&self) -> usize {
        self.clients.len() + self.services.len() + self.edges.len()
    }
}

#[derive(Debug, Clone)]
pub struct Client {
    pub name: String,
    pub load: Load,
    /// User patience: the logical request's deadline, relative to its start.
    pub deadline: Option<u64>,
    pub criticality: Criticality,
    /// The request it sends; with a mix, the mix's first operation.
    pub call: CallSpec,
    /// A weighted mix of operations (`mix`): the share of requests the first one (`call`,
    /// `deadline`, `criticality` above) takes, and the others. `None` for a client that sends
    /// one kind of request, so the plain path checks one word.
    pub mix: Option<Box<Mix>>,
}

impl Client {
    /// Every call spec the client's requests follow: its own, then the mix's others.
    pub fn calls(&self) -> impl Iterator<Item = &CallSpec> {
        std::iter::once(&self.call).chain(
            self.mix
                .iter()
                .flat_map(|m| m.others.iter().map(|e| &e.call)),
        )
    }
}

/// A client's weighted choice among operations, drawn per request.
#[derive(Debug, Clone)]
pub struct Mix {
    /// The cumulative share of the first entry (the client's own `call`), in (0, 1].
    pub first: f64,
    pub others: Vec<MixEntry>,
}

/// One operation of a client's mix after the first.
#[derive(Debug, Clone)]
pub struct MixEntry {
    /// Cumulative share: a draw below it (and at or above the entry before) picks this one;
    /// the last is 1.
    pub until: f64,
    pub deadline: Option<u64>,
    pub criticality: Criticality,
    pub call: CallSpec,
}

#[derive(Debug, Clone)]
pub enum Load {
    /// Open loop: arrivals at a (possibly changing) rate, whatever happens to earlier requests.
    Open { poisson: bool, rate: RateSchedule },
    /// Closed loop: `users` who each wait for their answer, then think, then ask again; or,
    /// paced (`pace`, ns), start each request `pace` after the previous one started, or at
    /// its end if that is later (no think then).
    Closed {
        users: u32,
        think: Latency,
        pace: Option<u64>,
    },
}

#[derive(Debug, Clone)]
pub struct Service {
    pub name: String,
    pub instances: u32,
    /// Workers per instance; `Service::UNBOUNDED` for an infinite-server station.
    pub workers: u32,
    /// Queue capacity per instance (`u64::MAX` for unbounded).
    pub queue: u64,
    pub discipline: Discipline,
    pub drop_expired: bool,
    pub balancer: BalancerKind,
    /// What a request does: its work, then its calls. For a service with operations this is
    /// unused (no work, no calls) and each operation has its own.
    pub plan: Plan,
    /// Named operations (`[[service.operation]]`), sharing the service's instances, workers,
    /// queue and balancer; empty for a service without them. A call's `CallSpec::operation`
    /// and a job's number them from 1 (0 is the service's own `plan`).
    pub operations: Vec<Operation>,
    /// Some operation holds at most a share of the workers (`Operation::partition`).
    pub partitioned: bool,
    pub admission: Option<Admission>,
    /// A token bucket in front of the queue (`model/rate_limit.rs`), checked before
    /// `admission`.
    pub rate_limit: Option<rate_limit::AdmissionLimit>,
    /// CoDel queue-delay shedding, per instance.
    pub codel: Option<cascade_policy::codel::CodelConfig>,
    /// Serve newest first while this many jobs wait (adaptive LIFO); FIFO below it.
    pub adaptive_lifo: Option<u64>,
    /// Outlier ejection at the balancer in front of the instances.
    pub outlier: Option<cascade_policy::outlier::OutlierConfig>,
    /// Slow start at the balancer for instances coming into rotation (`model/slow_start.rs`).
    pub slow_start: Option<slow_start::SlowStart>,
    /// Contention and the cost of refusals; `None` (the plain path) when it has neither.
    pub overload: Option<Box<overload::Overload>>,
    /// Idempotency store (`dedup_window`, ns): keyed non-idempotent calls are executed once
    /// per window (`cascade-policy/src/dedup.rs`); `None` (0 as written) deduplicates nothing.
    pub dedup_window: Option<u64>,
    /// Probes, restarts, readiness and autoscaling (`model/orchestration.rs`); `None` (the
    /// plain path) without any.
    pub orchestration: Option<Box<orchestration::Orchestration>>,
}

impl Service {
    /// The worker count of `workers = "unbounded"` (M/G/∞). The engine only ever asks
    /// `busy < workers`, which this keeps true (no instance holds 2^32 - 1 jobs), so an
    /// unbounded service takes the plain path and pays nothing per worker.
    pub const UNBOUNDED: u32 = u32::MAX;

    /// Whether it is an infinite-server station: no worker count, no utilization.
    pub fn unbounded(&self) -> bool {
        self.workers == Self::UNBOUNDED
    }

    /// Its workers per instance as tables and diagrams print them: the count, or
    /// "unbounded" (never 4294967295).
    pub fn workers_text(&self) -> String {
        if self.unbounded() {
            "unbounded".into()
        } else {
            self.workers.to_string()
        }
    }

    /// The most instances it can have: its autoscaler's `max`, else `instances`. Fault
    /// targets `svc#k` name one of these.
    pub fn max_instances(&self) -> u32 {
        match self
            .orchestration
            .as_ref()
            .and_then(|o| o.autoscale.as_ref())
        {
            Some(a) => a.max,
            None => self.instances,
        }
    }

    /// Instance slots the engine keeps state for: `instances`, or room for the autoscaler's
    /// maximum (`Orchestration::slots`).
    pub fn instance_slots(&self) -> u32 {
        self.orchestration
            .as_ref()
            .map_or(self.instances, |o| o.instance_slots(self.instances))
    }

    /// The plan of operation `operation` (0: the service's own).
    #[inline(always)]
    pub fn plan_of(&self, operation: u16) -> &Plan {
        if operation == 0 {
            &self.plan
        } else {
            &self.operations[usize::from(operation) - 1].plan
        }
    }

    /// Every plan: the service's own, then its operations'.
    pub fn plans(&self) -> impl Iterator<Item = &Plan> {
        std::iter::once(&self.plan).chain(self.operations.iter().map(|o| &o.plan))
    }

    /// Every call spec of every plan.
    pub fn calls(&self) -> impl Iterator<Item = &CallSpec> {
        self.plans().flat_map(|p| p.steps.iter().flatten())
    }
}

/// What a request at a service (or at one of its operations) does.
#[derive(Debug, Clone)]
pub struct Plan {
    pub work: Latency,
    /// Calls in sequence; each step's calls run in parallel.
    pub steps: Vec<Vec<CallSpec>>,
    /// Per step, its probability when it has one (`p`): empty when no step has one, so the
    /// engine checks one length on the plain path.
    pub branches: Vec<Option<Branch>>,
    /// Per step, how many of its calls are fire-and-forget (`CallSpec::wait` false): empty
    /// when no step has one, so the engine checks one length on the plain path.
    pub publishes: Vec<u16>,
    /// Work after the last step's calls (`after_work`).
    pub after: Option<Box<overload::AfterWork>>,
}

/// One named operation of a service.
#[derive(Debug, Clone)]
pub struct Operation {
    pub name: String,
    /// For people (`GET /product`): tables and reports show it beside the name.
    pub label: Option<String>,
    pub plan: Plan,
    /// The class its requests take at this service and pass on downstream (set at the edge
    /// from the route); `None` keeps the caller's.
    pub criticality: Option<Criticality>,
    /// At most this many of each instance's workers serve it at once (a server-side bulkhead).
    pub partition: Option<Partition>,
}

/// A cap on the workers of one instance that an operation may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    pub workers: u32,
    /// A request finding the partition full is refused (`overloaded`) rather than queued.
    pub refuse: bool,
}

/// A step that is not simply made in turn: made only with a probability, the head of a
/// weighted choice among sequences of steps, or the last step of one of those sequences.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    pub rule: Rule,
    /// The purpose of its random stream under `service.<s>`: `branch.<name>`, or
    /// `branch.calls.<index>` for an unnamed step (empty for `Rule::Always`).
    pub stream: String,
    /// Its metrics' segment, `service.<s>.step.<label>.taken`: the step's name, or its index.
    pub label: String,
    /// The last step of a choice's option: after it (made or skipped), the job goes on at
    /// this step, the first after the whole choice.
    pub exit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// Made in turn (a step that only closes an option).
    Always,
    /// Made with probability `p`, in [0, 1]; 0 and 1 draw nothing. When a job reaches it,
    /// with probability `p` it makes the step's calls, otherwise it goes on at once.
    Maybe(f64),
    /// The head of a weighted choice (a step without calls of its own): option `k` is drawn
    /// with the share `until[k] - until[k - 1]` and the job goes on at `starts[k]`, the
    /// option's first step (the choice's exit for an option without steps).
    Choose { until: Vec<f64>, starts: Vec<usize> },
}

impl Branch {
    /// The step's probability, for a step with a `p`.
    pub fn p(&self) -> Option<f64> {
        match self.rule {
            Rule::Maybe(p) => Some(p),
            _ => None,
        }
    }
}

/// Criticality shedding: per class (in `Criticality` order), the load at which it is shed.
#[derive(Debug, Clone, PartialEq)]
pub struct Admission {
    pub by: AdmissionMeasure,
    /// Indexed by `Criticality as usize`; `u64::MAX` = never shed.
    pub thresholds: [u64; 4],
    pub retry_after: Option<u64>,
}

/// One call a caller makes: to whom, through which policy, over which network latency.
#[derive(Debug, Clone)]
pub struct CallSpec {
    /// Dense number of this call spec in the model (clients' first), for per-call state.
    pub id: usize,
    pub to: usize,
    pub edge: usize,
    pub policy: Policy,
    /// The callee's operation it calls, numbered from 1 (`Service::plan_of`); 0 for a callee
    /// without operations.
    pub operation: u16,
    /// One-way network latency, applied to the request and to the reply.
    pub latency: Option<Latency>,
    pub optional: bool,
    pub fail_as: FailAs,
    /// Safe to repeat; a non-idempotent call is retried only with an idempotency key.
    pub idempotent: bool,
    pub idempotency_key: bool,
    /// The call made when this one fails and its policy falls back to a service: an index
    /// into `Model::fallbacks`.
    pub fallback: Option<usize>,
    /// The caller waits for its outcome; `false` (`wait = false`): fire-and-forget, the step
    /// goes on at once and the outcome is only counted on the edge.
    pub wait: bool,
}

impl CallSpec {
    /// Whether a failed attempt of this call may be repeated at all.
    pub fn retry_allowed(&self) -> bool {
        self.idempotent || self.idempotency_key
    }
}

/// What a caller's request becomes when a required call fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailAs {
    Kind(Outcome),
    /// The callee's failure kind passes through unchanged.
    Propagate,
}

/// The caller-side policy stack of one call: what the policy crate compiles a `[policy.NAME]`
/// table to (a fallback's `to` resolved to a service index), under the table's name (`None`:
/// a call with no policy, the empty table's `PolicyConfig::default()`). It derefs to the
/// crate's `PolicyConfig`, whose getters read each part.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    pub name: Option<String>,
    pub config: PolicyConfig<usize>,
}

impl std::ops::Deref for Policy {
    type Target = PolicyConfig<usize>;
    fn deref(&self) -> &PolicyConfig<usize> {
        &self.config
    }
}

/// For `export`'s restriction of a policy to what a format says (the crate's `edit` feature).
impl std::ops::DerefMut for Policy {
    fn deref_mut(&mut self) -> &mut PolicyConfig<usize> {
        &mut self.config
    }
}

/// A breaker and where it sits (compiled from its table by the policy crate).
pub use cascade_policy::breaker::BreakerPolicy;

#[derive(Debug, Clone)]
pub struct Edge {
    /// `from.to`, as in metric names; `from.to.op.<operation>` for the calls to one operation.
    pub name: String,
    pub to: usize,
    /// For an operation's edge, the pair's edge (`from.to`), whose metrics are the sum of its
    /// operations' edges; no call records on the pair's edge itself then.
    pub total: Option<usize>,
}
