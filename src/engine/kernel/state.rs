//! What the engine keeps per request in flight and per running entity.

use super::arena::Ref;
use super::rng::Stream;
use crate::model::{Criticality, Outcome};
use std::collections::VecDeque;

/// "No deadline": later than any simulated time; the policy crate's, on the engine's `u64` clock.
pub const NO_DEADLINE: u64 = cascade_policy::deadline::NO_DEADLINE.0;

/// Which `CallSpec` of the model a call follows: its dense `CallSpec::id`, an index into
/// `Simulation::specs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecId(pub u32);

impl SpecId {
    pub fn of(spec: &crate::model::CallSpec) -> SpecId {
        SpecId(spec.id as u32)
    }
}

/// Who waits for a logical call's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    /// A client's request (`user` is the closed-loop user, 0 for open loop).
    Client { client: u32, user: u32 },
    /// A job at a service, waiting for its calls of the current step.
    Job(Ref),
    /// A failed call waiting for its fallback call.
    Fallback(Ref),
    /// Nobody: a fire-and-forget call (`wait = false`) made by this job, which went on at once
    /// and may be gone. Its outcome is only counted on the edge.
    Detached(Ref),
}

/// Where a logical call stands between its attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallPhase {
    /// An attempt is in flight (or about to be sent).
    Attempting,
    /// Sleeping before the next attempt.
    Backoff,
    /// Waiting for a bulkhead permit.
    WaitingPermit,
    /// Failed, and waiting for its fallback to answer.
    Fallback,
}

/// A job's reply carries no Retry-After (`Job::retry_after`).
pub const NO_RETRY_AFTER: u64 = u64::MAX;

/// No call path's policy state (`Call::path`): the call's policy keeps none.
pub const NO_PATH: u32 = u32::MAX;

/// The breaker a call or attempt passed, and the permit it goes back to it with.
pub use cascade_policy::path::BreakerPass;

/// A logical call: caller-side state across its attempts.
#[derive(Debug)]
pub struct Call {
    pub parent: Parent,
    pub spec: SpecId,
    /// Absolute deadline of the whole call (caller's deadline minus reserve).
    pub deadline: u64,
    pub started: u64,
    /// Attempts made so far; the number of the current one.
    pub attempt: u32,
    /// The job serving the current attempt, while the caller still waits for it.
    pub current: Option<Ref>,
    /// Hedged copies of the current attempt still awaited, and how many were sent.
    pub hedges: [Option<Ref>; 3],
    pub hedges_sent: u8,
    /// When the current attempt (and its hedges) stops being waited for.
    pub attempt_expiry: u64,
    pub phase: CallPhase,
    /// Its call path's policy state (breaker, budget, bulkhead, jitter), one per call spec and
    /// caller instance: an index into `Simulation::policies`, or `NO_PATH`.
    pub path: u32,
    pub attempt_started: u64,
    /// The breaker the current attempt (or, wrapping the call, the call) passed.
    pub breaker: Option<BreakerPass>,
    /// A bulkhead permit is held: the current attempt's, or (`call_permit`) the call's own,
    /// held across its backoffs and retries (`bulkhead.wraps = "call"`).
    pub holds_permit: bool,
    pub call_permit: bool,
    /// The adaptive limit's permit the current attempt holds (with the count of calls in
    /// flight when it took it, the library's sample `inflight`).
    pub limit: Option<cascade_policy::limit::LimitPermit>,
    /// The current attempt is a retry counted by a concurrency budget.
    pub retry_active: bool,
    /// The last backoff, which decorrelated jitter grows from.
    pub last_delay: u64,
    /// The callee instance chosen for the current attempt.
    pub instance: u32,
    /// The failure that sent the call to its fallback, and the fallback call if it is one.
    pub fallback_from: Option<Outcome>,
    pub fallback_call: Option<Ref>,
    /// The next call of the same parent job and step (see `Job::first_child`).
    pub sibling: Option<Ref>,
    /// Execution count of a non-idempotent call (see `Op`).
    pub op: Option<Ref>,
    /// The caller's instance (0 for a client) and the request's criticality, carried along.
    pub caller_instance: u32,
    pub criticality: Criticality,
    /// The client metric slot of the request it serves (the client, or its mix entry's part):
    /// whose tenant it is, for a rate limit keyed by client (`RateLimitKey`).
    pub origin: u32,
}

/// One non-idempotent operation, kept while its call or any of its attempts lives, to count
/// how often it actually executed.
#[derive(Debug, Clone, Default)]
pub struct Op {
    pub executions: u32,
    pub jobs: u32,
    pub call_done: bool,
    /// The idempotency store's record of this call's key, at a callee with a `dedup_window`
    /// (`dedup.rs`); untouched elsewhere.
    pub dedup: cascade_policy::dedup::Record<Ref>,
}

