//! Service side: queueing, working and answering (the instance is picked in `balance.rs`, the
//! next queued job in `dispatch.rs`, a job's own calls are made in `children.rs`).

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::*;
use crate::model::{AdmissionMeasure, Outcome};

impl Simulation {
    pub(in crate::engine) fn arrive(&mut self, jr: Ref) {
        let now = self.now;
        // A parked job let in again may have been forgotten meanwhile (its caller cancelled).
        let Some(job) = self.jobs.get_mut(jr) else {
            return;
        };
        if job.state != JobState::InTransit {
            return self.arrive_again(jr);
        }
        job.arrived = now;
        let (s, i, a) = (
            job.service as usize,
            job.instance as usize,
            job.metric_slot as usize,
        );
        self.rec.services[a].arrivals += 1;
        if self.fault_intercepts(jr, s, i as u32) {
            return;
        }
        // One flag for admission shedding and an idempotency store.
        if self.services[s].screens_arrivals && self.screened(jr, s, i) {
            return;
        }
        self.enter(jr, s, i, a);
    }

    /// A `Deliver` for a job not in transit: cancelled on its way (it never reaches the
    /// service), held by the rate limit until now (`rate_limit.rs`), or parked by the
    /// idempotency store and let in again (`dedup.rs`).
    #[cold]
    #[inline(never)]
    fn arrive_again(&mut self, jr: Ref) {
        match self.jobs.get(jr).map(|j| j.state) {
            Some(JobState::Cancelled) => self.free_job(jr),
            Some(JobState::Delayed) => self.delay_over(jr),
            _ => self.readmit(jr),
        }
    }

    /// An arrival the service takes in: a worker, the queue, or a refusal.
    #[inline(always)]
    pub(in crate::engine) fn enter(&mut self, jr: Ref, s: usize, i: usize, a: usize) {
        let svc = &self.model.services[s];
        if svc.partitioned {
            return self.arrive_partitioned(jr, s, i, a);
        }
        let inst = &self.services[s].instances[i];
        let room = (inst.waiting() as u64) < svc.queue;
        let start = self.may_start(s, i as u32, inst.busy);
        self.admit(jr, s, i, a, start, room);
    }

    /// An arriving job `jr` (on slot `a`) starts on a free worker (`start`), waits in the
    /// queue (`room`), or is turned away as overloaded.
    #[inline(always)]
    pub(in crate::engine) fn admit(
        &mut self,
        jr: Ref,
        s: usize,
        i: usize,
        a: usize,
        start: bool,
        room: bool,
    ) {
        let now = self.now;
        let acc = &mut self.rec.services[a];
        acc.admitted += u64::from(start || room);
        if start {
            self.take_worker(s, i, jr);
        } else if room {
            self.jobs.get_mut(jr).expect("arriving job").state = JobState::Queued;
            self.services[s].instances[i].queue.push_back(jr);
            self.rec.levels[a].queue.add(now, 1, &mut acc.queue_area);
            self.outstanding_changed(s, i);
        } else {
            acc.rejected += 1;
            let job = self.jobs.get_mut(jr).expect("arriving job");
            job.state = JobState::Replying;
            job.outcome = Outcome::Overloaded;
            self.refuse(jr, s, i);
        }
    }

    /// An arrival at a service with a `rate_limit`, `admission` or a `dedup_window`: refused
    /// or held by the rate limit (`rate_limit.rs`), shed, or taken by the idempotency store
    /// (`dedup.rs`). True if it goes no further.
    #[inline(never)]
    fn screened(&mut self, jr: Ref, s: usize, i: usize) -> bool {
        (self.model.services[s].rate_limit.is_some() && self.rate_limited(jr, s, i))
            || self.screened_past_limit(jr, s, i)
    }

    /// The screens after the rate limit: shed, or taken by the idempotency store.
    pub(in crate::engine) fn screened_past_limit(&mut self, jr: Ref, s: usize, i: usize) -> bool {
        (self.model.services[s].admission.is_some() && self.shed_on_arrival(jr, s, i))
            || (self.model.services[s].dedup_window.is_some() && self.deduplicated(jr))
    }

