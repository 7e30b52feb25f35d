//! Random faults and windows: every fault kind of docs/scenario.md §6 on each target it takes,
//! steps and ramps, crashes with and without restart and cold start; windows by span and by a
//! fault's phase.

use super::policy::FAILURES;
use crate::support::pick::Pick;

/// What faults may aim at.
pub struct Targets<'a> {
    /// Services with their instance counts.
    pub services: &'a [(String, u64)],
    /// Per service, whether its workers are unbounded (no capacity fault then).
    pub unbounded: &'a [bool],
    /// `caller->callee` of every call.
    pub edges: &'a [String],
    /// Clients, and whether each is a closed loop.
    pub clients: &'a [(String, bool)],
}

/// A fault's window, ns from t = 0, for the windows that follow its phases.
#[derive(Clone, Copy)]
pub struct Span {
    pub start: u64,
    pub end: Option<u64>,
}

fn service_or_instance(p: &mut Pick, t: &Targets) -> String {
    let (name, instances) = p.one(t.services).clone();
    if p.chance(0.5) {
        format!("{name}#{}", p.int(0, instances - 1))
    } else {
        name
    }
}

fn any_target(p: &mut Pick, t: &Targets) -> String {
    if !t.edges.is_empty() && p.chance(0.3) {
        p.one(t.edges).clone()
    } else {
        service_or_instance(p, t)
    }
}

/// One `[[fault]]` in a run of `run_us` microseconds, with its span.
pub fn fault(p: &mut Pick, t: &Targets, run_us: u64) -> (String, Span) {
    let start = p.int(0, run_us * 3 / 4);
    let end = if p.chance(0.8) {
        Some(p.int(start + 1, run_us))
    } else {
        None
    };
    let len = end.unwrap_or(run_us) - start;
    let ramp = |p: &mut Pick| -> String {
        if p.chance(0.4) {
            format!("ramp = \"{}us\"\n", p.int(0, len / 2))
        } else {
            String::new()
        }
    };
    let mut keys = String::new();
    let kind = *p.one(&[
        "latency", "errors", "outage", "stall", "crash", "crash", "capacity", "overload",
    ]);
    let target = match kind {
        "latency" | "errors" | "outage" => any_target(p, t),
        "overload" => p.one(t.clients).0.clone(),
        _ => service_or_instance(p, t),
    };
    // A capacity fault cannot cut unbounded workers (refused): that one stalls instead.
    let service = target.split('#').next().unwrap_or_default();
    let kind = match t.services.iter().position(|(s, _)| s == service) {
        Some(i) if kind == "capacity" && t.unbounded[i] => "stall",
        _ => kind,
    };
    let mut span_end = end;
    match kind {
        "latency" => match p.int(0, 2) {
            0 => keys += &format!("factor = {}\n{}", p.real(0.0, 8.0), ramp(p)),
            1 => keys += &format!("add = {}\n{}", p.dur(0, 30_000), ramp(p)),
            _ => keys += &format!("dist = {}\n", p.dist(5_000)),
        },
        "errors" => {
            keys += &format!("rate = {}\n", p.real(0.0, 1.0));
            if p.chance(0.5) {
                keys += &format!("error = \"{}\"\n", p.one(FAILURES));
            }
            if p.chance(0.3) {
                keys += &format!("retry_after = {}\n", p.dur(0, 50_000));
            }
            if p.chance(0.3) {
                keys += &format!("latency = {}\n", p.dur(0, 20_000));
            }
            keys += &ramp(p);
        }
        "outage" => keys += &format!("mode = \"{}\"\n", p.one(&["refuse", "blackhole"])),
        "stall" => {}
        "crash" => {
            keys += &format!("mode = \"{}\"\n", p.one(&["refuse", "blackhole"]));
            if p.chance(0.5) {
                keys += &format!("cold_start = {}\n", p.dur(0, 500_000));
                keys += &format!("cold_factor = {}\n", p.real(1.0, 5.0));
            }
        }
        "capacity" => {
            if p.chance(0.5) {
                keys += &format!("workers = {}\n", p.int(0, 4));
            } else {
                keys += &format!("share = {}\n", p.real(0.0, 1.0));
            }
            keys += &ramp(p);
        }
        _ => {
            let closed = t.clients.iter().any(|(c, closed)| *c == target && *closed);
            if closed {
                keys += &format!("users = {}\n", p.int(1, 10));
            } else {
                keys += &format!("factor = {}\n", p.real(0.0, 4.0));
            }
            keys += &ramp(p);
        }
    }
    let mut when = format!("start = \"{start}us\"\n");
    match end {
        // A crash may say how long it lasts instead of when it ends.
        Some(e) if kind == "crash" && p.chance(0.5) => {
            when += &format!("restart = \"{}us\"\n", e - start)
        }
        Some(e) => when += &format!("end = \"{e}us\"\n"),
        None => span_end = None,
    }
    let text = format!("[[fault]]\nkind = \"{kind}\"\ntarget = \"{target}\"\n{when}{keys}");
    (
        text,
        Span {
            start: start * 1000,
            end: span_end.map(|e| e * 1000),
        },
    )
}

/// One `[[window]]` named `name`, by span or by the phase of one of `faults`; `None` when the
/// phase drawn would be empty.
pub fn window(p: &mut Pick, name: &str, faults: &[Span], run_us: u64) -> Option<String> {
    if !faults.is_empty() && p.chance(0.5) {
        let i = p.int(0, faults.len() as u64 - 1) as usize;
        let f = faults[i];
        let phase = *p.one(&["before", "during", "after"]);
        let empty = match phase {
            "before" => f.start == 0,
            "after" => f.end.is_none_or(|e| e >= run_us * 1000),
            _ => false,
        };
        if empty {
            return None;
        }
        return Some(format!(
            "[[window]]\nname = \"{name}\"\nfault = {i}\nphase = \"{phase}\"\n"
        ));
    }
    let start = p.int(0, run_us - 1);
    let mut text = format!("[[window]]\nname = \"{name}\"\n");
    if p.chance(0.7) {
        text += &format!("start = \"{start}us\"\n");
    }
    if p.chance(0.7) {
        text += &format!("end = \"{}us\"\n", p.int(start + 1, run_us + 1000));
    }
    Some(text)
}

/// How a `branch` fault warms back beyond its linear `warm` (drawn by the caller from the
/// operations' pick, as it always was): with a `warm`, sometimes `warm_curve`, spelled out
/// `linear` or `exponential` (whose time constant must be above 0); without one, sometimes a
/// `warm_table` of one to four points after ["0s", 1], at increasing times, the last at 0.
pub fn warm_keys(w: &mut Pick, warm_us: Option<u64>, run_us: u64) -> String {
    match warm_us {
        Some(us) if w.chance(0.4) => {
            let curve = if us > 0 && w.chance(0.75) {
                "exponential"
            } else {
                "linear"
            };
            format!("warm_curve = \"{curve}\"\n")
        }
        None if w.chance(0.3) => {
            let n = w.int(1, 4);
            let mut at = 0;
            let mut points = vec!["[\"0s\", 1]".to_string()];
            for k in 1..=n {
                at += w.int(1, run_us);
                let weight = if k == n { 0.0 } else { w.real(0.0, 1.0) };
                points.push(format!("[\"{at}us\", {weight}]"));
            }
            format!("warm_table = [ {} ]\n", points.join(", "))
        }
        _ => String::new(),
    }
}
