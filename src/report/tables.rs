//! The report's tables, as `output::text_table::Table`s that the HTML and Markdown writers render:
//! the per-edge resilience matrix, the services' own protections, the fault schedule with each
//! fault's verdict, the clients' deadlines and the operations. What a run measured is in
//! `summary.rs`.

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
        if let Some(r) = &s.rate_limit {
            let whose = match r.scope {
                crate::model::RateLimitScope::Instance => "per instance",
                crate::model::RateLimitScope::Fleet => "fleet-wide",
            };
            let keyed = match r.key {
                crate::model::RateLimitKey::None => "",
                crate::model::RateLimitKey::Client => " per client",
                crate::model::RateLimitKey::ClientOperation => " per client operation",
            };
            protections.push(format!(
                "rate limit {}/s {whose}{keyed} ({}/s in all{})",
                short(r.limiter.per_second()),
                short(r.fleet_per_second(s.instances)),
                if keyed.is_empty() { "" } else { " for each" },
            ));
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
