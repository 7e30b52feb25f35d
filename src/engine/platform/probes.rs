//! Kubernetes health probes (`model/orchestration.rs`): one every `period` per instance and
//! kind; a failure is an answer other than ok or degraded, or none within `timeout` (the probe
//! is then abandoned: its work, if it goes on, is wasted). Thresholds of failures in a row
//! restart the instance (liveness, startup) or take it out of rotation (readiness).
//!
//! A probe in the queue is a job of its operation with no caller: it arrives at the instance
//! like any request (faults, admission, the queue and its limit, CoDel), takes a worker and
//! may make calls (a deep probe), and records on its operation's metrics. Its job names a call
//! spec of its own (`Simulation::specs`, past the model's) on an edge no fault or network
//! touches, and a caller that never exists, so the reply finds no call and comes here.

use super::lifecycle::{Action, InstancePhase};
use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::*;
use crate::model::orchestration::ProbeKind;
use crate::model::{CallSpec, Model, Outcome};
use std::num::NonZeroU32;

/// The caller of a probe's job: a slot no arena ever has.
pub const PROBE_CALLER: Ref = Ref {
    index: u32::MAX,
    generation: NonZeroU32::MIN,
};

/// The call specs of the probes in the queue, numbered after the model's own, and the edge
/// index they name (one past the model's edges).
pub fn probe_specs(model: &Model) -> Vec<CallSpec> {
    let mut id = model.call_specs;
    let mut out = Vec::new();
    for (s, svc) in model.services.iter().enumerate() {
        let Some(o) = &svc.orchestration else {
            continue;
        };
        for p in o.probes.iter().flatten().filter(|p| !p.out_of_band) {
            out.push(CallSpec {
                id,
                to: s,
                edge: model.edges.len(),
                policy: Default::default(),
                operation: p.operation,
                latency: None,
                optional: false,
                fail_as: crate::model::FailAs::Kind(Outcome::Unavailable),
                idempotent: true,
                idempotency_key: false,
                fallback: None,
                wait: true,
            });
            id += 1;
        }
    }
    out
}

impl Simulation {
    /// The spec a probe of `kind` at service `s` names (`probe_specs`' order).
    fn probe_spec(&self, s: usize, kind: ProbeKind) -> SpecId {
        let at = self.specs[self.model.call_specs..]
            .iter()
            .position(|c| {
                c.to == s
                    && self
                        .orchestration(s)
                        .probe(kind)
                        .is_some_and(|p| p.operation == c.operation)
            })
            .expect("a probe in the queue has a spec");
        // Two kinds requesting the same operation share a spec: it only routes the reply.
        SpecId((self.model.call_specs + at) as u32)
    }

    /// Time for a probe: sent unless the last one is still out (a timeout longer than the
    /// period skips a tick, as the kubelet's ticker does), and the next tick planned.
    pub(in crate::engine) fn probe_tick(&mut self, s: usize, i: u32, kind: ProbeKind) {
        let now = self.now;
        let inst = &self.life(s).instances[i as usize];
        let due = match kind {
            ProbeKind::Startup => !inst.started,
            ProbeKind::Liveness | ProbeKind::Readiness => inst.started,
        };
        if inst.phase != InstancePhase::Running || !due {
            return;
        }
        let pending = inst.probes[kind as usize].pending;
        let p = self
            .orchestration(s)
            .probe(kind)
            .expect("a probe of this kind")
            .clone();
        self.schedule_life_in(s, i, p.period, Action::Tick(kind));
        if pending {
            return;
        }
        let run = &mut self.life_mut(s).instances[i as usize].probes[kind as usize];
        run.pending = true;
        run.sent = now;
        self.rec.services[s].probes[kind as usize] += 1;
        self.schedule_life_in(s, i, p.timeout, Action::Expire(kind));
        if self.trace.is_some() {
            self.trace_instance(s, i, &format!("probe_{}", kind.name()));
        }
        if p.out_of_band {
            // Answered by the process unless it is frozen (a stall) or gone (a crash fault).
            let work = p.work.sample(&mut self.life_mut(s).rng);
            if self.services[s].down[i as usize] & (super::lifecycle::OUT_OF_ROTATION - 1) == 0
                && self.may_answer_out_of_band(s, i)
            {
                let at = now.saturating_add(work);
                self.life_mut(s).instances[i as usize].probes[kind as usize].answer_at = at;
                self.schedule_life(s, i, at, Action::Answer(kind));
            }
            return;
        }
        let spec = self.probe_spec(s, kind);
        let op = &self.model.services[s].operations[usize::from(p.operation) - 1];
        let job = Job {
            service: s as u32,
            instance: i,
            caller: PROBE_CALLER,
            spec,
            deadline: now.saturating_add(p.timeout),
            criticality: op.criticality.unwrap_or_default(),
            sent: now,
            arrived: now,
            started: now,
            abandoned_at: NO_DEADLINE,
            state: JobState::InTransit,
            first_child: None,
            op: None,
            step: 0,
            pending: 0,
            operation: p.operation,
            metric_slot: self.metric_slot_base[s] + u32::from(p.operation),
            failure: None,
            degraded: false,
            outcome: Outcome::Ok,
            retry_after: NO_RETRY_AFTER,
            paused: 0,
            answered: false,
            // The platform's, no client's: a keyed rate limit charges it to no tenant.
            origin: NO_ORIGIN,
        };
        let jr = self.jobs.insert(job);
        self.life_mut(s).instances[i as usize].probes[kind as usize].job = Some(jr);
        self.arrive(jr);
    }

