//! Instances that live and die by the platform (`model/orchestration.rs`): which exist, which
//! listen, which are in the balancer's rotation, and the restarts their probes (`probes.rs`)
//! call for, with Kubernetes' CrashLoopBackOff. Reached only at a service with
//! `Service::orchestration`; the plain path never sees this file.

use crate::engine::kernel::rng::{Stream, stream};
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::Event;
use crate::model::orchestration::{Orchestration, ProbeKind};
use crate::model::{Model, Service};

/// Added to `ServiceState::down` while an instance is out of rotation by the platform's
/// doing (starting, not ready, draining), beside the crash faults counted one by one.
pub const OUT_OF_ROTATION: u32 = 1 << 16;
/// Added to `ServiceState::down` while an instance slot holds no instance: never picked, not
/// even when every instance is out (Envoy's panic routing picks among those that exist).
pub const ABSENT: u32 = 1 << 30;

/// Where an instance is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstancePhase {
    /// The slot holds no instance (autoscaling).
    Absent,
    /// The process is not listening: restarting (its back-off and restart time) or being
    /// added (the autoscaler's `startup`).
    Starting,
    Running,
    /// Removed by a scale-down: out of rotation, finishing its work.
    Draining,
}

/// One probe's standing at one instance.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProbeRun {
    pub fails: u32,
    pub oks: u32,
    /// A probe is out, sent at `sent`; in the queue it is job `job`.
    pub pending: bool,
    pub sent: u64,
    pub job: Option<crate::engine::kernel::arena::Ref>,
    /// Out of band: when the process answers the probe that is out (an answer due at
    /// another time is a late one, to a probe the kubelet has already failed).
    pub answer_at: u64,
}

#[derive(Debug, Clone)]
pub struct InstanceLife {
    pub phase: InstancePhase,
    /// Bumped at every kill and start: events of an earlier life are stale.
    pub epoch: u32,
    /// When its process last started listening (0 for the instances of the start).
    pub started_at: u64,
    /// Its work is slowed by `cold_factor` until then.
    pub cold_until: u64,
    /// Its startup probe has passed (true without one).
    pub started: bool,
    /// Its readiness probe says ready (true without one).
    pub ready: bool,
    /// Restarts in a row, for CrashLoopBackOff.
    pub restarts_in_row: u32,
    pub probes: [ProbeRun; 3],
}

/// A service's orchestration state.
pub struct Life {
    pub instances: Vec<InstanceLife>,
    /// Draws of the first probe's phase at the instances of the start, and of out-of-band
    /// probes' answer times (`service.<s>` / `probes`).
    pub rng: Stream,
    pub autoscaler: Option<super::autoscale::Hpa>,
}

impl Life {
    pub fn new(model: &Model, s: &Service, o: &Orchestration) -> Life {
        let slots = s.instance_slots();
        let instances = (0..slots)
            .map(|i| InstanceLife {
                phase: if i < s.instances {
                    InstancePhase::Running
                } else {
                    InstancePhase::Absent
                },
                epoch: 0,
                started_at: 0,
                cold_until: 0,
                started: true,
                ready: true,
                restarts_in_row: 0,
                probes: Default::default(),
            })
            .collect();
        Life {
            instances,
            rng: stream(model.seed, &format!("service.{}", s.name), "probes"),
            autoscaler: o
                .autoscale
                .as_ref()
                .map(|a| super::autoscale::Hpa::new(a, s.instances)),
        }
    }
}

/// What a lifecycle event (`Event::Life`) is about; its `action` word is the code in the low
/// four bits and the instance's epoch above them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Time to send a probe.
    Tick(ProbeKind),
    /// A probe's timeout is up.
    Expire(ProbeKind),
    /// An out-of-band probe's answer.
    Answer(ProbeKind),
    /// The process listens (back from a restart, or added).
    Listen,
    /// A drained instance's grace is over.
    DrainEnd,
    /// The autoscaler's sync (the instance is unused).
    Sync,
}

