//! The report's tables of what a run measured, as `output::text_table::Table`s: the summary
//! per client (and operation), service and edge, the alerts against the faults, and the
//! variants side by side. The tables of what a scenario says are `tables.rs`'s.

use crate::metrics::names;
use crate::number::{count, short};
use crate::output::alert_table::alert_table;
use crate::output::read_run::RunData;
use crate::output::text_table::Table;
use crate::output::units;

fn cell(r: &RunData, name: &str, f: fn(f64) -> String) -> String {
    r.metric(name).map_or("–".into(), f)
}

/// Each client, then each operation of its mix (indented), measured apart: a 10% operation
/// that fails is a row of its own, not a dent in its client's total.
pub fn clients(r: &RunData) -> Table {
    let mut t = Table::with_numeric(
        &[
            "client",
            "requests",
            "success",
            "goodput",
            "p50 ok",
            "p99 ok",
            "p50 all",
            "p99 all",
            "p99.9 all",
            "max all",
            "degraded",
            "errors",
        ],
        &[
            false, true, true, true, true, true, true, true, true, true, true, false,
        ],
    );
    for c in r.entities("client") {
        let rows = std::iter::once((c.clone(), names::client(&c))).chain(
            r.client_operations(&c)
                .into_iter()
                .map(|o| (format!("  {o}"), names::client_op(&c, &o))),
        );
        for (name, prefix) in rows {
            let m = |k: &str| names::metric(&prefix, k);
            t.row(vec![
                name,
                cell(r, &m("requests"), count),
                cell(r, &m("success_ratio"), units::ratio),
                cell(r, &m("goodput_rps"), units::per_second),
                cell(r, &m("success_latency_p50_ms"), units::ms),
                cell(r, &m("success_latency_p99_ms"), units::ms),
                cell(r, &m("latency_p50_ms"), units::ms),
                cell(r, &m("latency_p99_ms"), units::ms),
                cell(r, &m("latency_p999_ms"), units::ms),
                cell(r, &m("latency_max_ms"), units::ms),
                cell(r, &m("degraded"), count),
                errors_by_kind(r, &prefix),
            ]);
        }
    }
    t
}

/// `unavailable 121, timeout 3`: the failure kinds that occurred, most first; `none`.
pub fn errors_by_kind(r: &RunData, prefix: &str) -> String {
    let errors = format!("{prefix}.errors.");
    let mut kinds: Vec<(&str, f64)> = (r.metrics.iter())
        .filter_map(|(k, v)| Some((k.strip_prefix(&errors)?, *v)))
        .filter(|(kind, v)| !kind.contains('.') && *v > 0.0)
        .collect();
    kinds.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    if kinds.is_empty() {
        return "none".into();
    }
    let kinds: Vec<String> = kinds
        .iter()
        .map(|(kind, v)| format!("{kind} {}", count(*v)))
        .collect();
    kinds.join(", ")
}

pub fn service_summary(r: &RunData) -> Table {
    let mut t = Table::with_numeric(
        &[
            "service",
            "arrivals",
            "rejected",
            "utilization",
            "wait p99",
            "mean queue",
            "wasted work",
        ],
        &[false, true, true, true, true, true, true],
    );
    for s in r.entities("service") {
        // The service, then each of its operations (indented), measured apart.
        let operations: Vec<String> = (r.model.iter())
            .flat_map(|m| m.services.iter().filter(|svc| svc.name == s))
            .flat_map(|svc| svc.operations.iter().map(|o| o.name.clone()))
            .collect();
        let rows = std::iter::once((s.clone(), names::service(&s))).chain(
            operations
                .iter()
                .map(|o| (format!("  {o}"), names::service_op(&s, o))),
        );
        for (name, prefix) in rows {
            let m = |k: &str| names::metric(&prefix, k);
            t.row(vec![
                name,
                cell(r, &m("arrivals"), count),
                cell(r, &m("rejected"), count),
                // Absent only at an unbounded service, which has none (`ServiceAcc::unbounded`).
                r.metric(&m("utilization"))
                    .map_or_else(|| "unbounded".into(), units::ratio),
                cell(r, &m("wait_p99_ms"), units::ms),
                cell(r, &m("queue_mean"), short),
                cell(r, &m("wasted_work_s"), units::seconds),
            ]);
        }
    }
    t
}

