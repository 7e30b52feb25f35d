//! Which instances a caller may pick: outlier ejection at a service's balancer (what the
//! detector learns from each answer, and its sweeps) and the hosts a caller's failure accrual
//! has marked dead. CoDel and adaptive LIFO act where the queue is served
//! (`dispatch::dispatch_next`).

use super::down::Down;
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::Event;
use crate::engine::platform::lifecycle::ABSENT;
use crate::model::Outcome;
use cascade_policy::Nanos;
use cascade_policy::accrual::Accrual;
use cascade_policy::outlier::{Detection, Outlier};

impl Simulation {
    /// The caller heard from `instance` of service `s` (or gave up on it): its outlier
    /// detector counts it. Failures are Envoy's `consecutive_5xx` family: 5xx answers and the
    /// local-origin ones it maps to them (timeouts, refused connections). A 429 or a 400 is the
    /// instance answering, not failing.
    pub(in crate::engine) fn outlier_record(&mut self, s: usize, instance: u32, outcome: Outcome) {
        let Some(detector) = self.services[s].outlier.as_mut() else {
            return;
        };
        if detector.record(Nanos(self.now), instance as usize, !host_failed(outcome))
            == Detection::Ejected
        {
            let acc = &mut self.rec.services[s];
            acc.ejections += 1;
            self.rec.levels[s]
                .ejected
                .add(self.now, 1, &mut acc.ejected_area);
        }
    }

    /// Envoy's interval timer: instances whose ejection is over come back.
    pub(in crate::engine) fn outlier_sweep(&mut self, s: u32) {
        let now = self.now;
        let s = s as usize;
        let Some(detector) = self.services[s].outlier.as_mut() else {
            return;
        };
        let back = detector.sweep(Nanos(now));
        let acc = &mut self.rec.services[s];
        self.rec.levels[s]
            .ejected
            .add(now, -i64::from(back), &mut acc.ejected_area);
        if let Some(o) = &self.model.services[s].outlier {
            self.event_queue
                .push(now + o.interval().0, Event::OutlierSweep(s as u32));
        }
    }
}

/// Whether an answer (or a give-up) counts against the host that gave it, for outlier
/// ejection and failure accrual alike: 5xx answers and the local-origin failures Envoy maps to
/// them (timeouts, refused connections); a 429 or a 400 is the host answering, not failing.
pub fn host_failed(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Timeout
            | Outcome::DeadlineExceeded
            | Outcome::Unavailable
            | Outcome::Internal
            | Outcome::Refused
    )
}

/// The hosts a caller's failure accrual has marked at `now` (`cascade-policy/src/accrual.rs`), one per
/// instance of the callee.
#[derive(Clone, Copy)]
pub struct Marked<'a> {
    pub hosts: &'a [Accrual],
    pub now: u64,
}

/// The instances of a service (`n` of them) a balancer may pick: those neither down (crashed)
/// nor ejected, nor marked dead by the caller's failure accrual. When accrual leaves none, it
/// is set aside (Finagle's panic mode: the pick goes to a marked host anyway; `panic` says so);
/// when crashes and ejections leave none, all that exist (Envoy's panic routing: the empty
/// slots an autoscaler keeps are no hosts at all).
pub fn eligible<'a>(
    outlier: &'a Option<Outlier>,
    down: &'a Down,
    n: u32,
    marked: Option<Marked<'a>>,
) -> Eligible<'a> {
    let ejected = outlier.as_ref().filter(|d| d.ejected_count() > 0);
    let any_down = down.any();
    let all = Eligible {
        n,
        count: n,
        detector: None,
        down: None,
        down_mask: u32::MAX,
        marked: None,
        panic: false,
    };
    if ejected.is_none() && !any_down && marked.is_none() {
        return all;
    }
    let mut some = Eligible {
        n,
        count: 0,
        detector: ejected,
        down: any_down.then_some(down.holds()),
        down_mask: u32::MAX,
        marked,
        panic: false,
    };
    let mut count = (0..n).filter(|&i| some.allows(i)).count() as u32;
    if count == 0 && marked.is_some() {
        some.marked = None;
        some.panic = true;
        count = (0..n).filter(|&i| some.allows(i)).count() as u32;
    }
    if count == 0 && down.holds().iter().any(|d| d & ABSENT != 0) {
        some = Eligible {
            detector: None,
            down_mask: ABSENT,
            ..some
        };
        count = (0..n).filter(|&i| some.allows(i)).count() as u32;
    }
    if count == 0 || count == n {
        Eligible {
            panic: some.panic,
            ..all
        }
    } else {
        Eligible { count, ..some }
    }
}

/// The instances a balancer chooses among, numbered 0..count.
pub struct Eligible<'a> {
    pub n: u32,
    pub count: u32,
    detector: Option<&'a Outlier>,
    down: Option<&'a [u32]>,
    /// The bits of `down` that rule an instance out: any of them, or only `ABSENT` when
    /// failing open.
    down_mask: u32,
    marked: Option<Marked<'a>>,
    /// Every host left was marked by failure accrual: the pick is Finagle's panic.
    pub panic: bool,
}

impl Eligible<'_> {
    /// The instance that is the `k`-th eligible one.
    pub fn nth(&self, k: u32) -> u32 {
        if self.count == self.n {
            return k;
        }
        (0..self.n)
            .filter(|&i| self.allows(i))
            .nth(k as usize)
            .expect("k < count")
    }

    pub fn allows(&self, i: u32) -> bool {
        self.detector.is_none_or(|d| !d.is_ejected(i as usize))
            && self
                .down
                .is_none_or(|d| d[i as usize] & self.down_mask == 0)
            && self
                .marked
                .is_none_or(|m| m.hosts[i as usize].available(Nanos(m.now)))
    }
}
