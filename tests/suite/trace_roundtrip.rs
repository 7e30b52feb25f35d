//! The round trip (issue 39): scenarios of scenarios/ run with `--trace-format otlp`, their
//! traces imported by `cascade import traces --sampled F`, and the imported scenario held to the
//! original:
//!
//! - topology, exactly: the services, each one's operations, each operation's steps in order,
//!   which calls each step makes, whether in parallel, whether with a `p`; the clients, their
//!   targets and operations;
//! - each operation's work at p50 and p90 within 4 standard errors of a sample quantile of the
//!   operation's server spans in the file (√(q(1−q)/n)/f(x_q), f the original's density, in
//!   closed form in `support/reference_dist.rs`), plus 2 µs of rounding: about 7% at the median
//!   of an exponential for 1,000 spans, 2% for 15,000;
//! - each call's network latency exactly, to the microsecond: the scenarios' latencies are
//!   constant, and the import takes a low quantile of (client − server)/2, which a call that
//!   did not queue gives exactly;
//! - mix shares and `p` within 4σ, σ the binomial √(s(1−s)/n) of the roots or caller spans;
//! - the imported scenario's run for the same duration: per client, success ratio within 0.01,
//!   goodput within 4/√(roots) of the original's (the rate is a count of sampled roots),
//!   latency p50 within 10% and p99 within 15%: the work is 12 percentiles interpolated, and
//!   `workers` is what Little's law saw in flight, doubled plus one, so some queueing the
//!   original did not have.
//!
//! Not every scenario can go round: the importer infers no timeouts, deadlines, worker pools per
//! operation or `optional = true` (failure tolerance), so the scenarios chosen run in their
//! steady state (before their faults) where those never act. scenarios/quickstart.toml is left
//! out for that reason: its recommendations time out after 150 ms in about 7% of calls, which
//! the imported scenario (no timeout) would wait for.

use crate::support::reference_dist::{Dist, duration_ns};
use crate::support::{cascade, read, run_traced, scratch};
use crate::trace_otlp::{EPOCH_S, spans};
use std::collections::BTreeMap;
use std::path::Path;
use toml_edit::{DocumentMut, Item, Value};

/// A call: (callee service, callee operation).
type Call = (String, String);

#[derive(Debug, PartialEq)]
struct Step {
    calls: Vec<Call>,
    parallel: bool,
    p: Option<f64>,
    /// The call's latency, ns (the first call's, with the others checked equal by topology).
    latency: Vec<f64>,
}

/// An operation: its work item's text and its steps.
struct Op {
    work: Option<Item>,
    steps: Vec<Step>,
}

/// A scenario as the round trip compares it.
struct Shape {
    /// (service, operation) → operation.
    ops: BTreeMap<(String, String), Op>,
    /// client → (target, [(operation, weight)]).
    clients: BTreeMap<String, (String, Vec<(String, f64)>)>,
}

fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(|v| v.as_str()).map(str::to_string)
}

fn call_of(t: &toml_edit::InlineTable) -> (Call, f64) {
    let to = string(t.get("to")).expect("to");
    let op = string(t.get("operation")).unwrap_or_else(|| to.clone());
    let latency = match t.get("latency") {
        None => 0.0,
        Some(Value::String(s)) => duration_ns(s.value()),
        Some(Value::InlineTable(l)) => {
            assert_eq!(string(l.get("dist")).as_deref(), Some("constant"));
            duration_ns(&string(l.get("value")).unwrap())
        }
        Some(other) => panic!("latency {other}"),
    };
    ((to, op), latency)
}

