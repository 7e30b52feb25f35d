//! The physics of an overloaded service (`Service::overload`): contention grows each segment
//! of a job's work (its work, its after-work) with the instance's concurrency, a refusal owes
//! the instance `reject_work` of a worker's time, and a plan's work after its calls holds the
//! worker before the reply. Services without them never come here: their work takes one
//! `Option` check, their refusals and their dispatch none.

use super::arena::Ref;
use super::sim::Simulation;
use super::state::{AFTER_WORK, Event, JobState};
use crate::model::overload::ContentionCounts;

/// A segment of a job's work at a service with `overload`: when it started, and the part of
/// it contention added (its head), ns.
#[derive(Debug, Clone, Copy, Default)]
pub struct Segment {
    pub start: u64,
    pub overhead: u64,
}

impl Simulation {
    /// A segment of `jr`'s work (`work` ns, drawn and slowed) starts now at instance `i` of
    /// service `s`, which has `overload`: counted as working, and grown by contention. The
    /// factor is fixed now, from the busy workers counted with this one.
    #[inline(never)]
    pub(super) fn contended_work(&mut self, jr: Ref, s: usize, i: usize, work: u64) -> u64 {
        let overload = self.model.services[s]
            .overload
            .as_deref()
            .expect("overload");
        let inst = &mut self.services[s].instances[i];
        inst.working += 1;
        let Some(c) = &overload.contention else {
            return work;
        };
        let busy = match c.counts {
            ContentionCounts::Held => inst.busy,
            ContentionCounts::Working => inst.working,
        };
        let extra = (work as f64 * (c.law.factor(busy) - 1.0)).round() as u64;
        let slot = jr.index as usize;
        if slot >= self.segments.len() {
            self.segments.resize(slot + 1, Segment::default());
        }
        self.segments[slot] = Segment {
            start: self.now,
            overhead: extra,
        };
        work + extra
    }

    /// `jr`'s segment of work ran to its end: its contention overhead was spent in full.
    #[inline(never)]
    pub(super) fn segment_done(&mut self, jr: Ref, s: usize, i: usize) {
        let a = self.jobs.get(jr).expect("job ending work").acc as usize;
        let extra = self.take_segment(jr).overhead;
        self.services[s].instances[i].working -= 1;
        self.rec.services[a].contention_ns += extra;
    }

    /// `jr`'s segment of work is cut short now (cancelled, or its instance crashed). The
    /// overhead is the head of the segment: what ran of the segment, stalls left out, is
    /// overhead first.
    pub(super) fn segment_cut(&mut self, jr: Ref, s: usize, i: usize) {
        let a = self.jobs.get(jr).expect("job cut short").acc as usize;
        let Segment {
            start: from,
            overhead: extra,
        } = self.take_segment(jr);
        let ran = (self.now - from) - self.stalled_for(s, i as u32, from, self.now);
        self.services[s].instances[i].working -= 1;
        self.rec.services[a].contention_ns += extra.min(ran);
    }

    /// The segment `jr` was in (none, all zero, at a service without contention), cleared.
    fn take_segment(&mut self, jr: Ref) -> Segment {
        self.segments
            .get_mut(jr.index as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// A refusal at instance `i` of service `s`, of a request recorded on slot `a`: when the
    /// service's refusals cost work, it owes a worker `reject_work`, paid by a free worker now
    /// or by the next one freed, before any queued job.
    #[cold]
    #[inline(never)]
    pub(super) fn owe_refusal(&mut self, s: usize, i: usize, a: usize) {
        if self.model.services[s]
            .overload
            .as_ref()
            .is_none_or(|o| o.reject_work == 0)
        {
            return;
        }
        self.services[s].instances[i].owed.push_back(a as u32);
        while self.may_start(s, i as u32, self.services[s].instances[i].busy)
            && self.pay_refusal(s, i)
        {}
    }

    /// A free worker of instance `i` pays the oldest refusal owed, if any (true then).
    pub(super) fn pay_refusal(&mut self, s: usize, i: usize) -> bool {
        let inst = &mut self.services[s].instances[i];
        let Some(a) = inst.owed.pop_front() else {
            return false;
        };
        inst.busy += 1;
        inst.working += 1;
        let now = self.now;
        let acc = &mut self.rec.services[a as usize];
        self.rec.levels[a as usize]
            .busy
            .add(now, 1, &mut acc.busy_area);
        let work = self.model.services[s]
            .overload
            .as_ref()
            .expect("overload")
            .reject_work;
        self.queue.push(
            now + work,
            Event::RefusalDone {
                service: s as u32,
                instance: i as u32,
                acc: a,
            },
        );
        true
    }

    /// A worker has paid a refusal: it is free for what is owed or queued.
    #[inline(never)]
    pub(super) fn refusal_done(&mut self, s: usize, i: usize, a: usize) {
        let inst = &mut self.services[s].instances[i];
        inst.busy -= 1;
        inst.working -= 1;
        let now = self.now;
        let work = self.model.services[s]
            .overload
            .as_ref()
            .expect("overload")
            .reject_work;
        let acc = &mut self.rec.services[a];
        acc.refusal_ns += work;
        self.rec.levels[a].busy.add(now, -1, &mut acc.busy_area);
        self.dispatch_next(s, i);
    }

    /// The job's steps are over (or a required call failed): with `after_work` in its plan
    /// it works on, holding its worker, before it replies; else, or once that is done, or
    /// after a failure when the after-work is not spent on one, it completes.
    #[inline(never)]
    pub(super) fn start_after_work(&mut self, jr: Ref, s: usize, operation: u16) {
        let plan = self.model.services[s].plan_of(operation);
        let after = plan.after.as_deref().expect("after_work");
        let job = self.jobs.get(jr).expect("job after its calls");
        if job.step == AFTER_WORK || (job.failure.is_some() && !after.on_failure) {
            return self.complete_job(jr);
        }
        let (i, started) = (job.instance, job.started);
        let work = after
            .work
            .sample(&mut self.services[s].instances[i as usize].work_rng);
        let work = self.slowed_work(s, i, operation, work);
        let work = if self.model.services[s].overload.is_some() {
            self.contended_work(jr, s, i as usize, work)
        } else {
            work
        };
        // Stalls so far paused the calls' wait, not this work: only later ones move it.
        let paused = if self.faults.holds[s].is_empty() {
            0
        } else {
            self.stalled_for(s, i, started, self.now)
        };
        let job = self.jobs.get_mut(jr).expect("job after its calls");
        job.step = AFTER_WORK;
        job.state = JobState::Working;
        job.paused = paused;
        self.queue.push(self.now + work, Event::WorkDone(jr));
    }
}
