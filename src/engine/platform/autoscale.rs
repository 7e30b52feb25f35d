//! The Kubernetes Horizontal Pod Autoscaler (`model/orchestration.rs`, `Autoscale`), as its
//! controller computes (pkg/controller/podautoscaler): every sync period, desired =
//! ceil(current × metric / target) unless within the tolerance; the recommendation stabilized
//! over the behaviour's windows (scale-up: the least of the window's, scale-down: the most);
//! the change limited by the scaling policies over their periods; then `[min, max]`.

use super::lifecycle::{Action, InstancePhase, Life};
use super::stabilization::{Stabilizer, within};
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::{Event, InstanceState};
use crate::metrics::level::Area;
use crate::model::orchestration::{Autoscale, ScaleBehavior, ScaleDown, ScaleMetric, SelectPolicy};
use std::collections::VecDeque;

/// An autoscaler's memory: its recommendations, its scale events and the metric's integrals
/// at its past syncs.
pub struct Hpa {
    stabilizer: Stabilizer,
    ups: VecDeque<(u64, u32)>,
    downs: VecDeque<(u64, u32)>,
    /// At each sync (and the start): the service's integrals of busy workers, queued
    /// requests and existing instances, count·ns.
    samples: VecDeque<(u64, [Area; 3])>,
}

impl Hpa {
    pub fn new(_a: &Autoscale, _instances: u32) -> Hpa {
        Hpa {
            stabilizer: Stabilizer::default(),
            ups: VecDeque::new(),
            downs: VecDeque::new(),
            samples: VecDeque::from([(0, [0; 3])]),
        }
    }
}

/// The HPA's replica count from the metric: the current count within the tolerance, else
/// ceil(current × metric / target).
pub fn proposed(current: u32, metric: f64, target: f64, tolerance: f64) -> u32 {
    let ratio = metric / target;
    if (ratio - 1.0).abs() <= tolerance {
        return current;
    }
    (ratio * f64::from(current)).ceil() as u32
}

/// Instances changed by events within the last `period` (at `now`).
fn changed_within(events: &VecDeque<(u64, u32)>, now: u64, period: u64) -> u32 {
    events
        .iter()
        .filter(|(t, _)| within(*t, period, now))
        .map(|(_, n)| n)
        .sum()
}

/// The instances there were when each policy's period began: the current count, less those
/// added and plus those removed within it (the current controller counts both directions for
/// both limits, so a scale-down inside the period does not shrink the next scale-up).
fn period_start(current: u32, events: Events, now: u64, period: u64) -> u32 {
    current
        .saturating_add(changed_within(events.downs, now, period))
        .saturating_sub(changed_within(events.ups, now, period))
}

/// An autoscaler's recent scale events: instances added, and removed, with their times.
#[derive(Clone, Copy)]
pub struct Events<'a> {
    pub ups: &'a VecDeque<(u64, u32)>,
    pub downs: &'a VecDeque<(u64, u32)>,
}

/// `calculateScaleUpLimitWithScalingRules`: the most instances the policies allow now.
pub fn scale_up_limit(current: u32, events: Events, now: u64, b: &ScaleBehavior) -> u32 {
    let limits = b.policies.iter().map(|p| {
        let start = period_start(current, events, now, p.period);
        if p.percent {
            (f64::from(start) * (1.0 + f64::from(p.value) / 100.0)).ceil() as u32
        } else {
            start.saturating_add(p.value)
        }
    });
    match b.select {
        SelectPolicy::Disabled => current,
        SelectPolicy::Max => limits.max().unwrap_or(current),
        SelectPolicy::Min => limits.min().unwrap_or(current),
    }
}

/// `calculateScaleDownLimitWithBehaviors`: the fewest instances the policies allow now.
pub fn scale_down_limit(current: u32, events: Events, now: u64, b: &ScaleBehavior) -> u32 {
    let limits = b.policies.iter().map(|p| {
        let start = period_start(current, events, now, p.period);
        if p.percent {
            (f64::from(start) * (1.0 - f64::from(p.value) / 100.0)) as u32
        } else {
            start.saturating_sub(p.value)
        }
    });
    match b.select {
        SelectPolicy::Disabled => current,
        // The policy allowing the largest change: the fewest instances.
        SelectPolicy::Max => limits.min().unwrap_or(current),
        SelectPolicy::Min => limits.max().unwrap_or(current),
    }
}