pub fn edge_summary(r: &RunData) -> Table {
    let edges = r.entities("edge");
    // Duplicate side effects (a non-idempotent operation run again by a retry: a second
    // charge) get a column when some call has any, or when the scenario has a non-idempotent
    // call (its 0 is the answer a payments reviewer asks for first).
    let non_idempotent =
        (r.model.iter()).any(|m| m.specs_with_callers().iter().any(|(c, _)| !c.idempotent));
    let duplicates = non_idempotent
        || (edges.iter()).any(|e| {
            r.metric(&names::edge_metric(e, "duplicates"))
                .unwrap_or(0.0)
                > 0.0
        });
    let mut header = vec![
        "call",
        "calls",
        "attempts",
        "amplification",
        "breaker opens",
        "breaker open",
        "budget exhausted",
    ];
    if duplicates {
        header.push("duplicates");
    }
    // Every column but the call's name is a number.
    let numeric: Vec<bool> = (0..header.len()).map(|i| i > 0).collect();
    let mut t = Table::with_numeric(&header, &numeric);
    for e in edges {
        let m = |k: &str| names::edge_metric(&e, k);
        let mut row = vec![
            e.replacen('.', " → ", 1),
            cell(r, &m("calls"), count),
            cell(r, &m("attempts"), count),
            cell(r, &m("amplification"), units::times),
            cell(r, &m("breaker_opens"), count),
            cell(r, &m("breaker_open_s"), units::seconds),
            cell(r, &m("budget_exhausted"), count),
        ];
        if duplicates {
            row.push(cell(r, &m("duplicates"), count));
        }
        t.row(row);
    }
    t
}

/// The metrics that tell variants apart, one row each, one column per run.
pub fn variants(runs: &[RunData]) -> Table {
    let mut header = vec!["metric"];
    header.extend(runs.iter().map(|r| r.label.as_str()));
    let numeric: Vec<bool> = (0..header.len()).map(|c| c > 0).collect();
    let mut t = Table::with_numeric(&header, &numeric);
    let Some(base) = runs.first() else {
        return t;
    };
    type Format = fn(f64) -> String;
    let mut metrics: Vec<(String, Format)> = Vec::new();
    for c in base.entities("client") {
        metrics.push((names::client_metric(&c, "success_ratio"), units::ratio));
        metrics.push((names::client_metric(&c, "goodput_rps"), units::per_second));
        metrics.push((
            names::client_metric(&c, "success_latency_p99_ms"),
            units::ms,
        ));
        metrics.push((names::client_metric(&c, "latency_p99_ms"), units::ms));
        for o in base.client_operations(&c) {
            let op = names::client_op(&c, &o);
            metrics.push((names::metric(&op, "success_ratio"), units::ratio));
            metrics.push((names::metric(&op, "goodput_rps"), units::per_second));
            metrics.push((names::metric(&op, "success_latency_p99_ms"), units::ms));
            metrics.push((names::metric(&op, "latency_p99_ms"), units::ms));
        }
    }
    for e in base.entities("edge") {
        metrics.push((names::edge_metric(&e, "amplification"), units::times));
    }
    for s in base.entities("service") {
        metrics.push((names::service_metric(&s, "wasted_work_s"), units::seconds));
    }
    let faults = base.model.as_ref().map_or(0, |m| m.faults.len());
    for i in 0..faults {
        metrics.push((names::fault_metric(i, "recovered"), |v| {
            if v >= 0.5 { "✓ yes" } else { "✗ no" }.to_string()
        }));
        metrics.push((names::fault_metric(i, "recovery_s"), units::seconds));
    }
    for (name, f) in metrics {
        if runs.iter().all(|r| r.metric(&name).is_none()) {
            continue;
        }
        let mut row = vec![name.clone()];
        row.extend(runs.iter().map(|r| cell(r, &name, f)));
        t.row(row);
    }
    t
}

/// What each variant changes: its `set`, one `path = value` per override as the scenario
/// loader reads it (a table set at once is the keys it sets).
pub fn variant_sets(variants: &[crate::scenario::Variant]) -> Table {
    let mut t = Table::with_numeric(&["variant", "changes"], &[]);
    for v in variants {
        let changes: Vec<String> = (v.set.iter())
            .map(|o| format!("{} = {}", o.path, o.value.trim()))
            .collect();
        t.row(vec![v.name.clone(), changes.join("; ")]);
    }
    t
}

/// `[[alert]]`s against faults, from the run's summary (`output::alert_table`, the table
/// `cascade run` prints too). `None` without alerts.
pub fn alerts(run: &RunData) -> Option<Table> {
    alert_table(run.model.as_ref()?, |name| run.metric(name))
}