fn steps_of(calls: Option<&Item>) -> Vec<Step> {
    let Some(calls) = calls else { return vec![] };
    let mut out = Vec::new();
    for v in calls.as_array().expect("calls").iter() {
        let t = v.as_inline_table().expect("a step");
        assert!(
            t.get("choose").is_none(),
            "no choice in the round trip's scenarios"
        );
        let p = t
            .get("p")
            .and_then(|p| p.as_float().or(p.as_integer().map(|i| i as f64)));
        let (calls, latency): (Vec<Call>, Vec<f64>) = match t.get("parallel") {
            Some(par) => par
                .as_array()
                .unwrap()
                .iter()
                .map(|c| call_of(c.as_inline_table().unwrap()))
                .unzip(),
            None => {
                let (c, l) = call_of(t);
                (vec![c], vec![l])
            }
        };
        out.push(Step {
            parallel: calls.len() > 1,
            calls,
            p,
            latency,
        });
    }
    out
}

fn shape(toml: &str) -> Shape {
    let d: DocumentMut = toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut ops = BTreeMap::new();
    for s in d["service"].as_array_of_tables().unwrap() {
        let name = s["name"].as_str().unwrap().to_string();
        match s.get("operation").and_then(Item::as_array_of_tables) {
            Some(list) => {
                for o in list {
                    let op = Op {
                        work: o.get("work").cloned(),
                        steps: steps_of(o.get("calls")),
                    };
                    ops.insert((name.clone(), o["name"].as_str().unwrap().to_string()), op);
                }
            }
            None => {
                let op = Op {
                    work: s.get("work").cloned(),
                    steps: steps_of(s.get("calls")),
                };
                ops.insert((name.clone(), name), op);
            }
        }
    }
    let mut clients = BTreeMap::new();
    for c in d["client"].as_array_of_tables().unwrap() {
        let target = c["target"].as_str().unwrap().to_string();
        let mix = match (c.get("mix"), c.get("operation")) {
            (Some(m), _) => m
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let e = e.as_inline_table().unwrap();
                    let w = e.get("weight").unwrap();
                    let w = w.as_float().or(w.as_integer().map(|i| i as f64)).unwrap();
                    (string(e.get("operation")).unwrap(), w)
                })
                .collect(),
            (None, Some(op)) => vec![(op.as_str().unwrap().to_string(), 1.0)],
            (None, None) => vec![(target.clone(), 1.0)],
        };
        let mut mix: Vec<(String, f64)> = mix;
        mix.sort_by(|a, b| a.0.cmp(&b.0));
        clients.insert(c["name"].as_str().unwrap().to_string(), (target, mix));
    }
    Shape { ops, clients }
}

/// The imported work's row at percent `p`, ns.
fn empirical_at(work: &Item, p: f64) -> f64 {
    let t = work.as_inline_table().expect("empirical work");
    assert_eq!(string(t.get("dist")).as_deref(), Some("empirical"));
    for row in t.get("percentiles").unwrap().as_array().unwrap() {
        let row = row.as_array().unwrap();
        let at = row.get(0).unwrap();
        let at = at.as_float().or(at.as_integer().map(|i| i as f64)).unwrap();
        if at == p {
            return duration_ns(row.get(1).unwrap().as_str().unwrap());
        }
    }
    panic!("no row {p}");
}

