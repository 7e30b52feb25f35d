//! A sweep's tables hold numbers where the parameters are numbers: a duration parameter is a
//! column of milliseconds named `<path>_ms`, a text one stays text, in runs.csv, points.csv,
//! their JSON twins and the exports; chart, report, diff, merge and resume read them. And
//! `--runs-metric` narrows runs.csv (and runs.json) while the records keep every metric.

use crate::support::{Scratch, cascade, fixture, read, scratch};
use std::path::{Path, PathBuf};

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

const TIMEOUT: &str = "policy.db-client.timeout=50ms,1.5s";
const DISCIPLINE: &str = "service.db.discipline=fifo,lifo";

/// Sweeps the small scenario over a duration and a text parameter, two replications.
fn sweep(d: &Scratch, name: &str, extra: &[&str]) -> PathBuf {
    let out = d.join(name);
    let small = fixture("small.toml").display().to_string();
    let mut args = vec![
        "sweep",
        &*small,
        "--param",
        TIMEOUT,
        "--param",
        DISCIPLINE,
        "--reps",
        "2",
        "--jobs",
        "1",
        "--quiet",
        "--out",
        path(&out),
    ];
    args.extend(extra);
    cascade(&args, 0);
    out
}

fn csv(path: &Path) -> Vec<Vec<String>> {
    read(path)
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

#[test]
fn durations_are_milliseconds_and_text_stays_text() {
    let d = scratch("sweep-columns");
    let exports = d.join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    let (e_csv, e_json) = (exports.join("s.csv"), exports.join("s.json"));
    let out = sweep(
        &d,
        "s",
        &["--export-csv", path(&e_csv), "--export-json", path(&e_json)],
    );
    let runs = csv(&out.join("runs.csv"));
    assert_eq!(
        runs[0][..6],
        [
            "point",
            "variant",
            "rep",
            "seed",
            "policy.db-client.timeout_ms",
            "service.db.discipline"
        ]
    );
    // Point-major, the first parameter slowest: 50 ms with fifo, then lifo, then 1.5 s.
    let cells: Vec<(&str, &str)> = runs[1..]
        .iter()
        .map(|r| (r[4].as_str(), r[5].as_str()))
        .collect();
    assert_eq!(cells[0], ("50", "fifo"));
    assert_eq!(cells[4], ("50", "lifo"));
    assert_eq!(cells[8], ("1500", "fifo"));
    assert_eq!(cells.len(), 4 * 2 * 2);
    let points = csv(&out.join("points.csv"));
    assert_eq!(
        points[0][2..4],
        ["policy.db-client.timeout_ms", "service.db.discipline"]
    );
    assert!(points[1..].iter().all(|r| r[2] == "50" || r[2] == "1500"));
    let runs_json: serde_json::Value = serde_json::from_str(&read(&out.join("runs.json"))).unwrap();
    let params = &runs_json[0]["params"];
    assert_eq!(params["policy.db-client.timeout_ms"], serde_json::json!(50));
    assert_eq!(params["service.db.discipline"], "fifo");
    let points_json: serde_json::Value =
        serde_json::from_str(&read(&out.join("points.json"))).unwrap();
    assert_eq!(
        points_json.as_array().unwrap().last().unwrap()["params"]["policy.db-client.timeout_ms"],
        serde_json::json!(1500)
    );
    assert!(
        read(&e_csv)
            .starts_with("point,variant,policy.db-client.timeout_ms,service.db.discipline,")
    );
    let export: serde_json::Value = serde_json::from_str(&read(&e_json)).unwrap();
    let last = export["results"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["parameters"]["policy.db-client.timeout_ms"],
        serde_json::json!(1500)
    );
    assert_eq!(last["parameters"]["service.db.discipline"], "lifo");
    // The manifest keeps the values as written.
    assert!(read(&out.join("sweep.json")).contains("\"1.5s\""));

    // chart and report read the columns: a numeric axis in ms, the text one by category.
    cascade(&["chart", path(&out), "--quiet"], 0);
    let line = read(&out.join("charts/sweep-client.web.success_ratio-no-retry.svg"));
    assert!(
        line.contains("policy.db-client.timeout_ms"),
        "axis named with its unit"
    );
    assert!(line.contains("1,500"), "a tick at 1500 ms");
    let heat = read(&out.join("charts/heatmap-client.web.success_ratio-base.svg"));
    assert!(heat.contains("lifo"));
    cascade(&["report", path(&out), "--markdown"], 0);
    let report = read(&out.join("report.md"));
    assert!(report.contains("policy.db-client.timeout_ms"));
    // Captions name the run and the points each chart shows.
    assert!(
        report.contains(
            "![client.web.success_ratio of variant no-retry at the 4 points of \
         policy.db-client.timeout_ms × service.db.discipline, a cell each]"
        ),
        "{report}"
    );
    assert!(report.contains(
        "![client.web.success_ratio of the base run at the 4 points of \
         policy.db-client.timeout_ms × service.db.discipline: one line per value of \
         service.db.discipline]"
    ));
    assert!(heat.contains("success_ratio over timeout_ms × discipline — the base run"));
    assert!(
        line.contains("client.web.success_ratio by policy.db-client.timeout_ms — variant no-retry")
    );
    // Expectations are judged at every point from runs.csv.
    assert!(!report.contains("could not be judged"), "{report}");

    // The report charts the metrics asked for after the expectations', as chart does.
    cascade(
        &[
            "report",
            path(&out),
            "--markdown",
            "--metric",
            "edge.*.retries",
        ],
        0,
    );
    let narrowed = read(&out.join("report.md"));
    assert!(narrowed.contains("![edge.api.db.retries of the base run"));
    assert!(
        narrowed.contains("![client.web.success_ratio of the base run"),
        "an expectation's"
    );
    assert!(
        !narrowed.contains("![client.web.goodput_rps"),
        "a key metric not asked for"
    );
    let o = cascade(&["report", path(&out), "--metric", "edge.*.retris"], 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--metric edge.*.retris"));
    // diff pairs the points by these cells.
    let again = sweep(&d, "again", &[]);
    let o = cascade(&["diff", path(&out), path(&again)], 0);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("policy.db-client.timeout_ms=1500, service.db.discipline=lifo"),
        "{text}"
    );
    assert!(
        text.contains("8 points compared: 0 improved, 0 regressed, 0 changed"),
        "{text}"
    );

    // Shards merged give the same tables, byte for byte.
    let one = sweep(&d, "one", &["--shard", "1/2"]);
    let two = sweep(&d, "two", &["--shard", "2/2"]);
    let merged = d.join("merged");
    cascade(
        &[
            "merge",
            path(&one),
            path(&two),
            "--out",
            path(&merged),
            "--quiet",
        ],
        0,
    );
    for f in ["runs.csv", "points.csv", "runs.json", "points.json"] {
        assert_eq!(read(&merged.join(f)), read(&out.join(f)), "{f}");
    }
}

#[test]
fn runs_metric_narrows_runs_csv_and_the_records_keep_every_metric() {
    let d = scratch("sweep-runs-metric");
    let out = sweep(
        &d,
        "s",
        &[
            "--runs-metric",
            "client.web.goodput_rps",
            "--runs-metric",
            "edge.*.retries",
        ],
    );
    let runs = csv(&out.join("runs.csv"));
    // The fixed columns, the parameters, then the metrics chosen and those the scenario's
    // three [[expect]]s read, in the tables' order.
    let mut metrics: Vec<&str> = runs[0][6..].iter().map(String::as_str).collect();
    metrics.sort();
    assert_eq!(
        metrics,
        [
            "client.web.goodput_rps",
            "client.web.latency_p99_ms",
            "client.web.success_ratio",
            "edge.api.db.amplification",
            "edge.api.db.retries",
            "edge.web.api.retries",
        ]
    );
    let runs_json: serde_json::Value = serde_json::from_str(&read(&out.join("runs.json"))).unwrap();
    assert_eq!(runs_json[0]["metrics"].as_object().unwrap().len(), 6);
    // points.csv and every record keep every metric.
    let record = read(&out.join("runs/run-000000.json"));
    assert!(record.contains("\"service.db.utilization\""));
    assert!(read(&out.join("points.csv")).contains(",service.db.utilization,"));
    let manifest = read(&out.join("sweep.json"));
    assert!(manifest.contains("\"runs_metrics\""), "{manifest}");
    // The report still judges every expectation from the narrowed runs.csv.
    cascade(&["report", path(&out), "--markdown"], 0);
    assert!(!read(&out.join("report.md")).contains("could not be judged"));

    // Resume: the same patterns resume; others are another sweep, refused naming both.
    let small = fixture("small.toml").display().to_string();
    let base = [
        "sweep",
        &*small,
        "--param",
        TIMEOUT,
        "--param",
        DISCIPLINE,
        "--reps",
        "2",
        "--out",
        path(&out),
    ];
    let o = cascade(
        &[
            &base[..],
            &[
                "--runs-metric",
                "client.web.goodput_rps",
                "--runs-metric",
                "edge.*.retries",
            ],
        ]
        .concat(),
        0,
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("16 already done, skipped"));
    let o = cascade(&base, 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("one keeps client.web.goodput_rps, edge.*.retries, the other every metric"),
        "{err}"
    );
    // Shards merged keep the narrowing.
    let narrow = [
        "--runs-metric",
        "client.web.goodput_rps",
        "--runs-metric",
        "edge.*.retries",
    ];
    let one = sweep(&d, "one", &[&narrow[..], &["--shard", "1/2"]].concat());
    let two = sweep(&d, "two", &[&narrow[..], &["--shard", "2/2"]].concat());
    let merged = d.join("merged");
    cascade(
        &[
            "merge",
            path(&one),
            path(&two),
            "--out",
            path(&merged),
            "--quiet",
        ],
        0,
    );
    assert_eq!(read(&merged.join("runs.csv")), read(&out.join("runs.csv")));
    // A pattern that matches nothing stops the sweep before it runs.
    let o = cascade(
        &[
            &base[..2],
            &[
                "--param",
                TIMEOUT,
                "--runs-metric",
                "client.web.goodput",
                "--out",
                path(&d.join("x")),
            ],
        ]
        .concat(),
        2,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--runs-metric client.web.goodput: the sweep has no such metric"),
        "{err}"
    );
    assert!(!d.join("x").exists());
}
