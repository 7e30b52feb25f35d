//! The moments of a fault that change state rather than single requests: an instance crashes
//! (its work lost) and comes back, a stall or a capacity cut ends (the queue is served again),
//! an overload's extra closed-loop users come and go.

use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::{Event, JobState, NO_RETRY_AFTER};
use crate::model::fault::{Cut, Effect, Fault, Target};
use crate::model::{Load, Outcome};

/// Extra closed-loop users of an overload fault: user ids `first..first + count` of `client`.
#[derive(Debug, Clone)]
pub struct ExtraUsers {
    pub client: u32,
    pub first: u32,
    pub count: u32,
    pub fault: u32,
}

impl Simulation {
    /// Puts every fault's moments on the queue (at the start of the run).
    pub(in crate::engine) fn schedule_fault_events(&mut self) {
        let mut next_user: Vec<u32> = self
            .model
            .clients
            .iter()
            .map(|c| match c.load {
                Load::Closed { users, .. } => users,
                Load::Open { .. } => 0,
            })
            .collect();
        for (i, f) in self.model.faults.iter().enumerate() {
            let fi = i as u32;
            match (&f.effect, f.target) {
                (Effect::Crash { .. }, _) => {
                    self.event_queue.push(f.start, Event::FaultStart(fi));
                    self.event_queue.push(f.end, Event::FaultEnd(fi));
                }
                (Effect::Stall, _) => self.event_queue.push(f.end, Event::FaultEnd(fi)),
                (Effect::Capacity(cut), Target::Service(s) | Target::Instance(s, _)) => {
                    // Workers come back at the end, and one by one along a recovery ramp.
                    self.event_queue.push(f.end, Event::FaultEnd(fi));
                    let workers = self.model.services[s].workers;
                    for t in capacity_returns(*cut, workers, f.end, f.ramp) {
                        self.event_queue.push(t, Event::FaultEnd(fi));
                    }
                }
                (Effect::Overload { users, .. }, Target::Client(c)) if *users > 0 => {
                    let extra = ExtraUsers {
                        client: c as u32,
                        first: next_user[c],
                        count: *users,
                        fault: fi,
                    };
                    next_user[c] += users;
                    for k in 0..*users {
                        let (on, _) = extra_user_window(f, &extra, k);
                        self.event_queue.push(
                            on,
                            Event::UserStart {
                                client: extra.client,
                                user: extra.first + k,
                            },
                        );
                    }
                    self.extra_users.push(extra);
                }
                _ => {}
            }
        }
    }

    /// Whether closed-loop `user` of `client` still takes part: always for the client's own
    /// users, within its window for an overload's extra one.
    pub(in crate::engine) fn user_active(&self, client: u32, user: u32) -> bool {
        let Some(extra) = self
            .extra_users
            .iter()
            .find(|e| e.client == client && (e.first..e.first + e.count).contains(&user))
        else {
            return true;
        };
        let fault = &self.model.faults[extra.fault as usize];
        let (on, off) = extra_user_window(fault, extra, user - extra.first);
        (on..off).contains(&self.now)
    }

    pub(in crate::engine) fn fault_started(&mut self, fault: u32) {
        let f = &self.model.faults[fault as usize];
        if let Effect::Crash { blackhole, .. } = f.effect {
            for (s, i) in instances_of(f.target, &self.model) {
                self.services[s].down.add(i, 1);
                self.crash_instance(s, i, blackhole);
            }
        }
    }

    pub(in crate::engine) fn fault_ended(&mut self, fault: u32) {
        let f = &self.model.faults[fault as usize];
        let crashed = matches!(f.effect, Effect::Crash { .. });
        let back = crashed && self.now == f.end;
        for (s, i) in instances_of(f.target, &self.model) {
            // The crash's hold comes off (only when it is over); the last one off rejoins.
            if back && self.services[s].down.sub(i, 1) == 0 {
                self.instance_joined(s, i);
            }
            self.serve_queue(s, i);
        }
    }

    /// Starts queued work on every worker the instance may use now.
    pub(in crate::engine) fn serve_queue(&mut self, s: usize, i: u32) {
        loop {
            let inst = &self.services[s].instances[i as usize];
            let before = (inst.busy, inst.queue.len() + inst.owed.len());
            if before.1 == 0 {
                return;
            }
            self.dispatch_next(s, i as usize);
            let inst = &self.services[s].instances[i as usize];
            if (inst.busy, inst.queue.len() + inst.owed.len()) == before {
                return;
            }
        }
    }

