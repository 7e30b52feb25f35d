//! What the mesh runs, and the refusal of everything else by name: a scenario feature the mesh
//! would ignore would make a measured run look like the simulated one for the wrong reason.

use cascade::model::fault::{Effect, Slowdown, Target};
use cascade::model::{BalancerKind, Discipline, Load, Model, Rule};

/// The first feature of `model` the mesh does not run, named as the scenario writes it.
pub fn unsupported(model: &Model) -> Option<String> {
    for c in &model.clients {
        let at = format!("client `{}`", c.name);
        if !matches!(c.load, Load::Open { .. }) {
            return Some(format!(
                "{at}: closed-loop `users` (the mesh replays open arrivals only)"
            ));
        }
    }
    for s in &model.services {
        let at = format!("service `{}`", s.name);
        let refused = [
            (s.discipline != Discipline::Fifo, "`discipline = \"lifo\"`"),
            (s.drop_expired, "`drop_expired`"),
            (
                s.balancer != BalancerKind::RoundRobin,
                "a `balancer` other than round_robin",
            ),
            (s.partitioned, "an operation's `workers` partition"),
            (s.admission.is_some(), "`admission` (criticality shedding)"),
            (s.codel.is_some(), "`codel`"),
            (s.adaptive_lifo.is_some(), "`adaptive_lifo`"),
            (s.outlier.is_some(), "`outlier` ejection"),
            (s.slow_start.is_some(), "`slow_start`"),
            (
                s.overload.is_some(),
                "`overload` (contention, refusal cost)",
            ),
            (s.dedup_window.is_some(), "`dedup_window`"),
            (s.orchestration.is_some(), "probes, restarts or autoscaling"),
        ];
        if let Some((_, what)) = refused.iter().find(|(bad, _)| *bad) {
            return Some(format!("{at}: {what}"));
        }
        for plan in s.plans() {
            if plan.after.is_some() {
                return Some(format!("{at}: `after_work`"));
            }
            if !plan.publishes.is_empty() {
                return Some(format!("{at}: a call with `wait = false`"));
            }
            let choice = (plan.branches.iter().flatten())
                .any(|b| !matches!(b.rule, Rule::Maybe(_) | Rule::Always) || b.exit.is_some());
            if choice {
                return Some(format!("{at}: a weighted `choose` among steps"));
            }
        }
    }
    for (spec, _) in model.specs_with_callers() {
        let name = spec.policy.name.as_deref().unwrap_or("(none)");
        if spec.fallback.is_some() || spec.policy.fallback().is_some() {
            return Some(format!("[policy.{name}]: `fallback`"));
        }
        if spec.idempotency_key {
            return Some(format!("[policy.{name}]: `idempotency_key`"));
        }
    }
    for (i, f) in model.faults.iter().enumerate() {
        let at = format!("[[fault]] {} (kind = \"{}\")", i + 1, f.kind());
        if f.ramp != 0 {
            return Some(format!("{at}: `ramp`"));
        }
        if !matches!(f.target, Target::Service(_) | Target::Instance(..)) {
            return Some(format!(
                "{at}: a target other than a service or one instance"
            ));
        }
        match &f.effect {
            Effect::Errors { .. }
            | Effect::Outage { .. }
            | Effect::Stall
            | Effect::Crash { .. } => {}
            Effect::Latency(Slowdown::Factor(_) | Slowdown::Add(_)) => {}
            Effect::Latency(Slowdown::Replace(_)) => {
                return Some(format!("{at}: a latency fault replacing the distribution"));
            }
            _ => {
                return Some(format!(
                    "{at}: this kind (the mesh runs errors, latency, outage, stall, crash)"
                ));
            }
        }
    }
    None
}
