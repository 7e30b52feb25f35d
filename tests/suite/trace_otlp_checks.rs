//! `--trace-format otlp` on whole scenarios: the output parsed with OpenTelemetry's own
//! protocol definitions (tests/scripts/check_otlp.py, PyPI `opentelemetry-proto`, which
//! .ci/run installs: a missing package fails the test, it is not skipped), the same bytes from
//! the same seed, `--trace-sample` keeping whole trees by request id, and bad flags refused
//! before anything is written.

use crate::support::{cascade, read, run_traced, scratch};
use crate::trace_otlp::{EPOCH_S, TINY_RETRY, spans};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .to_str()
        .unwrap()
        .to_string()
}

/// Runs `scenario` for `duration` with an otlp trace and `extra` flags; the trace's path.
fn otlp_file(dir: &Path, name: &str, scenario: &str, duration: &str, extra: &[&str]) -> PathBuf {
    let json = dir.join(format!("{name}.json"));
    let out = dir.join(format!("{name}-out"));
    let set = format!("scenario.duration={duration}");
    let epoch = EPOCH_S.to_string();
    let mut args = vec![
        "--set",
        &set,
        "--set",
        "scenario.warmup=0s",
        "--trace-format",
        "otlp",
        "--trace-epoch",
        &epoch,
    ];
    args.extend(extra);
    run_traced(Path::new(scenario), &out, &json, &args);
    json
}

fn check_with_opentelemetry_proto(file: &Path) -> String {
    let out = Command::new("python3")
        .arg(repo("tests/scripts/check_otlp.py"))
        .arg(file)
        .arg("--epoch")
        .arg((EPOCH_S * 1_000_000_000).to_string())
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{}: {text}", file.display());
    text
}

#[test]
fn traces_of_library_scenarios_parse_as_export_trace_service_requests() {
    let dir = scratch("otlp-proto");
    // Layered calls with retries and faults, parallel steps, hedges, fallbacks, refusals,
    // fire-and-forget publishes, a client mix, operations: every kind of span there is.
    for (scenario, duration, sample) in [
        ("scenarios/all-features.toml", "1s", "1"),
        ("scenarios/layered-retries.toml", "2s", "1"),
        ("scenarios/fanout-hedge.toml", "2s", "0.2"),
        ("scenarios/event-bus-async.toml", "2s", "1"),
        ("scenarios/mobile-checkout.toml", "2s", "0.5"),
        ("scenarios/brooker-retry-breaker.toml", "3s", "1"),
    ] {
        let name = Path::new(scenario).file_stem().unwrap().to_str().unwrap();
        let file = otlp_file(
            &dir,
            name,
            &repo(scenario),
            duration,
            &["--trace-sample", sample],
        );
        let said = check_with_opentelemetry_proto(&file);
        assert!(!said.starts_with("0 spans"), "{scenario}: {said}");
    }
}

/// (trace id, span id) of every span of the file.
fn ids(file: &Path) -> BTreeSet<(String, String)> {
    let doc: serde_json::Value = serde_json::from_str(&read(file)).unwrap();
    spans(&doc).into_iter().map(|s| (s.trace, s.id)).collect()
}

