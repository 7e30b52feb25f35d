//! Compiles `[[fault]]` entries: targets resolved, keys checked against the fault's kind.

use super::dist::compile_dist;
use super::document::{Located, Source};
use super::keys::stray_key;
use super::schema::{FaultKind, OutageMode, RawFault};
use crate::error::did_you_mean;
use crate::model::fault::{Cut, Effect, Fault, Slowdown, Target};
use crate::model::{Edge, Outcome, Service};

/// A `branch` fault's effect: the named step (with a `p`) of the target service's plan, or of
/// its operation's, and the probability it takes.
fn branch(
    src: &Source,
    at: &dyn Fn(&str) -> String,
    f: &RawFault,
    target: Target,
    operation: u16,
    scope: &Scope,
) -> Located<Effect> {
    let Target::Service(s) = target else {
        return Err(src.error_at(
            &at("target"),
            "a branch fault changes a step of a service's calls, for every instance: target a service",
        ));
    };
    let svc = &scope.services[s];
    if operation == 0 && !svc.operations.is_empty() {
        return Err(src.error_at(
            &at("operation"),
            format!(
                "`{}` has operations: name the one whose step changes",
                svc.name
            ),
        ));
    }
    let plan = svc.plan_of(operation);
    // Named steps only: a fault keyed by an index would silently follow another step when
    // steps are inserted.
    let named: Vec<(usize, &str)> = plan
        .branches
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            b.as_ref()
                .filter(|b| b.p().is_some())
                .map(|b| (i, b.label.as_str()))
        })
        .filter(|(_, label)| !label.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let Some(name) = f.step.as_deref() else {
        return Err(src.error_at(
            &at("step"),
            "a branch fault needs the `step` it changes: a named step with a `p`",
        ));
    };
    let Some(&(step, _)) = named.iter().find(|(_, label)| *label == name) else {
        let hint = did_you_mean(name, named.iter().map(|(_, l)| *l));
        let list = if named.is_empty() {
            "none".to_string()
        } else {
            named.iter().map(|(_, l)| *l).collect::<Vec<_>>().join(", ")
        };
        return Err(src.error_at(
            &at("step"),
            format!("no named step with a `p` is called `{name}`{hint}; named steps with a `p` there: {list}"),
        ));
    };
    let p = f.p.ok_or_else(|| {
        src.error_at(
            &at("p"),
            "a branch fault needs `p`: the step's probability while it acts",
        )
    })?;
    if !(0.0..=1.0).contains(&p) {
        return Err(src.error_at(
            &at("p"),
            format!("is a probability: a number from 0 to 1, got {p}"),
        ));
    }
    Ok(Effect::Branch {
        step,
        p,
        warm: super::fault_warm::compile_warm(src, at, f)?,
    })
}

/// The operation a fault is limited to (`operation = "report"`), from 1; 0 for none given.
/// Only latency, errors and outages act per request; the rest happen to whole instances.
fn fault_operation(
    src: &Source,
    path: &str,
    f: &RawFault,
    target: Target,
    scope: &Scope,
) -> Located<u16> {
    let Some(name) = f.operation.as_deref() else {
        return Ok(0);
    };
    if !matches!(
        f.kind,
        FaultKind::Latency | FaultKind::Errors | FaultKind::Outage | FaultKind::Branch
    ) {
        return Err(src.error_at(
            path,
            "only latency, errors, outages and branch faults can hit one operation; this kind happens to whole instances",
        ));
    }
    let s = match target {
        Target::Service(s) | Target::Instance(s, _) => s,
        _ => {
            return Err(src.error_at(
                path,
                "names an operation of the target service: target a service or `service#i`",
            ));
        }
    };
    let ops = &scope.services[s].operations;
    if ops.is_empty() {
        return Err(src.error_at(
            path,
            format!("`{}` has no operations", scope.services[s].name),
        ));
    }
    let names: Vec<&str> = ops.iter().map(|o| o.name.as_str()).collect();
    super::operation::operation_number(src, path, &scope.services[s].name, &names, name)
}

