//! A service's adaptive protections, on the engine's side: outlier ejection at its balancer
//! (which instances a caller may pick) and what the detector learns from each answer.
//! CoDel and adaptive LIFO act where the queue is served (`jobs::dispatch_next`).

use super::sim::Simulation;
use super::state::Event;
use crate::model::Outcome;
use crate::policy::outlier::{Detection, Outlier};

impl Simulation {
    /// The caller heard from `instance` of service `s` (or gave up on it): its outlier
    /// detector counts it. Failures are Envoy's `consecutive_5xx` family: 5xx answers and the
    /// local-origin ones it maps to them (timeouts, refused connections). A 429 or a 400 is the
    /// instance answering, not failing.
    pub(super) fn outlier_record(&mut self, s: usize, instance: u32, outcome: Outcome) {
        let Some(detector) = self.services[s].outlier.as_mut() else {
            return;
        };
        let failure = matches!(
            outcome,
            Outcome::Timeout
                | Outcome::DeadlineExceeded
                | Outcome::Unavailable
                | Outcome::Internal
                | Outcome::Refused
        );
        if detector.record(self.now, instance as usize, !failure) == Detection::Ejected {
            let acc = &mut self.rec.services[s];
            acc.ejections += 1;
            self.rec.levels[s]
                .ejected
                .add(self.now, 1, &mut acc.ejected_area);
        }
    }

    /// Envoy's interval timer: instances whose ejection is over come back.
    pub(super) fn outlier_sweep(&mut self, s: u32) {
        let now = self.now;
        let s = s as usize;
        let Some(detector) = self.services[s].outlier.as_mut() else {
            return;
        };
        let back = detector.sweep(now);
        let acc = &mut self.rec.services[s];
        self.rec.levels[s]
            .ejected
            .add(now, -i64::from(back), &mut acc.ejected_area);
        if let Some(o) = &self.model.services[s].outlier {
            self.queue
                .push(now + o.interval, Event::OutlierSweep(s as u32));
        }
    }
}

/// The instances of a service (`n` of them) a balancer may pick: those neither down (crashed)
/// nor ejected, or all of them when none is left (Envoy's panic routing).
pub fn eligible<'a>(outlier: &'a Option<Outlier>, down: &'a [u32], n: u32) -> Eligible<'a> {
    let ejected = outlier.as_ref().filter(|d| d.ejected_count() > 0);
    let any_down = down.iter().any(|d| *d > 0);
    let all = Eligible {
        n,
        count: n,
        detector: None,
        down: None,
    };
    if ejected.is_none() && !any_down {
        return all;
    }
    let some = Eligible {
        n,
        count: 0,
        detector: ejected,
        down: any_down.then_some(down),
    };
    let count = (0..n).filter(|&i| some.allows(i)).count() as u32;
    if count == 0 {
        all
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
            && self.down.is_none_or(|d| d[i as usize] == 0)
    }
}