impl Call {
    /// Takes every job the current attempt still awaits: the attempt's own and its hedges'.
    pub fn take_attempt_jobs(&mut self) -> impl Iterator<Item = Ref> + use<> {
        let mut jobs = [self.current.take(), None, None, None];
        for (k, h) in self.hedges.iter_mut().enumerate() {
            jobs[k + 1] = h.take();
        }
        jobs.into_iter().flatten()
    }
}

/// Where a job is, which decides what cancelling it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// On the network towards its instance.
    InTransit,
    Queued,
    /// Doing its own work on a worker.
    Working,
    /// Holding a worker while its calls are out.
    Calling,
    /// Done; its answer is on the way back.
    Replying,
    /// Cancelled while queued or in transit: skipped when reached.
    Cancelled,
    /// Parked by the callee's idempotency store until the attempt of the same key in progress
    /// answers (`dedup.rs`): no worker, no queue place.
    Awaiting,
    /// Held by the service's rate limit for its delay (`rate_limit.rs`; nginx's `limit_req`,
    /// x/time/rate's `Wait`): no worker, no queue place; it arrives again when the delay ends.
    Delayed,
}

/// One attempt being handled at a service instance (queued, working, or waiting on its calls),
/// or travelling back to its caller.
#[derive(Debug, Clone)]
pub struct Job {
    pub service: u32,
    pub instance: u32,
    pub caller: Ref,
    pub spec: SpecId,
    /// Propagated deadline: when the caller stops waiting for this attempt.
    pub deadline: u64,
    pub criticality: Criticality,
    /// When the attempt was sent, arrival at the callee, start of work.
    pub sent: u64,
    pub arrived: u64,
    pub started: u64,
    /// When its caller stopped waiting (`NO_DEADLINE` while it waits): worker time after this
    /// is wasted work.
    pub abandoned_at: u64,
    pub state: JobState,
    /// The job's calls of the current step, linked through `Call::sibling` (for cancelling).
    pub first_child: Option<Ref>,
    /// The operation this attempt belongs to, for a non-idempotent call.
    pub op: Option<Ref>,
    pub step: u16,
    pub pending: u16,
    /// The service's operation it runs, from 1 (`Service::plan_of`); 0 for the service's own.
    pub operation: u16,
    /// The metrics slot it records on: its service's, or its operation's (`Recorder`).
    pub metric_slot: u32,
    pub failure: Option<Outcome>,
    pub degraded: bool,
    pub outcome: Outcome,
    /// A Retry-After the reply carries (ns), for overloaded or unavailable answers;
    /// `NO_RETRY_AFTER` for none (a plain word keeps the job within 112 bytes).
    pub retry_after: u64,
    /// How long stalls have held it since it started, up to the time its `WorkDone` is set
    /// for (`work_done` moves that on when more held it).
    pub paused: u64,
    /// Its answer has been given (counted in the service's answers).
    pub answered: bool,
    /// Its call's `origin`: the tenant a keyed rate limit charges.
    pub origin: u32,
}

/// `Job::origin` of a platform probe: no client sent it.
pub const NO_ORIGIN: u32 = u32::MAX;

/// `Job::step` once the job's after-work is under way or done: past every step.
pub const AFTER_WORK: u16 = u16::MAX;

pub struct InstanceState {
    pub busy: u32,
    pub queue: VecDeque<Ref>,
    /// Cancelled jobs still in `queue`, skipped when dequeued.
    pub cancelled_in_queue: u32,
    pub work_rng: Stream,
    pub codel: Option<cascade_policy::codel::Codel>,
    /// Per operation (from 1; entry 0 unused), its busy workers here: only at a service
    /// with a partition (`Service::partitioned`), else empty.
    pub operation_busy: Vec<u32>,
    /// At a service with `overload`: workers doing work of their own (work, after-work, a
    /// refusal), not blocked on calls.
    pub working: u32,
    /// At a service whose refusals cost work: the refused jobs still owed a worker, with the
    /// delay of their answer after it (`overload.rs`), paid before the queue is served.
    pub owed: VecDeque<(Ref, u64)>,
}

impl InstanceState {
    /// Jobs waiting in the queue, not counting cancelled ones still in it.
    pub fn waiting(&self) -> usize {
        self.queue.len() - self.cancelled_in_queue as usize
    }
}

