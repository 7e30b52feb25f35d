//! Fire-and-forget calls (`wait = false` on a call, an event-bus publish): the job starts them
//! and goes on at once. Out of line, reached only from a plan with such a call (`start_step`),
//! so other plans pay one length check.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::*;

impl Simulation {
    /// `start_step` for a plan with a fire-and-forget call: the step's publishes first (none
    /// can end the step, so all of them start), then its waited calls, which alone the step
    /// waits for; a step of publishes alone is over at once.
    #[inline(never)]
    pub(in crate::engine) fn start_step_publishing(
        &mut self,
        jr: Ref,
        s: usize,
        operation: u16,
        step: usize,
    ) {
        let plan = self.model.services[s].plan_of(operation);
        let (n, published) = (plan.steps[step].len(), usize::from(plan.publishes[step]));
        for index in 0..n {
            let spec = &self.model.services[s].plan_of(operation).steps[step][index];
            if !spec.wait {
                // Not the request's deadline: nobody waits for the publish, so only its own
                // timeout bounds it. Not a child of the job either: cancelling the job leaves it.
                let spec = SpecId::of(spec);
                self.start_call(Parent::Detached(jr), spec, NO_DEADLINE);
            }
        }
        let job = self.jobs.get_mut(jr).expect("live");
        if published == n {
            job.step += 1;
            return self.advance_job(jr);
        }
        let deadline = job.deadline;
        job.pending = (n - published) as u16;
        job.state = JobState::Calling;
        job.first_child = None;
        // As in `start_step`: the job advances when its last waited call ends, which can only
        // happen during the last start below.
        for index in 0..n {
            let spec = &self.model.services[s].plan_of(operation).steps[step][index];
            if !spec.wait {
                continue;
            }
            if !self.start_child(jr, SpecId::of(spec), deadline) {
                break;
            }
        }
    }
}
