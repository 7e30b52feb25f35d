//! Compiles `[[client]]`: open-loop arrivals (rate, phases with steps and ramps) or closed-loop
//! users, the deadline, the criticality and the call toward the target.

use super::compile::{Ctx, Res, positive_u32};
use super::document::Source;
use super::schema::*;
use crate::model::{self, CallSpec, FailAs, Latency, Load, RateSchedule};

impl Ctx<'_> {
    pub(super) fn client(&mut self, c: &RawClient) -> Res<model::Client> {
        let at = |f: &str| format!("client.{}.{f}", c.name);
        let to = self.service_id(&at("target"), &c.target)?;
        let load = match c.arrival.unwrap_or(ArrivalKind::Poisson) {
            ArrivalKind::Closed => {
                for (key, set) in [("rate", c.rate.is_some()), ("phases", c.phases.is_some())] {
                    if set {
                        return Err(self.src.error_at(
                            &at(key),
                            "a closed-loop client has `users` and `think`, not a rate",
                        ));
                    }
                }
                let users = c.users.ok_or_else(|| {
                    self.src
                        .error_at(&at("users"), "a closed-loop client needs `users`")
                })?;
                let users = positive_u32(self.src, &at("users"), users)?;
                let think = match &c.think {
                    Some(d) => self.dist(&at("think"), d)?,
                    None => Latency::Constant(0),
                };
                let pace = match c.pace {
                    None => None,
                    Some(_) if c.think.is_some() => {
                        return Err(self.src.error_at(
                            &at("pace"),
                            "give `think` (a pause after each answer) or `pace` (a request every `pace`), not both",
                        ));
                    }
                    Some(Dur(0)) => {
                        return Err(self.src.error_at(&at("pace"), "must be longer than zero"));
                    }
                    Some(Dur(ns)) => Some(ns),
                };
                Load::Closed { users, think, pace }
            }
            kind => {
                let closed_only = [
                    ("users", c.users.is_some()),
                    ("think", c.think.is_some()),
                    ("pace", c.pace.is_some()),
                ];
                for (key, set) in closed_only {
                    if set {
                        return Err(self.src.error_at(
                            &at(key),
                            "only a closed-loop client (arrival = \"closed\") has this",
                        ));
                    }
                }
                let rate = c.rate.ok_or_else(|| {
                    self.src.error_at(
                        &at("rate"),
                        "an open-loop client needs `rate` (requests per second)",
                    )
                })?;
                check_rate(self.src, &at("rate"), rate)?;
                let changes =
                    self.phases(&at("phases"), c.phases.as_deref().unwrap_or_default())?;
                Load::Open {
                    poisson: kind == ArrivalKind::Poisson,
                    rate: RateSchedule::new(rate, &changes),
                }
            }
        };
        if c.deadline == Some(Dur(0)) {
            return Err(self.src.error_at(
                &at("deadline"),
                "must be longer than zero (leave it out for no deadline)",
            ));
        }
        let policy = self.policy(&at("policy"), c.policy.as_deref())?;
        if !policy.propagate_deadline() {
            return Err(self.src.error_at(&at("policy"), NOT_PROPAGATED_FROM_CLIENT));
        }
        let deadline = c.deadline.map(|d| d.0);
        let criticality = c.criticality.unwrap_or_default();
        // The client's network is its call's own network latency (a service call's `latency`):
        // each attempt's request and reply cross it, inside the attempt's timeout and the
        // deadline, both measured at the client.
        let network = match &c.network {
            Some(d) => Some(self.dist(&at("network"), d)?),
            None => None,
        };
        let Some(mix) = &c.mix else {
            let operation = self.callee_operation(&at("operation"), to, c.operation.as_deref())?;
            return Ok(model::Client {
                name: c.name.clone(),
                load,
                deadline,
                criticality,
                call: self.client_call(&c.name, to, operation, &policy, network.clone())?,
                mix: None,
            });
        };
        if c.operation.is_some() {
            return Err(self.src.error_at(
                &at("operation"),
                "a client sends one `operation` or a `mix` of them, not both",
            ));
        }
        if mix.is_empty() {
            return Err(self
                .src
                .error_at(&at("mix"), "needs at least one operation"));
        }
        let total: f64 = mix.iter().map(|m| m.weight).sum();
        let mut entries = Vec::new();
        let mut cumulative = 0.0;
        for (i, m) in mix.iter().enumerate() {
            let here = |f: &str| at(&format!("mix.{i}.{f}"));
            if !(m.weight.is_finite() && m.weight > 0.0) {
                return Err(self.src.error_at(
                    &here("weight"),
                    format!(
                        "is a share of the requests: a number above 0, got {}",
                        m.weight
                    ),
                ));
            }
            if m.deadline == Some(Dur(0)) {
                return Err(self.src.error_at(
                    &here("deadline"),
                    "must be longer than zero (leave it out for the client's)",
                ));
            }
            let operation = self.callee_operation(&here("operation"), to, Some(&m.operation))?;
            if mix[..i].iter().any(|o| o.operation == m.operation) {
                return Err(self.src.error_at(
                    &here("operation"),
                    format!(
                        "`{}` is in the mix twice: give it one entry with the sum of the weights",
                        m.operation
                    ),
                ));
            }
            cumulative += m.weight / total;
            entries.push(model::MixEntry {
                // The last share is exactly 1, whatever the rounding of the sum.
                until: if i + 1 == mix.len() { 1.0 } else { cumulative },
                deadline: m.deadline.map(|d| d.0).or(deadline),
                criticality: m.criticality.unwrap_or(criticality),
                call: self.client_call(&c.name, to, operation, &policy, network.clone())?,
            });
        }
        let first = entries.remove(0);
        Ok(model::Client {
            name: c.name.clone(),
            load,
            deadline: first.deadline,
            criticality: first.criticality,
            call: first.call,
            mix: Some(Box::new(model::Mix {
                first: first.until,
                others: entries,
            })),
        })
    }

    /// A client's call to operation `operation` of `to` (0: the service itself).
    fn client_call(
        &mut self,
        client: &str,
        to: usize,
        operation: u16,
        policy: &model::Policy,
        network: Option<Latency>,
    ) -> Res<CallSpec> {
        let fallback = self.fallback_call(client, policy)?;
        if fallback.is_some_and(|f| !self.fallbacks[f].policy.propagate_deadline()) {
            let name = policy.name.as_deref().unwrap_or_default();
            return Err(self.src.error_at(
                &format!("policy.{name}.fallback.policy"),
                NOT_PROPAGATED_FROM_CLIENT,
            ));
        }
        Ok(CallSpec {
            id: self.next_spec_id(),
            to,
            operation,
            edge: self.edge_to(client, to, operation),
            policy: policy.clone(),
            latency: network,
            optional: false,
            fail_as: FailAs::Propagate,
            idempotent: true,
            idempotency_key: false,
            fallback,
            wait: true,
        })
    }

    fn phases(&self, path: &str, phases: &[RawPhase]) -> Res<Vec<model::rate::RateChange>> {
        let mut free_from = 0;
        let mut out = Vec::new();
        for (i, p) in phases.iter().enumerate() {
            let here = format!("{path}.{i}");
            check_rate(self.src, &format!("{here}.rate"), p.rate)?;
            if i > 0 && p.at.0 < free_from {
                return Err(self.src.error_at(
                    &format!("{here}.at"),
                    "phases must be in time order, each after the previous one's ramp",
                ));
            }
            let ramp = p.ramp.map_or(0, |r| r.0);
            free_from = p.at.0 + ramp;
            out.push(model::rate::RateChange {
                at: p.at.0,
                rate_per_s: p.rate,
                ramp,
            });
        }
        Ok(out)
    }
}

/// A client's `deadline` is where a deadline starts, not one passed on to it.
const NOT_PROPAGATED_FROM_CLIENT: &str = "a client's call cannot use a policy with `propagate_deadline = false`: a client has no caller's deadline to pass on (its own is `deadline`); use it on a service's calls";

/// The highest open-loop rate: one arrival a nanosecond, the clock's resolution. Past it
/// arrivals share instants, and a second of simulated time is billions of events: the fuzzer's
/// 4,294,967,296 /s ran for many minutes without diverging, every request refused at once.
const MAX_RATE_PER_S: f64 = 1e9;

fn check_rate(src: &Source, path: &str, rate: f64) -> Res<()> {
    if !(rate.is_finite() && rate >= 0.0) {
        Err(src.error_at(path, "must be a rate of zero or more requests per second"))
    } else if rate > MAX_RATE_PER_S {
        Err(src.error_at(
            path,
            "must be at most 1000000000 requests per second (one a nanosecond, the resolution of the simulated clock)",
        ))
    } else {
        Ok(())
    }
}
