//! Worker partitions (`workers` on an operation): at most that many of an instance's workers
//! serve the operation at once, a server-side bulkhead inside one shared pool. Reached only at
//! a service with a partition (`Service::partitioned`); other services pay one flag.

use crate::engine::kernel::arena::{Arena, Ref};
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::{Job, JobState};
use crate::model::{Outcome, Service};
use std::collections::VecDeque;

impl Simulation {
    /// `arrive` at a service with a partition: the job takes a free worker only if its
    /// operation's partition has room too; when the partition is full it queues, or is turned
    /// away as overloaded if its operation refuses the overflow.
    #[inline(never)]
    pub(in crate::engine) fn arrive_partitioned(&mut self, jr: Ref, s: usize, i: usize, a: usize) {
        let op = self.jobs.get(jr).expect("arriving job").operation;
        let svc = &self.model.services[s];
        let inst = &self.services[s].instances[i];
        let room = (inst.waiting() as u64) < svc.queue;
        let fits = match partition_of(svc, op) {
            None => true,
            Some(p) if inst.operation_busy[usize::from(op)] < p.workers => true,
            Some(p) if p.refuse => {
                self.rec.services[a].rejected += 1;
                let job = self.jobs.get_mut(jr).expect("arriving job");
                job.state = JobState::Replying;
                job.outcome = Outcome::Overloaded;
                return self.refuse(jr, s, i);
            }
            Some(_) => false,
        };
        let start = fits && self.may_start(s, i as u32, inst.busy);
        self.admit(jr, s, i, a, start, room);
    }
}

fn partition_of(svc: &Service, operation: u16) -> Option<crate::model::Partition> {
    if operation == 0 {
        return None;
    }
    svc.operations[usize::from(operation) - 1].partition
}

/// Takes from `queue` the next job a freed worker may start: the oldest (or newest) whose
/// operation's partition has room. A cancelled job is taken as it comes, for the caller to
/// skip. `None` when every waiting job's partition is full.
pub(in crate::engine) fn pop_eligible(
    queue: &mut VecDeque<Ref>,
    newest_first: bool,
    jobs: &Arena<Job>,
    busy: &[u32],
    svc: &Service,
) -> Option<Ref> {
    let eligible = |jr: &Ref| {
        let Some(job) = jobs.get(*jr) else {
            return true;
        };
        job.state == JobState::Cancelled
            || partition_of(svc, job.operation)
                .is_none_or(|p| busy[usize::from(job.operation)] < p.workers)
    };
    let at = if newest_first {
        queue.iter().rposition(eligible)
    } else {
        queue.iter().position(eligible)
    }?;
    queue.remove(at)
}