fn metric(summary: &serde_json::Value, key: &str) -> f64 {
    summary["metrics"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {key}"))
}

/// One scenario's round trip: run for `duration` tracing a share `sample` of the requests.
fn round_trip(dir: &Path, scenario: &str, duration: &str, sample: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(scenario);
    let name = path.file_stem().unwrap().to_str().unwrap();
    let trace = dir.join(format!("{name}.json"));
    let out = dir.join(format!("{name}-out"));
    let set_duration = format!("scenario.duration={duration}");
    let epoch = EPOCH_S.to_string();
    run_traced(
        &path,
        &out,
        &trace,
        &[
            "--set",
            &set_duration,
            "--set",
            "scenario.warmup=0s",
            "--trace-format",
            "otlp",
            "--trace-epoch",
            &epoch,
            "--trace-sample",
            sample,
        ],
    );
    let imported = cascade(
        &[
            "import",
            "traces",
            "--sampled",
            sample,
            trace.to_str().unwrap(),
        ],
        0,
    );
    let imported = String::from_utf8(imported.stdout).unwrap();
    let original = shape(&read(&path));
    let got = shape(&imported);

    // Server spans per (service, name), and roots: the counts the tolerances come from.
    let doc: serde_json::Value = serde_json::from_str(&read(&trace)).unwrap();
    let mut servers: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut roots = 0u64;
    for s in spans(&doc) {
        if s.kind == 2 {
            *servers.entry((s.service, s.name)).or_default() += 1;
        } else if s.parent.is_empty() {
            roots += 1;
        }
    }
    drop(doc);

    // Topology: services and operations, and each operation's steps.
    let keys = |s: &Shape| s.ops.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&got),
        keys(&original),
        "{name}: operations\n{imported}"
    );
    for (key, want) in &original.ops {
        let have = &got.ops[key];
        let n = servers[key];
        let brief = |s: &[Step]| -> Vec<(Vec<Call>, bool, bool, Vec<f64>)> {
            s.iter()
                .map(|s| {
                    (
                        s.calls.clone(),
                        s.parallel,
                        s.p.is_some(),
                        s.latency.clone(),
                    )
                })
                .collect()
        };
        // Calls, order, parallel, a `p` or not, and latency to the microsecond (the import
        // rounds to it).
        assert_eq!(brief(&have.steps), brief(&want.steps), "{name} {key:?}");
        for (h, w) in have.steps.iter().zip(&want.steps) {
            if let (Some(hp), Some(wp)) = (h.p, w.p) {
                let sigma = (wp * (1.0 - wp) / n as f64).sqrt();
                assert!(
                    (hp - wp).abs() <= 4.0 * sigma,
                    "{name} {key:?}: p {hp} for {wp} (4σ = {})",
                    4.0 * sigma
                );
            }
        }
        // Work at p50 and p90.
        let dist = Dist::of(want.work.as_ref());
        for q in [0.5, 0.9] {
            let want_q = dist.quantile(q);
            let have_q = empirical_at(have.work.as_ref().expect("work"), q * 100.0);
            let tolerance = 4.0 * dist.quantile_se(q, n) + 2_000.0;
            assert!(
                (have_q - want_q).abs() <= tolerance,
                "{name} {key:?}: work p{} {have_q} ns for {want_q} ns (± {tolerance} ns, {n} spans)",
                q * 100.0
            );
        }
    }

    // Clients: name, target, the mix's operations and shares.
    assert_eq!(
        got.clients.keys().collect::<Vec<_>>(),
        original.clients.keys().collect::<Vec<_>>(),
        "{name}: clients\n{imported}"
    );
    for (client, (target, mix)) in &original.clients {
        let (have_target, have_mix) = &got.clients[client];
        assert_eq!(have_target, target, "{name}: {client}'s target");
        let ops = |m: &[(String, f64)]| m.iter().map(|e| e.0.clone()).collect::<Vec<_>>();
        assert_eq!(ops(have_mix), ops(mix), "{name}: {client}'s operations");
        let (total, have_total): (f64, f64) = (
            mix.iter().map(|e| e.1).sum(),
            have_mix.iter().map(|e| e.1).sum(),
        );
        for (w, h) in mix.iter().zip(have_mix) {
            let share = w.1 / total;
            let sigma = (share * (1.0 - share) / roots as f64).sqrt();
            let have_share = h.1 / have_total;
            assert!(
                (have_share - share).abs() <= 4.0 * sigma + 1e-12,
                "{name}: {client} {} share {have_share} for {share} (4σ = {})",
                w.0,
                4.0 * sigma
            );
        }
    }

    // The imported scenario run as long as the original.
    let file = dir.join(format!("{name}-imported.toml"));
    std::fs::write(&file, &imported).unwrap();
    let again = dir.join(format!("{name}-imported-out"));
    cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--set",
            &set_duration,
            "--out",
            again.to_str().unwrap(),
        ],
        0,
    );
    let summary = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&read(&d.join("summary.json"))).unwrap()
    };
    let (a, b) = (summary(&out), summary(&again));
    for client in original.clients.keys() {
        let m = |s: &serde_json::Value, k: &str| metric(s, &format!("client.{client}.{k}"));
        let pairs = [
            ("success_ratio", 0.01, false),
            ("goodput_rps", 4.0 / (roots as f64).sqrt(), true),
            ("latency_p50_ms", 0.10, true),
            ("latency_p99_ms", 0.15, true),
        ];
        for (k, tolerance, relative) in pairs {
            let (want, have) = (m(&a, k), m(&b, k));
            let off = if relative {
                (have - want).abs() / want
            } else {
                (have - want).abs()
            };
            assert!(
                off <= tolerance,
                "{name}: {client} {k} {have} imported, {want} original (off {off}, tolerance {tolerance})"
            );
        }
    }
}

