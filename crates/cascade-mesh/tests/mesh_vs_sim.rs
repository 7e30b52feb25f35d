//! The one wall-clock test (CONTRIBUTING.md): the mesh runs
//! `tests/scenarios/retry-errors.toml` (two services, a 30% error burst at the back for 3 s,
//! three attempts and a breaker on the front's call) on 127.0.0.1, and its counts must sit
//! within the bands of `tests/spread.json` around the simulated run's: each band is the
//! committed measurement of the mesh's own spread (five runs on a 2-core machine shared with
//! other builds; docs/sim-vs-real.md says how it was made). Behind the `wall-clock` feature,
//! so `cargo test --workspace` does not run it; `.ci/run` runs it alone, one test thread.
#![cfg(feature = "wall-clock")]

use std::path::Path;
use std::process::Command;

fn metric(summary: &serde_json::Value, name: &str) -> f64 {
    summary["metrics"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("no metric {name}"))
}

#[test]
fn the_mesh_counts_what_the_simulator_counts_within_its_spread() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = here.join("tests/scenarios/retry-errors.toml");
    let spread: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(here.join("tests/spread.json")).unwrap())
            .unwrap();
    let model = cascade::scenario::load(&scenario, &[]).unwrap().model;
    let sim = cascade::simulate(&model).unwrap().metrics;
    let out = std::env::temp_dir().join(format!("cascade-mesh-vs-sim-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_cascade-mesh"))
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let mesh: serde_json::Value = serde_json::from_str(&text).unwrap();
    // The arrivals are the simulator's own: the same requests in the window, exactly.
    assert_eq!(
        metric(&mesh, "client.web.requests"),
        sim.get("client.web.requests").unwrap()
    );
    let bands = spread["metrics"].as_object().unwrap();
    assert!(!bands.is_empty());
    for (name, band) in bands {
        let (s, m) = (sim.get(name).unwrap(), metric(&mesh, name));
        let committed = band["sim"].as_f64().unwrap();
        assert!(
            (s - committed).abs() < 1e-9,
            "{name}: the simulator gives {s}, spread.json was measured against {committed}: measure it again"
        );
        let width = band["band"].as_f64().unwrap();
        assert!(
            (m - s).abs() <= width,
            "{name}: mesh {m}, simulated {s}, band ±{width} (spread.json)"
        );
    }
}