    /// An instance goes down: its queue is emptied and its running work lost. With `refuse`
    /// every lost request is answered `unavailable` (the connection reset); with `blackhole`
    /// none is, and callers wait for their timeouts.
    pub(in crate::engine) fn crash_instance(&mut self, s: usize, i: u32, blackhole: bool) {
        let now = self.now;
        let victims: Vec<_> = self
            .jobs
            .iter()
            .filter(|(_, j)| {
                j.service as usize == s
                    && j.instance == i
                    && matches!(
                        j.state,
                        JobState::Queued
                            | JobState::Working
                            | JobState::Calling
                            | JobState::Awaiting
                            | JobState::Delayed
                    )
            })
            .map(|(r, _)| r)
            .collect();
        let inst = &mut self.services[s].instances[i as usize];
        inst.queue.clear();
        inst.cancelled_in_queue = 0;
        self.outstanding_changed(s, i as usize);
        // Refusals owed a worker are answered unpaid; those being paid run out.
        self.drop_owed(s, i as usize);
        for jr in victims {
            let job = self.jobs.get_mut(jr).expect("live victim");
            let (a, operation) = (job.metric_slot as usize, job.operation);
            if job.state == JobState::Queued {
                crate::engine::service::dispatch::left_queue(&mut self.rec, a, now);
            }
            if matches!(job.state, JobState::Working | JobState::Calling) {
                let wasting = job.abandoned_at != crate::engine::kernel::state::NO_DEADLINE;
                if job.state == JobState::Working && self.model.services[s].overload.is_some() {
                    self.segment_cut(jr, s, i as usize);
                }
                let job = self.jobs.get_mut(jr).expect("live victim");
                let mut child = job.first_child.take();
                while let Some(c) = child {
                    child = self.calls.get(c).and_then(|call| call.sibling);
                    self.drop_call(c);
                }
                self.release_worker(s, i as usize, operation);
                let acc = &mut self.rec.services[a];
                let levels = &mut self.rec.levels[a];
                if wasting {
                    levels.wasted.add(now, -1, &mut acc.wasted_area);
                }
                levels.busy.add(now, -1, &mut acc.busy_area);
            }
            if blackhole {
                self.rec.services[a].unanswered += 1;
                self.free_job(jr);
            } else {
                let job = self.jobs.get_mut(jr).expect("live victim");
                job.state = JobState::Replying;
                job.outcome = Outcome::Unavailable;
                job.retry_after = NO_RETRY_AFTER;
                // Answered through the queue, so a caller retrying at once meets the instance
                // already down, not half torn down.
                self.event_queue.push(now, Event::Answer(jr));
            }
        }
    }
}

/// The instances a fault targets.
fn instances_of(target: Target, model: &crate::model::Model) -> Vec<(usize, u32)> {
    match target {
        Target::Service(s) => (0..model.services[s].instance_slots())
            .map(|i| (s, i))
            .collect(),
        Target::Instance(s, i) => vec![(s, i)],
        Target::Edge(_) | Target::Client(_) => Vec::new(),
    }
}

/// The moments along a recovery ramp of `ramp` ending at `end` when a cut instance may get a
/// worker back. Along the ramp the intensity at nanosecond t is (end − t − 0.5) / ramp, and
/// round(R · intensity) of the R workers cut stay away: the k-th comes back once
/// R · intensity < k − 0.5. Each moment is kicked twice (t and t + 1) against float rounding;
/// a kick that finds nothing to start does nothing.
fn capacity_returns(cut: Cut, workers: u32, end: u64, ramp: u64) -> Vec<u64> {
    let cut_at_full = workers - cut.workers_left(workers, 1.0);
    if ramp == 0 || cut_at_full == 0 {
        return Vec::new();
    }
    let r = f64::from(cut_at_full);
    (1..=cut_at_full)
        .flat_map(|k| {
            let t = (end as f64 - 0.5 - ramp as f64 * (f64::from(k) - 0.5) / r).floor() as u64 + 1;
            [t, t + 1]
        })
        .filter(|t| *t < end)
        .collect()
}

/// When extra user `k` of an overload `fault` is around: staggered along the ramps, so the
/// number of extra users rises and falls linearly. Only the fault's times are read.
fn extra_user_window(fault: &Fault, extra: &ExtraUsers, k: u32) -> (u64, u64) {
    let lag = (fault.ramp as f64 * f64::from(k) / f64::from(extra.count)) as u64;
    (fault.start + lag, fault.end - lag)
}