    /// Admission control: sheds the job (answered at once as overloaded, 429, with the
    /// service's Retry-After) when its criticality's threshold is reached. True if shed.
    #[inline(never)]
    fn shed_on_arrival(&mut self, jr: Ref, s: usize, i: usize) -> bool {
        let Some(adm) = &self.model.services[s].admission else {
            return false;
        };
        let inst = &self.services[s].instances[i];
        let queued = inst.waiting() as u64;
        let load = match adm.by {
            AdmissionMeasure::Queue => queued,
            AdmissionMeasure::InFlight => u64::from(inst.busy) + queued,
        };
        let job = self.jobs.get_mut(jr).expect("arriving job");
        let class = job.criticality as usize;
        if load < adm.thresholds[class] {
            return false;
        }
        self.rec.services[job.metric_slot as usize].shed[class] += 1;
        job.state = JobState::Replying;
        job.outcome = Outcome::Overloaded;
        job.retry_after = adm.retry_after.unwrap_or(NO_RETRY_AFTER);
        self.refuse(jr, s, i);
        true
    }

    /// Starts a job on a worker already taken for it (out of the queue already, if it was in
    /// it: `dispatch::left_queue`).
    pub(in crate::engine) fn start_work(&mut self, jr: Ref) {
        let now = self.now;
        let job = self.jobs.get_mut(jr).expect("job to start");
        job.started = now;
        job.state = JobState::Working;
        let (s, i, a) = (
            job.service as usize,
            job.instance as usize,
            job.metric_slot as usize,
        );
        let acc = &mut self.rec.services[a];
        let levels = &mut self.rec.levels[a];
        levels.busy.add(now, 1, &mut acc.busy_area);
        if job.abandoned_at <= now {
            // Its caller gave up while it queued: every moment of this work is wasted.
            levels.wasted.add(now, 1, &mut acc.wasted_area);
        }
        acc.wait.record(now - job.arrived);
        let operation = job.operation;
        if let Some(op) = job.op.and_then(|op| self.ops.get_mut(op)) {
            op.executions += 1;
            if op.executions > 1 {
                // A non-idempotent operation runs again: a duplicate execution (which an
                // idempotency key lets the callee make harmless, but it still ran).
                self.rec.edges[spec_of(&self.specs, job.spec).edge].duplicates += 1;
            }
        }
        let work = self.model.services[s]
            .plan_of(operation)
            .work
            .sample(&mut self.services[s].instances[i].work_rng);
        let mut work = self.slowed_work(s, i as u32, operation, work);
        if self.model.services[s].overload.is_some() {
            work = self.contended_work(jr, s, i, work);
        }
        if self.trace.is_some() {
            self.trace_job(jr, "work_start");
        }
        self.event_queue.push(now + work, Event::WorkDone(jr));
    }

    /// A job's own work is due to end: unless a stall paused it meanwhile, in which case it
    /// ends once it has run that much outside the stalls.
    pub(in crate::engine) fn work_done(&mut self, jr: Ref) {
        let Some(job) = self.jobs.get(jr) else {
            return;
        };
        // A crash answered the job during its work (and its reply may still be crossing the
        // network, keeping it live): that work ended with the crash.
        if !matches!(job.state, JobState::Working) {
            return;
        }
        let (s, i) = (job.service as usize, job.instance);
        if !self.faults.holds[s].is_empty() && self.paused_work_moved(jr, s, i) {
            return;
        }
        if self.model.services[s].overload.is_some() {
            self.segment_done(jr, s, i as usize);
        }
        self.advance_job(jr);
    }

    /// Whether stalls paused `jr`'s work since its end was last set: then its end is moved,
    /// at once to the instant it has run what they held outside them (not by the pause,
    /// which may end in a later stall, one event at a time), and its `WorkDone` waits there.
    #[cold]
    #[inline(never)]
    fn paused_work_moved(&mut self, jr: Ref, s: usize, i: u32) -> bool {
        let now = self.now;
        let (started, paused) = {
            let job = self.jobs.get(jr).expect("live");
            (job.started, job.paused)
        };
        let held = self.stalled_for(s, i, started, now);
        if held <= paused {
            return false;
        }
        let owed = held - paused;
        let end = self.work_end(s, i, now, owed);
        // What held it from now to its end: the rest of [now, end) it ran.
        let job = self.jobs.get_mut(jr).expect("live");
        job.paused = held + (end - now - owed);
        self.event_queue.push(end, Event::WorkDone(jr));
        true
    }

