//! The time of one attempt of each call on a healthy day, as a fixed-seed sample rather than a
//! single number: the tail lints ask what share of attempts outlast a timeout, which the sum of
//! medians (`estimate.rs`) cannot tell. A quantile of a sum of latencies has no closed form, so
//! each service's time per request is drawn bottom-up, callees before callers: its work, each
//! step with the share of requests that make it, the slowest waited call of the step (an attempt
//! of the callee, the network both ways, cut at the attempt timeout), then its after-work. As
//! in `estimate.rs`: no queueing, no faults, no retries inside the callee.

use std::collections::HashMap;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::facts::{Facts, step_shares};
use crate::model::{CallSpec, Latency};

/// Draws per plan and per call: a share of about 10% comes within about ±0.6% (two standard
/// errors). Fewer left a breaker at 0.93¹⁰ ≈ 0.5 on either side of the line by the seed.
pub const DRAWS: usize = 10_001;

/// Per service and plan, `DRAWS` draws of its time per request (ns).
pub struct Sampled {
    plans: Vec<Vec<Vec<f64>>>,
    /// Per call spec (`CallSpec::id`), its `DRAWS` attempts once drawn: both tail lints
    /// judge the same draws.
    calls: HashMap<usize, Vec<f64>>,
    rng: Pcg64Mcg,
}

impl Sampled {
    pub fn of(facts: &Facts) -> Sampled {
        let model = facts.model;
        let mut out = Sampled {
            plans: (model.services.iter())
                .map(|s| vec![Vec::new(); 1 + s.operations.len()])
                .collect(),
            calls: HashMap::new(),
            rng: Pcg64Mcg::seed_from_u64(0x7a11),
        };
        for &s in facts.order.iter().rev() {
            for (k, plan) in model.services[s].plans().enumerate() {
                let shares = step_shares(plan);
                let draws: Vec<f64> = (0..DRAWS)
                    .map(|_| {
                        let mut t = draw(&plan.work, &mut out.rng);
                        for (step, &share) in plan.steps.iter().zip(&shares) {
                            // One uniform per step whether or not it is made, so a step's
                            // share does not shift the draws of the others.
                            if out.rng.random::<f64>() >= share {
                                continue;
                            }
                            let slowest = (step.iter())
                                .filter(|c| c.wait)
                                .map(|c| out.cut_attempt(c))
                                .fold(0.0, f64::max);
                            t += slowest;
                        }
                        if let Some(after) = &plan.after {
                            t += draw(&after.work, &mut out.rng);
                        }
                        t
                    })
                    .collect();
                out.plans[s][k] = draws;
            }
        }
        out
    }

    /// One attempt of `spec` (ns): the network both ways and a request at the callee, whatever
    /// the timeout.
    pub fn attempt(&mut self, spec: &CallSpec) -> f64 {
        let own = &self.plans[spec.to][usize::from(spec.operation)];
        let callee = own[self.rng.random_range(0..own.len())];
        let net = spec
            .latency
            .as_ref()
            .map_or(0.0, |l| draw(l, &mut self.rng) + draw(l, &mut self.rng));
        callee + net
    }

    /// `DRAWS` attempts of `spec`, drawn once per call.
    pub fn attempts(&mut self, spec: &CallSpec) -> &mut Vec<f64> {
        if !self.calls.contains_key(&spec.id) {
            let draws = (0..DRAWS).map(|_| self.attempt(spec)).collect();
            self.calls.insert(spec.id, draws);
        }
        self.calls.get_mut(&spec.id).expect("just drawn")
    }

    /// An attempt as its caller waits for it: cut at the call's attempt timeout.
    fn cut_attempt(&mut self, spec: &CallSpec) -> f64 {
        let t = spec.policy.timeout().map_or(f64::INFINITY, |t| t.0 as f64);
        self.attempt(spec).min(t)
    }
}

fn draw(d: &Latency, rng: &mut Pcg64Mcg) -> f64 {
    d.sample(rng) as f64
}

/// The share of `draws` above `t`.
pub fn share_above(draws: &[f64], t: f64) -> f64 {
    draws.iter().filter(|&&x| x > t).count() as f64 / draws.len() as f64
}

/// The `q` quantile of `draws`.
pub fn quantile(draws: &[f64], q: f64) -> f64 {
    let mut sorted = draws.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}