impl Simulation {
    /// The autoscaler's sync: drained instances that are empty leave, then the metric over
    /// the window gives the desired count, stabilized and rate-limited, and instances are
    /// added or removed to reach it.
    pub(in crate::engine) fn autoscale_sync(&mut self, s: usize) {
        let now = self.now;
        let a = self
            .orchestration(s)
            .autoscale
            .clone()
            .expect("an autoscaled service");
        self.event_queue.push(
            now.saturating_add(a.period),
            Event::Life {
                service: s as u32,
                instance: 0,
                action: Action::Sync.encode(0),
            },
        );
        self.leave_drained(s);
        let integrals = self.integrals(s);
        let hpa = self.life_mut(s).autoscaler.as_mut().expect("an autoscaler");
        hpa.samples.push_back((now, integrals));
        while hpa.samples.len() > 1 && !within(hpa.samples[1].0, a.window, now) {
            hpa.samples.pop_front();
        }
        let (_, before) = hpa.samples[0];
        let d = |k: usize| (integrals[k] - before[k]) as f64;
        let current = existing(self.life(s));
        if d(2) <= 0.0 {
            return;
        }
        let workers = f64::from(self.model.services[s].workers);
        let metric = match a.metric {
            ScaleMetric::Utilization => d(0) / (workers * d(2)),
            ScaleMetric::InFlight => (d(0) + d(1)) / d(2),
            ScaleMetric::Queue => d(1) / d(2),
        };
        let desired = proposed(current, metric, a.target, a.tolerance);
        let hpa = self.life_mut(s).autoscaler.as_mut().expect("an autoscaler");
        // Stabilization: the least recommendation of the scale-up window, the most of the
        // scale-down window, the new one included.
        let (up, down) =
            hpa.stabilizer
                .record(now, desired, a.up.stabilization, a.down.stabilization);
        let stabilized = current.max(up).min(down);
        let events = Events {
            ups: &hpa.ups,
            downs: &hpa.downs,
        };
        let target = if stabilized > current {
            let limit = scale_up_limit(current, events, now, &a.up).max(current);
            stabilized.min(limit.min(a.max))
        } else if stabilized < current {
            let limit = scale_down_limit(current, events, now, &a.down).min(current);
            stabilized.max(limit.max(a.min))
        } else {
            stabilized
        };
        let longest = [&a.up, &a.down]
            .iter()
            .flat_map(|b| b.policies.iter().map(|p| p.period))
            .max()
            .unwrap_or(0);
        for events in [&mut hpa.ups, &mut hpa.downs] {
            while events
                .front()
                .is_some_and(|(t, _)| !within(*t, longest, now))
            {
                events.pop_front();
            }
        }
        if target > current {
            hpa.ups.push_back((now, target - current));
            self.rec.services[s].scale_ups += 1;
            for _ in current..target {
                self.add_instance(s, a.startup);
            }
        } else if target < current {
            hpa.downs.push_back((now, current - target));
            self.rec.services[s].scale_downs += 1;
            for _ in target..current {
                self.remove_instance(s, &a);
            }
        }
    }

    /// The service's integrals now, over all its metric slots: busy workers, queued
    /// requests, existing instances.
    fn integrals(&self, s: usize) -> [Area; 3] {
        let mut out = [0; 3];
        for a in self.metric_slots(s) {
            let [busy, queue] = self.rec.service_integrals(a, self.now);
            out[0] += busy;
            out[1] += queue;
        }
        out[2] = self.rec.instance_integral(s, self.now);
        out
    }