pub fn compile_fault(
    src: &Source,
    i: usize,
    f: &RawFault,
    scope: &Scope,
    end: u64,
) -> Located<Fault> {
    let at = |k: &str| format!("fault.{i}.{k}");
    let target = resolve_target(src, &at("target"), &f.target, scope)?;
    let start = f.start.map_or(0, |d| d.0);
    let stop = match (f.end, f.restart) {
        (Some(_), Some(_)) => {
            return Err(src.error_at(
                &at("restart"),
                "give `end` (when the instances come back) or `restart` (how long they stay down), not both",
            ));
        }
        (_, Some(r)) => start.saturating_add(r.0),
        (Some(e), None) => e.0,
        (None, None) => end,
    };
    if stop <= start {
        return Err(src.error_at(&at("end"), "must be after `start`"));
    }
    let allowed: &[&str] = match f.kind {
        FaultKind::Latency => &["factor", "add", "dist", "ramp"],
        FaultKind::Errors => &["rate", "error", "retry_after", "latency", "ramp"],
        FaultKind::Outage => &["mode"],
        FaultKind::Stall => &[],
        FaultKind::Crash => &["mode", "restart", "cold_start", "cold_factor"],
        FaultKind::Capacity => &["workers", "share", "ramp"],
        FaultKind::Overload => &["factor", "users", "ramp"],
        FaultKind::Branch => &["step", "p", "ramp", "warm", "warm_curve", "warm_table"],
    };
    let present = [
        ("rate", f.rate.is_some()),
        ("error", f.error.is_some()),
        ("retry_after", f.retry_after.is_some()),
        ("latency", f.latency.is_some()),
        ("factor", f.factor.is_some()),
        ("add", f.add.is_some()),
        ("dist", f.dist.is_some()),
        ("mode", f.mode.is_some()),
        ("ramp", f.ramp.is_some()),
        ("restart", f.restart.is_some()),
        ("cold_start", f.cold_start.is_some()),
        ("cold_factor", f.cold_factor.is_some()),
        ("workers", f.workers.is_some()),
        ("share", f.share.is_some()),
        ("users", f.users.is_some()),
        ("step", f.step.is_some()),
        ("p", f.p.is_some()),
        ("warm", f.warm.is_some()),
        ("warm_curve", f.warm_curve.is_some()),
        ("warm_table", f.warm_table.is_some()),
    ];
    if let Some(k) = stray_key(&present, allowed) {
        let takes = if allowed.is_empty() {
            "nothing but target, start and end".to_string()
        } else {
            allowed.join(", ")
        };
        return Err(src.error_at(
            &at(k),
            format!("does not apply to this kind of fault, which takes: {takes}"),
        ));
    }
    let ramp = f.ramp.map_or(0, |d| d.0);
    if ramp > 0 && ramp.saturating_mul(2) > stop - start {
        return Err(src.error_at(
            &at("ramp"),
            "onset and recovery both take `ramp`: it can be at most half of end − start",
        ));
    }
    let client_target = matches!(target, Target::Client(_));
    if client_target != (f.kind == FaultKind::Overload) {
        return Err(src.error_at(
            &at("target"),
            if client_target {
                "a client can only be overloaded (kind = \"overload\"); other faults target a service, an instance or an edge"
            } else {
                "an overload targets a client (its rate or users grow)"
            },
        ));
    }
    let edge_target = matches!(target, Target::Edge(_));
    if edge_target
        && matches!(
            f.kind,
            FaultKind::Stall | FaultKind::Crash | FaultKind::Capacity
        )
    {
        return Err(src.error_at(
            &at("target"),
            "stalls, crashes and capacity cuts happen to instances: target a service or `service#i`",
        ));
    }
    let operation = fault_operation(src, &at("operation"), f, target, scope)?;
    let effect = match f.kind {
        FaultKind::Latency => {
            let slowdown = match (f.factor, f.add, &f.dist) {
                (Some(x), None, None) if x >= 0.0 && x.is_finite() => Slowdown::Factor(x),
                (Some(_), None, None) => {
                    return Err(src.error_at(&at("factor"), "must be zero or more"));
                }
                (None, Some(d), None) => Slowdown::Add(d.0),
                (None, None, Some(d)) => {
                    Slowdown::Replace(compile_dist(d).map_err(|m| src.error_at(&at("dist"), m))?)
                }
                _ => {
                    return Err(src.error_at(
                        &at("kind"),
                        "a latency fault takes exactly one of `factor`, `add` or `dist`",
                    ));
                }
            };
            Effect::Latency(slowdown)
        }
        FaultKind::Errors => {
            let rate = f.rate.unwrap_or(1.0);
            if !(0.0..=1.0).contains(&rate) {
                return Err(src.error_at(
                    &at("rate"),
                    "must be between 0 and 1 (the share of requests that fail)",
                ));
            }
            let error = match f.error.as_deref() {
                None => Outcome::Unavailable,
                Some(name) => match Outcome::from_name(name) {
                    Some(o) if !o.is_success() => o,
                    _ => {
                        let valid: Vec<&str> =
                            Outcome::failures().iter().map(|o| o.name()).collect();
                        let hint = did_you_mean(name, valid.iter().copied());
                        return Err(src.error_at(
                            &at("error"),
                            format!(
                                "`{name}` is not a failure kind{hint}; valid: {}",
                                valid.join(", ")
                            ),
                        ));
                    }
                },
            };
            Effect::Errors {
                rate,
                error,
                retry_after: f.retry_after.map(|d| d.0),
                latency: f.latency.map_or(0, |d| d.0),
            }
        }
        FaultKind::Outage => Effect::Outage {
            blackhole: f.mode.unwrap_or_default() == OutageMode::Blackhole,
        },
        FaultKind::Stall => Effect::Stall,
        FaultKind::Crash => {
            let cold_factor = f.cold_factor.unwrap_or(2.0);
            if !(cold_factor >= 1.0 && cold_factor.is_finite()) {
                return Err(src.error_at(&at("cold_factor"), "must be at least 1"));
            }
            Effect::Crash {
                blackhole: f.mode.unwrap_or_default() == OutageMode::Blackhole,
                cold_start: f.cold_start.map_or(0, |d| d.0),
                cold_factor,
            }
        }
        FaultKind::Capacity => Effect::Capacity(match (f.workers, f.share) {
            (Some(n), None) => Cut::Left(n),
            (None, Some(s)) if (0.0..=1.0).contains(&s) => Cut::Share(s),
            (None, Some(_)) => {
                return Err(src.error_at(
                    &at("share"),
                    "is the share of workers removed: between 0 and 1",
                ));
            }
            _ => {
                return Err(src.error_at(
                    &at("kind"),
                    "a capacity fault takes exactly one of `workers` (left per instance) or `share` (removed)",
                ));
            }
        }),
        FaultKind::Overload => overload(src, &at, f, target, scope)?,
        FaultKind::Branch => branch(src, &at, f, target, operation, scope)?,
    };
    if ramp > 0 && matches!(effect, Effect::Latency(Slowdown::Replace(_))) {
        return Err(src.error_at(
            &at("ramp"),
            "a replacing `dist` cannot ramp; use `factor` or `add`",
        ));
    }
    Ok(Fault {
        target,
        start,
        end: stop,
        ramp,
        effect,
        operation,
        baseline: f.baseline.as_ref().map(|b| (b.start.0, b.end.0)),
    })
}

