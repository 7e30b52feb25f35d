//! The mesh's traces, imported (issue 38): the mesh runs `tests/scenarios/traced.toml` (3 s; a
//! front calling `back`, retried under a 20% error fault, then `cache`) with `--traces`,
//! `cascade import traces` (the library's `import::traces::import`) reads its traces.json, and
//! the imported scenario is held to the original:
//!
//! - exactly: the services, the client's target, each service's steps in order and the callee
//!   of each call, the retry policy's most attempts;
//! - the import's attempts a call (its `suggested:` line, printed to 4 digits) equal to the
//!   mesh's own `edge.front.back.amplification` of the same run within 0.001: every attempt is
//!   in the traces; and to the simulated run's within 4σ of the difference of two independent
//!   samples, σ = √2·sd/√calls, sd that of the attempts a call when each fails with the fault's
//!   rate (the mesh draws the fault from its own stream);
//! - the fault's rate within 4 binomial σ of the server spans;
//! - each service's work mean (the imported percentiles' mean) within 4 standard errors of a
//!   sample mean of its n spans (exponential: mean/√n), plus the mesh's own error on a span's
//!   self time: the run's mean hold lateness (mesh.json) for each wake-up in the job (its hold,
//!   and one per step of calls), which the simulator does not have. The sampling part is the
//!   spread of a sample of that size; the lateness part is the mesh's, measured in the same run,
//!   never fitted.
//!
//! Wall-clock (CONTRIBUTING.md): behind the `wall-clock` feature, run alone by `.ci/run` after
//! mesh_vs_sim (about 4 s).
#![cfg(feature = "wall-clock")]

use cascade::model::Model;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Per service: its steps of calls as the callees' names, over every plan that has any.
fn steps(model: &Model) -> BTreeMap<String, Vec<Vec<String>>> {
    (model.services.iter())
        .map(|s| {
            let steps = (s.plans())
                .flat_map(|p| p.steps.iter())
                .map(|step| {
                    (step.iter())
                        .map(|c| model.services[c.to].name.clone())
                        .collect()
                })
                .collect();
            (s.name.clone(), steps)
        })
        .collect()
}

/// Per service: the mean of its work (its own plan's, or its one operation's when it has one).
fn work_means(model: &Model) -> BTreeMap<String, f64> {
    (model.services.iter())
        .map(|s| {
            let plan = s.operations.first().map_or(&s.plan, |o| &o.plan);
            (s.name.clone(), plan.work.mean())
        })
        .collect()
}

