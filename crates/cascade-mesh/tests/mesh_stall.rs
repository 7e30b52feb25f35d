//! A stall on the mesh, against figures computed by hand (`tests/scenarios/stall.toml`): one
//! worker, a request every 100 ms (at 0.1 s, 0.2 s, ..., 1.9 s: 19) of 60 ms constant work, a
//! queue of 3, a stall from 430 ms to 930 ms. By the simulator's rule (docs/scenario.md,
//! `stall`):
//!
//! - the request of 0.4 s works 30 ms, is paused 500 ms, works its last 30 ms: it ends at
//!   0.96 s, 560 ms after it arrived, the run's longest latency;
//! - those of 0.5, 0.6 and 0.7 s queue (no worker is taken during a stall), and those of 0.8
//!   and 0.9 s find the queue full: answered `overloaded` at once;
//! - from 0.96 s the queue drains one request per 60 ms: 0.5 s ends at 1.02 s (520 ms), 0.6 s at
//!   1.08 s (480), 0.7 s at 1.14 s (440), 1.0 s at 1.2 s (200), 1.1 s at 1.26 s (160), 1.2 s at
//!   1.32 s (120), 1.3 s at 1.38 s (80); the other eight take 60 ms;
//! - so 17 successes, 2 overloaded, a mean latency of (8 × 60 + 560 + 520 + 480 + 440 + 200 +
//!   160 + 120 + 80 + 2 × 0) / 19 = 3,100 / 19 = 163.16 ms and a p99 (the 19th of 19) of 560.
//!
//! Had the stall held the queue without pausing the work, the longest would be 490 ms; had it
//! been ignored, 60 ms and no refusal. The mesh adds its own overhead to each latency: a hop
//! each way (1.7 ms at the median on this loaded machine, docs/sim-vs-real.md) and a
//! scheduler's hand-off per job along the backlog; 10 ms is the band, above the hand figure
//! only. Wall-clock (CONTRIBUTING.md), behind the `wall-clock` feature; `.ci/run` runs it with
//! the other mesh tests (about 3 s).
#![cfg(feature = "wall-clock")]

use std::path::Path;
use std::process::Command;

#[test]
fn a_stall_pauses_the_work_and_holds_the_queue_as_computed_by_hand() {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/stall.toml");
    // The simulator gives the hand figures exactly.
    let model = cascade::scenario::load(&scenario, &[]).unwrap().model;
    let sim = cascade::simulate(&model).unwrap().metrics;
    let hand_mean = 3_100.0 / 19.0;
    assert_eq!(sim.get("client.web.requests"), Some(19.0));
    assert_eq!(sim.get("client.web.errors.overloaded"), Some(2.0));
    let sim_mean = sim.get("client.web.latency_mean_ms").unwrap();
    assert!((sim_mean - hand_mean).abs() < 1e-6, "simulated {sim_mean}");

    let out = std::env::temp_dir().join(format!("cascade-mesh-stall-{}", std::process::id()));
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
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let metric = |name: &str| {
        summary["metrics"][name]
            .as_f64()
            .unwrap_or_else(|| panic!("no metric {name}"))
    };
    assert_eq!(metric("client.web.requests"), 19.0);
    assert_eq!(metric("client.web.errors.overloaded"), 2.0);
    assert_eq!(metric("client.web.success"), 17.0);
    assert_eq!(metric("service.api.rejected"), 2.0);
    let (mean, p99) = (
        metric("client.web.latency_mean_ms"),
        metric("client.web.latency_p99_ms"),
    );
    eprintln!("mesh: mean {mean:.2} ms (hand {hand_mean:.2}), p99 {p99:.2} ms (hand 560)");
    assert!(
        (hand_mean..hand_mean + 10.0).contains(&mean),
        "mean latency {mean} ms, by hand {hand_mean}"
    );
    assert!((560.0..570.0).contains(&p99), "p99 {p99} ms, by hand 560");
}
