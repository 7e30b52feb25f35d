//! A job's own calls, step by step: a step's calls are started and linked to the job while
//! they are out (so cancelling the job can cancel them), and each one's end is counted until
//! the step is over and the job moves on (`jobs.rs`).

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::*;
use crate::model::{FailAs, Outcome};

impl Simulation {
    /// Starts the calls of step `step` of the job `jr` at service `s` (of its plan for
    /// `operation`).
    #[inline(always)]
    pub(in crate::engine) fn start_step(&mut self, jr: Ref, s: usize, operation: u16, step: usize) {
        // One length on the plain path: only a plan with a fire-and-forget call goes out of
        // line (`publish.rs`).
        if !self.model.services[s]
            .plan_of(operation)
            .publishes
            .is_empty()
        {
            return self.start_step_publishing(jr, s, operation, step);
        }
        let n = self.model.services[s].plan_of(operation).steps[step].len();
        let job = self.jobs.get_mut(jr).expect("live");
        let deadline = job.deadline;
        job.pending = n as u16;
        job.state = JobState::Calling;
        job.first_child = None;
        // Calls can finish at once (a deadline already spent, a full queue); the job advances
        // when the last one does, which can only happen during the last start below.
        for index in 0..n {
            let spec = SpecId::of(&self.model.services[s].plan_of(operation).steps[step][index]);
            if !self.start_child(jr, spec, deadline) {
                break;
            }
        }
    }

    /// Starts one call of job `jr`'s step and remembers it while it is out, so cancelling the
    /// job can cancel it. False when the job is gone: after the last start its calls may all
    /// have ended at once.
    #[inline(always)]
    pub(in crate::engine) fn start_child(&mut self, jr: Ref, spec: SpecId, deadline: u64) -> bool {
        let child = self.start_call(Parent::Job(jr), spec, deadline);
        let Some(job) = self.jobs.get_mut(jr) else {
            return false;
        };
        if let Some(call) = self.calls.get_mut(child) {
            call.sibling = job.first_child;
            job.first_child = Some(child);
        }
        true
    }

    /// Takes the ended call `cr` (whose next sibling was `sibling`) out of its parent job's
    /// list of calls still out. The list must hold live calls only: cancelling the job walks it,
    /// and a call ended earlier, its slot freed or reused, would cut the walk short and leave
    /// the calls after it running for a job that is gone.
    pub(in crate::engine) fn unlink_child(&mut self, jr: Ref, cr: Ref, sibling: Option<Ref>) {
        let Some(job) = self.jobs.get_mut(jr) else {
            return;
        };
        if job.first_child == Some(cr) {
            job.first_child = sibling;
            return;
        }
        let mut at = job.first_child;
        while let Some(c) = at {
            let Some(call) = self.calls.get_mut(c) else {
                return;
            };
            if call.sibling == Some(cr) {
                call.sibling = sibling;
                return;
            }
            at = call.sibling;
        }
    }

    pub(in crate::engine) fn child_done(
        &mut self,
        jr: Ref,
        optional: bool,
        fail_as: FailAs,
        outcome: Outcome,
    ) {
        let job = self
            .jobs
            .get_mut(jr)
            .expect("parent job waits for its calls");
        if outcome == Outcome::Degraded || (optional && !outcome.is_success()) {
            job.degraded = true;
        } else if !outcome.is_success() && job.failure.is_none() {
            job.failure = Some(match fail_as {
                FailAs::Kind(k) => k,
                FailAs::Propagate => outcome,
            });
        }
        job.pending -= 1;
        if job.pending == 0 {
            job.step += 1;
            self.advance_job(jr);
        }
    }
}