impl Action {
    pub fn encode(self, epoch: u32) -> u32 {
        let code = match self {
            Action::Tick(k) => k as u32,
            Action::Expire(k) => 3 + k as u32,
            Action::Answer(k) => 6 + k as u32,
            Action::Listen => 9,
            Action::DrainEnd => 10,
            Action::Sync => 11,
        };
        code | (epoch << 4)
    }

    pub fn decode(word: u32) -> (Action, u32) {
        let kind = |k: u32| ProbeKind::ALL[k as usize];
        let action = match word & 15 {
            c @ 0..=2 => Action::Tick(kind(c)),
            c @ 3..=5 => Action::Expire(kind(c - 3)),
            c @ 6..=8 => Action::Answer(kind(c - 6)),
            9 => Action::Listen,
            10 => Action::DrainEnd,
            _ => Action::Sync,
        };
        (action, word >> 4)
    }
}

impl Simulation {
    pub(in crate::engine) fn life(&self, s: usize) -> &Life {
        self.services[s]
            .life
            .as_deref()
            .expect("an orchestrated service")
    }

    pub(in crate::engine) fn life_mut(&mut self, s: usize) -> &mut Life {
        self.services[s]
            .life
            .as_deref_mut()
            .expect("an orchestrated service")
    }

    pub(in crate::engine) fn orchestration(&self, s: usize) -> &Orchestration {
        self.model.services[s]
            .orchestration
            .as_deref()
            .expect("an orchestrated service")
    }

    /// Schedules an instance's lifecycle event `delay` from now: a scenario's duration may be
    /// up to u64::MAX ns, so the sum saturates (an event past the end is never reached).
    pub(in crate::engine) fn schedule_life_in(
        &mut self,
        s: usize,
        i: u32,
        delay: u64,
        action: Action,
    ) {
        self.schedule_life(s, i, self.now.saturating_add(delay), action);
    }

    /// Schedules an instance's lifecycle event at `at`, stamped with its current epoch.
    pub(in crate::engine) fn schedule_life(&mut self, s: usize, i: u32, at: u64, action: Action) {
        let epoch = self.life(s).instances[i as usize].epoch;
        self.event_queue.push(
            at,
            Event::Life {
                service: s as u32,
                instance: i,
                action: action.encode(epoch),
            },
        );
    }

    /// At the start: every orchestrated service's probes get their first tick (at a phase
    /// drawn in their period, as the kubelet staggers probes it starts together), and its
    /// autoscaler its first sync.
    pub(in crate::engine) fn start_lifecycles(&mut self) {
        for s in 0..self.services.len() {
            if self.services[s].life.is_none() {
                continue;
            }
            let instances = self.model.services[s].instances;
            for i in 0..instances {
                for kind in [ProbeKind::Liveness, ProbeKind::Readiness] {
                    if let Some(period) = self.orchestration(s).probe(kind).map(|p| p.period) {
                        let phase = cascade_policy::random::unit(&mut self.life_mut(s).rng);
                        let at = (phase * period as f64) as u64;
                        self.schedule_life(s, i, at, Action::Tick(kind));
                    }
                }
            }
            self.instances_changed(s, i64::from(instances));
            if let Some(a) = &self.orchestration(s).autoscale {
                let period = a.period;
                self.event_queue.push(
                    period,
                    Event::Life {
                        service: s as u32,
                        instance: 0,
                        action: Action::Sync.encode(0),
                    },
                );
            }
        }
    }

    /// A lifecycle event: stale ones (of an earlier life of the instance) do nothing.
    #[cold]
    #[inline(never)]
    pub(in crate::engine) fn life_event(&mut self, s: u32, i: u32, word: u32) {
        let (s, (action, epoch)) = (s as usize, Action::decode(word));
        if action == Action::Sync {
            return self.autoscale_sync(s);
        }
        if self.life(s).instances[i as usize].epoch != epoch {
            return;
        }
        match action {
            Action::Tick(kind) => self.probe_tick(s, i, kind),
            Action::Expire(kind) => self.probe_expired(s, i, kind),
            Action::Answer(kind) => self.probe_answered(s, i, kind),
            Action::Listen => self.listen(s, i),
            Action::DrainEnd => self.drain_over(s, i),
            Action::Sync => {}
        }
    }

