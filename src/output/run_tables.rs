//! The readable summary printed after a run: one table each for clients, services and edges.

use super::text_table::Table;
use crate::metrics::RunMetrics;
use crate::metrics::names;
use crate::metrics::recovery::{EpisodeVerdict, Unjudged};
use crate::metrics::select::selects;
use crate::metrics::slots::MetricSlots;
use crate::model::fault::Target;
use crate::model::{Model, Outcome};
use crate::number::{count, percent_fixed, sig3};
use crate::time::format_duration;
use std::fmt::Write as _;

/// The non-zero error counts of an entity, largest first: `timeout 12, unavailable 3`.
fn errors(m: &RunMetrics, prefix: &str) -> String {
    let mut e: Vec<(f64, &str)> = Outcome::failures()
        .iter()
        .map(|o| {
            (
                m.get(&names::metric(prefix, names::error_metric(*o)))
                    .unwrap_or(0.0),
                o.name(),
            )
        })
        .filter(|(n, _)| *n > 0.0)
        .collect();
    e.sort_by(|a, b| b.0.total_cmp(&a.0));
    e.iter()
        .map(|(n, k)| format!("{k} {}", count(*n)))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn render_summary(model: &Model, m: &RunMetrics) -> String {
    let g = |name: String| m.get(&name).unwrap_or(0.0);
    let mut out = format!(
        "{}  seed {}  {} measured after {} warm-up\n\n",
        model.name,
        model.seed,
        format_duration(model.duration),
        format_duration(model.warmup)
    );
    if m.get("run.diverged") == Some(1.0) {
        let _ = writeln!(
            out,
            "DIVERGED: more than {} requests in flight (scenario.max_in_flight), or {} events pending, at {} s; the run stopped there and every number below covers it up to then\n",
            count(model.max_in_flight as f64),
            count(
                model
                    .max_in_flight
                    .saturating_mul(crate::model::PENDING_PER_IN_FLIGHT) as f64
            ),
            sig3(g("run.stopped_at_s".into()))
        );
    }
    let [client_rows, service_rows, edge_rows] = rows(model);
    let mut t = Table::new(&[
        "client",
        "requests",
        "success",
        "goodput/s",
        "p50 ms",
        "p99 ms",
        "p99.9 ms",
        "max ms",
        "errors",
    ]);
    for (name, p) in client_rows {
        t.row(vec![
            name,
            count(g(names::metric(&p, "requests"))),
            percent_fixed(g(names::metric(&p, "success_ratio"))),
            sig3(g(names::metric(&p, "goodput_rps"))),
            sig3(g(names::metric(&p, "latency_p50_ms"))),
            sig3(g(names::metric(&p, "latency_p99_ms"))),
            sig3(g(names::metric(&p, "latency_p999_ms"))),
            sig3(g(names::metric(&p, "latency_max_ms"))),
            errors(m, &p),
        ]);
    }
    out.push_str(&t.render());
    out.push('\n');
    let mut t = Table::new(&[
        "service",
        "arrivals",
        "served",
        "rejected",
        "dropped",
        "util",
        "wait ms",
        "wait p99",
        "sojourn ms",
        "queue",
        "wasted s",
    ]);
    for (name, p) in service_rows {
        t.row(vec![
            name,
            count(g(names::metric(&p, "arrivals"))),
            count(g(names::metric(&p, "served"))),
            count(g(names::metric(&p, "rejected"))),
            count(g(names::metric(&p, "dropped_expired"))),
            // Absent only at an unbounded service, which has none (`ServiceAcc::unbounded`).
            m.get(&names::metric(&p, "utilization"))
                .map_or_else(|| "unbounded".into(), percent_fixed),
            sig3(g(names::metric(&p, "wait_mean_ms"))),
            sig3(g(names::metric(&p, "wait_p99_ms"))),
            sig3(g(names::metric(&p, "sojourn_mean_ms"))),
            sig3(g(names::metric(&p, "queue_mean"))),
            sig3(g(names::metric(&p, "wasted_work_s"))),
        ]);
    }
    out.push_str(&t.render());
    out.push('\n');
    let mut t = Table::new(&[
        "edge",
        "calls",
        "attempts",
        "amplification",
        "success",
        "errors",
    ]);
    for (name, p) in edge_rows {
        t.row(vec![
            name,
            count(g(names::metric(&p, "calls"))),
            count(g(names::metric(&p, "attempts"))),
            format!("{:.3}", g(names::metric(&p, "amplification"))),
            count(g(names::metric(&p, "success"))),
            errors(m, &p),
        ]);
    }
    out.push_str(&t.render());
    for line in super::describe::rate_limits(model) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The rows of the three tables, in the order metrics are emitted (`MetricSlots::order`): each
/// client, service and pair's edge by its name (an edge as `from -> to`) with its metric prefix,
/// followed by its parts (mix entries, operations with their labels, operations' edges) by
/// their operation's name, indented.
fn rows(model: &Model) -> [Vec<(String, String)>; 3] {
    let slots = MetricSlots::of(model);
    let order = slots.order(model);
    let name = |prefix: &str, kind: &str| {
        let rest = &prefix[kind.len() + 1..];
        match rest.rsplit_once(".op.") {
            Some((_, op)) => format!("  {op}"),
            None if kind == "edge" => rest.replacen('.', " -> ", 1),
            None => rest.to_string(),
        }
    };
    let label = |slot: usize| {
        let s = slots.services[slot].1?;
        let k = slot as u32 - slots.service_base[s];
        model.services[s].operations[k as usize - 1].label.clone()
    };
    let table =
        |entries: &[(String, usize)], kind: &str, with_label: bool| -> Vec<(String, String)> {
            (entries.iter())
                .map(|(prefix, slot)| {
                    let mut n = name(prefix, kind);
                    if let Some(l) = with_label.then(|| label(*slot)).flatten() {
                        n += &format!(" ({l})");
                    }
                    (n, prefix.clone())
                })
                .collect()
        };
    [
        table(&order.clients, "client", false),
        table(&order.services, "service", true),
        table(&order.edges, "edge", false),
    ]
}

/// One line per episode of faults (faults that overlap in time are judged as one): when it
/// acted, goodput before, during and after, and whether the run recovered; an episode the
/// system does not come back from once it is gone is called metastable. Notes under the table
/// say why an episode was not judged or not recovered, and which clients or operations are
/// still down.
pub fn render_faults(model: &Model, verdicts: &[EpisodeVerdict]) -> String {
    if model.faults.is_empty() {
        return String::new();
    }
    let mut t = Table::new(&[
        "fault",
        "window",
        "goodput/s before",
        "during",
        "after",
        "recovery",
    ]);
    let mut notes = String::new();
    for (k, v) in verdicts.iter().enumerate() {
        let e = &v.episode;
        let ids: Vec<String> = e.faults.iter().map(|i| i.to_string()).collect();
        let ids = ids.join("+");
        let what: Vec<String> = e
            .faults
            .iter()
            .map(|&i| {
                let f = &model.faults[i];
                format!("{} on {}", f.kind(), target_name(model, f.target))
            })
            .collect();
        let name = format!("{ids} {}", what.join(", "));
        let window = format!("{}–{}", format_duration(e.start), format_duration(e.end));
        let label = if e.faults.len() == 1 {
            "fault"
        } else {
            "faults"
        };
        if e.faults.len() > 1 {
            let _ = writeln!(
                notes,
                "faults {ids}: active at overlapping times, judged as one episode (each fault.<i>.* reports its verdict)"
            );
        }
        let Some(all) = &v.all else {
            let why = match &v.baseline {
                Err(Unjudged::AfterUnrecovered { previous }) => format!(
                    "fault {previous} before it did not recover, so no steady span is known"
                ),
                _ => "no whole measured bucket before it that no fault touches".to_string(),
            };
            let _ = writeln!(
                notes,
                "{label} {ids}: not judged: {why}; fault.{}.judged = 0 and no recovery metric: name a steady span with the fault's `baseline`",
                e.faults[0]
            );
            t.row(vec![
                name,
                window,
                "-".into(),
                "-".into(),
                "-".into(),
                "not judged".into(),
            ]);
            continue;
        };
        let recovery = if all.recovered {
            format!("{} s", sig3(all.recovery_s))
        } else if all.metastable {
            let _ = writeln!(
                notes,
                "{label} {ids}: metastable failure: {} s after the end, goodput had not come back: {}/s on average against {}/s before (at least {}/s counts as back)",
                sig3(all.recovery_s),
                sig3(all.after),
                sig3(all.before),
                sig3(all.floor)
            );
            "NOT RECOVERED (metastable)".into()
        } else if all.cut_short {
            match verdicts.get(k + 1) {
                Some(next) if next.episode.start < e.end.saturating_add(model.recovery_hold) => {
                    format!(
                        "not recovered before fault {} began",
                        next.episode.faults[0]
                    )
                }
                _ if e.end >= model.end() => "not recovered (fault lasts to the end)".into(),
                _ => "not recovered (the run ended within a hold)".into(),
            }
        } else {
            let _ = writeln!(
                notes,
                "{label} {ids}: not recovered: goodput averaged {}/s after against {}/s before, but was never at or above {}/s for a whole recovery_hold",
                sig3(all.after),
                sig3(all.before),
                sig3(all.floor)
            );
            "not recovered (unsteady)".into()
        };
        t.row(vec![
            name,
            window,
            sig3(all.before),
            sig3(all.during),
            sig3(all.after),
            recovery,
        ]);
        // Once watched for a hold, each client or operation still down is named: the
        // aggregate can hide a small one behind a large one.
        let down: Vec<String> = v
            .parts
            .iter()
            .filter(|p| !p.judged.recovered && !p.judged.cut_short)
            .map(|p| {
                format!(
                    "{} ({}/s after against {}/s before)",
                    p.label,
                    sig3(p.judged.after),
                    sig3(p.judged.before)
                )
            })
            .collect();
        if !down.is_empty() && (all.recovered || v.parts.len() > 1) {
            let _ = writeln!(notes, "{label} {ids}: not recovered at {}", down.join(", "));
        }
    }
    format!("\n{}{notes}", t.render())
}

fn target_name(model: &Model, target: Target) -> String {
    match target {
        Target::Service(s) => model.services[s].name.clone(),
        Target::Instance(s, i) => format!("{}#{i}", model.services[s].name),
        Target::Edge(e) => model.edges[e].name.replacen('.', "->", 1),
        Target::Client(c) => model.clients[c].name.clone(),
    }
}

/// The metrics that decide between settings, the variant comparison's rows unless `run
/// --metric` picks others: each client's goodput, success ratio and p99, each edge's
/// amplification, each service's utilization and wasted work, each fault's recovery.
pub fn default_variant_metrics(model: &Model, base: &RunMetrics) -> Vec<String> {
    let mut picked: Vec<String> = Vec::new();
    for c in &model.clients {
        for m in ["goodput_rps", "success_ratio", "latency_p99_ms"] {
            picked.push(names::client_metric(&c.name, m));
        }
    }
    for e in &model.edges {
        picked.push(names::edge_metric(&e.name, "amplification"));
    }
    for s in &model.services {
        for m in ["utilization", "wasted_work_s"] {
            picked.push(names::service_metric(&s.name, m));
        }
    }
    for i in 0..model.faults.len() {
        for m in ["recovered", "recovery_s"] {
            let name = names::fault_metric(i, m);
            if base.get(&name).is_some() {
                picked.push(name);
            }
        }
    }
    picked
}

/// The metrics of the base and the variants that any of `patterns` selects
/// (`metrics::select::selects`), in the base's summary order, then those only a variant has.
pub fn selected_variant_metrics(
    patterns: &[String],
    base: &RunMetrics,
    variants: &[(&str, &RunMetrics)],
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let every = std::iter::once(base).chain(variants.iter().map(|(_, m)| *m));
    for (name, _) in every.flat_map(|m| m.summary.iter()) {
        if patterns.iter().any(|p| selects(p, name)) && !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// Base and variants side by side on the metrics `names`: every variant with its difference
/// from the base, absolute and relative (`-` where a side lacks the metric).
pub fn render_variants(
    names: &[String],
    base: &RunMetrics,
    variants: &[(&str, &RunMetrics)],
) -> String {
    let mut header = vec!["metric".to_string(), "base".to_string()];
    for (v, _) in variants {
        header.extend([v.to_string(), "Δ".into(), "Δ%".into()]);
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&header);
    for name in names {
        let b = base.get(name);
        let mut row = vec![name.clone(), b.map_or("-".into(), sig3)];
        for (_, m) in variants {
            let v = m.get(name);
            let (Some(b), Some(v)) = (b, v) else {
                row.extend([v.map_or("-".into(), sig3), "-".into(), "-".into()]);
                continue;
            };
            let rel = if b != 0.0 {
                format!("{:+.1}%", (v - b) / b.abs() * 100.0)
            } else {
                "-".into()
            };
            let d = v - b;
            let delta = if d > 0.0 {
                format!("+{}", sig3(d))
            } else {
                sig3(d)
            };
            row.extend([sig3(v), delta, rel]);
        }
        t.row(row);
    }
    format!("\nvariants (same seed as the base)\n{}", t.render())
}