#[test]
fn same_seed_same_bytes_and_a_sample_keeps_whole_trees_by_request() {
    let dir = scratch("otlp-sample");
    let scenario = repo("scenarios/brooker-retry-breaker.toml");
    let run = |name: &str, extra: &[&str]| otlp_file(&dir, name, &scenario, "2s", extra);
    let (a, b) = (run("a", &[]), run("b", &[]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let full = ids(&a);
    let traces = |set: &BTreeSet<(String, String)>| -> BTreeSet<String> {
        set.iter().map(|(t, _)| t.clone()).collect()
    };
    let (ten, thirty) = (
        ids(&run("s10", &["--trace-sample", "0.1"])),
        ids(&run("s30", &["--trace-sample", "0.3"])),
    );
    // A kept request keeps every span it has in the full trace: whole trees, the same ids.
    for kept in [&ten, &thirty] {
        let t = traces(kept);
        assert!(!t.is_empty());
        let whole: BTreeSet<_> = full
            .iter()
            .filter(|(tr, _)| t.contains(tr))
            .cloned()
            .collect();
        assert_eq!(*kept, whole);
    }
    assert!(traces(&ten).is_subset(&traces(&thirty)));
    assert!(traces(&thirty).len() < traces(&full).len());
    // The same requests whatever else is asked: a time window keeps those starting in it.
    let window = ids(&run("w", &["--trace-sample", "0.3", "--trace-from", "1s"]));
    assert!(traces(&window).is_subset(&traces(&thirty)));
    assert!(!window.is_empty() && window.len() < thirty.len());
    check_with_opentelemetry_proto(&dir.join("w.json"));
}

#[test]
fn a_request_picked_by_number_is_one_whole_trace() {
    let dir = scratch("otlp-request");
    let file = otlp_file(
        &dir,
        "r",
        &repo("scenarios/layered-retries.toml"),
        "2s",
        &["--trace-request", "1"],
    );
    let set = ids(&file);
    let traces: BTreeSet<_> = set.iter().map(|(t, _)| t).collect();
    assert_eq!(traces.len(), 1);
    assert!(set.len() > 3);
    check_with_opentelemetry_proto(&file);
}

#[test]
fn bad_trace_flags_exit_2_and_write_nothing() {
    let dir = scratch("otlp-bad");
    let file = dir.join("s.toml");
    std::fs::write(&file, TINY_RETRY).unwrap();
    let (json, out) = (dir.join("t.json"), dir.join("out"));
    let base = [
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--trace",
        json.to_str().unwrap(),
    ];
    for (extra, says) in [
        (vec!["--trace-format", "otlp"], "needs --trace-epoch"),
        (
            vec!["--trace-format", "otlp", "--trace-epoch", "yesterday"],
            "--trace-epoch yesterday: expected unix seconds",
        ),
        (
            vec![
                "--trace-format",
                "otlp",
                "--trace-epoch",
                "1969-12-31T00:00:00Z",
            ],
            "at or after 1970",
        ),
        (
            vec!["--trace-epoch", "0"],
            "the epoch is for --trace-format otlp",
        ),
        (
            vec!["--trace-sample", "0"],
            "--trace-sample 0: expected the fraction",
        ),
        (vec!["--trace-sample", "1.5"], "above 0 and at most 1"),
        (vec!["--trace-sample", "NaN"], "above 0 and at most 1"),
        (
            vec![
                "--trace-format",
                "otlp",
                "--trace-epoch",
                "0",
                "--trace-entity",
                "api",
            ],
            "--trace-entity api: a trace of spans keeps whole request trees",
        ),
        (
            vec![
                "--trace-format",
                "otlp",
                "--trace-epoch",
                "0",
                "--trace-from",
                "2s",
                "--trace-to",
                "1s",
            ],
            "--trace-to must be after --trace-from",
        ),
        (
            vec![
                "--trace-format",
                "otlp",
                "--trace-epoch",
                "0",
                "--trace-limit",
                "3",
            ],
            "the trace has 15 rows, over the limit of 3",
        ),
        (vec!["--trace-format", "jaeger"], "invalid value 'jaeger'"),
    ] {
        let mut args = base.to_vec();
        args.extend(&extra);
        let got = cascade(&args, 2);
        let stderr = String::from_utf8_lossy(&got.stderr);
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
        assert!(!json.exists() && !out.exists(), "{extra:?} wrote files");
    }
}

#[test]
fn a_csv_sample_keeps_the_rows_of_whole_requests_only() {
    let dir = scratch("otlp-csv-sample");
    let scenario = repo("scenarios/brooker-retry-breaker.toml");
    let rows = |name: &str, extra: &[&str]| -> Vec<String> {
        let csv = dir.join(format!("{name}.csv"));
        let out = dir.join(format!("{name}-out"));
        let mut args = vec![
            "--set",
            "scenario.duration=1s",
            "--set",
            "scenario.warmup=0s",
        ];
        args.extend(extra);
        run_traced(Path::new(&scenario), &out, &csv, &args);
        read(&csv).lines().skip(1).map(String::from).collect()
    };
    let (full, sample) = (rows("full", &[]), rows("s", &["--trace-sample", "0.25"]));
    // The roots kept are those `sampled` picks, by the seed and the request's id alone.
    let seed = 1;
    let roots = |rows: &[String]| -> Vec<String> {
        rows.iter()
            .filter(|r| r.contains(",client.") && r.contains(",call_start,"))
            .map(|r| r.split(',').nth(1).unwrap().to_string())
            .collect()
    };
    let model = cascade::scenario::load(Path::new(&scenario), &[]).unwrap();
    assert_eq!(model.model.seed, seed);
    let picked: Vec<String> = roots(&full)
        .into_iter()
        .filter(|r| cascade::engine::trace_ids::sampled(seed, r, 0.25))
        .collect();
    assert_eq!(roots(&sample), picked);
    assert!(!picked.is_empty() && picked.len() < roots(&full).len());
    // Every kept row is a row of the full trace, about a request: whole trees, nothing else.
    let all: BTreeSet<&String> = full.iter().collect();
    assert!(sample.iter().all(|r| all.contains(r)));
    assert!(
        sample
            .iter()
            .all(|r| !r.split(',').nth(1).unwrap().is_empty())
    );
}
