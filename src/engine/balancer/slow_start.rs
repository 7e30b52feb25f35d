//! Slow start at a service's balancer (`model/slow_start.rs`), on the engine's side: when an
//! instance comes into rotation, and the weighted pick while any instance is in its window.
//! Envoy picks by weight with an EDF scheduler; here a smooth weighted round robin (nginx's)
//! does, which gives each instance the same share of the picks, its weight over the sum of
//! the eligible instances' weights, with the order within a round its own. Past every window
//! the balancer is the plain one again, so a service without slow start, or long after its
//! last one, pays one comparison a pick.

use super::ejection::Eligible;
use crate::engine::kernel::simulation::Simulation;
use crate::model::slow_start::SlowStart;

/// A service's slow starts under way.
pub struct Ramp {
    cfg: SlowStart,
    /// Per instance: when it last came into rotation (`None` for those of the start).
    since: Vec<Option<u64>>,
    /// The end of the last window under way: from then on, the plain balancer picks.
    pub until: u64,
    /// Per instance: the weighted round robin's credit.
    credit: Vec<f64>,
}

impl Ramp {
    pub fn new(cfg: &SlowStart, slots: u32) -> Ramp {
        Ramp {
            cfg: cfg.clone(),
            since: vec![None; slots as usize],
            until: 0,
            credit: vec![0.0; slots as usize],
        }
    }

    /// Instance `i`'s slow-start weight at `now` (1 out of its window).
    pub fn weight(&self, i: u32, now: u64) -> f64 {
        self.since[i as usize].map_or(1.0, |t| self.cfg.weight(now - t))
    }

    /// The weighted pick among the eligible instances, each weighed by `effective` of its
    /// slow-start weight; ties go to the first from `start`.
    pub fn pick(
        &mut self,
        now: u64,
        ok: &Eligible,
        start: u32,
        effective: impl Fn(u32, f64) -> f64,
    ) -> u32 {
        let n = ok.n;
        let (mut total, mut best) = (0.0, None::<u32>);
        for k in 0..n {
            let i = (start + k) % n;
            if !ok.allows(i) {
                continue;
            }
            let w = effective(i, self.weight(i, now));
            self.credit[i as usize] += w;
            total += w;
            if best.is_none_or(|b| self.credit[i as usize] > self.credit[b as usize]) {
                best = Some(i);
            }
        }
        let best = best.expect("at least one instance is eligible");
        self.credit[best as usize] -= total;
        best
    }
}

impl Simulation {
    /// Instance `i` of service `s` came into rotation (nothing holds it down any more): its
    /// slow start begins. A ramp that begins after every earlier one ended starts its round
    /// robin afresh.
    pub(in crate::engine) fn instance_joined(&mut self, s: usize, i: u32) {
        let now = self.now;
        let Some(ramp) = self.services[s].ramp.as_deref_mut() else {
            return;
        };
        if now >= ramp.until {
            ramp.credit.fill(0.0);
        }
        ramp.since[i as usize] = Some(now);
        ramp.until = ramp.until.max(now.saturating_add(ramp.cfg.window));
    }
}
