//! What one service and operation gives the scenario: a leaf's `empirical` work, or
//! calibration `[[expect]]` bands for a service with calls.

use super::*;

/// A leaf's work, to be written under its service.
pub(super) struct Leaf {
    pub(super) service: String,
    pub(super) operation: Option<String>,
    pub(super) work: String,
    pub(super) from: String,
}

/// What one key gives: work for a leaf, calibration expectations otherwise, and its rate.
pub(super) fn emit(
    key: &Key,
    measured: Option<Measured>,
    quantiles: Vec<QuantileReading>,
    opts: &Options,
    out: &mut Imported,
    leaves: &mut Vec<Leaf>,
) -> Result<(), Error> {
    let service = policy_name(&key.service);
    let operation = key.operation.as_deref().map(policy_name);
    let what = match &operation {
        Some(op) => format!("service `{service}` operation `{op}`"),
        None => format!("service `{service}`"),
    };
    let from_any = measured
        .as_ref()
        .map(|m| m.at.clone())
        .or_else(|| quantiles.first().map(|q| q.place.clone()))
        .unwrap_or_default();
    let skip = |out: &mut Imported, key: String, reason: String| {
        out.skipped.push(Skipped {
            at: from_any.clone(),
            key,
            reason,
        })
    };
    // The scenario's shape of this service, when one was given.
    let shape = match &opts.topology {
        None => None,
        Some(t) => match t.services.iter().find(|s| s.name == service) {
            Some(s) => Some((t, s)),
            None => {
                skip(
                    out,
                    what.clone(),
                    format!("{} has no service `{service}`", t.file),
                );
                return Ok(());
            }
        },
    };
    let calls = match (shape, &operation) {
        (Some((t, s)), Some(op)) => match s.operations.iter().find(|o| o.0 == *op) {
            Some(o) => Some(o.1),
            None => {
                skip(
                    out,
                    what.clone(),
                    format!("service `{service}` of {} has no operation `{op}`", t.file),
                );
                return Ok(());
            }
        },
        (Some((_, s)), None) => Some(s.calls || s.operations.iter().any(|o| o.1)),
        (None, _) => None,
    };
    let leaf = opts.leaf.contains(&service) || calls == Some(false);
    if let Some((rate, from)) = measured.as_ref().and_then(|m| m.rate.clone()) {
        match &operation {
            None => out.elsewhere.push(Elsewhere {
                set: format!("client.<CLIENT>.rate={}", sig(rate)),
                from: format!("{what}: {from}"),
            }),
            Some(op) => out.notes.push(format!(
                "{what}: {} requests/s, its weight in a client's `mix` ({{ operation = \"{op}\", weight = {} }}); {from}",
                sig(rate),
                sig(rate)
            )),
        }
    }
    if leaf {
        let Some(m) = measured else {
            skip(out, what, "quantiles alone give no 0th or 100th percentile: a leaf's work needs the histogram".into());
            return Ok(());
        };
        if operation.is_none() && shape.is_some_and(|(_, s)| !s.operations.is_empty()) {
            skip(out, what, "the service has operations in the scenario, each with its own work: import with an operation label".into());
            return Ok(());
        }
        match m.hist.percentiles(opts.tail_max_s) {
            Ok(rows) => {
                let since = if m.since_start {
                    ", counted since the process started"
                } else {
                    ""
                };
                leaves.push(Leaf {
                    service,
                    operation,
                    work: empirical(&rows),
                    from: format!(
                        "{}: {} requests{since}; the time to answer, its queueing in production included",
                        m.from,
                        sig(m.hist.count())
                    ),
                });
            }
            Err(reason) => skip(out, format!("{what} work"), reason),
        }
        return Ok(());
    }
    // A service with calls (or of unknown shape): calibration targets.
    let metric_of = |prefix: String, what: &str| format!("{prefix}.{what}");
    let service_prefix = match &operation {
        Some(op) => format!("service.{service}.op.{op}"),
        None => format!("service.{service}"),
    };
    if let Some(m) = &measured {
        match m.hist.mean() {
            Some(mean) => band(
                out,
                &metric_of(service_prefix.clone(), "sojourn_mean_ms"),
                mean * 1e3,
                opts.tolerance,
                format!("{what}: production's mean time to answer, exact (_sum / _count)"),
                &m.from,
            ),
            None => skip(
                out,
                format!("{what} mean"),
                "no `_sum`: the mean is not known (a rate() of buckets has none; query rate(x_sum) / rate(x_count) apart)".into(),
            ),
        }
    }
    // The quantiles: from the histogram (p50, p99), or as given.
    let mut qs: Vec<(f64, f64, String)> = Vec::new();
    if let Some(m) = &measured {
        for q in [0.5, 0.99] {
            match m.hist.quantile(q) {
                Some(v) => qs.push((
                    q,
                    v.value,
                    format!(
                        "interpolated in its bucket ({} to {} s): {}",
                        sig(v.lo),
                        sig(v.hi),
                        m.from
                    ),
                )),
                None => skip(
                    out,
                    format!("{what} p{}", q * 100.0),
                    "it lies in the +Inf bucket, above the largest bound: not known".into(),
                ),
            }
        }
    }
    for q in quantiles {
        if qs.iter().any(|x| x.0 == q.q) {
            skip(
                out,
                q.at.clone(),
                "the histogram gives this quantile already".into(),
            );
            continue;
        }
        qs.push((q.q, q.seconds, q.at));
    }
    for (q, seconds, from) in qs {
        let name = match q {
            0.5 => "attempt_latency_p50_ms",
            0.99 => "attempt_latency_p99_ms",
            _ => {
                skip(
                    out,
                    from,
                    format!(
                        "cascade measures an attempt's latency at p50 and p99, not p{}",
                        q * 100.0
                    ),
                );
                continue;
            }
        };
        let edges: Vec<String> = match shape {
            Some((_, s)) => s
                .edges
                .iter()
                .filter(|(_, op)| operation.is_none() || *op == operation)
                .map(|(e, _)| e.clone())
                .collect(),
            None => {
                skip(
                    out,
                    format!("{what} p{}", q * 100.0),
                    format!(
                        "{} ms: an attempt's latency is measured per caller (`edge.<caller>.{service}.{name}`), and only the scenario knows the callers: give --scenario",
                        sig(seconds * 1e3)
                    ),
                );
                continue;
            }
        };
        if edges.is_empty() {
            skip(
                out,
                format!("{what} p{}", q * 100.0),
                "no caller calls it in the scenario".into(),
            );
        }
        for e in edges {
            band(
                out,
                &format!("edge.{e}.{name}"),
                seconds * 1e3,
                opts.tolerance,
                format!(
                    "{what}: production's p{} as its caller sees it (the time at {service}, plus the edge's network latency if it has any)",
                    q * 100.0
                ),
                &from,
            );
        }
    }
    Ok(())
}

