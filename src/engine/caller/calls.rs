//! Caller side: logical calls and their attempts, through the policy stack (docs/policies.md §1):
//! deadline → retry loop (backoff, budget) → breaker → bulkhead → attempt with its timeout.
//! The policies decide (`crate::policy`); this file keeps their state and moves the call on.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::*;
use crate::model::{Outcome, Wraps};
use cascade_policy::Nanos;
use cascade_policy::deadline::{
    attempt_expiry, attempt_may_start, bounded_by_total, call_deadline,
};
use cascade_policy::path::{Admitted, BreakerAsked, BulkheadPlace, CallAdmitted, Refusal};

impl Simulation {
    /// Starts a logical call; returns its reference (stale at once if it ended at once).
    pub(in crate::engine) fn start_call(
        &mut self,
        parent: Parent,
        spec_id: SpecId,
        caller_deadline: u64,
    ) -> Ref {
        let now = self.now;
        let spec = spec_of(&self.specs, spec_id);
        self.rec.edges[spec.edge].calls += 1;
        // `propagate_deadline = false`: the caller's deadline is not passed on (D = none).
        let policy = &spec.policy;
        let propagates = policy.propagate_deadline();
        let deadline = call_deadline(Nanos(caller_deadline), policy.reserve(), propagates);
        let deadline = bounded_by_total(deadline, Nanos(now), policy.total_timeout()).0;
        let (caller_instance, criticality, origin) = match parent {
            Parent::Client { client, .. } => {
                let state = &self.clients[client as usize];
                (0, state.criticality, state.origin)
            }
            Parent::Job(j) | Parent::Detached(j) => (self.jobs.get(j))
                .map_or((0, Default::default(), 0), |j| {
                    (j.instance, j.criticality, j.origin)
                }),
            Parent::Fallback(c) => (self.calls.get(c)).map_or((0, Default::default(), 0), |c| {
                (c.caller_instance, c.criticality, c.origin)
            }),
        };
        let path = match self.path_base[spec.id] {
            NO_PATH => NO_PATH,
            base => base + caller_instance,
        };
        let call = Call {
            parent,
            spec: spec_id,
            deadline,
            started: now,
            attempt: 0,
            current: None,
            phase: CallPhase::Attempting,
            path,
            attempt_started: now,
            breaker: None,
            holds_permit: false,
            call_permit: false,
            limit: None,
            retry_active: false,
            last_delay: 0,
            instance: 0,
            fallback_from: None,
            fallback_call: None,
            hedges: [None; 3],
            hedges_sent: 0,
            attempt_expiry: NO_DEADLINE,
            sibling: None,
            op: if spec.idempotent {
                None
            } else {
                Some(self.ops.insert(Op::default()))
            },
            caller_instance,
            criticality,
            origin,
        };
        let cr = self.calls.insert(call);
        if self.trace.is_some() {
            self.trace_call_start(cr, caller_deadline);
        }
        if path == NO_PATH || self.admit_call(cr, path) {
            self.try_attempt(cr);
        }
        cr
    }

    /// A new call counts in its budgets, and a breaker and a bulkhead around the whole call
    /// are asked once, here (the breaker is told the final outcome; the bulkhead's permit
    /// covers every attempt and backoff). False if the call was turned away, or waits for
    /// the bulkhead's permit (attempt 0: `resume` starts its first attempt).
    #[inline(never)]
    fn admit_call(&mut self, cr: Ref, path: u32) -> bool {
        let now = self.now;
        let spec = spec_of(&self.specs, self.calls.get(cr).expect("live").spec);
        let (wraps_call, edge) = (spec.policy.breaker_wraps(Wraps::Call), spec.edge);
        let state = &mut self.policies[path as usize];
        let bulkhead = (state.bulkhead)
            .filter(|_| spec.policy.bulkhead_wraps_call())
            .map(|b| (&mut self.bulkheads[b as usize], (cr, 0)));
        let mut asked = None;
        let admitted = state.admit_call(Nanos(now), wraps_call, bulkhead, &mut asked);
        self.count_breaker_asked(cr, edge, asked);
        match admitted {
            Ok(CallAdmitted { breaker, bulkhead }) => {
                self.calls.get_mut(cr).expect("live").breaker = breaker;
                match bulkhead {
                    BulkheadPlace::Unasked => true,
                    BulkheadPlace::Held => {
                        self.pool_moved(path);
                        let call = self.calls.get_mut(cr).expect("live");
                        (call.holds_permit, call.call_permit) = (true, true);
                        true
                    }
                    BulkheadPlace::Waiting => {
                        self.pool_moved(path);
                        self.wait_for_permit(cr, path, 0);
                        false
                    }
                }
            }
            Err(refusal) => {
                self.refused(cr, edge, refusal);
                false
            }
        }
    }

