//! Steps made with a probability (`p` on a step of a service's `calls`): when a job reaches
//! such a step it draws from the step's own stream, and either makes the step's calls or goes
//! on to the next step at once. Out of line, reached only from a service that has a `p`
//! (`advance_job`), so other services pay one length check.

use super::arena::Ref;
use super::sim::Simulation;
use crate::random::unit;

impl Simulation {
    /// `advance_job` for a service with a `p` on some step: the first step the job makes,
    /// started, or the job completed when it skips them all.
    #[inline(never)]
    pub(super) fn advance_job_by_branches(
        &mut self,
        jr: Ref,
        s: usize,
        operation: u16,
        step: usize,
    ) {
        let step = self.next_taken_step(jr, s, operation, step);
        if step >= self.model.services[s].plan_of(operation).steps.len() {
            self.complete_job(jr);
        } else {
            self.start_step(jr, s, operation, step);
        }
    }

    /// From `step`, the first step of the job's plan (service `s`, `operation`) it makes: each step with a `p` on the
    /// way draws (p = 0 and p = 1 without a draw), is counted taken or skipped, and a skipped
    /// one is passed over without a call. Sets the job's step; past the last, the job is done.
    fn next_taken_step(&mut self, jr: Ref, s: usize, operation: u16, mut step: usize) -> usize {
        let acc = self.jobs.get(jr).expect("advancing job").acc as usize;
        let (now, faults) = (self.now, &self.model.faults);
        let branches = &mut self.services[s].branches[usize::from(operation)];
        let counts = &mut self.rec.services[acc].steps;
        while let Some(Some(b)) = branches.get_mut(step) {
            let taken = if !b.faults.is_empty() {
                let p = (b.faults.iter()).fold(b.p, |p, &f| faults[f as usize].branch_p(p, now));
                unit(&mut b.rng) < p
            } else if b.p >= 1.0 {
                true
            } else if b.p <= 0.0 {
                false
            } else {
                unit(&mut b.rng) < b.p
            };
            if taken {
                counts[step].taken += 1;
                break;
            }
            counts[step].skipped += 1;
            step += 1;
        }
        self.jobs.get_mut(jr).expect("advancing job").step = step as u16;
        step
    }
}
