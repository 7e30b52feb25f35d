//! The report's tables, as `output::text_table::Table`s that the HTML and Markdown writers render:
//! the per-edge resilience matrix, the services' own protections, the fault schedule with each
//! fault's verdict, the summary per client, service and edge, and the variants side by side.

use crate::metrics::names;
use crate::model::Model;
use crate::number::{count, short};
use crate::output::describe;
use crate::output::read_run::RunData;
use crate::output::text_table::Table;
use crate::output::units;
use crate::time::format_duration as dur;

/// The per-dependency resilience matrix: one row per edge, one column per policy.
pub fn policy_matrix(model: &Model) -> Table {
    let mut t = Table::with_numeric(
        &[
            "call", "timeout", "retries", "budget", "breaker", "bulkhead", "hedge", "fallback",
            "other",
        ],
        &[],
    );
    // A pair whose calls all name operations is shown by its operations' rows.
    for c in describe::edge_calls(model)
        .into_iter()
        .filter(|c| !c.has_parts)
    {
        let p = &c.call.policy;
        let mut call = format!("{} → {}", c.from, c.to);
        if let Some(op) = &c.operation {
            call += &format!(" {op}");
        }
        let mut notes = Vec::new();
        if c.call.optional {
            notes.push("optional");
        }
        // A retried non-idempotent call is a duplicate side effect (a second charge): the
        // first thing a reviewer of a payments path asks.
        if !c.call.idempotent {
            notes.push("non-idempotent");
            if c.call.idempotency_key {
                notes.push("keyed");
            }
        }
        if !notes.is_empty() {
            call += &format!(" ({})", notes.join(", "));
        }
        t.row(vec![
            call,
            describe::timeout(p),
            describe::retries(p),
            describe::budget(p),
            describe::breaker(p),
            describe::bulkhead(p),
            describe::hedge(p),
            describe::fallback(model, p),
            describe::other(p),
        ]);
    }
    t
}

/// Each service's capacity and its own protections, and its overload physics when some
/// service has any (the column is left out otherwise).
pub fn services(model: &Model) -> Table {
    let physics = model
        .services
        .iter()
        .any(|s| !describe::overload(s).is_empty());
    let mut header = vec![
        "service",
        "instances × workers",
        "queue",
        "discipline",
        "protections",
    ];
    if physics {
        header.push("overload physics");
    }
    let mut t = Table::with_numeric(&header, &[false, true, true]);
    for s in &model.services {
        let mut protections = Vec::new();
        if s.drop_expired {
            protections.push("drop expired".to_string());
        }
        if s.admission.is_some() {
            protections.push("criticality shedding".into());
        }
        if s.codel.is_some() {
            protections.push("CoDel".into());
        }
        if let Some(n) = s.adaptive_lifo {
            protections.push(format!("adaptive LIFO at {n}"));
        }
        if s.outlier.is_some() {
            protections.push("outlier ejection".into());
        }
        if let Some(w) = s.dedup_window {
            protections.push(format!(
                "idempotency store ({} window)",
                crate::time::format_duration(w)
            ));
        }
        for op in &s.operations {
            if let Some(p) = op.partition {
                let overflow = if p.refuse { "refused" } else { "queued" };
                protections.push(format!(
                    "{} ≤ {} workers ({overflow} past it)",
                    op.name, p.workers
                ));
            }
        }
        let mut row = vec![
            s.name.clone(),
            format!("{} × {}", s.instances, s.workers_text()),
            if s.queue == u64::MAX {
                "unbounded".into()
            } else {
                short(s.queue as f64)
            },
            format!("{:?}", s.discipline).to_lowercase(),
            if protections.is_empty() {
                "none".into()
            } else {
                protections.join(", ")
            },
        ];
        if physics {
            let cell = describe::overload(s);
            row.push(if cell.is_empty() { "none".into() } else { cell });
        }
        t.row(row);
    }
    t
}

