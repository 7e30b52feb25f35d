//! Idempotency at the callee (`Service::dedup_window`): the store's record of a keyed
//! non-idempotent call lives in its `Op`, shared by all the callee's instances, and decides
//! (`cascade-policy/src/dedup.rs`) whether an arriving attempt executes, waits parked (`JobState::Awaiting`:
//! no worker, no queue place) or is answered from a stored success. Reached only at a service
//! with the key.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::*;
use crate::model::Outcome;
use cascade_policy::Nanos;
use cascade_policy::dedup::{Arrival, Released};

impl Simulation {
    /// An attempt arrives at a service with a `dedup_window`: true if the store took it
    /// (parked, or answered), false if it goes on into the service.
    #[inline(never)]
    pub(in crate::engine) fn deduplicated(&mut self, jr: Ref) -> bool {
        let now = self.now;
        let job = self.jobs.get_mut(jr).expect("arriving job");
        let Some(op) = job.op else {
            return false;
        };
        if !spec_of(&self.specs, job.spec).idempotency_key {
            return false;
        }
        let record = &mut self.ops.get_mut(op).expect("held by its job").dedup;
        match record.arrive(Nanos(now), jr) {
            Arrival::Execute => false,
            Arrival::Wait => {
                job.state = JobState::Awaiting;
                true
            }
            Arrival::Answer { outcome, work_ns } => {
                self.answer_from_store(jr, outcome, work_ns.0);
                true
            }
        }
    }

    /// Answers attempt `jr` with a result it did no work for: `work_ns` of worker time saved.
    fn answer_from_store(&mut self, jr: Ref, outcome: Outcome, work_ns: u64) {
        let job = self.jobs.get_mut(jr).expect("deduplicated job");
        job.state = JobState::Replying;
        job.outcome = outcome;
        job.retry_after = NO_RETRY_AFTER;
        let acc = &mut self.rec.services[job.metric_slot as usize];
        acc.dedup_hits += 1;
        acc.dedup_saved_work_ns += work_ns;
        self.send_reply(jr);
    }

    /// Job `jr` of a non-idempotent call (its record `op`) answers: at a service with a
    /// `dedup_window`, if it was the key's execution, its waiters are answered with its
    /// success, or sent in again after its failure.
    #[inline(never)]
    pub(in crate::engine) fn dedup_answered(&mut self, jr: Ref, op: Ref) {
        let now = self.now;
        let job = self.jobs.get(jr).expect("answering job");
        let Some(window) = self.model.services[job.service as usize].dedup_window else {
            return;
        };
        let (outcome, work_ns) = (job.outcome, now.saturating_sub(job.started));
        let record = &mut self.ops.get_mut(op).expect("held by its job").dedup;
        match record.answered(jr, Nanos(now), Nanos(window), outcome, Nanos(work_ns)) {
            None => {}
            Some(Released::Answer {
                waiters,
                outcome,
                work_ns,
            }) => {
                for w in waiters {
                    if self.is_awaiting(w) {
                        self.answer_from_store(w, outcome, work_ns.0);
                    }
                }
            }
            Some(Released::Again(waiters)) => self.readmit_later(waiters),
        }
    }

    /// Job `jr` of key `op` (freed, at any service) ends without an answer (cancelled, lost in a crash) or, parked,
    /// stops waiting: an execution's waiters are sent in again.
    #[inline(never)]
    pub(in crate::engine) fn dedup_gone(&mut self, jr: Ref, op: Ref) {
        let Some(o) = self.ops.get_mut(op) else {
            return;
        };
        let waiters = o.dedup.gone(jr);
        self.readmit_later(waiters);
    }

    /// Released waiters arrive again at `now`, once the handler that released them is over (a
    /// crash releasing them from one instance has then dealt with all of its victims).
    fn readmit_later(&mut self, waiters: Vec<Ref>) {
        for w in waiters {
            self.event_queue.push(self.now, Event::Deliver(w));
        }
    }

    /// A released waiter arrives again: the store is asked anew (it may execute now, or wait
    /// for another waiter that does), then the service takes it in. It was counted as an
    /// arrival, and faults acted on it, when it first arrived.
    pub(in crate::engine) fn readmit(&mut self, jr: Ref) {
        if !self.is_awaiting(jr) {
            return;
        }
        if self.deduplicated(jr) {
            return;
        }
        let job = self.jobs.get(jr).expect("awaiting job");
        let (s, i, a) = (
            job.service as usize,
            job.instance as usize,
            job.metric_slot as usize,
        );
        self.enter(jr, s, i, a);
    }

    fn is_awaiting(&self, jr: Ref) -> bool {
        self.jobs
            .get(jr)
            .is_some_and(|j| j.state == JobState::Awaiting)
    }
}