    /// Whether the instance is in the balancer's rotation by the platform's account.
    fn in_rotation(&self, s: usize, i: u32) -> bool {
        let l = &self.life(s).instances[i as usize];
        l.phase == InstancePhase::Running && l.started && l.ready
    }

    /// Brings `down` in line with the instance's phase and readiness, and the not-ready level
    /// with it; an instance coming into rotation starts its slow start.
    pub(in crate::engine) fn update_rotation(&mut self, s: usize, i: u32) {
        let now = self.now;
        let exists = self.life(s).instances[i as usize].phase != InstancePhase::Absent;
        let out = exists && !self.in_rotation(s, i);
        let down = &mut self.services[s].down;
        let before = down[i as usize];
        let was_out = before & OUT_OF_ROTATION != 0;
        let was_absent = before & ABSENT != 0;
        if out != was_out {
            if out {
                down.add(i, OUT_OF_ROTATION);
            } else {
                down.sub(i, OUT_OF_ROTATION);
            }
            let acc = &mut self.rec.services[s];
            self.rec.life_levels[s].not_ready.add(
                now,
                if out { 1 } else { -1 },
                &mut acc.not_ready_area,
            );
            if self.trace.is_some() {
                self.trace_instance(
                    s,
                    i,
                    if out {
                        "out_of_rotation"
                    } else {
                        "in_rotation"
                    },
                );
            }
        }
        if exists == was_absent {
            let down = &mut self.services[s].down;
            if exists {
                down.sub(i, ABSENT);
            } else {
                down.add(i, ABSENT);
            }
        }
        if before != 0 && self.services[s].down[i as usize] == 0 {
            self.instance_joined(s, i);
        }
    }

    /// The metric slots of service `s`: its own, then one per operation (`metric_slot_base`).
    pub(in crate::engine) fn metric_slots(&self, s: usize) -> impl Iterator<Item = usize> + use<> {
        let first = self.metric_slot_base[s] as usize;
        let ops = self.model.services[s].operations.len();
        std::iter::once(s).chain(first + 1..first + 1 + ops)
    }

    /// The number of existing instances changed by `delta`: the level every slot of the
    /// service integrates its capacity over (its utilization's denominator), and the hosts
    /// its outlier detector caps ejections by.
    pub(in crate::engine) fn instances_changed(&mut self, s: usize, delta: i64) {
        let now = self.now;
        for a in self.metric_slots(s) {
            let acc = &mut self.rec.services[a];
            self.rec.life_levels[a]
                .instances
                .add(now, delta, &mut acc.instances_area);
        }
        // The level counts the instances that exist: the outlier cap's N.
        let existing = self.rec.life_levels[s].instances.value as usize;
        if let Some(detector) = self.services[s].outlier.as_mut() {
            detector.set_hosts(existing);
        }
    }

    /// The liveness (or startup) probe gave up on the instance: it is killed, as a crash
    /// (its work lost, answered as `restart.mode` says), and restarted after its
    /// CrashLoopBackOff delay and `restart.time`, a new process with policy state of its own
    /// anew (its callers' view of the host carries on).
    pub(in crate::engine) fn restart(&mut self, s: usize, i: u32) {
        let now = self.now;
        let r = self.orchestration(s).restart.clone();
        let inst = &mut self.life_mut(s).instances[i as usize];
        // The kubelet forgives a container that ran twice the longest back-off.
        if now - inst.started_at >= r.backoff_max.saturating_mul(2) {
            inst.restarts_in_row = 0;
        }
        inst.restarts_in_row += 1;
        let delay = match inst.restarts_in_row {
            1 => 0,
            n => r
                .backoff
                .saturating_mul(1u64 << (n - 2).min(40))
                .min(r.backoff_max),
        };
        self.rec.services[s].restarts += 1;
        if self.trace.is_some() {
            self.trace_instance(s, i, "restart");
        }
        self.kill(s, i, r.blackhole);
        self.fresh_own_state(s, i);
        self.life_mut(s).instances[i as usize].phase = InstancePhase::Starting;
        self.update_rotation(s, i);
        self.schedule_life_in(s, i, delay.saturating_add(r.time), Action::Listen);
    }