    /// Path `path`'s bulkhead granted a permit or a place in line: its pool's series, if it is
    /// a named pool's, learns the counts.
    fn pool_moved(&mut self, path: u32) {
        if let Some(b) = self.policies[path as usize].bulkhead {
            (self.rec.pools).moved(b, self.now, &self.bulkheads[b as usize]);
        }
    }

    /// The call waits in its bulkhead's line for attempt `attempt` (0: for the permit around
    /// the whole call), at most the bulkhead's `max_wait` and never past its deadline.
    fn wait_for_permit(&mut self, cr: Ref, path: u32, attempt: u32) {
        let now = self.now;
        let b = self.policies[path as usize].bulkhead.expect("a bulkhead");
        let call = self.calls.get_mut(cr).expect("live");
        // A call whose deadline has passed already waits not at all: the timer fires now,
        // never at the deadline in the past (the clock would run backwards).
        let until = now
            .saturating_add(self.bulkheads[b as usize].max_wait().0)
            .min(call.deadline)
            .max(now);
        call.phase = CallPhase::WaitingPermit;
        self.event_queue
            .push(until, Event::PermitTimeout { call: cr, attempt });
    }

    /// Starts the next attempt: deadline check, breaker, bulkhead, then send.
    // Forced inline (as `send_attempt` below): every call goes try_attempt -> send_attempt
    // -> send_job once, and LLVM kept the three apart, paying two calls' register saves a
    // request (callgrind on bench-mmc: 27 instructions a request for both).
    #[inline(always)]
    pub(in crate::engine) fn try_attempt(&mut self, cr: Ref) {
        let now = self.now;
        let call = self.calls.get_mut(cr).expect("attempt of a live call");
        call.attempt += 1;
        call.phase = CallPhase::Attempting;
        let deadline = call.deadline;
        let spec = spec_of(&self.specs, call.spec);
        let policy = &spec.policy;
        if !attempt_may_start(Nanos(now), Nanos(deadline), policy.min_attempt()) {
            // Too little time left to start: fail fast without sending anything.
            self.finish_call(cr, Outcome::DeadlineExceeded);
            return;
        }
        let to = spec.to;
        // Every guarding policy keeps state, so a call without policy state (the plain path, `NO_PATH`) is
        // unguarded at the cost of one comparison. A retry that picks another host
        // (`retry.other_host`) takes the same way out of line, for its pick.
        let guarded = call.path != NO_PATH
            && (policy.breaker().is_some()
                || policy.bulkhead().is_some()
                || policy.throttle().is_some()
                || policy.limit().is_some()
                || policy.failure_accrual().is_some()
                || policy.retry().is_some_and(|r| r.other_host().is_some()));
        if guarded {
            self.try_guarded_attempt(cr);
        } else {
            let instance = self.pick_instance(to);
            self.send_attempt(cr, instance);
        }
    }

