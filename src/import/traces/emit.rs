//! The tally as a scenario: `[scenario]`, a `[[client]]` per entry service (its mix and rate
//! from the roots), a `[[service]]` per service with an `[[service.operation]]` per span name
//! (its self time as `empirical` work, its calls as steps with their network latency), a
//! retry `[policy.NAME]` per edge where retries were seen, an `errors` `[[fault]]` per
//! operation that failed on its own; each value commented with what it came from and how
//! many spans; what could not be inferred in the skipped list.

use super::Options;
use super::TraceFormat;
use super::calls::{allowed_calls, calls};
use super::plan::steps;
use super::samples::{Samples, percentile};
use super::skipped::report_skipped;
use super::span::Names;
use super::tally::{Op, Report, Tally};
use crate::error::Error;
use crate::import::out::{Fragment, Imported, Skipped, Toml};
use crate::import::prometheus_hist::sig;
use crate::import::read::{duration_text, policy_name};
use std::collections::{BTreeMap, BTreeSet};

/// A client: the service of its root spans (none when the root is the entry's server span),
/// and the service its requests enter.
type ClientKey = (Option<u32>, u32);

/// The rows of an operation's `empirical` work.
const PERCENTS: [f64; 12] = [
    0.0, 1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0,
];

/// The quantile of (client − server) / 2 taken as an edge's one-way network latency: low,
/// because a server span starts when its work starts, so the difference also holds the time
/// the request queued, which is least in the fastest calls.
pub const NETWORK_PERCENTILE: f64 = 5.0;

/// A duration, rounded to the microsecond (traces of Jaeger and Zipkin have no finer).
pub(super) fn dur(ns: u64) -> String {
    duration_text((ns + 500) / 1_000 * 1_000)
}

fn empirical(s: &Samples) -> String {
    let sorted = s.sorted();
    let rows: Vec<String> = PERCENTS
        .iter()
        .map(|p| {
            let p_text = if p.fract() == 0.0 {
                format!("{p:.0}")
            } else {
                p.to_string()
            };
            format!("[{p_text}, \"{}\"]", dur(percentile(&sorted, *p)))
        })
        .collect();
    format!(
        "{{ dist = \"empirical\", percentiles = [{}] }}",
        rows.join(", ")
    )
}

