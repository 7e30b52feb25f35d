//! A call's timers (docs/policies.md §1): an attempt's timeout, the end of a backoff or a
//! bulkhead permit handed over (`resume`), and the end of a wait for a permit. Each checks the
//! attempt it was set for, so a timer outlived by its attempt does nothing.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::*;
use crate::model::Outcome;
use cascade_policy::Nanos;
use cascade_policy::deadline::attempt_may_start;

impl Simulation {
    /// Whether the timeout set for `attempt` of call `cr` acts when it fires: the call still
    /// waits for that attempt (or its hedges). Timers are cancelled lazily, so one outlived by
    /// its attempt fires and does nothing (and the trace writes no row for it).
    pub(in crate::engine) fn attempt_timer_acts(&self, cr: Ref, attempt: u32) -> bool {
        self.calls.get(cr).is_some_and(|call| {
            let waiting = call.current.is_some() || call.hedges.iter().any(Option::is_some);
            call.attempt == attempt && waiting
        })
    }

    /// Whether a `Resume` for `attempt` of call `cr` acts: the call is still on that attempt
    /// and not already sending it.
    pub(in crate::engine) fn resume_acts(&self, cr: Ref, attempt: u32) -> bool {
        self.calls
            .get(cr)
            .is_some_and(|call| call.attempt == attempt && call.phase != CallPhase::Attempting)
    }

    /// Whether the end of a permit wait for `attempt` of call `cr` may act: the call still
    /// waits for that permit. (It does nothing when the permit was handed over at this very
    /// instant and the `Resume` that carries on is already queued.)
    pub(in crate::engine) fn permit_timeout_may_act(&self, cr: Ref, attempt: u32) -> bool {
        self.calls
            .get(cr)
            .is_some_and(|call| call.attempt == attempt && call.phase == CallPhase::WaitingPermit)
    }

    pub(in crate::engine) fn attempt_expired(&mut self, cr: Ref, attempt: u32) {
        if !self.attempt_timer_acts(cr, attempt) {
            return;
        }
        let call = self.calls.get(cr).expect("live");
        let spec = spec_of(&self.specs, call.spec);
        let (to, instance) = (spec.to, call.instance);
        self.rec.edges[spec.edge]
            .attempt_latency
            .record(self.now - call.attempt_started);
        // The caller stops waiting for the attempt and its hedges. Without `cancel` their jobs
        // carry on (worker time from now is wasted, replies discarded); with it, they stop.
        let (spec_id, path) = (call.spec, call.path);
        self.abandon_attempt_jobs(cr);
        self.outlier_record(to, instance, Outcome::Timeout);
        self.accrual_record(spec_id, path, instance, Outcome::Timeout);
        let call = self.calls.get(cr).expect("live");
        let outcome = if call.deadline <= self.now {
            Outcome::DeadlineExceeded
        } else {
            Outcome::Timeout
        };
        self.finish_attempt(cr, outcome, None);
    }

    /// Stops waiting for every job of the current attempt: marks them abandoned,
    /// and cancels them when the policy says so.
    pub(in crate::engine) fn abandon_attempt_jobs(&mut self, cr: Ref) {
        let call = self.calls.get_mut(cr).expect("live");
        let cancel = spec_of(&self.specs, call.spec).policy.cancel();
        for j in call.take_attempt_jobs() {
            self.abandon_job(j);
            if cancel {
                self.cancel_job(j);
            }
        }
    }

    /// A backoff ended, or a bulkhead permit was handed over: the call goes on.
    pub(in crate::engine) fn resume(&mut self, cr: Ref, attempt: u32) {
        if !self.resume_acts(cr, attempt) {
            return;
        }
        let call = self.calls.get_mut(cr).expect("live");
        match call.phase {
            CallPhase::Backoff => self.try_attempt(cr),
            // A permit around the whole call: its first attempt starts, checked as any.
            CallPhase::WaitingPermit if attempt == 0 => {
                call.holds_permit = true;
                call.call_permit = true;
                self.try_attempt(cr);
            }
            CallPhase::WaitingPermit => {
                // The permit is the call's now, whatever it does next.
                call.holds_permit = true;
                call.phase = CallPhase::Attempting;
                let min_attempt = spec_of(&self.specs, call.spec).policy.min_attempt();
                if !attempt_may_start(Nanos(self.now), Nanos(call.deadline), min_attempt) {
                    // The attempt is never sent: the breaker that let it through gets its
                    // pass back (a half-open probe's place) before any fallback runs.
                    self.release_unused_breaker(cr);
                    self.finish_call(cr, Outcome::DeadlineExceeded);
                } else {
                    let (instance, spec, path) = (call.instance, call.spec, call.path);
                    self.accrual_sent(spec, path, instance);
                    self.send_attempt(cr, instance);
                }
            }
            // A canned fallback answer is ready.
            CallPhase::Fallback if call.deadline <= self.now => {
                self.complete_call(cr, Outcome::DeadlineExceeded)
            }
            CallPhase::Fallback => self.complete_call(cr, Outcome::Degraded),
            CallPhase::Attempting => unreachable!("resume_acts excludes it"),
        }
    }

    /// A call waited for a bulkhead permit as long as it may.
    pub(in crate::engine) fn permit_timeout(&mut self, cr: Ref, attempt: u32) {
        if !self.permit_timeout_may_act(cr, attempt) {
            return;
        }
        let call = self.calls.get(cr).expect("live");
        let (path, edge) = (call.path, spec_of(&self.specs, call.spec).edge);
        let now = self.now;
        let left = self
            .policy_mut(path)
            .and_then(|p| p.bulkhead)
            .is_some_and(|b| {
                let left = self.bulkheads[b as usize].abandon(Nanos(now), &(cr, attempt));
                (self.rec.pools).moved(b, now, &self.bulkheads[b as usize]);
                left
            });
        // Not waiting any more means a permit was handed over at this very instant: the
        // `Resume` already queued carries on.
        if left {
            self.release_unused_breaker(cr);
            // Waiting ended by the deadline is the deadline's failure, not the bulkhead's.
            let deadline = self.calls.get(cr).expect("live").deadline;
            if deadline <= self.now {
                self.finish_call(cr, Outcome::DeadlineExceeded);
            } else {
                self.rec.edges[edge].rejected_bulkhead += 1;
                if self.trace.is_some() {
                    self.trace_refused(cr, cascade_policy::path::Refusal::BulkheadFull);
                }
                self.finish_call(cr, Outcome::BulkheadFull);
            }
        }
    }
}
