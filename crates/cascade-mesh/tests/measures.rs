//! What the mesh measures beyond counts, each on a small case whose answer is known by hand:
//! wasted work, the adaptive limit's level, a mix's per-operation metrics. Wall-clock tests
//! (CONTRIBUTING.md), behind the `wall-clock` feature and not in CI (about 12 s of runs):
//! `cargo test -p cascade-mesh --profile test-release --features wall-clock --test measures --
//! --test-threads=1`. Their bands are counts times the hold's and the timer's error, never
//! a time taken.
#![cfg(feature = "wall-clock")]

use std::path::{Path, PathBuf};
use std::process::Command;

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/scenarios/{name}"))
}

/// The mesh's run of `name` (with `set` overrides): its summary, and its time series by
/// (metric, bucket).
fn mesh(name: &str, set: &[&str]) -> (serde_json::Value, Vec<(String, usize, f64)>) {
    let out = std::env::temp_dir().join(format!(
        "cascade-mesh-measures-{}-{name}-{}",
        std::process::id(),
        set.len()
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cascade-mesh"));
    cmd.arg("run").arg(scenario(name)).arg("--out").arg(&out);
    for s in set {
        cmd.arg("--set").arg(s);
    }
    assert!(cmd.status().unwrap().success());
    let summary =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let csv = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let series = (csv.lines().skip(1))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[1].to_string(),
                f[0].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    (summary, series)
}

fn metric(summary: &serde_json::Value, name: &str) -> f64 {
    summary["metrics"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("no metric {name}"))
}

fn simulated(name: &str, set: &[&str]) -> cascade::metrics::RunMetrics {
    let overrides: Vec<_> = (set.iter())
        .map(|s| cascade::scenario::Override::parse(s).unwrap())
        .collect();
    let model = cascade::scenario::load(&scenario(name), &overrides)
        .unwrap()
        .model;
    cascade::simulate(&model).unwrap().metrics
}

#[test]
fn a_caller_that_gave_up_leaves_the_rest_of_the_hold_wasted() {
    let (m, _) = mesh("wasted.toml", &[]);
    let sim = simulated("wasted.toml", &[]);
    let timeouts = metric(&m, "edge.front.back.errors.timeout");
    // By hand: every call times out at 20 ms of a 50 ms hold, 30 ms wasted each (the last
    // ones cut at the run's end, as the simulator cuts them).
    assert!(timeouts >= 50.0, "{timeouts} timeouts");
    let (w, s) = (
        metric(&m, "service.back.wasted_work_s"),
        sim.get("service.back.wasted_work_s").unwrap(),
    );
    assert!((s - 52.0 * 0.030).abs() < 0.1, "simulated {s}");
    // The caller's reset reaches the callee a hop later, and a timer fires up to a few ms
    // late: 3 ms a job (a tenth of the 30 ms) is the band.
    assert!((w - s).abs() <= timeouts * 0.003, "mesh {w}, simulated {s}");
    assert_eq!(metric(&m, "service.front.wasted_work_s"), 0.0);
    // A caller that cancels stops the work with the stream: nothing wasted.
    let (c, _) = mesh("wasted.toml", &["policy.short.cancel=true"]);
    assert_eq!(metric(&c, "service.back.wasted_work_s"), 0.0);
}

#[test]
fn the_adaptive_limit_backs_off_to_its_floor_and_its_level_is_the_time_average() {
    let (m, series) = mesh("limit.toml", &[]);
    let sim = simulated("limit.toml", &[]);
    // Every call is a drop (30 ms over the 10 ms timeout): 10, 9, 8, ..., 2 within the
    // first 8 calls, in the warm-up; the measured window sits at the floor.
    assert_eq!(metric(&m, "edge.front.back.limit_mean"), 2.0);
    assert_eq!(sim.get("edge.front.back.limit_mean").unwrap(), 2.0);
    let first: Vec<f64> = (series.iter())
        .filter(|(n, b, _)| n == "edge.front.back.limit_mean" && *b == 0)
        .map(|(_, _, v)| *v)
        .collect();
    // The first bucket averages the descent: within 0.1 of a permit of the simulator's.
    let s0 = 3.446103015;
    assert_eq!(first.len(), 1);
    assert!(
        (first[0] - s0).abs() < 0.1,
        "mesh {}, simulated {s0}",
        first[0]
    );
    assert!(metric(&m, "edge.front.back.limited") > 0.0);
}

#[test]
fn a_mix_is_measured_per_operation_on_the_simulators_own_draws() {
    let (m, _) = mesh("mix.toml", &[]);
    let sim = simulated("mix.toml", &[]);
    for name in [
        "client.web.requests",
        "client.web.op.read.requests",
        "client.web.op.write.requests",
    ] {
        assert_eq!(metric(&m, name), sim.get(name).unwrap(), "{name}");
    }
    // A request started in the last few ms is answered past the run's end on the mesh (its
    // hop costs about 2 ms more), and then counts as unfinished: at most two of them.
    for name in [
        "client.web.op.read.success",
        "client.web.op.write.errors.deadline_exceeded",
    ] {
        let (got, want) = (metric(&m, name), sim.get(name).unwrap());
        assert!(
            got <= want && got >= want - 2.0,
            "{name}: mesh {got}, simulated {want}"
        );
    }
    assert_eq!(metric(&m, "client.web.op.read.success_ratio"), 1.0);
    assert_eq!(metric(&m, "client.web.op.write.success"), 0.0);
    let writes = metric(&m, "client.web.op.write.requests");
    assert!(writes > 10.0);
    // Each write's client gave up at 5 ms of its 20 ms: 15 ms wasted, less the timer's
    // lateness (tokio's wheel rounds the deadline up to a ms, the scheduler adds its delay).
    let w = metric(&m, "service.api.wasted_work_s");
    assert!(
        (w - writes * 0.015).abs() <= writes * 0.004,
        "{w} wasted over {writes} writes"
    );
}