/// The fault schedule, with each fault's recovery verdict from the run's summary: on all
/// clients' goodput, then (rows beneath, design cells blank) on each operation of a client's
/// mix and on each client when there are several (`fault.<i>.client.<c>[.op.<o>].*`), so a
/// tenth of the traffic that never came back is a ✗ of its own, not a dent in the total.
pub fn faults(model: &Model, run: Option<&RunData>) -> Table {
    // The "goodput of" column only when some part is judged apart from the whole.
    let parts = run.map(fault_parts).unwrap_or_default();
    let mut header = vec!["", "kind", "target", "effect", "start", "end", "ramp"];
    if run.is_some() {
        if !parts.is_empty() {
            header.push("goodput of");
        }
        header.extend(["goodput before → during → after", "verdict"]);
    }
    let numeric: Vec<bool> = header
        .iter()
        .enumerate()
        .map(|(i, h)| (4..7).contains(&i) || h.starts_with("goodput before"))
        .collect();
    let mut t = Table::with_numeric(&header, &numeric);
    for (i, f) in model.faults.iter().enumerate() {
        let mut row = vec![
            format!("F{i}"),
            f.kind().to_string(),
            describe::fault_target(model, f),
            describe::fault_effect(f),
            dur(f.start),
            dur(f.end),
            if f.ramp > 0 {
                dur(f.ramp)
            } else {
                "–".into()
            },
        ];
        let Some(r) = run else {
            t.row(row);
            continue;
        };
        if !parts.is_empty() {
            row.push("all clients".into());
        }
        row.extend(fault_verdict(r, &names::fault(i)));
        t.row(row);
        for (part, prefix) in &parts {
            let prefix = names::fault_part(i, prefix);
            // A part with no verdict (it sent nothing in the baseline) has no row.
            if r.metric(&names::metric(&prefix, "recovered")).is_none() {
                continue;
            }
            let mut row = vec![String::new(); 7];
            row.push(part.clone());
            row.extend(fault_verdict(r, &prefix));
            t.row(row);
        }
    }
    t
}

/// The parts of the run a fault is judged on apart from the whole: each client when there
/// are several, and each operation of a client's mix (`client c`'s name, then its prefix).
fn fault_parts(r: &RunData) -> Vec<(String, String)> {
    let clients = r.entities("client");
    let mut parts = Vec::new();
    for c in &clients {
        if clients.len() > 1 {
            parts.push((c.clone(), names::client(c)));
        }
        for o in r.client_operations(c) {
            parts.push((format!("{c} {o}"), names::client_op(c, &o)));
        }
    }
    parts
}

/// Goodput before → during → after and the verdict of `fault.<i>` or one of its parts.
fn fault_verdict(r: &RunData, prefix: &str) -> [String; 2] {
    let m = |k: &str| r.metric(&names::metric(prefix, k));
    let goodput = match (
        m("goodput_before_rps"),
        m("goodput_during_rps"),
        m("goodput_after_rps"),
    ) {
        (Some(b), Some(d), Some(a)) => format!(
            "{} → {} → {}",
            units::per_second(b),
            units::per_second(d),
            units::per_second(a)
        ),
        _ => "–".into(),
    };
    let verdict = match (m("recovered"), m("recovery_s")) {
        (Some(x), Some(s)) if x >= 0.5 => format!("✓ recovered in {}", units::seconds(s)),
        (Some(_), Some(s)) => format!("✗ not recovered ({} watched)", units::seconds(s)),
        _ => "no verdict (fault from the start)".into(),
    };
    [goodput, verdict]
}