    /// A new instance in the lowest free slot: it starts listening after `startup`, with
    /// fresh policy state in its callers and of its own.
    fn add_instance(&mut self, s: usize, startup: u64) {
        let Some(i) = self
            .life(s)
            .instances
            .iter()
            .position(|l| l.phase == InstancePhase::Absent)
        else {
            return;
        };
        let i = i as u32;
        let inst = &mut self.life_mut(s).instances[i as usize];
        inst.epoch += 1;
        inst.phase = InstancePhase::Starting;
        inst.started = false;
        inst.ready = false;
        inst.restarts_in_row = 0;
        inst.probes = Default::default();
        self.instances_changed(s, 1);
        self.fresh_policy_state(s, i);
        self.update_rotation(s, i);
        if self.trace.is_some() {
            self.trace_instance(s, i, "scale_up");
        }
        self.schedule_life_in(s, i, startup, Action::Listen);
    }

    /// Removes one instance: those out of rotation first, then the newest (Kubernetes'
    /// ReplicaSet deletes unready and younger pods first), drained or killed.
    fn remove_instance(&mut self, s: usize, a: &Autoscale) {
        let life = self.life(s);
        let Some(i) = (0..life.instances.len() as u32)
            .filter(|&i| {
                matches!(
                    life.instances[i as usize].phase,
                    InstancePhase::Starting | InstancePhase::Running
                )
            })
            .max_by_key(|&i| {
                let l = &life.instances[i as usize];
                let out = self.services[s].down[i as usize] != 0;
                (out, l.started_at, i)
            })
        else {
            return;
        };
        if self.trace.is_some() {
            self.trace_instance(s, i, "scale_down");
        }
        match a.scale_down {
            ScaleDown::Kill => self.instance_gone(s, i),
            ScaleDown::Drain => {
                let inst = &mut self.life_mut(s).instances[i as usize];
                inst.phase = InstancePhase::Draining;
                inst.epoch += 1;
                inst.probes = Default::default();
                self.update_rotation(s, i);
                if drained(&self.services[s].instances[i as usize]) {
                    self.instance_gone(s, i);
                } else {
                    self.schedule_life_in(s, i, a.drain, Action::DrainEnd);
                }
            }
        }
    }

    fn leave_drained(&mut self, s: usize) {
        for i in 0..self.life(s).instances.len() as u32 {
            if self.life(s).instances[i as usize].phase == InstancePhase::Draining
                && drained(&self.services[s].instances[i as usize])
            {
                self.instance_gone(s, i);
            }
        }
    }

    /// A drained instance's grace is over: whatever it still holds is lost.
    pub(in crate::engine) fn drain_over(&mut self, s: usize, i: u32) {
        if self.life(s).instances[i as usize].phase == InstancePhase::Draining {
            self.instance_gone(s, i);
        }
    }

    /// The instance stops existing: killed (its work lost, answered unavailable), its slot
    /// empty.
    fn instance_gone(&mut self, s: usize, i: u32) {
        self.kill(s, i, false);
        self.life_mut(s).instances[i as usize].phase = InstancePhase::Absent;
        self.instances_changed(s, -1);
        self.update_rotation(s, i);
        if self.trace.is_some() {
            self.trace_instance(s, i, "gone");
        }
    }
}

/// Instances that exist and are not leaving: the autoscaler's current count.
fn existing(life: &Life) -> u32 {
    life.instances
        .iter()
        .filter(|l| matches!(l.phase, InstancePhase::Starting | InstancePhase::Running))
        .count() as u32
}