    /// After the job's work, or after a step of its calls: start the next step or finish.
    pub(in crate::engine) fn advance_job(&mut self, jr: Ref) {
        // A job cancelled while working leaves its `WorkDone` behind: nothing to do.
        let Some(job) = self.jobs.get(jr) else {
            return;
        };
        let (s, operation) = (job.service as usize, job.operation);
        let step = job.step as usize;
        let plan = self.model.services[s].plan_of(operation);
        if job.failure.is_some() || step >= plan.steps.len() {
            // `finish_plan`, with the plan already at hand (looking it up again costs the
            // plain path).
            if plan.after.is_some() {
                return self.start_after_work(jr, s, operation);
            }
            return self.complete_job(jr);
        }
        // One length on the plain path, beside `steps` in the plan: only a plan with a `p` on
        // some step draws, out of line (the plain path keeps its registers).
        if !plan.branches.is_empty() {
            self.advance_job_by_branches(jr, s, operation, step);
            return;
        }
        self.start_step(jr, s, operation, step);
    }

    /// The job's steps are over, or a required call failed: its work after the calls, if its
    /// plan has some (`overload.rs`), else its reply.
    pub(in crate::engine) fn finish_plan(&mut self, jr: Ref, s: usize, operation: u16) {
        if self.model.services[s].plan_of(operation).after.is_some() {
            return self.start_after_work(jr, s, operation);
        }
        self.complete_job(jr);
    }

    // Forced inline into `advance_job` and its other two callers: a call of its own cost 22
    // instructions a request on bench-mmc (callgrind). `deliver_reply` and `send_job` were
    // tried the same way and got slower (register pressure), so they stay calls.
    #[inline(always)]
    pub(in crate::engine) fn complete_job(&mut self, jr: Ref) {
        let now = self.now;
        let job = self.jobs.get_mut(jr).expect("job to complete");
        job.outcome = match (job.failure, job.degraded) {
            (Some(f), _) => f,
            (None, true) => Outcome::Degraded,
            (None, false) => Outcome::Ok,
        };
        job.state = JobState::Replying;
        let wasting = job.abandoned_at != NO_DEADLINE;
        let (s, i, a, arrived) = (
            job.service as usize,
            job.instance as usize,
            job.metric_slot as usize,
            job.arrived,
        );
        let operation = job.operation;
        self.release_worker(s, i, operation);
        let acc = &mut self.rec.services[a];
        let levels = &mut self.rec.levels[a];
        acc.served += 1;
        if wasting {
            levels.wasted.add(now, -1, &mut acc.wasted_area);
        }
        acc.sojourn_sum_ns += u128::from(now - arrived);
        levels.busy.add(now, -1, &mut acc.busy_area);
        self.dispatch_next(s, i);
        self.send_reply(jr);
    }

    pub(in crate::engine) fn send_reply(&mut self, jr: Ref) {
        if self.trace.is_some() {
            self.trace_job(jr, "reply");
        }
        let job = self.jobs.get_mut(jr).expect("replying job");
        job.answered = true;
        let (spec, op) = (job.spec, job.op);
        let acc = &mut self.rec.services[job.metric_slot as usize];
        acc.answers.record(job.outcome);
        if job.outcome.is_success() && job.abandoned_at == NO_DEADLINE {
            acc.useful += 1;
        }
        if let Some(op) = op {
            // Before the reply can be delivered (and the job freed): an idempotency store
            // answers or releases the attempts waiting for this one.
            self.dedup_answered(jr, op);
        }
        let direct = self.faults.instant_network(spec_of(&self.specs, spec));
        match if direct { 0 } else { self.network_delay(spec) } {
            0 => self.deliver_reply(jr),
            d => self.event_queue.push(self.now + d, Event::Reply(jr)),
        }
    }

    /// Removes a finished or abandoned job, releasing its hold on its operation's record.
    #[inline(always)]
    pub(in crate::engine) fn free_job(&mut self, jr: Ref) {
        let op = self.jobs.get(jr).expect("freeing a live job").op;
        self.jobs.free(jr);
        if let Some(op) = op {
            // An idempotency store forgets it (a record no store uses has nothing to forget).
            self.dedup_gone(jr, op);
            self.release_op(op, false);
        }
        if !self.pool_holds.no_jobs() {
            self.job_leaves_pool(jr);
        }
    }