/// Each client, and each operation of its mix, with its share of the requests and the
/// deadline its users give up at; `None` when no client has a deadline (nothing to show).
pub fn client_deadlines(model: &Model) -> Option<Table> {
    let deadline = |d: Option<u64>| d.map_or("none".to_string(), dur);
    let has_any = model.clients.iter().any(|c| {
        c.deadline.is_some()
            || c.mix
                .iter()
                .any(|m| m.others.iter().any(|e| e.deadline.is_some()))
    });
    if !has_any {
        return None;
    }
    let mut t = Table::with_numeric(
        &["client", "operation", "share", "deadline"],
        &[false, false, true, true],
    );
    let operation = |call: &crate::model::CallSpec| {
        let service = &model.services[call.to];
        let op = (call.operation as usize)
            .checked_sub(1)
            .and_then(|i| service.operations.get(i));
        match op {
            Some(o) => match &o.label {
                Some(label) => format!("{} ({label})", o.name),
                None => o.name.clone(),
            },
            None => format!("→ {}", service.name),
        }
    };
    for c in &model.clients {
        let Some(mix) = &c.mix else {
            t.row(vec![
                c.name.clone(),
                operation(&c.call),
                units::ratio(1.0),
                deadline(c.deadline),
            ]);
            continue;
        };
        t.row(vec![
            c.name.clone(),
            operation(&c.call),
            units::ratio(mix.first),
            deadline(c.deadline),
        ]);
        let mut below = mix.first;
        for e in &mix.others {
            t.row(vec![
                String::new(),
                operation(&e.call),
                units::ratio(e.until - below),
                deadline(e.deadline),
            ]);
            below = e.until;
        }
    }
    Some(t)
}

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

/// One row per operation of every service that has them: what each does and how it is held.
pub fn operations(model: &Model) -> Option<Table> {
    if model.services.iter().all(|s| s.operations.is_empty()) {
        return None;
    }
    let mut t = Table::with_numeric(
        &[
            "service",
            "operation",
            "work (mean)",
            "steps",
            "criticality",
            "partition",
        ],
        &[false, false, true, true, false, false],
    );
    for s in &model.services {
        for op in &s.operations {
            let name = match &op.label {
                Some(label) => format!("{} ({label})", op.name),
                None => op.name.clone(),
            };
            t.row(vec![
                s.name.clone(),
                name,
                units::ms(op.plan.work.mean() / 1e6),
                count(op.plan.steps.iter().filter(|step| !step.is_empty()).count() as f64),
                op.criticality
                    .map_or("the caller's".into(), |c| c.name().to_string()),
                op.partition.map_or("the whole pool".into(), |p| {
                    let overflow = if p.refuse { "refused" } else { "queued" };
                    format!("{} workers, overflow {overflow}", p.workers)
                }),
            ]);
        }
    }
    Some(t)
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

/// `[[alert]]`s against faults, from the run's summary: whether each alert fired, when first,
/// for how long, how often outside every fault's window (false pages), and for each fault how
/// soon after its start it fired in the fault's window, or that it missed it. `None` without
/// alerts.
pub fn alerts(run: &RunData) -> Option<Table> {
    let model = run.model.as_ref().filter(|m| !m.alerts.is_empty())?;
    let faults = model.faults.len();
    let mut header: Vec<String> = [
        "alert",
        "fired",
        "first fired (s)",
        "firing (s)",
        "false pages",
    ]
    .iter()
    .map(|h| h.to_string())
    .collect();
    header.extend((0..faults).map(|i| format!("fault {i}: detected after")));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut numeric = vec![false, false, true, true, true];
    numeric.extend(std::iter::repeat_n(true, faults));
    let mut t = Table::with_numeric(&header, &numeric);
    let get = |name: String| run.metrics.get(&name).copied();
    for a in &model.alerts {
        let fired = get(names::alert_metric(&a.name, "fired")).unwrap_or(0.0) > 0.0;
        let mut row = vec![
            a.name.clone(),
            if fired { "yes" } else { "no" }.to_string(),
            get(names::alert_metric(&a.name, "first_fire_s")).map_or("–".into(), short),
            short(get(names::alert_metric(&a.name, "firing_s")).unwrap_or(0.0)),
            short(get(names::alert_metric(&a.name, "false_pages")).unwrap_or(0.0)),
        ];
        row.extend((0..faults).map(|i| {
            get(names::fault_alert_detect(i, &a.name))
                .map_or("missed".to_string(), |s| format!("{} s", short(s)))
        }));
        t.row(row);
    }
    Some(t)
}
