//! Worker partitions (`workers` on an operation): at most that many of an instance's workers
//! serve the operation at once, a server-side bulkhead inside one shared pool. Reached only at
//! a service with a partition (`Service::partitioned`); other services pay one flag.

use super::arena::{Arena, Ref};
use super::sim::Simulation;
use super::state::{Job, JobState};
use crate::model::{Outcome, Service};
use std::collections::VecDeque;

impl Simulation {
    /// Whether the arriving job `jr` may take a free worker as far as its partition goes:
    /// `Some(true)` when it has room (or the operation has no partition), `Some(false)` when
    /// full and the job should queue, `None` when full and the operation refuses overflow.
    #[inline(never)]
    pub(super) fn partition_admits(&self, jr: Ref, s: usize, i: usize) -> Option<bool> {
        let op = self.jobs.get(jr).expect("arriving job").operation;
        let svc = &self.model.services[s];
        let busy = &self.services[s].instances[i].operation_busy;
        match partition_of(svc, op) {
            None => Some(true),
            Some(p) if busy[usize::from(op)] < p.workers => Some(true),
            Some(p) if p.refuse => None,
            Some(_) => Some(false),
        }
    }

    /// Answers the arriving job `jr` (on slot `acc`) as overloaded: turned away on arrival.
    #[inline(never)]
    pub(super) fn refuse(&mut self, jr: Ref, acc: usize) {
        self.rec.services[acc].rejected += 1;
        let job = self.jobs.get_mut(jr).expect("arriving job");
        job.state = JobState::Replying;
        job.outcome = Outcome::Overloaded;
        self.send_reply(jr);
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
pub(super) fn pop_eligible(
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
