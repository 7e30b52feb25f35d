//! Sweeps bigger than one sitting: shards joined by `cascade merge`, resumed sweeps, and the
//! exports, all byte-identical to one unsharded, uninterrupted sweep.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

const SCENARIO: &str = r#"[scenario]
name = "shardme"
duration = "10s"
seed = 11

[[client]]
name = "c"
target = "s"
rate = 300
policy = "p"

[[service]]
name = "s"
workers = 4
work = { dist = "exponential", mean = "10ms" }

[policy.p]
timeout = "50ms"
retry = { attempts = 2 }

[[variant]]
name = "no-retry"
set = { "policy.p.retry.attempts" = 1 }
"#;

fn dir(tag: &str) -> support::Scratch {
    let d = support::scratch(&format!("shards-{tag}"));
    std::fs::write(d.join("s.toml"), SCENARIO).unwrap();
    d
}

const GRID: [&str; 6] = [
    "--param",
    "service.s.workers=3..5:1",
    "--param",
    "client.c.rate=200,300",
    "--reps",
    "2",
];

fn cascade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(args)
        .output()
        .unwrap()
}

fn sweep(d: &Path, out: &str, extra: &[&str]) -> Output {
    let scenario = d.join("s.toml");
    let out = d.join(out);
    let mut args = vec![
        "sweep",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend(GRID);
    args.extend(extra);
    let o = cascade(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn assert_same_files(a: &Path, b: &Path) {
    let (fa, fb) = (support::snapshot(a), support::snapshot(b));
    assert_eq!(
        fa.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        fb.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        "file lists differ"
    );
    for ((name, x), (_, y)) in fa.iter().zip(&fb) {
        assert!(x == y, "{} differs", name.display());
    }
}

#[test]
fn shards_merged_equal_the_unsharded_sweep_byte_for_byte() {
    let d = dir("merge");
    sweep(&d, "whole", &[]);
    // 3 x 2 points x 2 variants x 2 replications.
    let runs = std::fs::read_to_string(d.join("whole/runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 24);
    for k in 1..=3 {
        sweep(&d, &format!("shard{k}"), &["--shard", &format!("{k}/3")]);
        // A slice has its records but not the tables of the whole sweep.
        assert!(!d.join(format!("shard{k}/runs.csv")).exists());
        assert_eq!(
            std::fs::read_dir(d.join(format!("shard{k}/runs")))
                .unwrap()
                .count(),
            8
        );
    }
    let dirs: Vec<String> = (1..=3)
        .map(|k| d.join(format!("shard{k}")).display().to_string())
        .collect();
    let merged = d.join("merged");
    let mut args = vec!["merge", "--quiet", "--out", merged.to_str().unwrap()];
    args.extend(dirs.iter().map(String::as_str));
    let o = cascade(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_same_files(&d.join("whole"), &merged);
}

#[test]
fn a_merge_with_a_shard_missing_writes_no_tables_and_says_so() {
    let d = dir("missing");
    for k in 1..=2 {
        sweep(&d, &format!("shard{k}"), &["--shard", &format!("{k}/3")]);
    }
    let merged = d.join("merged");
    let (s1, s2) = (d.join("shard1"), d.join("shard2"));
    let o = cascade(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
    ]);
    // Incomplete is an error a pipeline cannot miss, and no tables are written.
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("8 of the sweep's 24 runs are missing"),
        "{err}"
    );
    assert!(!merged.join("points.csv").exists());
    // The third shard, run into the merged directory, completes it.
    sweep(&d, "merged", &["--shard", "3/3"]);
    sweep(&d, "whole", &[]);
    assert_same_files(&d.join("whole"), &merged);
}

#[test]
fn shards_of_different_sweeps_are_not_merged() {
    let d = dir("foreign");
    sweep(&d, "a", &["--shard", "1/2"]);
    sweep(&d, "b", &["--shard", "2/2", "--set", "scenario.seed=12"]);
    let (a, b, m) = (d.join("a"), d.join("b"), d.join("m"));
    let o = cascade(&[
        "merge",
        "--out",
        m.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("different sweeps"), "{err}");
    // Nor is another sweep resumed into a directory that holds one.
    let scenario = d.join("s.toml");
    let o = cascade(&[
        "sweep",
        scenario.to_str().unwrap(),
        "--out",
        a.to_str().unwrap(),
        "--param",
        "service.s.workers=9",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("another sweep"));
}

#[test]
fn a_resumed_sweep_skips_finished_runs_and_ends_identical() {
    let d = dir("resume");
    sweep(&d, "whole", &[]);
    sweep(&d, "resumed", &[]);
    // An interrupted sitting: some records and every table missing, a temporary file left.
    let resumed = d.join("resumed");
    for f in ["runs.csv", "points.csv", "runs.json", "points.json"] {
        std::fs::remove_file(resumed.join(f)).unwrap();
    }
    for i in [0, 5, 6, 23] {
        std::fs::remove_file(resumed.join(format!("runs/run-{i:06}.json"))).unwrap();
    }
    std::fs::write(resumed.join("runs/.run-000005.json.tmp99"), "{\"ind").unwrap();
    let scenario = d.join("s.toml");
    let mut args = vec![
        "sweep",
        scenario.to_str().unwrap(),
        "--out",
        resumed.to_str().unwrap(),
    ];
    args.extend(GRID);
    let o = cascade(&args);
    assert_eq!(o.status.code(), Some(0));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("ran 4 runs (20 already done, skipped)"),
        "{said}"
    );
    std::fs::remove_file(resumed.join("runs/.run-000005.json.tmp99")).unwrap();
    assert_same_files(&d.join("whole"), &resumed);
}

#[test]
fn a_killed_sweep_resumes_to_the_same_files() {
    let d = dir("killed");
    let scenario = d.join("s.toml");
    let killed = d.join("killed");
    let mut args: Vec<&str> = vec![
        "sweep",
        scenario.to_str().unwrap(),
        "--out",
        killed.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "1",
        "--set",
        "scenario.duration=\"60s\"",
    ];
    args.extend(GRID);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(&args)
        .spawn()
        .unwrap();
    // Kill it once the first record is down (or whenever it has finished).
    let first = killed.join("runs/run-000000.json");
    while !first.exists() && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.kill();
    child.wait().unwrap();
    // Whatever the kill interrupted, no table is half written: either absent or whole.
    if let Ok(points) = std::fs::read_to_string(killed.join("points.csv")) {
        assert!(points.ends_with('\n'));
    }
    let o = cascade(&args);
    assert_eq!(o.status.code(), Some(0));
    let whole = d.join("whole");
    args[3] = whole.to_str().unwrap();
    assert_eq!(cascade(&args).status.code(), Some(0));
    for f in ["runs.csv", "points.csv", "runs.json", "points.json"] {
        assert!(
            std::fs::read(killed.join(f)).unwrap() == std::fs::read(whole.join(f)).unwrap(),
            "{f} differs after the resume"
        );
    }
}

#[test]
fn variants_are_a_dimension_of_the_sweep_on_common_random_numbers() {
    let d = dir("variants");
    sweep(&d, "out", &[]);
    let runs = std::fs::read_to_string(d.join("out/runs.csv")).unwrap();
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = runs
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // Plan order: point, then variant, then replication; both variants share the seeds.
    let order: Vec<(&str, &str, &str)> = rows[..4].iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(
        order,
        [
            ("0", "base", "0"),
            ("0", "base", "1"),
            ("0", "no-retry", "0"),
            ("0", "no-retry", "1")
        ]
    );
    assert_eq!(rows[0][3], rows[2][3]);
    // Same arrivals (common random numbers); the variant without retries sends no retry.
    let (requests, retries) = (col("client.c.requests"), col("edge.c.s.retries"));
    assert_eq!(rows[0][requests], rows[2][requests]);
    assert!(rows[0][retries].parse::<f64>().unwrap() > 0.0);
    assert_eq!(rows[2][retries], "0");
}

#[test]
fn exports_follow_hyperfine_and_parse() {
    let d = dir("exports");
    let (md, csv, json) = (d.join("h.md"), d.join("h.csv"), d.join("h.json"));
    sweep(
        &d,
        "out",
        &[
            "--metric",
            "client.c.success_ratio",
            "--metric",
            "edge.*.retries",
            "--export-markdown",
            md.to_str().unwrap(),
            "--export-csv",
            csv.to_str().unwrap(),
            "--export-json",
            json.to_str().unwrap(),
        ],
    );
    let md = std::fs::read_to_string(md).unwrap();
    // A header, a rule and one row per point and variant.
    let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), 2 + 12, "{md}");
    assert!(table[0].contains("client.c.success_ratio") && table[0].contains("edge.c.s.retries"));
    assert!(md.contains("95% confidence interval"));
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(csv.lines().count(), 1 + 12);
    assert!(
        csv.starts_with(
            "point,variant,service.s.workers,client.c.rate,client.c.success_ratio_mean,"
        )
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 12);
    assert_eq!(results[1]["variant"], "no-retry");
    // A numeric parameter is a JSON number.
    assert_eq!(
        results[0]["parameters"]["service.s.workers"].as_f64(),
        Some(3.0)
    );
    let m = &results[0]["metrics"]["client.c.success_ratio"];
    assert!(m["ci95_low"].as_f64().unwrap() <= m["mean"].as_f64().unwrap());
    // The tables' JSON twins parse and hold every run and point.
    let runs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/runs.json")).unwrap()).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 24);
    let points: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/points.json")).unwrap()).unwrap();
    assert_eq!(points.as_array().unwrap().len(), 12);
    // A metric pattern that matches nothing is an error, not an empty column.
    let o = cascade(&[
        "merge",
        d.join("out").to_str().unwrap(),
        "--out",
        d.join("out").to_str().unwrap(),
        "--metric",
        "client.c.sucess_ratio",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("did you mean"));
}

#[test]
fn shards_running_at_once_into_one_directory_leave_the_whole_sweep() {
    let d = dir("shared");
    let scenario = d.join("s.toml");
    let shared = d.join("shared");
    // Each shard counts the records again after its own runs, so whichever counts last sees
    // every record and writes the tables, however the two interleave.
    let children: Vec<_> = (1..=2)
        .map(|k| {
            let mut args = vec![
                "sweep".to_string(),
                scenario.display().to_string(),
                "--out".into(),
                shared.display().to_string(),
                "--quiet".into(),
                "--jobs".into(),
                "1".into(),
                "--shard".into(),
                format!("{k}/2"),
            ];
            args.extend(GRID.iter().map(|s| s.to_string()));
            Command::new(env!("CARGO_BIN_EXE_cascade"))
                .args(&args)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    sweep(&d, "whole", &[]);
    assert_same_files(&d.join("whole"), &shared);
}
