//! Output files: nothing written on exit 2, a run directory's files always from one run, and
//! what is already at an output path (a symlink, a FIFO, a device) kept, not replaced.

use crate::support::{cascade, scratch, small_run};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

const TINY: &str = r#"[scenario]
name = "tiny"
duration = "1s"
seed = 1

[[client]]
name = "c"
target = "s"
rate = 20

[[service]]
name = "s"
workers = 2
work = "5ms"
"#;

/// A path as an argument. Leaked: a test's few paths live as long as the test process anyway,
/// and argument lists stay one expression.
fn s(p: &Path) -> &'static str {
    Box::leak(p.to_str().unwrap().to_string().into_boxed_str())
}

/// Every `.tmp` file under `dir` (none may be left after a command ends).
fn temp_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if name.starts_with(".tmp") {
                found.push(e.path().display().to_string());
            }
        }
    }
    found
}

#[test]
fn a_trace_into_a_missing_directory_is_refused_before_anything_is_written() {
    let d = scratch("files-trace-missing");
    std::fs::write(d.join("t.toml"), TINY).unwrap();
    let (out, trace) = (d.join("out"), d.join("nowhere/trace.csv"));
    let err = cascade(
        &[
            "run",
            s(&d.join("t.toml")),
            "--out",
            s(&out),
            "--trace",
            s(&trace),
        ],
        2,
    );
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(
        err.contains("nowhere") && err.contains("does not exist"),
        "{err}"
    );
    assert!(!out.exists(), "the run's files were written");
    assert!(!d.join("nowhere").exists(), "a directory was made");
}

#[test]
fn a_trace_that_cannot_be_written_leaves_no_result_files() {
    let d = scratch("files-trace-dir");
    std::fs::write(d.join("t.toml"), TINY).unwrap();
    let out = d.join("out");
    // The trace's path is a directory: refused, and the four result files are not written.
    let args = [
        "run",
        s(&d.join("t.toml")),
        "--out",
        s(&out),
        "--trace",
        s(&d),
    ];
    cascade(&args, 2);
    assert!(!out.exists());
    assert!(temp_files(&d).is_empty(), "{:?}", temp_files(&d));
}

#[test]
fn a_run_directory_never_mixes_files_of_two_runs() {
    let d = scratch("files-mix");
    std::fs::write(d.join("t.toml"), TINY).unwrap();
    let out = d.join("out");
    cascade(&["run", s(&d.join("t.toml")), "--out", s(&out), "-q"], 0);
    // The second run cannot write timeseries.csv (a directory stands there): it stops with
    // exit 2 part-way, as a killed run would.
    std::fs::remove_file(out.join("timeseries.csv")).unwrap();
    std::fs::create_dir(out.join("timeseries.csv")).unwrap();
    let args = [
        "run",
        s(&d.join("t.toml")),
        "--seed",
        "2",
        "--out",
        s(&out),
        "-q",
    ];
    cascade(&args, 2);
    let seed = |f: &str| -> Option<u64> {
        let text = std::fs::read_to_string(out.join(f)).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["seed"].as_u64()
    };
    let seeds: Vec<u64> = ["summary.json", "run.json"]
        .iter()
        .filter_map(|f| seed(f))
        .collect();
    assert!(
        seeds.windows(2).all(|w| w[0] == w[1]),
        "files of two runs side by side: seeds {seeds:?}"
    );
    assert!(temp_files(&d).is_empty(), "{:?}", temp_files(&d));
    // A run that succeeds replaces the whole set.
    std::fs::remove_dir(out.join("timeseries.csv")).unwrap();
    cascade(&args, 0);
    assert_eq!((seed("summary.json"), seed("run.json")), (Some(2), Some(2)));
    assert!(out.join("timeseries.csv").is_file() && out.join("scenario.toml").is_file());
}

#[test]
fn chart_refuses_a_run_directory_without_its_time_series() {
    let d = scratch("files-chart");
    small_run(&d);
    cascade(&["chart", s(&d), "-q"], 0);
    let charts = crate::support::snapshot(&d.join("charts"));
    assert!(!charts.is_empty());
    std::fs::remove_file(d.join("timeseries.csv")).unwrap();
    let err = cascade(&["chart", s(&d), "-q"], 2);
    assert!(String::from_utf8_lossy(&err.stderr).contains("timeseries.csv"));
    assert_eq!(
        crate::support::snapshot(&d.join("charts")),
        charts,
        "charts overwritten"
    );
    cascade(&["report", s(&d), "-q"], 2);
    assert!(!d.join("report.html").exists());
}

