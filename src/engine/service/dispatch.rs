//! A freed worker's next job: the head of the queue on the plain path, else the newest, the
//! first whose partition has room, skipping cancelled, expired and CoDel-shed jobs; and the
//! worker taken and given back.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::*;
use crate::model::{Discipline, Outcome};
use cascade_policy::Nanos;

impl Simulation {
    /// Gives a freed worker the next queued job, skipping those already expired if asked to.
    pub(in crate::engine) fn dispatch_next(&mut self, s: usize, i: usize) {
        let svc = &self.services[s];
        let inst = &svc.instances[i];
        // First in, first out, with nothing to skip: the head of the queue starts.
        let plain = svc.plain_dispatch && inst.cancelled_in_queue == 0;
        if !plain {
            return self.dispatch_next_checked(s, i);
        }
        if !self.may_start(s, i as u32, inst.busy) {
            return;
        }
        let Some(next) = self.services[s].instances[i].queue.pop_front() else {
            return;
        };
        let acc = self.jobs.get(next).expect("queued job").metric_slot as usize;
        left_queue(&mut self.rec, acc, self.now);
        self.take_worker(s, i, next);
    }

    /// Starts `jr` on a free worker of instance `i`.
    pub(in crate::engine) fn take_worker(&mut self, s: usize, i: usize, jr: Ref) {
        let inst = &mut self.services[s].instances[i];
        inst.busy += 1;
        if !inst.operation_busy.is_empty() {
            let op = self.jobs.get(jr).expect("job to start").operation;
            inst.operation_busy[usize::from(op)] += 1;
        }
        self.outstanding_changed(s, i);
        self.start_work(jr);
    }

    /// A worker of instance `i` that ran a job of `operation` is free again.
    #[inline(always)]
    pub(in crate::engine) fn release_worker(&mut self, s: usize, i: usize, operation: u16) {
        let inst = &mut self.services[s].instances[i];
        inst.busy -= 1;
        if !inst.operation_busy.is_empty() {
            inst.operation_busy[usize::from(operation)] -= 1;
        }
        self.outstanding_changed(s, i);
    }

    /// Answers a job dropped from the queue (expired, or shed by CoDel) through the event
    /// queue, not inline, so its caller cannot re-enter this instance while the worker is
    /// being handed out; or once a worker has paid for the refusal, when refusals cost work.
    fn answer_dropped(&mut self, jr: Ref, s: usize, i: usize) {
        if self.refusal_costs(s) {
            return self.owe_refusal(jr, s, i, 0);
        }
        self.event_queue.push(self.now, Event::Answer(jr));
    }

    /// `dispatch_next` where the queue is served newest first, or may hold jobs to skip.
    #[inline(never)]
    fn dispatch_next_checked(&mut self, s: usize, i: usize) {
        let now = self.now;
        loop {
            if !self.may_start(s, i as u32, self.services[s].instances[i].busy) {
                return;
            }
            // Refusals owed a worker come first: the capacity they cost is taken from the
            // queued work (`overload.rs`).
            if !self.services[s].instances[i].owed.is_empty() {
                self.pay_refusal(s, i);
                continue;
            }
            let svc = &self.model.services[s];
            let inst = &mut self.services[s].instances[i];
            let waiting = inst.waiting() as u64;
            let newest_first = match svc.discipline {
                Discipline::Lifo => true,
                // Adaptive LIFO: while the queue is long, the newest requests are the ones
                // whose callers are still waiting.
                Discipline::Fifo => svc.adaptive_lifo.is_some_and(|t| waiting >= t),
            };
            let next = if svc.partitioned {
                super::partitions::pop_eligible(
                    &mut inst.queue,
                    newest_first,
                    &self.jobs,
                    &inst.operation_busy,
                    svc,
                )
            } else if newest_first {
                inst.queue.pop_back()
            } else {
                inst.queue.pop_front()
            };
            let Some(next) = next else { return };
            if inst.cancelled_in_queue > 0
                && self
                    .jobs
                    .get(next)
                    .is_none_or(|j| j.state == JobState::Cancelled)
            {
                // Cancelled while queued: already out of the queue's length, now out of it.
                inst.cancelled_in_queue -= 1;
                self.free_job(next);
                continue;
            }
            let job = self.jobs.get_mut(next).expect("queued job");
            left_queue(&mut self.rec, job.metric_slot as usize, now);
            let acc = &mut self.rec.services[job.metric_slot as usize];
            if svc.drop_expired && job.deadline <= now {
                acc.dropped_expired += 1;
                job.state = JobState::Replying;
                job.outcome = Outcome::DeadlineExceeded;
                self.answer_dropped(next, s, i);
                self.outstanding_changed(s, i);
                continue;
            }
            if let Some(codel) = inst.codel.as_mut()
                && codel.on_dequeue(Nanos(now), Nanos(now - job.arrived))
            {
                acc.shed_codel += 1;
                job.state = JobState::Replying;
                job.outcome = Outcome::Overloaded;
                self.answer_dropped(next, s, i);
                self.outstanding_changed(s, i);
                continue;
            }
            // Its queue level was taken down above, with the jobs it skips.
            self.take_worker(s, i, next);
            return;
        }
    }
}

/// A job leaves its instance's queue: to a worker, dropped as it is dequeued, cancelled while
/// it waits (`cancel_job`) or taken by a crash (`faults/events.rs`). The queue level of its
/// metrics slot `acc` comes down here and nowhere else.
#[inline(always)]
pub(in crate::engine) fn left_queue(
    rec: &mut crate::metrics::recorder::Recorder,
    acc: usize,
    now: u64,
) {
    let (level, service) = (&mut rec.levels[acc], &mut rec.services[acc]);
    level.queue.add(now, -1, &mut service.queue_area);
}

/// Whether a freed worker of `service` simply takes the head of its queue: FIFO, no adaptive
/// LIFO, no `drop_expired`, no CoDel, no partition, and no refusal's owed work to pay before
/// the head (`dispatch_next_checked` handles the rest).
pub(in crate::engine) fn plain_dispatch(service: &crate::model::Service) -> bool {
    service.discipline == crate::model::Discipline::Fifo
        && service.adaptive_lifo.is_none()
        && !service.drop_expired
        && service.codel.is_none()
        && !service.partitioned
        && service.overload.as_ref().is_none_or(|o| o.reject_work == 0)
}