pub fn emit(
    read: &[(String, TraceFormat, u64)],
    names: &Names,
    tally: &Tally,
    report: &Report,
    opts: &Options,
) -> Result<Imported, Error> {
    let files: Vec<&str> = read.iter().map(|r| r.0.as_str()).collect();
    let at = files.join(", ");
    let spans: u64 = read.iter().map(|r| r.2).sum();
    if tally.ops.is_empty() {
        return Err(Error::Usage(format!(
            "{at}: no server span to import ({spans} spans read)"
        )));
    }
    let mut out = Imported::default();
    // Names in the scenario: services and operations, made valid and unique.
    let service_name = |s: u32| policy_name(names.get(s));
    let mut op_names: BTreeMap<Op, String> = BTreeMap::new();
    for op in tally.ops.keys() {
        let base = scenario_name(names.get(op.1));
        let base = if base.is_empty() {
            "op".to_string()
        } else {
            base
        };
        let mut name = base.clone();
        let mut k = 2;
        while op_names.iter().any(|(o, n)| o.0 == op.0 && *n == name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        op_names.insert(*op, name);
    }
    let keep = allowed_calls(tally, names, &at, &mut out);
    // What a client's request reaches: the roots' operations and their calls, down.
    let mut reached: BTreeSet<Op> = tally
        .ops
        .iter()
        .filter(|(_, t)| t.entries > 0)
        .map(|(o, _)| *o)
        .collect();
    let mut stack: Vec<Op> = reached.iter().copied().collect();
    while let Some(o) = stack.pop() {
        for c in tally.ops[&o].callees.keys() {
            if keep.contains(&(o, *c)) && reached.insert(*c) {
                stack.push(*c);
            }
        }
    }
    for (op, t) in &tally.ops {
        if !reached.contains(op) && !reached.is_empty() {
            out.skipped.push(Skipped {
                at: at.clone(),
                key: format!("`{}` `{}` ({} server spans)", names.get(op.0), names.get(op.1), t.spans),
                reason: "no client request reaches it by calls: an asynchronous consumer, or called only under spans cut from the file".into(),
            });
        }
    }
    let services: BTreeSet<u32> = reached.iter().map(|o| o.0).collect();

    // [scenario]
    let span_s = (tally.last_root.saturating_sub(tally.first_root)) as f64 / 1e9;
    let formats: Vec<&str> = read.iter().map(|r| r.1.name()).collect();
    let mut f = Fragment::new(
        "[scenario]",
        Some(format!(
            "{spans} spans in {} traces read ({}); {} of them whole traces with a root",
            tally.traces,
            formats.join(", "),
            tally.roots
        )),
    );
    f.set(
        "name",
        Toml::Str("imported-traces".into()),
        "cascade import traces",
    );
    f.set(
        "duration",
        Toml::Str("60s".into()),
        format!(
            "a minute at the traces' rates (their roots span {} s)",
            sig(span_s)
        ),
    );
    f.set("seed", Toml::Int(1), "any seed");
    out.fragments.push(f);

    // [[client]]: one per client (the service of its root spans, or none for traces whose
    // root is the entry's own server span) and entry service, its operations the mix.
    let mut entries: BTreeMap<ClientKey, Vec<(Op, u64)>> = BTreeMap::new();
    for ((origin, op), n) in &tally.entries {
        entries.entry((*origin, op.0)).or_default().push((*op, *n));
    }
    if entries.is_empty() {
        return Err(Error::Usage(format!(
            "{at}: no trace has its root span, so no client request is known ({} spans have their parent outside the file)",
            report.orphans
        )));
    }
    let several = entries.keys().filter(|k| k.0.is_none()).count() > 1;
    let mut client_names: Vec<String> = Vec::new();
    for ((origin, service), ops) in &entries {
        let n: u64 = ops.iter().map(|o| o.1).sum();
        let svc = service_name(*service);
        let base = match origin {
            Some(o) => service_name(*o),
            None if several => format!("traffic-{svc}"),
            None => "traffic".to_string(),
        };
        let base = if services.iter().any(|s| service_name(*s) == base) {
            format!("{base}-client")
        } else {
            base
        };
        let name = unique(&mut client_names, base);
        let (what, from) = match origin {
            Some(o) => (
                format!(
                    "the requests of `{}` (its root spans) to `{}`: {n} root spans",
                    names.get(*o),
                    names.get(*service)
                ),
                "the root spans' service",
            ),
            None => (
                format!(
                    "the requests that began the traces at `{}`: {n} root spans",
                    names.get(*service)
                ),
                "a name for the traces' callers",
            ),
        };
        let mut f = Fragment::new("[[client]]", Some(what));
        f.set("name", Toml::Str(name), from);
        f.set("target", Toml::Str(svc), "the service of the root spans");
        let rate = if tally.roots >= 2 && span_s > 0.0 {
            let all_rate = (tally.roots - 1) as f64 / span_s / opts.sampled;
            let share = n as f64 / tally.roots as f64;
            f.set(
                "rate",
                Toml::Float(round(all_rate * share, 4)),
                if opts.sampled < 1.0 {
                    format!(
                        "{} roots in {} s between the first and last root's start, {n} of them here, divided by --sampled {}",
                        tally.roots,
                        sig(span_s),
                        opts.sampled
                    )
                } else {
                    format!(
                        "{} roots in {} s between the first and last root's start, {n} of them here (traces sampled? say --sampled F)",
                        tally.roots,
                        sig(span_s)
                    )
                },
            );
            true
        } else {
            false
        };
        if !rate {
            f.set("rate", Toml::Float(1.0), "a placeholder: set the real rate");
            out.skipped.push(Skipped {
                at: at.clone(),
                key: "client rate".into(),
                reason: "fewer than two root spans, or all at one instant: no rate".into(),
            });
        }
        if ops.len() == 1 {
            f.set(
                "operation",
                Toml::Str(op_names[&ops[0].0].clone()),
                format!("every root span is `{}`", names.get(ops[0].0.1)),
            );
        } else {
            let items: Vec<String> = ops
                .iter()
                .map(|(op, k)| format!("{{ operation = \"{}\", weight = {k} }}", op_names[op]))
                .collect();
            f.set(
                "mix",
                Toml::Raw(format!("[{}]", items.join(", "))),
                "root spans by name, each weight their count",
            );
        }
        out.fragments.push(f);
    }

    let sampled_text = if opts.sampled < 1.0 {
        format!(", divided by --sampled {}", opts.sampled)
    } else {
        String::new()
    };
    // [[service]] and its operations.
    let mut policies: Vec<Fragment> = Vec::new();
    let mut faults: Vec<Fragment> = Vec::new();
    for service in &services {
        let svc = service_name(*service);
        let ops: Vec<(&Op, &super::tally::OpTally)> = tally
            .ops
            .iter()
            .filter(|(o, _)| o.0 == *service && reached.contains(o))
            .collect();
        let handlers: u64 = ops.iter().map(|(_, t)| t.spans).sum();
        let mut f = Fragment::new(
            "[[service]]",
            Some(format!(
                "service `{}`: {handlers} server spans",
                names.get(*service)
            )),
        );
        f.set("name", Toml::Str(svc.clone()), "the spans' service name");
        if let Some(s) = tally.services.get(service) {
            let window = (s.last.saturating_sub(s.first)) as f64 / 1e9;
            if window > 0.0 {
                let in_flight = s.busy as f64 / 1e9 / window / opts.sampled;
                let workers = (2.0 * in_flight).ceil() as u64 + 1;
                f.set(
                    "workers",
                    Toml::Int(workers as i64),
                    format!(
                        "{} in flight on average (Little's law: server time / {} s{}), doubled plus one so it queues little; the real count is not in traces",
                        sig(in_flight),
                        sig(window),
                        sampled_text
                    ),
                );
            }
        }
        out.fragments.push(f);
        for (op, t) in ops {
            let name = &op_names[op];
            let label = names.get(op.1);
            let mut f = Fragment::new("[[service.operation]]", None);
            f.set(
                "name",
                Toml::Str(name.clone()),
                format!("span name `{label}`"),
            );
            if label != name {
                f.set(
                    "label",
                    Toml::Str(label.to_string()),
                    "the span name, normalised",
                );
            }
            if t.handlers() > 0 {
                let alone = if t.failed_alone > 0 {
                    format!(
                        " ({} more failed before any work or call, the fault below)",
                        t.failed_alone
                    )
                } else {
                    String::new()
                };
                f.set(
                    "work",
                    Toml::Raw(empirical(&t.self_time)),
                    format!(
                        "self time of {} server spans: duration minus its client spans, on its own clock{alone}",
                        t.handlers()
                    ),
                );
            }
            let steps = steps(t, |c| keep.contains(&(*op, c)));
            if !steps.is_empty() {
                let (text, from) = calls(
                    &steps,
                    t.handlers(),
                    *op,
                    tally,
                    names,
                    &op_names,
                    &mut policies,
                    &mut out,
                );
                f.set("calls", Toml::Raw(text), from);
            }
            out.fragments.push(f);
            if t.errors > 0 {
                out.notes.push(format!(
                    "`{}` `{label}`: {} of {} server spans failed ({}), {} of them with no failed call of its own",
                    names.get(op.0),
                    t.errors,
                    t.spans,
                    pct(t.errors, t.spans),
                    t.own_errors
                ));
            }
            if t.own_errors > 0 {
                let mut f = Fragment::new(
                    "[[fault]]",
                    Some(format!(
                        "`{}` `{label}` failed on its own (error status, no failed call) in {} of {} server spans",
                        names.get(op.0),
                        t.own_errors,
                        t.spans
                    )),
                );
                f.set("kind", Toml::Str("errors".into()), "span status ERROR");
                f.set("target", Toml::Str(svc.clone()), "the spans' service");
                f.set("operation", Toml::Str(name.clone()), "the spans' name");
                f.set(
                    "rate",
                    Toml::Float(round(t.own_errors as f64 / t.spans as f64, 4)),
                    format!(
                        "{} / {} server spans, for the whole run",
                        t.own_errors, t.spans
                    ),
                );
                faults.push(f);
            }
        }
    }
    out.fragments.extend(policies);
    out.fragments.extend(faults);
    report_skipped(names, tally, report, opts, &at, &mut out);
    Ok(out)
}

/// `base`, or `base-2`, `-3`… if taken; recorded as taken.
pub(super) fn unique(taken: &mut Vec<String>, base: String) -> String {
    let mut name = base.clone();
    let mut k = 2;
    while taken.contains(&name) {
        name = format!("{base}-{k}");
        k += 1;
    }
    taken.push(name.clone());
    name
}

/// A name for the scenario: letters, digits, `-` and `_`, every other run of characters one
/// `-` (`GET /users/{id}` is `GET-users-id`).
fn scenario_name(source: &str) -> String {
    let mut out = String::new();
    for c in source.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

pub(super) fn round(v: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    (v * m).round() / m
}

pub(super) fn pct(a: u64, b: u64) -> String {
    format!("{}%", sig(a as f64 * 100.0 / b.max(1) as f64))
}