    /// The policies that may hold an attempt back or turn it away, in order: breaker,
    /// throttle, adaptive limit, bulkhead; then it is sent.
    #[inline(never)]
    fn try_guarded_attempt(&mut self, cr: Ref) {
        let now = self.now;
        let call = self.calls.get(cr).expect("live");
        let (attempt, path, spec_id) = (call.attempt, call.path, call.spec);
        // The balancer picks first (past the caller's failure accrual, if any; away from the
        // hosts tried, for a retry with `other_host`), as for an unguarded attempt: a per-host
        // breaker is asked about the host it picked.
        let instance = self.pick_attempt_host(cr, spec_id, path, attempt);
        let call = self.calls.get(cr).expect("live");
        let spec = spec_of(&self.specs, call.spec);
        let (policy, edge) = (&spec.policy, spec.edge);
        let bulkhead_wraps_call = policy.bulkhead_wraps_call();
        let ask = (policy.breaker()).and_then(|b| b.ask_for(attempt, instance));
        self.calls.get_mut(cr).expect("live").instance = instance;
        // A permit around the whole call (`wraps = "call"`) is already held.
        let state = &mut self.policies[path as usize];
        let bulkhead = (state.bulkhead)
            .filter(|_| !bulkhead_wraps_call)
            .map(|b| (&mut self.bulkheads[b as usize], (cr, attempt)));
        let mut asked = None;
        let admitted = state.admit(Nanos(now), ask, bulkhead, &mut asked);
        self.count_breaker_asked(cr, edge, asked);
        let place = match admitted {
            Ok(Admitted {
                breaker,
                limit,
                bulkhead,
            }) => {
                let call = self.calls.get_mut(cr).expect("live");
                call.limit = limit;
                // A breaker around the whole call keeps the pass `admit_call` gave it.
                if ask.is_some() {
                    call.breaker = breaker;
                }
                bulkhead
            }
            Err(refusal) => {
                self.refused(cr, edge, refusal);
                return;
            }
        };
        match place {
            BulkheadPlace::Waiting => {
                self.pool_moved(path);
                self.wait_for_permit(cr, path, attempt);
            }
            BulkheadPlace::Held | BulkheadPlace::Unasked => {
                if place == BulkheadPlace::Held {
                    self.pool_moved(path);
                    self.calls.get_mut(cr).expect("live").holds_permit = true;
                }
                self.accrual_sent(spec_id, path, instance);
                self.send_attempt(cr, instance);
            }
        }
    }

    /// Counts what admission did to a breaker on the edge: its change of state, and a
    /// half-open probe let through.
    fn count_breaker_asked(&mut self, cr: Ref, edge: usize, asked: Option<BreakerAsked>) {
        if self.trace.is_some() {
            self.trace_asked(cr, asked);
        }
        if let Some(BreakerAsked { transition, probe }) = asked {
            super::call_end::book_breaker(&mut self.rec, edge, self.now, transition);
            if probe {
                self.rec.edges[edge].half_open_probes += 1;
            }
        }
    }

    /// A guard turned the call away: counted on the edge, and the call ends with its outcome.
    fn refused(&mut self, cr: Ref, edge: usize, refusal: Refusal) {
        if self.trace.is_some() {
            self.trace_refused(cr, refusal);
        }
        let acc = &mut self.rec.edges[edge];
        match refusal {
            Refusal::BreakerOpen => acc.rejected_breaker += 1,
            Refusal::Throttled => acc.throttled += 1,
            Refusal::Limited => acc.limited += 1,
            Refusal::BulkheadFull => acc.rejected_bulkhead += 1,
            Refusal::RateLimited => acc.rate_limited += 1,
        }
        self.finish_call(cr, refusal.outcome());
    }

    /// Sends the current attempt to `instance`, and plans its first hedge.
    /// Inlined into its callers (see `try_attempt`).
    #[inline(always)]
    pub(in crate::engine) fn send_attempt(&mut self, cr: Ref, instance: u32) {
        let now = self.now;
        let call = self.calls.get_mut(cr).expect("attempt of a live call");
        call.phase = CallPhase::Attempting;
        call.attempt_started = now;
        call.instance = instance;
        call.hedges_sent = 0;
        let (spec_id, attempt, path) = (call.spec, call.attempt, call.path);
        let spec = spec_of(&self.specs, spec_id);
        // Retries may have their own timeout (`retry.timeout`), as in Acme's 550 ms then 140 ms.
        let policy = &spec.policy;
        let retry_timeout = policy.retry().and_then(|r| r.timeout());
        let timeout = policy.timeout();
        let expiry = attempt_expiry(
            Nanos(now),
            attempt,
            timeout,
            retry_timeout,
            Nanos(call.deadline),
        )
        .0;
        call.attempt_expiry = expiry;
        let edge_acc = &mut self.rec.edges[spec.edge];
        edge_acc.attempts += 1;
        if attempt > 1 {
            edge_acc.retries += 1;
        }
        if expiry != NO_DEADLINE {
            self.event_queue
                .push(expiry, Event::AttemptTimer { call: cr, attempt });
        }
        if spec.policy.hedge().is_some() {
            self.plan_first_hedge(cr, attempt, path, expiry);
        }
        self.send_job(cr, instance, None);
    }

