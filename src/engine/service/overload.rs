//! The physics of an overloaded service (`Service::overload`): contention grows each segment
//! of a job's work (its work, its after-work) with the instance's concurrency, a refusal takes
//! a worker for `reject_work` before it is answered, and a plan's work after its calls holds
//! the worker before the reply. Services without them never come here: their work takes one
//! `Option` check, their refusals and their dispatch none.

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::{AFTER_WORK, Event, JobState};
use crate::model::latency::{LONGEST_DRAW, scale_ns};
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
    pub(in crate::engine) fn contended_work(
        &mut self,
        jr: Ref,
        s: usize,
        i: usize,
        work: u64,
    ) -> u64 {
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
        let extra = scale_ns(work, c.law.factor(busy) - 1.0).min(LONGEST_DRAW.saturating_sub(work));
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
    pub(in crate::engine) fn segment_done(&mut self, jr: Ref, s: usize, i: usize) {
        let a = self.jobs.get(jr).expect("job ending work").metric_slot as usize;
        let extra = self.take_segment(jr).overhead;
        self.services[s].instances[i].working -= 1;
        self.rec.services[a].contention_ns += extra;
    }

    /// `jr`'s segment of work is cut short now (cancelled, or its instance crashed). The
    /// overhead is the head of the segment: what ran of the segment, stalls left out, is
    /// overhead first.
    pub(in crate::engine) fn segment_cut(&mut self, jr: Ref, s: usize, i: usize) {
        let a = self.jobs.get(jr).expect("job cut short").metric_slot as usize;
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

    /// Whether a refusal at service `s` costs a worker's time (`reject_work`).
    #[inline(always)]
    pub(in crate::engine) fn refusal_costs(&self, s: usize) -> bool {
        self.model.services[s]
            .overload
            .as_ref()
            .is_some_and(|o| o.reject_work > 0)
    }

    /// Answers the refused job `jr` (its outcome set) at instance `i` of service `s`: at once
    /// when refusals are free, else once a worker has paid for it.
    pub(in crate::engine) fn refuse(&mut self, jr: Ref, s: usize, i: usize) {
        if self.refusal_costs(s) {
            return self.owe_refusal(jr, s, i, 0);
        }
        self.send_reply(jr);
    }

    /// The refused job `jr` (its outcome set) owes instance `i` of service `s` a worker for
    /// `reject_work`: a free worker pays it at once, else the next one freed, before any
    /// queued job. Its answer leaves when the work is done, `delay` later (an `errors`
    /// fault's latency).
    #[cold]
    #[inline(never)]
    pub(in crate::engine) fn owe_refusal(&mut self, jr: Ref, s: usize, i: usize, delay: u64) {
        self.services[s].instances[i].owed.push_back((jr, delay));
        while self.may_start(s, i as u32, self.services[s].instances[i].busy)
            && self.pay_refusal(s, i)
        {}
    }

    /// A free worker of instance `i` pays the oldest refusal owed, if any (true then).
    pub(in crate::engine) fn pay_refusal(&mut self, s: usize, i: usize) -> bool {
        let inst = &mut self.services[s].instances[i];
        let Some((jr, delay)) = inst.owed.pop_front() else {
            return false;
        };
        inst.busy += 1;
        inst.working += 1;
        self.outstanding_changed(s, i);
        let now = self.now;
        let a = self.jobs.get(jr).expect("refused job").metric_slot;
        let acc = &mut self.rec.services[a as usize];
        self.rec.levels[a as usize]
            .busy
            .add(now, 1, &mut acc.busy_area);
        let work = self.model.services[s]
            .overload
            .as_ref()
            .expect("overload")
            .reject_work;
        self.event_queue.push(
            now + work,
            Event::RefusalDone {
                service: s as u32,
                instance: i as u32,
                acc: a,
            },
        );
        self.event_queue.push(now + work + delay, Event::Answer(jr));
        true
    }

    /// A worker has paid a refusal: it is free for what is owed or queued.
    #[inline(never)]
    pub(in crate::engine) fn refusal_done(&mut self, s: usize, i: usize, a: usize) {
        let inst = &mut self.services[s].instances[i];
        inst.busy -= 1;
        inst.working -= 1;
        self.outstanding_changed(s, i);
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

    /// An instance crashed: the refusals it still owed are answered at once, unpaid.
    pub(in crate::engine) fn drop_owed(&mut self, s: usize, i: usize) {
        let owed = std::mem::take(&mut self.services[s].instances[i].owed);
        for (jr, _) in owed {
            self.event_queue.push(self.now, Event::Answer(jr));
        }
    }

    /// The job's steps are over (or a required call failed): with `after_work` in its plan
    /// it works on, holding its worker, before it replies; else, or once that is done, or
    /// after a failure when the after-work is not spent on one, it completes.
    #[inline(never)]
    pub(in crate::engine) fn start_after_work(&mut self, jr: Ref, s: usize, operation: u16) {
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
        self.event_queue.push(self.now + work, Event::WorkDone(jr));
    }
}