/// Whether a draining instance has nothing left to do.
fn drained(inst: &InstanceState) -> bool {
    inst.busy == 0 && inst.waiting() == 0 && inst.owed.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::orchestration::ScalePolicy;

    const S: u64 = 1_000_000_000;

    /// HPA's default scale-up behaviour: 100 % or 4 pods per 15 s, the larger.
    fn up(select: SelectPolicy) -> ScaleBehavior {
        ScaleBehavior {
            stabilization: 0,
            policies: vec![
                ScalePolicy {
                    percent: true,
                    value: 100,
                    period: 15 * S,
                },
                ScalePolicy {
                    percent: false,
                    value: 4,
                    period: 15 * S,
                },
            ],
            select,
        }
    }

    #[test]
    fn the_proposal_is_ceil_of_current_times_the_ratio_outside_the_tolerance() {
        // 4 instances at 75 % against a 50 % target: ceil(4 × 1.5) = 6.
        assert_eq!(proposed(4, 0.75, 0.5, 0.1), 6);
        // 0.54 / 0.5 = 1.08, within 10 %: unchanged; 0.56 / 0.5 = 1.12 is not.
        assert_eq!(proposed(4, 0.54, 0.5, 0.1), 4);
        assert_eq!(proposed(4, 0.56, 0.5, 0.1), 5);
        // Down: 10 instances at 12 % against 50 %: ceil(2.4) = 3.
        assert_eq!(proposed(10, 0.12, 0.5, 0.1), 3);
    }

    /// Scale events: `ups` and `downs` as (seconds ago from 100 s, instances).
    fn events(ups: &[(u64, u32)], downs: &[(u64, u32)]) -> [VecDeque<(u64, u32)>; 2] {
        let at = |e: &[(u64, u32)]| e.iter().map(|&(ago, n)| ((100 - ago) * S, n)).collect();
        [at(ups), at(downs)]
    }

    fn of(e: &[VecDeque<(u64, u32)>; 2]) -> Events<'_> {
        Events {
            ups: &e[0],
            downs: &e[1],
        }
    }

    #[test]
    fn scale_up_is_limited_by_the_policies_over_their_period() {
        let none = events(&[], &[]);
        // From 3: doubling gives 6, four more 7; Max takes 7, Min 6.
        assert_eq!(
            scale_up_limit(3, of(&none), 100 * S, &up(SelectPolicy::Max)),
            7
        );
        assert_eq!(
            scale_up_limit(3, of(&none), 100 * S, &up(SelectPolicy::Min)),
            6
        );
        assert_eq!(
            scale_up_limit(3, of(&none), 100 * S, &up(SelectPolicy::Disabled)),
            3
        );
        // 2 of the 5 were added 10 s ago, within the 15 s period: the period began at 3, so
        // at most 7 (3 + 4) or 6 (3 × 2); 20 s ago is outside it.
        let recent = events(&[(10, 2)], &[]);
        assert_eq!(
            scale_up_limit(5, of(&recent), 100 * S, &up(SelectPolicy::Max)),
            7
        );
        let old = events(&[(15, 2)], &[]);
        assert_eq!(
            scale_up_limit(5, of(&old), 100 * S, &up(SelectPolicy::Max)),
            10
        );
        // 2 removed 10 s ago: the period began at 7, so up to 14 (7 × 2), not 10 (5 × 2).
        let removed = events(&[], &[(10, 2)]);
        assert_eq!(
            scale_up_limit(5, of(&removed), 100 * S, &up(SelectPolicy::Max)),
            14
        );
    }

    #[test]
    fn scale_down_is_limited_by_the_policies_over_their_period() {
        let halve = |select| ScaleBehavior {
            stabilization: 300 * S,
            policies: vec![
                ScalePolicy {
                    percent: true,
                    value: 50,
                    period: 60 * S,
                },
                ScalePolicy {
                    percent: false,
                    value: 2,
                    period: 60 * S,
                },
            ],
            select,
        };
        let none = events(&[], &[]);
        // From 10: half gives 5, two fewer 8; Max (the largest change) 5, Min 8.
        assert_eq!(
            scale_down_limit(10, of(&none), 0, &halve(SelectPolicy::Max)),
            5
        );
        assert_eq!(
            scale_down_limit(10, of(&none), 0, &halve(SelectPolicy::Min)),
            8
        );
        // 2 removed 30 s ago: the period began at 12, so no fewer than 6 (or 10).
        let recent = events(&[], &[(30, 2)]);
        assert_eq!(
            scale_down_limit(10, of(&recent), 100 * S, &halve(SelectPolicy::Max)),
            6
        );
        // 4 added 30 s ago: the period began at 6, so down to 3, not 5.
        let added = events(&[(30, 4)], &[]);
        assert_eq!(
            scale_down_limit(10, of(&added), 100 * S, &halve(SelectPolicy::Max)),
            3
        );
    }
}
