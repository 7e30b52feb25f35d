//! A plan's steps and calls: the steps laid out (`branch.rs`), each call resolved to its callee,
//! operation, edge and policy, `count`s expanded into call specs of their own, and the calls
//! policies fall back to.

use super::compile::{Ctx, Res};
use super::limits::{MAX_CALLS, MAX_POLICY_COPIES, MAX_STEPS};
use super::schema::*;
use crate::error::did_you_mean;
use crate::model::{self, CallSpec, FailAs, Latency, Outcome, Policy};

impl Ctx<'_> {
    /// A plan's work and steps, written at `path` (`service.<s>` or
    /// `service.<s>.operation.<o>`); `streams` prefixes its branches' random streams.
    pub(super) fn plan(
        &mut self,
        service: &str,
        path: &str,
        streams: &str,
        work: Option<&RawDist>,
        calls: &[RawStep],
    ) -> Res<model::Plan> {
        let work = match work {
            Some(d) => self.dist(&format!("{path}.work"), d)?,
            None => Latency::Constant(0),
        };
        let laid = super::branch::layout(self.src, calls, path, streams)?;
        let too_wide = |c: &RawStep| c.parallel.as_ref().is_some_and(|p| p.len() > MAX_CALLS);
        let wide = laid.steps.iter().filter_map(|(raw, _)| *raw).any(too_wide);
        if laid.steps.len() > MAX_STEPS || wide {
            return Err(self.src.error_at(
                &format!("{path}.calls"),
                format!("at most {MAX_STEPS} steps (those inside `choose` options included), and {MAX_CALLS} calls in one parallel step"),
            ));
        }
        let mut steps = Vec::new();
        for (raw, step_path) in &laid.steps {
            steps.push(match raw {
                Some(step) => self.step(service, step_path, step)?,
                // A choice's head makes no call of its own.
                None => Vec::new(),
            });
        }
        let branches = laid.branches;
        let publishes: Vec<u16> = (steps.iter())
            .map(|calls| calls.iter().filter(|c| !c.wait).count() as u16)
            .collect();
        let publishes = if publishes.iter().all(|&n| n == 0) {
            Vec::new()
        } else {
            publishes
        };
        Ok(model::Plan {
            work,
            steps,
            branches,
            publishes,
            after: None,
        })
    }

    /// A step's calls, a call with a `count` repeated that many times: each copy is a call
    /// spec of its own (its own policy state, fallback and spec id), exactly as if written out,
    /// so the engine never learns of `count`.
    fn step(&mut self, from: &str, path: &str, step: &RawStep) -> Res<Vec<CallSpec>> {
        match (&step.to, &step.parallel) {
            (Some(to), None) => {
                let call = RawCall {
                    to: to.clone(),
                    p: None,
                    operation: step.operation.clone(),
                    policy: step.policy.clone(),
                    optional: step.optional,
                    latency: step.latency.clone(),
                    fail_as: step.fail_as.clone(),
                    idempotent: step.idempotent,
                    idempotency_key: step.idempotency_key,
                    count: step.count,
                    wait: step.wait,
                };
                let count = self.count(path, &call)?;
                (0..count).map(|_| self.call(from, path, &call)).collect()
            }
            (None, Some(calls)) => {
                if calls.is_empty() {
                    return Err(self
                        .src
                        .error_at(&format!("{path}.parallel"), "needs at least one call"));
                }
                if step.idempotent.is_some()
                    || step.operation.is_some()
                    || step.idempotency_key.is_some()
                    || step.policy.is_some()
                    || step.optional.is_some()
                    || step.latency.is_some()
                    || step.fail_as.is_some()
                    || step.count.is_some()
                    || step.wait.is_some()
                {
                    return Err(self.src.error_at(
                        path,
                        "a `parallel` step takes its settings on each call inside it, not beside `parallel`",
                    ));
                }
                let at = |c: &RawCall| format!("{path}.parallel.{}", c.to);
                // Counted before any is compiled: counts can add up past the limit that each
                // keeps on its own, and a wide step then costs nothing to refuse.
                let mut total = 0;
                for c in calls {
                    total += self.count(&at(c), c)?;
                }
                if total > MAX_CALLS {
                    return Err(self.src.error_at(
                        &format!("{path}.parallel"),
                        format!(
                            "{total} calls with their `count`s, over the limit of {MAX_CALLS} calls in one parallel step"
                        ),
                    ));
                }
                let mut specs = Vec::with_capacity(total);
                for c in calls {
                    for _ in 0..self.count(&at(c), c)? {
                        specs.push(self.call(from, &at(c), c)?);
                    }
                }
                Ok(specs)
            }
            _ => Err(self.src.error_at(
                path,
                "a call step needs exactly one of `to`, `parallel` or `choose`",
            )),
        }
    }

    /// How many times call `c` (written at `path`) is made: its `count`, 1 without one.
    fn count(&self, path: &str, c: &RawCall) -> Res<usize> {
        match c.count {
            None => Ok(1),
            Some(0) => Err(self.src.error_at(
                &format!("{path}.count"),
                "must be at least 1 (leave the call out to make none)",
            )),
            Some(n) if n as usize > MAX_CALLS => Err(self.src.error_at(
                &format!("{path}.count"),
                format!("{n} calls, over the limit of {MAX_CALLS} calls in one parallel step"),
            )),
            // Every call is at least one copy of call policy state, whose limit the whole
            // model is checked against (`limits::check`): refused here, before the copies are
            // made, a small file cannot ask for millions of them.
            Some(n) if self.call_specs as u64 + u64::from(n) > MAX_POLICY_COPIES => {
                Err(self.src.error_at(
                    &format!("{path}.count"),
                    format!(
                        "{n} more calls would make {} calls in the scenario, each at least one copy of call policy state: over the limit of {}",
                        crate::number::thousands(self.call_specs as i64 + i64::from(n)),
                        crate::number::thousands(MAX_POLICY_COPIES as i64)
                    ),
                ))
            }
            Some(n) => Ok(n as usize),
        }
    }

    fn call(&mut self, from: &str, path: &str, c: &RawCall) -> Res<CallSpec> {
        let to = self.service_id(&format!("{path}.to"), &c.to)?;
        let operation =
            self.callee_operation(&format!("{path}.operation"), to, c.operation.as_deref())?;
        let policy = self.policy(&format!("{path}.policy"), c.policy.as_deref())?;
        let latency = match &c.latency {
            Some(d) => Some(self.dist(&format!("{path}.latency"), d)?),
            None => None,
        };
        let fail_as = match c.fail_as.as_deref() {
            None => FailAs::Kind(Outcome::Unavailable),
            Some("propagate") => FailAs::Propagate,
            Some(name) => match Outcome::from_name(name) {
                Some(o) if !o.is_success() => FailAs::Kind(o),
                Some(o) => {
                    return Err(self.src.error_at(
                        &format!("{path}.fail_as"),
                        format!(
                            "`{}` is not a failure: use a failure kind or \"propagate\"",
                            o.name()
                        ),
                    ));
                }
                None => {
                    let mut names: Vec<&str> =
                        Outcome::failures().iter().map(|o| o.name()).collect();
                    names.push("propagate");
                    let hint = did_you_mean(name, names.iter().copied());
                    return Err(self.src.error_at(
                        &format!("{path}.fail_as"),
                        format!(
                            "unknown outcome `{name}`{hint}; valid: {}",
                            names.join(", ")
                        ),
                    ));
                }
            },
        };
        let wait = c.wait.unwrap_or(true);
        if !wait {
            self.fire_and_forget(path, c, &policy)?;
        }
        let fallback = self.fallback_call(from, &policy)?;
        Ok(CallSpec {
            id: self.next_spec_id(),
            to,
            operation,
            edge: self.edge_to(from, to, operation),
            policy,
            latency,
            optional: c.optional.unwrap_or(false),
            fail_as,
            idempotent: c.idempotent.unwrap_or(true),
            idempotency_key: c.idempotency_key.unwrap_or(false),
            fallback,
            wait,
        })
    }

    /// A call nobody waits for (`wait = false`, written at `path`) has no answer to make
    /// optional, map, fall back from or race: those settings are refused, naming the field.
    fn fire_and_forget(&self, path: &str, c: &RawCall, policy: &Policy) -> Res<()> {
        let why = "with `wait = false` nobody waits for the call's outcome";
        if c.optional.is_some() {
            return Err(self.src.error_at(
                &format!("{path}.optional"),
                format!("{why}: it cannot be optional (its failure never reaches the request)"),
            ));
        }
        if c.fail_as.is_some() {
            return Err(self.src.error_at(
                &format!("{path}.fail_as"),
                format!("{why}: there is no failure of the request to map it to"),
            ));
        }
        let name = policy.name.as_deref().unwrap_or_default();
        for (has, key, what) in [
            (
                policy.fallback().is_some(),
                "fallback",
                "no one receives a fallback's answer",
            ),
            (
                policy.hedge().is_some(),
                "hedge",
                "no one waits for the fastest copy",
            ),
        ] {
            if has {
                return Err(self.src.error_at(
                    &format!("{path}.policy"),
                    format!("{why}: policy `{name}` has a `{key}` (policy.{name}.{key}), which it cannot use: {what}; give it a policy without one"),
                ));
            }
        }
        Ok(())
    }

    /// The call a policy falls back to, from the same caller, as a spec of its own.
    pub(super) fn fallback_call(&mut self, from: &str, policy: &Policy) -> Res<Option<usize>> {
        let Some((to, fallback_policy)) = policy.fallback().and_then(|f| f.to().cloned()) else {
            return Ok(None);
        };
        let name = policy.name.clone().unwrap_or_default();
        let path = format!("policy.{name}.fallback.policy");
        let own = self.policy(&path, fallback_policy.as_deref())?;
        if own.fallback().is_some() {
            return Err(self
                .src
                .error_at(&path, "a fallback call's own policy cannot fall back again"));
        }
        if !self.raw.service[to]
            .operation
            .as_deref()
            .unwrap_or_default()
            .is_empty()
        {
            return Err(self.src.error_at(
                &format!("policy.{name}.fallback.to"),
                format!(
                    "`{}` has operations, and a fallback call cannot name one yet: fall back to a service without operations",
                    self.raw.service[to].name
                ),
            ));
        }
        let spec = CallSpec {
            id: self.next_spec_id(),
            to,
            operation: 0,
            edge: self.edge(from, to),
            policy: own,
            latency: None,
            optional: false,
            fail_as: FailAs::Propagate,
            idempotent: true,
            idempotency_key: false,
            fallback: None,
            wait: true,
        };
        self.fallbacks.push(spec);
        Ok(Some(self.fallbacks.len() - 1))
    }
}