fn overload(
    src: &Source,
    at: &dyn Fn(&str) -> String,
    f: &RawFault,
    target: Target,
    scope: &Scope,
) -> Located<Effect> {
    let Target::Client(c) = target else {
        unreachable!("checked: an overload targets a client")
    };
    let closed = scope.closed_clients[c];
    match (f.factor, f.users, closed) {
        (Some(x), None, false) if x >= 0.0 && x.is_finite() => Ok(Effect::Overload {
            factor: x,
            users: 0,
        }),
        (Some(_), None, false) => Err(src.error_at(&at("factor"), "must be zero or more")),
        (None, Some(n), true) if n > 0 => Ok(Effect::Overload {
            factor: 1.0,
            users: n,
        }),
        (None, Some(_), true) => Err(src.error_at(&at("users"), "must be at least 1")),
        (_, _, false) => Err(src.error_at(
            &at("factor"),
            "an open-loop client is overloaded by `factor` (its rate multiplied)",
        )),
        (_, _, true) => Err(src.error_at(
            &at("users"),
            "a closed-loop client is overloaded by `users` (more users thinking and sending)",
        )),
    }
}

/// What a fault's target may name.
pub struct Scope<'a> {
    pub services: &'a [Service],
    pub edges: &'a [Edge],
    pub clients: Vec<String>,
    /// Per client: closed loop.
    pub closed_clients: Vec<bool>,
}

/// `"auth"` (a service), `"auth#1"` (its instance 1, from 0), `"gateway->auth"` (an edge) or
/// `"web"` (a client, for an overload).
fn resolve_target(src: &Source, path: &str, text: &str, scope: &Scope) -> Located<Target> {
    let (services, edges) = (scope.services, scope.edges);
    let service = |name: &str| {
        services.iter().position(|s| s.name == name).ok_or_else(|| {
            let hint = did_you_mean(name, services.iter().map(|s| s.name.as_str()));
            src.error_at(path, format!("no service named `{name}`{hint}"))
        })
    };
    if let Some((from, to)) = text.split_once("->") {
        let name = format!("{}.{}", from.trim(), to.trim());
        return match edges.iter().position(|e| e.name == name) {
            Some(e) => Ok(Target::Edge(e)),
            None => {
                let names: Vec<String> = edges
                    .iter()
                    .map(|e| e.name.replacen('.', "->", 1))
                    .collect();
                Err(src.error_at(
                    path,
                    format!(
                        "no calls go from `{}` to `{}`; edges: {}",
                        from.trim(),
                        to.trim(),
                        names.join(", ")
                    ),
                ))
            }
        };
    }
    if let Some((name, idx)) = text.split_once('#') {
        let s = service(name)?;
        return match idx.parse::<u32>() {
            Ok(i) if i < services[s].max_instances() => Ok(Target::Instance(s, i)),
            _ => Err(src.error_at(
                path,
                format!(
                    "`{name}` has instances #0 to #{}",
                    services[s].max_instances() - 1
                ),
            )),
        };
    }
    if let Some(c) = scope.clients.iter().position(|c| c == text) {
        return Ok(Target::Client(c));
    }
    Ok(Target::Service(service(text)?))
}

/// Open-loop overloads act on the arrival process itself: their factor is folded into the
/// client's rate schedule, so arrivals stay exact (closed-loop users are added by the engine).
pub fn fold_overloads(clients: &mut [crate::model::Client], faults: &[Fault]) {
    for f in faults {
        if let (Target::Client(c), Effect::Overload { factor, .. }) = (f.target, &f.effect)
            && let crate::model::Load::Open { rate, .. } = &mut clients[c].load
        {
            *rate = rate.scaled(f.start, f.end, f.ramp, *factor);
        }
    }
}