/// Two expectations holding `metric` within ± `tolerance` of production's `value`.
pub(super) fn band(
    out: &mut Imported,
    metric: &str,
    value: f64,
    tolerance: f64,
    note: String,
    from: &str,
) {
    let pct = sig(tolerance * 100.0);
    for (op, v, side) in [
        (">=", value * (1.0 - tolerance), "less"),
        ("<=", value * (1.0 + tolerance), "plus"),
    ] {
        let mut f = Fragment::new("[[expect]]", Some(format!("calibration, {note}")));
        f.set("metric", Toml::Str(metric.to_string()), from.to_string());
        f.set(
            "op",
            Toml::Str(op.into()),
            format!("within ±{pct}% (--tolerance)"),
        );
        f.set(
            "value",
            Toml::Float(round3(v)),
            format!("{} ms {side} {pct}%", sig(value)),
        );
        out.fragments.push(f);
    }
}

pub(super) fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The rows as an `empirical` distribution's inline table.
pub(super) fn empirical(rows: &[(f64, f64)]) -> String {
    let rows: Vec<String> = rows
        .iter()
        .map(|(p, s)| {
            let ns = (s * 1e9).round() as u64;
            format!("[{}, \"{}\"]", percent(*p), duration_text(ns))
        })
        .collect();
    format!(
        "{{ dist = \"empirical\", percentiles = [{}] }}",
        rows.join(", ")
    )
}

pub(super) fn percent(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        p.to_string()
    }
}

/// The leaves' work as `[[service]]` tables, a service's operations under it.
pub(super) fn write_leaves(leaves: Vec<Leaf>, out: &mut Imported) {
    let mut last: Option<String> = None;
    for l in leaves {
        if last.as_ref() != Some(&l.service) {
            let mut f = Fragment::new(
                "[[service]]",
                Some(format!(
                    "service `{}`: a leaf (it makes no calls), so its measured time to answer stands for its work",
                    l.service
                )),
            );
            f.set(
                "name",
                Toml::Str(l.service.clone()),
                "the histogram's service label or --service",
            );
            if l.operation.is_none() {
                f.set("work", Toml::Raw(l.work.clone()), l.from.clone());
            }
            out.fragments.push(f);
            last = Some(l.service.clone());
        }
        if let Some(op) = &l.operation {
            let mut f = Fragment::new("[[service.operation]]", None);
            f.set(
                "name",
                Toml::Str(op.clone()),
                "the histogram's operation label",
            );
            f.set("work", Toml::Raw(l.work.clone()), l.from.clone());
            out.fragments.push(f);
        }
    }
}
