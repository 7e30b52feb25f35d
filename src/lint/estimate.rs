//! Estimates of a service's time per request from its distributions, before any run: its own
//! work plus, for each step every request makes, the slowest of the calls it waits for. No
//! queueing, no faults, no retries: what a request takes when nothing goes wrong, the least a
//! timeout or a hedge delay has to allow for.
//!
//! The median adds the medians of the parts (the median of a sum of right-skewed latencies is
//! at least that; the median of a parallel step's slowest call is at least each call's); a call
//! with a timeout counts as at most its timeout. The mean adds means, each step weighted by the
//! share of requests that make it, as Little's law needs.

use super::dur_f;
use super::facts::{Facts, possessive, step_shares};
use crate::model::{CallSpec, Latency};

/// An estimate (ns) and what it adds up, for the message: `work 10ms + db 20ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub ns: f64,
    pub parts: Vec<(String, f64)>,
}

impl Estimate {
    /// `5ms (work 3ms + db 2ms)`, or `5ms (work)` for one part.
    pub fn explained(&self) -> String {
        let parts: Vec<String> = (self.parts.iter())
            .filter(|(_, ns)| *ns > 0.0)
            .map(|(what, ns)| format!("{what} {}", dur_f(*ns)))
            .collect();
        match parts.len() {
            0 => dur_f(self.ns),
            _ => format!("{}: {}", dur_f(self.ns), parts.join(" + ")),
        }
    }
}

/// Which statistic an estimate is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    Median,
    Mean,
}

impl Stat {
    fn of(self, d: &Latency) -> f64 {
        match self {
            Stat::Median => d.median(),
            Stat::Mean => d.mean(),
        }
    }
}

/// Per service and plan, its estimated time per request.
pub struct Estimates {
    stat: Stat,
    plans: Vec<Vec<Estimate>>,
}

impl Estimates {
    pub fn of(facts: &Facts, stat: Stat) -> Estimates {
        let model = facts.model;
        let mut out = Estimates {
            stat,
            plans: (model.services.iter())
                .map(|s| {
                    vec![
                        Estimate {
                            ns: 0.0,
                            parts: vec![]
                        };
                        1 + s.operations.len()
                    ]
                })
                .collect(),
        };
        // Callees before callers.
        for &s in facts.order.iter().rev() {
            for (k, plan) in model.services[s].plans().enumerate() {
                let mut parts = vec![("work".to_string(), stat.of(&plan.work))];
                for (step, share) in plan.steps.iter().zip(step_shares(plan)) {
                    // The median counts the steps every request makes; the mean weighs each.
                    let weight = match stat {
                        Stat::Median if share < 1.0 - 1e-12 => continue,
                        Stat::Median => 1.0,
                        Stat::Mean => share,
                    };
                    let slowest = (step.iter())
                        .filter(|c| c.wait)
                        .map(|c| (c, out.call(c)))
                        .max_by(|a, b| a.1.total_cmp(&b.1));
                    if let Some((c, ns)) = slowest {
                        parts.push((facts.callee_name(c), weight * ns));
                    }
                }
                if let Some(after) = &plan.after {
                    parts.push(("after_work".to_string(), stat.of(&after.work)));
                }
                let ns = parts.iter().map(|(_, ns)| ns).sum();
                out.plans[s][k] = Estimate { ns, parts };
            }
        }
        out
    }

    /// One attempt of `spec`: the network both ways and the callee's time, whatever the
    /// timeout.
    pub fn attempt(&self, spec: &CallSpec, callee: String) -> Estimate {
        let own = &self.plans[spec.to][usize::from(spec.operation)];
        let mut parts = Vec::new();
        if let Some(net) = &spec.latency {
            parts.push(("network both ways".to_string(), 2.0 * self.stat.of(net)));
        }
        if own.parts.len() == 1 {
            parts.push((format!("{} work", possessive(&callee)), own.ns));
        } else {
            parts.extend(own.parts.iter().map(|(what, ns)| {
                let what = if what == "work" {
                    format!("{} work", possessive(&callee))
                } else {
                    what.clone()
                };
                (what, *ns)
            }));
        }
        Estimate {
            ns: parts.iter().map(|(_, ns)| ns).sum(),
            parts,
        }
    }

    /// What a call adds to its caller's time: an attempt, cut at its timeout.
    fn call(&self, spec: &CallSpec) -> f64 {
        let own = self.plans[spec.to][usize::from(spec.operation)].ns;
        let net = spec.latency.as_ref().map_or(0.0, |l| 2.0 * self.stat.of(l));
        let t = spec.policy.timeout().map_or(f64::INFINITY, |t| t.0 as f64);
        (own + net).min(t)
    }
}