    /// A job that may hold a connection-pool permit is gone: the permit comes back if nothing
    /// else holds it (`pool_holds.rs`).
    #[inline(never)]
    fn job_leaves_pool(&mut self, jr: Ref) {
        if let Some(pool) = self.pool_holds.job_gone(jr) {
            let now = self.now;
            crate::engine::caller::call_end::hand_back_permit(
                &mut self.bulkheads,
                &mut self.rec.pools,
                pool,
                &mut self.event_queue,
                now,
            );
        }
    }

    /// One holder of an operation record let go: a job (`call_done` false) or its call.
    pub(in crate::engine) fn release_op(&mut self, op: Ref, call_done: bool) {
        let Some(o) = self.ops.get_mut(op) else {
            return;
        };
        if call_done {
            o.call_done = true;
        } else {
            o.jobs -= 1;
        }
        if o.call_done && o.jobs == 0 {
            self.ops.free(op);
        }
    }

    /// Stops a job whose caller gave up (`cancel`): out of the queue, off its worker, its own
    /// calls cancelled in turn. A job already answering is left to arrive and be discarded.
    pub(in crate::engine) fn cancel_job(&mut self, jr: Ref) {
        let now = self.now;
        let Some(job) = self.jobs.get_mut(jr) else {
            return;
        };
        let (s, i, a) = (
            job.service as usize,
            job.instance as usize,
            job.metric_slot as usize,
        );
        let (operation, op) = (job.operation, job.op);
        match job.state {
            JobState::InTransit => job.state = JobState::Cancelled,
            JobState::Awaiting | JobState::Delayed => {
                // Parked by the idempotency store or held by the rate limit: forgotten there
                // (`free_job`; a held job's pending arrival finds it gone), unanswered.
                self.free_job(jr);
                self.rec.services[a].unanswered += 1;
            }
            JobState::Queued => {
                job.state = JobState::Cancelled;
                if let Some(op) = op
                    && self.model.services[s].dedup_window.is_some()
                {
                    // An execution cancelled before it started: its waiters arrive again.
                    self.dedup_gone(jr, op);
                }
                self.services[s].instances[i].cancelled_in_queue += 1;
                self.outstanding_changed(s, i);
                self.rec.services[a].unanswered += 1;
                super::dispatch::left_queue(&mut self.rec, a, now);
            }
            JobState::Working | JobState::Calling => {
                let wasting = job.abandoned_at != NO_DEADLINE;
                if job.state == JobState::Working && self.model.services[s].overload.is_some() {
                    self.segment_cut(jr, s, i);
                }
                let job = self.jobs.get_mut(jr).expect("live");
                let mut child = job.first_child;
                while let Some(c) = child {
                    child = self.calls.get(c).and_then(|call| call.sibling);
                    self.drop_call(c);
                }
                self.free_job(jr);
                self.release_worker(s, i, operation);
                let acc = &mut self.rec.services[a];
                acc.unanswered += 1;
                let levels = &mut self.rec.levels[a];
                if wasting {
                    levels.wasted.add(now, -1, &mut acc.wasted_area);
                }
                levels.busy.add(now, -1, &mut acc.busy_area);
                self.dispatch_next(s, i);
            }
            JobState::Replying | JobState::Cancelled => {}
        }
    }
}

impl Simulation {
    /// The caller gave up on job `jr` now: from here, or from when a worker takes it if it is
    /// still queued, its work is wasted, booked as a level in the span it is spent
    /// (`ServiceLevels::wasted`) until the job lets its worker go.
    pub(in crate::engine) fn abandon_job(&mut self, jr: Ref) {
        let now = self.now;
        let Some(job) = self.jobs.get_mut(jr) else {
            return;
        };
        if job.abandoned_at != NO_DEADLINE {
            return;
        }
        job.abandoned_at = now;
        if matches!(job.state, JobState::Working | JobState::Calling) {
            let a = job.metric_slot as usize;
            let acc = &mut self.rec.services[a];
            self.rec.levels[a].wasted.add(now, 1, &mut acc.wasted_area);
        }
    }
}

/// Whether arrivals at `service` are screened before its queue: a rate limit, admission
/// shedding or an idempotency store.
pub(in crate::engine) fn screens_arrivals(service: &crate::model::Service) -> bool {
    service.rate_limit.is_some() || service.admission.is_some() || service.dedup_window.is_some()
}