#[test]
fn a_symlinked_trace_is_written_through_and_stays_a_link() {
    let d = scratch("files-link");
    std::fs::write(d.join("t.toml"), TINY).unwrap();
    std::fs::create_dir(d.join("real")).unwrap();
    std::fs::write(d.join("real/trace.csv"), "old").unwrap();
    std::os::unix::fs::symlink("real/trace.csv", d.join("trace.csv")).unwrap();
    // A symlinked --out directory keeps working too.
    std::os::unix::fs::symlink("real", d.join("out")).unwrap();
    let args = [
        "run",
        s(&d.join("t.toml")),
        "--out",
        s(&d.join("out")),
        "-q",
    ];
    let mut with_trace = args.to_vec();
    with_trace.extend(["--trace", s(&d.join("trace.csv"))]);
    cascade(&with_trace, 0);
    let link = std::fs::symlink_metadata(d.join("trace.csv")).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    let trace = std::fs::read_to_string(d.join("real/trace.csv")).unwrap();
    assert!(trace.starts_with("time_ns,"), "{trace}");
    assert!(
        std::fs::symlink_metadata(d.join("out"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(d.join("real/summary.json").is_file());
    assert!(temp_files(&d).is_empty(), "{:?}", temp_files(&d));
}

#[test]
fn a_fifo_trace_is_streamed_to_not_replaced() {
    let d = scratch("files-fifo");
    std::fs::write(d.join("t.toml"), TINY).unwrap();
    let fifo = d.join("trace.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        // Opening blocks until cascade opens the FIFO to write; the read ends when it closes.
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let args = [
        "run",
        s(&d.join("t.toml")),
        "--out",
        s(&d.join("out")),
        "-q",
    ];
    let mut with_trace = args.to_vec();
    with_trace.extend(["--trace", s(&fifo)]);
    cascade(&with_trace, 0);
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by a file");
    let trace = reader.join().unwrap();
    assert!(trace.starts_with("time_ns,"), "{trace}");
}

#[test]
fn a_trace_to_dev_stdout_is_printed() {
    let d = scratch("files-stdout");
    std::fs::write(d.join("t.toml"), TINY).unwrap();
    let args = [
        "run",
        s(&d.join("t.toml")),
        "--out",
        s(&d.join("out")),
        "-q",
    ];
    let mut with_trace = args.to_vec();
    with_trace.extend(["--trace", "/dev/stdout"]);
    let out = cascade(&with_trace, 0);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("time_ns,"));
    assert!(!std::fs::symlink_metadata("/dev/stdout").unwrap().is_file());
}

#[test]
fn merge_refuses_a_truncated_scenario() {
    let d = scratch("files-merge");
    std::fs::write(d.join("t.toml"), TINY).unwrap();
    for k in ["1", "2"] {
        let dir = d.join(format!("shard{k}"));
        let shard = format!("{k}/2");
        let args = [
            "sweep",
            s(&d.join("t.toml")),
            "--param",
            "client.c.rate=10,20",
        ];
        let mut args = args.to_vec();
        args.extend(["--shard", &shard, "--out", s(&dir), "-q"]);
        cascade(&args, 0);
    }
    let scenario = d.join("shard1/scenario.toml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    std::fs::write(&scenario, &text[..text.len() / 2]).unwrap();
    let merged = d.join("merged");
    let args = [
        "merge",
        s(&d.join("shard1")),
        s(&d.join("shard2")),
        "--out",
        s(&merged),
    ];
    let err = cascade(&args, 2);
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(
        err.contains("shard1/scenario.toml") && err.contains("truncated"),
        "{err}"
    );
    assert!(!merged.exists());
}

#[test]
fn check_of_a_directory_skips_dot_files() {
    let d = scratch("files-dot");
    let gate = format!(
        "{TINY}\n[[expect]]\nmetric = \"client.c.success_ratio\"\nop = \">\"\nvalue = 0.5\n"
    );
    std::fs::write(d.join("gate.toml"), gate).unwrap();
    // An editor's lock file and a macOS resource fork: not scenarios.
    std::fs::write(d.join(".#gate.toml"), "not toml [").unwrap();
    std::fs::write(d.join("._gate.toml"), [0u8, 5, 22]).unwrap();
    let out = cascade(&["check", s(&d)], 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 check in 1 scenario"));
}