pub struct ServiceState {
    pub instances: Vec<InstanceState>,
    /// A freed worker simply takes the head of the queue (`dispatch::plain_dispatch`): one
    /// flag for the plain path.
    pub plain_dispatch: bool,
    /// Arrivals are screened before the queue (`jobs::screens_arrivals`): one flag for the
    /// plain path.
    pub screens_arrivals: bool,
    pub balancer_rng: Stream,
    pub next_rr: u32,
    pub outlier: Option<cascade_policy::outlier::Outlier>,
    /// Per instance: crashes holding it down (the balancer skips it while above 0).
    pub down: crate::engine::balancer::down::Down,
    /// At a least-outstanding balancer over several instances: the outstanding counts as a
    /// min-tree (`least.rs`); `None` elsewhere.
    pub least: Option<Box<crate::engine::balancer::least::LeastTree>>,
    /// Per plan (the service's own, then each operation's), per step, its probability and
    /// draws when it has a `p`; a plan's list is empty when no step has one
    /// (`Plan::branches`), which is all `advance_job` checks on the plain path.
    pub branches: Vec<Vec<Option<BranchState>>>,
    /// Probes, restarts, readiness and autoscaling (`lifecycle.rs`); `None` without
    /// `Service::orchestration`.
    pub life: Option<Box<crate::engine::platform::lifecycle::Life>>,
    /// Slow starts at the balancer (`slow_start.rs`); `None` without `Service::slow_start`.
    pub ramp: Option<Box<crate::engine::balancer::slow_start::Ramp>>,
    /// The admission rate limit's limiters (`Service::rate_limit`): per instance slot, or for
    /// the fleet, one per key (`rate_keys`); empty without a rate limit.
    pub rate_buckets: Vec<cascade_policy::rate_limiter::RateLimiter>,
    /// Per client slot (a request's `origin`), its key's index, and how many keys there are
    /// (`metrics/rate_keys.rs`); empty and 1 for an unkeyed limit.
    pub rate_key_of: Vec<u32>,
    pub rate_keys: usize,
}

/// A step made with a probability, and the stream of its draws (`branch.<name or
/// calls.<index>>` under `service.<s>`).
pub struct BranchState {
    pub p: f64,
    pub rng: Stream,
    /// The `branch` faults that change its probability (indices into the model's faults);
    /// while there is one, every job reaching the step draws, whatever the probability, so
    /// the fault moves no draw of the run.
    pub faults: Vec<u32>,
    /// For a `choose` step, where its options' counts start in `ServiceAcc::options`.
    pub option_base: u32,
}

pub struct ClientState {
    pub arrival_rng: Stream,
    pub think_rng: Stream,
    pub rate_cursor: usize,
    /// The exact (unrounded) time of the last open-loop arrival, ns.
    pub last_arrival: f64,
    /// The draws of a client's `mix` (`client.<c>` / `mix`).
    pub mix_rng: Stream,
    /// The criticality of the request being started (the mix entry's, else the client's).
    pub criticality: Criticality,
    /// The metric slot of the request being started (the mix entry's part, else the
    /// client's own): its calls' `origin`.
    pub origin: u32,
}

/// Events are a small enum: the queue holds them by value, no allocation per event.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// The next open-loop arrival of a client.
    Arrival(u32),
    /// A closed-loop user starts a request.
    UserStart { client: u32, user: u32 },
    /// An attempt reaches its instance after network latency; or a job parked by an
    /// idempotency store arrives again, the execution it waited for having ended without a
    /// success (`dedup.rs`): its state, `Awaiting`, tells the two apart.
    Deliver(Ref),
    /// A job's own work is done.
    WorkDone(Ref),
    /// A job answers without being served (dropped from the queue).
    Answer(Ref),
    /// A reply reaches the caller after network latency.
    Reply(Ref),
    /// An attempt's timeout (or the call's deadline) expires; stale if the attempt is over.
    AttemptTimer { call: Ref, attempt: u32 },
    /// A call continues: its backoff is over, or a bulkhead permit was handed to it.
    Resume { call: Ref, attempt: u32 },
    /// A call waiting for a bulkhead permit gives up.
    PermitTimeout { call: Ref, attempt: u32 },
    /// Time to send a hedged copy of an attempt still unanswered.
    Hedge { call: Ref, attempt: u32 },
    /// A service's outlier detector sweeps (Envoy's interval timer).
    OutlierSweep(u32),
    /// A worker has paid a refusal's `reject_work` (recorded on metrics slot `acc`).
    RefusalDone {
        service: u32,
        instance: u32,
        acc: u32,
    },
    /// A moment of an instance's life (`lifecycle.rs`): a probe due or timed out, a restart
    /// over, a drain's grace up, the autoscaler's sync; `action` is `lifecycle::Action`'s
    /// word (its code and the instance's epoch).
    Life {
        service: u32,
        instance: u32,
        action: u32,
    },
    /// A fault's moment: a crash begins.
    FaultStart(u32),
    /// A fault's moment: instances come back, a stall ends, cut workers return.
    FaultEnd(u32),
}

/// The state one caller instance keeps for one call path's policies: the policy crate's stack,
/// drawing from the engine's streams.
pub type PolicyState = cascade_policy::path::PathPolicies<Stream>;