    /// Creates the job of an attempt (`hedge` = None) or of a hedged copy (its slot), records it
    /// with the call before it can answer, and sends it.
    pub(in crate::engine) fn send_job(&mut self, cr: Ref, instance: u32, hedge: Option<usize>) {
        let now = self.now;
        let call = self.calls.get_mut(cr).expect("sending for a live call");
        let spec_id = call.spec;
        let spec = spec_of(&self.specs, spec_id);
        let direct = self.faults.instant_network(spec);
        // An operation's job records on its own slot, and takes the operation's class.
        let (acc, criticality) = if spec.operation == 0 {
            (spec.to as u32, call.criticality)
        } else {
            let op = &self.model.services[spec.to].operations[usize::from(spec.operation) - 1];
            (
                self.metric_slot_base[spec.to] + u32::from(spec.operation),
                op.criticality.unwrap_or(call.criticality),
            )
        };
        let job = Job {
            service: spec.to as u32,
            instance,
            caller: cr,
            spec: spec_id,
            deadline: call.attempt_expiry,
            criticality,
            sent: now,
            arrived: now,
            started: now,
            abandoned_at: NO_DEADLINE,
            state: JobState::InTransit,
            first_child: None,
            op: call.op,
            step: 0,
            pending: 0,
            operation: spec.operation,
            metric_slot: acc,
            failure: None,
            degraded: false,
            outcome: Outcome::Ok,
            retry_after: NO_RETRY_AFTER,
            paused: 0,
            answered: false,
            origin: call.origin,
        };
        let jr = self.jobs.insert(job);
        match hedge {
            None => call.current = Some(jr),
            Some(k) => call.hedges[k] = Some(jr),
        }
        if let Some(op) = call.op.and_then(|op| self.ops.get_mut(op)) {
            op.jobs += 1;
        }
        if call.holds_permit {
            self.pool_job_sent(cr, jr);
        }
        if self.trace.is_some() {
            self.trace_job(jr, if hedge.is_some() { "hedge" } else { "attempt" });
        }
        match if direct {
            0
        } else {
            self.network_delay(spec_id)
        } {
            0 => self.arrive(jr),
            d => self.event_queue.push(now + d, Event::Deliver(jr)),
        }
    }

    /// One-way network latency of the call, drawn from the edge's stream.
    /// A job sent for an attempt that holds a bulkhead permit: a connection pool
    /// (`release = "answer"`) keeps the permit until this job is gone too (`pool_holds.rs`).
    #[inline(never)]
    fn pool_job_sent(&mut self, cr: Ref, jr: Ref) {
        let call = self.calls.get(cr).expect("live");
        if spec_of(&self.specs, call.spec)
            .policy
            .bulkhead_releases_on_answer()
        {
            let held_by = super::call_end::permit_holder(call);
            let pool = self.policies[call.path as usize]
                .bulkhead
                .expect("a permit comes from a bulkhead");
            self.pool_holds.job_sent(cr, held_by, pool, jr);
        }
    }

    pub(in crate::engine) fn network_delay(&mut self, spec_id: SpecId) -> u64 {
        let spec = spec_of(&self.specs, spec_id);
        let delay = match &spec.latency {
            Some(l) => l.sample(&mut self.edge_rngs[spec.edge]),
            None => 0,
        };
        self.slowed_network(spec.edge, delay)
    }
}