#[test]
fn the_mesh_traces_import_as_the_scenario_they_ran() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = here.join("tests/scenarios/traced.toml");
    let original = cascade::scenario::load(&scenario, &[]).unwrap().model;
    let sim = cascade::simulate(&original).unwrap().metrics;
    let out = std::env::temp_dir().join(format!("cascade-mesh-traces-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_cascade-mesh"))
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .arg("--traces")
        .status()
        .unwrap();
    assert!(status.success());
    let traces = out.join(cascade_mesh::trace::FILE);
    let imported = cascade::import::traces::import(
        &[traces.as_path()],
        &cascade::import::traces::Options::default(),
    )
    .unwrap()
    .toml("cascade import traces traces.json");
    let summary = json(&out.join("summary.json"));
    let facts = json(&out.join("mesh.json"));
    let doc = json(&traces);
    let _ = std::fs::remove_dir_all(&out);
    let got = cascade::scenario::load_str("imported.toml", &imported, &[])
        .unwrap_or_else(|e| panic!("{e}\n{imported}"))
        .model;

    // Topology, exactly.
    let names = |m: &Model| {
        m.services
            .iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
    };
    let mut want_names = names(&original);
    want_names.sort();
    assert_eq!(names(&got), want_names, "{imported}");
    assert_eq!(steps(&got), steps(&original), "{imported}");
    let target = |m: &Model| m.services[m.clients[0].call.to].name.clone();
    assert_eq!(target(&got), target(&original));
    let table: toml_edit::DocumentMut = imported.parse().unwrap();
    let attempts = table["policy"]
        .as_table()
        .and_then(|t| t.iter().next())
        .and_then(|(_, p)| p["retry"]["attempts"].as_integer());
    assert_eq!(attempts, Some(3), "{imported}");

    // Attempts a call: the import's, the mesh's own count, the simulator's.
    let line = (imported.lines())
        .find(|l| l.starts_with("# suggested: `front` retried `back`"))
        .unwrap_or_else(|| panic!("no retries line\n{imported}"));
    let per_call: f64 = line
        .split(", ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    let mesh_amp = summary["metrics"]["edge.front.back.amplification"]
        .as_f64()
        .unwrap();
    assert!(
        (per_call - mesh_amp).abs() <= 0.001,
        "traces {per_call} attempts a call, the mesh counted {mesh_amp}"
    );
    let calls = summary["metrics"]["edge.front.back.calls"]
        .as_f64()
        .unwrap();
    let r = 0.2;
    let p = [1.0 - r, r * (1.0 - r), r * r];
    let mean: f64 = (1..=3).map(|k| k as f64 * p[k - 1]).sum();
    let var: f64 = (1..=3).map(|k| (k as f64 - mean).powi(2) * p[k - 1]).sum();
    let sim_amp = sim.get("edge.front.back.amplification").unwrap();
    let band = 4.0 * 2f64.sqrt() * var.sqrt() / calls.sqrt();
    eprintln!(
        "attempts a call: traces {per_call}, mesh {mesh_amp:.4}, simulated {sim_amp:.4} (±{band:.3})"
    );
    assert!(
        (per_call - sim_amp).abs() <= band,
        "traces {per_call} attempts a call, simulated {sim_amp}, band ±{band}"
    );

    // Server spans per service (all, and without an error): the samples' sizes.
    let mut spans: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for rs in doc["resourceSpans"].as_array().unwrap() {
        let service = rs["resource"]["attributes"][0]["value"]["stringValue"]
            .as_str()
            .unwrap()
            .to_string();
        for s in rs["scopeSpans"][0]["spans"].as_array().unwrap() {
            if s["kind"] == 2 {
                let e = spans.entry(service.clone()).or_default();
                e.0 += 1.0;
                if s["status"]["code"] != 2 {
                    e.1 += 1.0;
                }
            }
        }
    }
    let (all, ok) = spans["back"];
    let fault = table["fault"][0]["rate"].as_float().unwrap();
    let band = 4.0 * (r * (1.0 - r) / all).sqrt();
    eprintln!("fault rate: traces {fault} for {r} (±{band:.3}, {all} spans)");
    assert!(
        (fault - r).abs() <= band,
        "fault rate {fault} for {r} (±{band}, {all} spans)"
    );
    assert!(ok > 200.0, "{ok} spans of back without an error");

    // Work means.
    let lateness_ms = facts["hold_lateness_mean_ms"].as_f64().unwrap();
    let (want, have) = (work_means(&original), work_means(&got));
    for svc in &original.services {
        let n = spans[&svc.name].1;
        let wake_ups = 1.0 + svc.plan.steps.len() as f64;
        let mean = want[&svc.name];
        let band = 4.0 * mean / n.sqrt() + wake_ups * lateness_ms * 1e6;
        let h = have[&svc.name];
        eprintln!(
            "{}: work mean {:.3} ms for {:.3} ms (±{:.3} ms: {n} spans, lateness {lateness_ms:.3} ms)",
            svc.name,
            h / 1e6,
            mean / 1e6,
            band / 1e6
        );
        assert!(
            (h - mean).abs() <= band,
            "{}: work mean {:.3} ms for {:.3} ms (±{:.3} ms: {n} spans, lateness {lateness_ms:.3} ms)",
            svc.name,
            h / 1e6,
            mean / 1e6,
            band / 1e6
        );
    }
}