/// Layered calls with network latency and a parallel step: web → frontend → auth, then
/// catalog (→ db) and reco at once. 3 s at 3,000 requests a second, a fifth traced.
#[test]
fn layered_calls_and_a_parallel_step_go_round() {
    let dir = scratch("roundtrip-layers");
    round_trip(&dir, "scenarios/bench-layers.toml", "3s", "0.2");
}

/// A client mix of three operations, two of them with a `p = 0.05` cache miss to postgres
/// after a redis get, three layers deep. The 20 s before its fault, a twentieth traced.
#[test]
fn a_mix_and_optional_calls_go_round() {
    let dir = scratch("roundtrip-gateway");
    round_trip(&dir, "scenarios/gateway.toml", "20s", "0.05");
}

/// A mix of two operations, one of them calling two services in parallel, both of which the
/// other calls too. The 19 s before its fault, two fifths traced.
#[test]
fn a_mix_with_a_parallel_step_goes_round() {
    let dir = scratch("roundtrip-shipping");
    round_trip(&dir, "scenarios/shipping-product.toml", "19s", "0.4");
}

/// A mix of an operation without calls and one that calls a service of constant work (5 ms:
/// its percentiles exact). The 19 s before its fault, a fifth traced.
#[test]
fn a_mix_with_constant_work_goes_round() {
    let dir = scratch("roundtrip-login");
    round_trip(&dir, "scenarios/login-analytics.toml", "19s", "0.2");
}

/// A `p` step whose call has a latency: the import once wrote its `p` and `name` inside the
/// `latency` table (`latency = { dist = "constant", value = "2ms", p = 0.3, … }`), which
/// dropped the `p`. Every request traced; 2,000 requests, so 4σ of p = 0.3 is 0.041.
#[test]
fn a_p_step_with_latency_keeps_its_p_beside_the_call() {
    let dir = scratch("roundtrip-p-latency");
    let scenario = dir.join("s.toml");
    std::fs::write(
        &scenario,
        r#"[scenario]
name = "p-latency"
duration = "20s"
seed = 5

[[client]]
name = "web"
target = "api"
rate = 100

[[service]]
name = "api"
workers = 50
work = "1ms"
calls = [ { to = "cache", latency = "1ms" }, { to = "db", latency = "2ms", p = 0.3, name = "miss" } ]

[[service]]
name = "cache"
workers = 50
work = "1ms"

[[service]]
name = "db"
workers = 50
work = "4ms"
"#,
    )
    .unwrap();
    let trace = dir.join("t.json");
    run_traced(
        &scenario,
        &dir.join("out"),
        &trace,
        &[
            "--trace-format",
            "otlp",
            "--trace-epoch",
            &EPOCH_S.to_string(),
        ],
    );
    let out = cascade(&["import", "traces", trace.to_str().unwrap()], 0);
    let got = shape(&String::from_utf8(out.stdout).unwrap());
    let api = &got.ops[&("api".to_string(), "api".to_string())];
    let miss = &api.steps[1];
    assert_eq!(miss.calls, [("db".to_string(), "db".to_string())]);
    assert_eq!(miss.latency, [2e6]);
    let p = miss.p.expect("a p beside the call");
    assert!((p - 0.3).abs() <= 0.041, "p {p}");
    // The client is `web`, not a service.
    assert!(!got.ops.keys().any(|k| k.0 == "web"));
    assert_eq!(got.clients["web"].0, "api");
}