    /// Ends an instance's current life: its probes forgotten, its work lost (`crash_instance`).
    pub(in crate::engine) fn kill(&mut self, s: usize, i: u32, blackhole: bool) {
        let inst = &mut self.life_mut(s).instances[i as usize];
        inst.epoch += 1;
        inst.probes = Default::default();
        inst.started = false;
        inst.ready = false;
        self.crash_instance(s, i, blackhole);
    }

    /// The process listens: started at once without a startup probe (ready at once without a
    /// readiness probe), its probes begin after their `initial_delay`, and it works cold for
    /// `cold_start`.
    fn listen(&mut self, s: usize, i: u32) {
        let now = self.now;
        let o = self.orchestration(s);
        let (cold_start, has_startup, has_readiness) = (
            o.cold_start,
            o.probe(ProbeKind::Startup).is_some(),
            o.probe(ProbeKind::Readiness).is_some(),
        );
        let inst = &mut self.life_mut(s).instances[i as usize];
        inst.phase = InstancePhase::Running;
        inst.started_at = now;
        inst.cold_until = now.saturating_add(cold_start);
        inst.started = !has_startup;
        inst.ready = !has_readiness;
        if self.trace.is_some() {
            self.trace_instance(s, i, "listening");
        }
        if has_startup {
            self.first_tick(s, i, ProbeKind::Startup);
        } else {
            self.begin_probes(s, i);
        }
        self.update_rotation(s, i);
        self.serve_queue(s, i);
    }

    /// Liveness and readiness start probing: their first probe `initial_delay` after the
    /// process started, or now if that is past (a startup probe passed late).
    pub(in crate::engine) fn begin_probes(&mut self, s: usize, i: u32) {
        for kind in [ProbeKind::Liveness, ProbeKind::Readiness] {
            self.first_tick(s, i, kind);
        }
    }

    fn first_tick(&mut self, s: usize, i: u32, kind: ProbeKind) {
        let Some(delay) = self.orchestration(s).probe(kind).map(|p| p.initial_delay) else {
            return;
        };
        let at = (self.life(s).instances[i as usize]
            .started_at
            .saturating_add(delay))
        .max(self.now);
        self.schedule_life(s, i, at, Action::Tick(kind));
    }

    /// The factor a job starting work now at instance `i` is slowed by: `cold_factor` while
    /// the instance is within `cold_start` of its process start.
    pub(in crate::engine) fn cold_factor(&self, s: usize, i: u32) -> Option<f64> {
        let life = self.services[s].life.as_deref()?;
        (self.now < life.instances[i as usize].cold_until)
            .then(|| self.orchestration(s).cold_factor)
    }

    /// An arrival at an instance that is not listening (restarting, starting, gone) is
    /// refused, as a closed port refuses a connection; while no instance is ready and
    /// `when_none_ready = "refuse"`, so is one at an instance out of rotation, unless it is a
    /// probe (the kubelet reaches the pod itself, not through the balancer: refusing its
    /// probes would keep the instance unready for good).
    pub(in crate::engine) fn refused_by_platform(
        &self,
        jr: crate::engine::kernel::arena::Ref,
        s: usize,
        i: u32,
    ) -> bool {
        let l = &self.life(s).instances[i as usize];
        match l.phase {
            InstancePhase::Running | InstancePhase::Draining => {}
            InstancePhase::Absent | InstancePhase::Starting => return true,
        }
        if self.orchestration(s).none_ready == crate::model::orchestration::NoneReady::FailOpen
            || self.in_rotation(s, i)
            || self
                .jobs
                .get(jr)
                .is_some_and(|j| j.caller == super::probes::PROBE_CALLER)
        {
            return false;
        }
        let n = self.life(s).instances.len() as u32;
        !(0..n).any(|k| self.in_rotation(s, k))
    }
}