    /// Whether no stall holds the instance now: a frozen process answers no probe.
    fn may_answer_out_of_band(&self, s: usize, i: u32) -> bool {
        let now = self.now;
        !self.faults.holds[s].iter().any(|&f| {
            let f = &self.model.faults[f as usize];
            matches!(f.effect, crate::model::fault::Effect::Stall)
                && f.active(now)
                && f.hits_service(s, i)
        })
    }

    /// A probe job's reply reached the kubelet (`deliver_reply` finds no call for it).
    #[cold]
    #[inline(never)]
    pub(in crate::engine) fn probe_replied(&mut self, s: usize, i: u32, jr: Ref, outcome: Outcome) {
        let inst = &self.life(s).instances[i as usize];
        let Some(kind) = ProbeKind::ALL
            .into_iter()
            .find(|k| inst.probes[*k as usize].job == Some(jr))
        else {
            // Abandoned at its timeout, or from an earlier life of the instance.
            return;
        };
        self.probe_result(s, i, kind, outcome.is_success());
    }

    /// The process answered an out-of-band probe: a pass if it is the answer to the probe
    /// that is out.
    pub(in crate::engine) fn probe_answered(&mut self, s: usize, i: u32, kind: ProbeKind) {
        let run = self.life(s).instances[i as usize].probes[kind as usize];
        if run.pending && run.answer_at == self.now {
            self.probe_result(s, i, kind, true);
        }
    }

    /// The probe's timeout is up with no answer: a failure, and its job (if in the queue)
    /// abandoned.
    pub(in crate::engine) fn probe_expired(&mut self, s: usize, i: u32, kind: ProbeKind) {
        let run = self.life(s).instances[i as usize].probes[kind as usize];
        let timeout = self.orchestration(s).probe(kind).map_or(0, |p| p.timeout);
        if !run.pending || run.sent.saturating_add(timeout) != self.now {
            return;
        }
        if let Some(jr) = run.job {
            self.abandon_job(jr);
        }
        self.probe_result(s, i, kind, false);
    }

    /// A probe's verdict, and what its thresholds make of it.
    pub(in crate::engine) fn probe_result(&mut self, s: usize, i: u32, kind: ProbeKind, ok: bool) {
        let p = self
            .orchestration(s)
            .probe(kind)
            .expect("a probe of this kind");
        let (failures, successes) = (p.failure_threshold, p.success_threshold);
        let run = &mut self.life_mut(s).instances[i as usize].probes[kind as usize];
        if !run.pending {
            return;
        }
        run.pending = false;
        run.job = None;
        if ok {
            run.oks += 1;
            run.fails = 0;
        } else {
            run.fails += 1;
            run.oks = 0;
        }
        let (fails, oks) = (run.fails, run.oks);
        if !ok {
            self.rec.services[s].probe_failures[kind as usize] += 1;
            if self.trace.is_some() {
                self.trace_instance(s, i, &format!("probe_{}_failed", kind.name()));
            }
        }
        match kind {
            ProbeKind::Startup if ok => {
                self.life_mut(s).instances[i as usize].started = true;
                self.begin_probes(s, i);
                self.update_rotation(s, i);
            }
            ProbeKind::Startup | ProbeKind::Liveness if !ok && fails >= failures => {
                self.restart(s, i)
            }
            ProbeKind::Readiness => {
                let inst = &mut self.life_mut(s).instances[i as usize];
                if ok && !inst.ready && oks >= successes {
                    inst.ready = true;
                } else if !ok && inst.ready && fails >= failures {
                    inst.ready = false;
                }
                self.update_rotation(s, i);
            }
            ProbeKind::Startup | ProbeKind::Liveness => {}
        }
    }
}
