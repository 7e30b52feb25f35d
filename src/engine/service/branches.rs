//! Steps made with a probability (`p` on a step of a service's `calls`): when a job reaches
//! such a step it draws from the step's own stream, and either makes the step's calls or goes
//! on to the next step at once. Out of line, reached only from a service that has a `p`
//! (`advance_job`), so other services pay one length check.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::model::{Branch, Rule};
use cascade_policy::random::unit;

impl Simulation {
    /// `advance_job` for a service with a `p` on some step: the first step the job makes,
    /// started, or the job completed when it skips them all.
    #[inline(never)]
    pub(in crate::engine) fn advance_job_by_branches(
        &mut self,
        jr: Ref,
        s: usize,
        operation: u16,
        step: usize,
    ) {
        let step = self.next_taken_step(jr, s, operation, step);
        if step >= self.model.services[s].plan_of(operation).steps.len() {
            self.finish_plan(jr, s, operation);
        } else {
            self.start_step(jr, s, operation, step);
        }
    }

    /// From `step`, the first step of the job's plan (service `s`, `operation`) it makes: each step with a `p` on the
    /// way draws (p = 0 and p = 1 without a draw), is counted taken or skipped, and a skipped
    /// one is passed over without a call. Sets the job's step; past the last, the job is done.
    fn next_taken_step(&mut self, jr: Ref, s: usize, operation: u16, mut step: usize) -> usize {
        let acc = self.jobs.get(jr).expect("advancing job").metric_slot as usize;
        let (now, faults) = (self.now, &self.model.faults);
        let plan = self.model.services[s].plan_of(operation);
        let branches = &mut self.services[s].branches[usize::from(operation)];
        let rec = &mut self.rec.services[acc];
        // Entered after a step was made (`child_done`): the last step of a choice's option
        // goes on past the choice.
        if let Some(Some(Branch {
            exit: Some(exit), ..
        })) = step.checked_sub(1).map(|p| &plan.branches[p])
        {
            step = *exit;
        }
        while let Some(Some(rule)) = plan.branches.get(step) {
            let b = branches[step]
                .as_mut()
                .expect("a state beside every branch");
            let exit = rule.exit;
            match &rule.rule {
                Rule::Always => break,
                Rule::Choose { until, starts } => {
                    let u = unit(&mut b.rng);
                    let k = until.iter().position(|&x| u < x).unwrap_or(until.len() - 1);
                    rec.options[b.option_base as usize + k] += 1;
                    step = starts[k];
                    continue;
                }
                Rule::Maybe(_) => {}
            }
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
                rec.steps[step].taken += 1;
                break;
            }
            rec.steps[step].skipped += 1;
            step = exit.unwrap_or(step + 1);
        }
        self.jobs.get_mut(jr).expect("advancing job").step = step as u16;
        step
    }
}
