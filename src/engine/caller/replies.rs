//! A reply reaches its caller (the caller's side of a job's end; the callee's, `send_reply`, is
//! in `jobs.rs`): the job is freed, and the call that still waits for it (the attempt itself or
//! one of its hedges) learns its outcome. The attempt's latency is recorded, the outlier
//! detector, the hedge's latency tracker and failure accrual learn of the answer, and the first
//! success (or the last failure) ends the attempt.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::*;
use cascade_policy::Nanos;

impl Simulation {
    /// Delivers job `jr`'s reply to its caller.
    pub(in crate::engine) fn deliver_reply(&mut self, jr: Ref) {
        let now = self.now;
        let job = self.jobs.get(jr).expect("replying job");
        let (caller, sent, outcome) = (job.caller, job.sent, job.outcome);
        let retry_after = (job.retry_after != NO_RETRY_AFTER).then_some(job.retry_after);
        let (service, instance) = (job.service as usize, job.instance);
        if self.trace.is_some() {
            self.trace_answer(jr);
        }
        self.free_job(jr);
        let Some(call) = self.calls.get_mut(caller) else {
            // The caller is gone, or there never was one: a probe's job (`probes.rs`).
            if caller == crate::engine::platform::probes::PROBE_CALLER {
                self.probe_replied(service, instance, jr, outcome);
            }
            return;
        };
        // Is the caller still waiting for this job: the attempt itself, or one of its hedges?
        if call.current == Some(jr) {
            call.current = None;
        } else if let Some(h) = call.hedges.iter_mut().find(|h| **h == Some(jr)) {
            *h = None;
        } else {
            // The caller gave up on it; its wasted work was booked when it finished.
            return;
        }
        let others = call.current.is_some() || call.hedges.iter().any(Option::is_some);
        let path = call.path;
        let call_spec = call.spec;
        let edge = spec_of(&self.specs, call_spec).edge;
        self.rec.edges[edge].attempt_latency.record(now - sent);
        if self.services[service].outlier.is_some() {
            self.outlier_record(service, instance, outcome);
        }
        if path != NO_PATH {
            let state = &mut self.policies[path as usize];
            if let Some(tracker) = state.hedge.as_mut() {
                tracker.record(Nanos(now), Nanos(now - sent));
            }
            if !state.accrual.is_empty() {
                self.accrual_record(call_spec, path, instance, outcome);
            }
        }
        if outcome.is_success() || !others {
            // The first success wins (or the last failure stands): stop waiting for the rest.
            if others {
                self.abandon_attempt_jobs(caller);
            }
            self.finish_attempt(caller, outcome, retry_after);
        }
        // A failed copy while others still run: wait for them.
    }
}
