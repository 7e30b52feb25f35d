//! Golden outputs: one run with a variant, runs with operations, overload physics and
//! orchestration, one sweep with its exports, one `check` with JUnit,
//! and the reports, compared byte for byte with `tests/golden/`. They pin every output file
//! (by hash where it is large), so a change of behaviour anywhere shows up here as a diff to
//! review; `CASCADE_BLESS=1 cargo test --profile test-release` regenerates them after an intended
//! change.

use crate::support::golden::{
    assert_golden, assert_golden_dir, command_text, mask_junit_times, placeholders,
};
use crate::support::{cascade, fixture, scratch};

/// The small scenario: 10 s, an outage, retries and a breaker, a variant, three expectations
/// (one of which fails).
fn small() -> String {
    fixture("small.toml").display().to_string()
}

#[test]
fn golden_run_with_a_variant() {
    let dir = scratch("golden-run");
    let out = dir.join("run");
    let o = cascade(&["run", &small(), "--out", out.to_str().unwrap()], 0);
    assert_golden("run/command.txt", &command_text(&o, &dir));
    assert_golden_dir(
        "run/files",
        &out,
        &[
            "summary.json",
            "scenario.toml",
            "no-retry/summary.json",
            "no-retry/scenario.toml",
        ],
    );
}

/// `cascade run` on `scenario` of scenarios/ with `sets` (`--set` values), its output and the
/// `files` of its `--out` compared with `tests/golden/<name>/`.
fn golden_library_run(name: &str, scenario: &str, sets: &[&str], files: &[&str]) {
    let dir = scratch(&format!("golden-{name}"));
    let out = dir.join("run");
    let scenario = crate::support::golden::repo()
        .join("scenarios")
        .join(scenario);
    let mut args = vec![
        "run".to_string(),
        scenario.display().to_string(),
        "--out".to_string(),
        out.display().to_string(),
    ];
    for set in sets {
        args.extend(["--set".to_string(), set.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = cascade(&args, 0);
    assert_golden(&format!("{name}/command.txt"), &command_text(&o, &dir));
    assert_golden_dir(&format!("{name}/files"), &out, files);
}

/// The gateway of scenarios/ (operations, a client's mix, cache-aside steps, a partition, a
/// fault on one operation) with its variant: every per-operation metric pinned.
#[test]
fn golden_run_with_operations() {
    golden_library_run(
        "operations",
        "gateway.toml",
        &[],
        &["summary.json", "no-cap/summary.json"],
    );
}

/// The late autoscaler of scenarios/ (an HPA with its behaviours, cold starts, a drain) with
/// slow start set on top, and its two variants: the orchestration metrics and the instance
/// count over time pinned.
#[test]
fn golden_run_with_orchestration() {
    golden_library_run(
        "orchestration",
        "late-autoscaler.toml",
        &["service.api.slow_start={ window = \"60s\" }"],
        &[
            "summary.json",
            "timeseries.csv",
            "quick/summary.json",
            "late/summary.json",
        ],
    );
}

/// Issue 16's call semantics pinned: a pool shared by a caller's two database operations
/// (`bulkhead.pool`, `release = "answer"`: the pool's time averages), and Finagle's
/// per-host failure accrual (removals, probes, revivals, panics).
#[test]
fn golden_runs_with_call_semantics() {
    golden_library_run("pool", "db-pool-shared.toml", &[], &["summary.json"]);
    golden_library_run("accrual", "finagle-accrual.toml", &[], &["summary.json"]);
}

/// The refusal storm of scenarios/ (`reject_work`) with a contention law and work after the
/// calls set on top, and its two variants: the overload physics' metrics pinned.
#[test]
fn golden_run_with_overload_physics() {
    golden_library_run(
        "overload",
        "refusal-storm.toml",
        &[
            "scenario.duration=60s",
            "service.api.contention={ k = 0.05, knee = 4 }",
            "service.api.after_work=\"1ms\"",
        ],
        &[
            "summary.json",
            "no-cure/summary.json",
            "free-refusals/summary.json",
        ],
    );
}

#[test]
fn golden_sweep_with_exports() {
    let dir = scratch("golden-sweep");
    let out = dir.join("sweep");
    let exports = dir.join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    let export = |f: &str| exports.join(f).display().to_string();
    let o = cascade(
        &[
            "sweep",
            &small(),
            "--param",
            "client.web.rate=100,200",
            "--reps",
            "2",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
            "--export-markdown",
            &export("sweep.md"),
            "--export-csv",
            &export("sweep.csv"),
            "--export-json",
            &export("sweep.json"),
        ],
        0,
    );
    assert_golden("sweep/command.txt", &command_text(&o, &dir));
    assert_golden_dir(
        "sweep/files",
        &out,
        &["runs.csv", "points.csv", "sweep.json", "scenario.toml"],
    );
    assert_golden_dir(
        "sweep/exports",
        &exports,
        &["sweep.md", "sweep.csv", "sweep.json"],
    );
}

#[test]
fn golden_check_with_junit() {
    let dir = scratch("golden-check");
    let junit = dir.join("out/junit.xml");
    std::fs::create_dir_all(junit.parent().unwrap()).unwrap();
    let o = cascade(&["check", &small(), "--junit", junit.to_str().unwrap()], 1);
    assert_golden("check/command.txt", &command_text(&o, &dir));
    // Its only file, compared as text: `time=` is wall clock, and the reproduce line names the
    // fixture by its path in this checkout.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_golden(
        "check/junit.xml",
        &mask_junit_times(&placeholders(&xml, &dir)),
    );
}

#[test]
fn golden_reports() {
    let dir = scratch("golden-report");
    let out = dir.join("run");
    cascade(
        &["run", &small(), "--out", out.to_str().unwrap(), "--quiet"],
        0,
    );
    let html = cascade(&["report", out.to_str().unwrap()], 0);
    let markdown = cascade(&["report", out.to_str().unwrap(), "--markdown"], 0);
    let commands = format!(
        "{}{}",
        command_text(&html, &dir),
        command_text(&markdown, &dir)
    );
    assert_golden("report/commands.txt", &commands);
    assert_golden_dir("report/files", &out, &["report.md", "report.html"]);
}
