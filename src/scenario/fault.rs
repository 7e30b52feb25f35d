//! Compiles `[[fault]]` entries: targets resolved, keys checked against the fault's kind.

use super::dist::compile_dist;
use super::document::{Located, Source};
use super::schema::{FaultKind, OutageMode, RawFault};
use crate::error::did_you_mean;
use crate::fault::{Effect, Fault, Slowdown, Target};
use crate::model::{Edge, Outcome, Service};

pub fn compile_fault(
    src: &Source,
    i: usize,
    f: &RawFault,
    services: &[Service],
    edges: &[Edge],
    end: u64,
) -> Located<Fault> {
    let at = |k: &str| format!("fault.{i}.{k}");
    let target = resolve_target(src, &at("target"), &f.target, services, edges)?;
    let start = f.start.map_or(0, |d| d.0);
    let stop = f.end.map_or(end, |d| d.0);
    if stop <= start {
        return Err(src.error_at(&at("end"), "must be after `start`"));
    }
    let allowed: &[&str] = match f.kind {
        FaultKind::Latency => &["factor", "add", "dist"],
        FaultKind::Errors => &["rate", "error", "retry_after", "latency"],
        FaultKind::Outage => &["mode"],
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
    ];
    if let Some((k, _)) = present.iter().find(|(k, on)| *on && !allowed.contains(k)) {
        return Err(src.error_at(
            &at(k),
            format!(
                "does not apply to this kind of fault, which takes: {}",
                allowed.join(", ")
            ),
        ));
    }
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
    };
    Ok(Fault {
        target,
        start,
        end: stop,
        effect,
    })
}

/// `"auth"` (a service), `"auth#1"` (its instance 1, from 0) or `"gateway->auth"` (an edge).
fn resolve_target(
    src: &Source,
    path: &str,
    text: &str,
    services: &[Service],
    edges: &[Edge],
) -> Located<Target> {
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
            Ok(i) if i < services[s].instances => Ok(Target::Instance(s, i)),
            _ => Err(src.error_at(
                path,
                format!(
                    "`{name}` has instances #0 to #{}",
                    services[s].instances - 1
                ),
            )),
        };
    }
    Ok(Target::Service(service(text)?))
}
