//! Helpers shared by the integration tests: running scenarios in-process and the binary,
//! scratch directories, strict XML checks, snapshots of output directories, golden files.
#![allow(dead_code)]

pub mod golden;
pub mod json_schema;
pub mod pick;
pub mod reference_dist;

use cascade::metrics::RunMetrics;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty scratch directory for one test, removed when dropped (also when the test
/// fails). Each call gets its own directory, even for the same name: the tests run in parallel
/// in one process, and two tests sharing a name once removed each other's files mid-run.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn scratch(name: &str) -> Scratch {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let serial = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cascade-{name}-{}-{serial}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// Compiles scenario text and runs it to the end.
pub fn run(toml: &str) -> RunMetrics {
    run_model(toml).1
}

/// Compiles scenario text and runs it, returning the model too.
pub fn run_model(toml: &str) -> (cascade::Model, RunMetrics) {
    let model = cascade::scenario::load_str("test.toml", toml, &[])
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    let metrics = cascade::simulate(&model).unwrap().metrics;
    (model, metrics)
}

/// The conservation identities of docs/metrics.md, exact for a run without a warm-up (every request
/// counted from its start): at every client, requests = success + Σ errors + in_flight_end;
/// at every service, arrivals = success + Σ errors + unanswered + in_flight_end; at every
/// edge, calls = success + Σ errors + abandoned + in_flight_end.
pub fn assert_counts_balance(model: &cascade::Model, m: &RunMetrics) {
    let errors = |prefix: &str| -> f64 {
        cascade::model::Outcome::failures()
            .iter()
            .map(|o| metric(m, &format!("{prefix}.errors.{}", o.name())))
            .sum()
    };
    for c in &model.clients {
        let p = format!("client.{}", c.name);
        let ended = metric(m, &format!("{p}.success")) + errors(&p);
        let open = metric(m, &format!("{p}.in_flight_end"));
        assert_eq!(metric(m, &format!("{p}.requests")), ended + open, "{p}");
    }
    for s in &model.services {
        let p = format!("service.{}", s.name);
        let answered = metric(m, &format!("{p}.success")) + errors(&p);
        let rest = metric(m, &format!("{p}.unanswered")) + metric(m, &format!("{p}.in_flight_end"));
        assert_eq!(metric(m, &format!("{p}.arrivals")), answered + rest, "{p}");
    }
    for e in &model.edges {
        let p = format!("edge.{}", e.name);
        let ended = metric(m, &format!("{p}.success")) + errors(&p);
        let rest = metric(m, &format!("{p}.abandoned")) + metric(m, &format!("{p}.in_flight_end"));
        assert_eq!(metric(m, &format!("{p}.calls")), ended + rest, "{p}");
    }
}

/// A summary metric that must exist.
pub fn metric(m: &RunMetrics, name: &str) -> f64 {
    m.get(name).unwrap_or_else(|| panic!("no metric {name}"))
}

/// Asserts `got` is within `tol` (relative) of `want`.
pub fn assert_close(what: &str, got: f64, want: f64, tol: f64) {
    let err = (got - want).abs() / want.abs();
    assert!(
        err <= tol,
        "{what}: got {got:.6}, want {want:.6} (error {:.2}% > {:.2}%)",
        err * 100.0,
        tol * 100.0
    );
}

/// One client feeding one service that does `work` and calls nothing.
pub fn single_queue(
    rate: f64,
    workers: u32,
    queue: Option<u64>,
    work: &str,
    duration_s: u64,
    seed: u64,
) -> String {
    let queue = queue.map(|q| format!("queue = {q}")).unwrap_or_default();
    format!(
        r#"
[scenario]
name = "queue"
duration = "{duration_s}s"
warmup = "10s"
seed = {seed}

[[client]]
name = "load"
target = "server"
rate = {rate}

[[service]]
name = "server"
workers = {workers}
{queue}
work = {work}
"#
    )
}

/// Runs the cascade binary; panics with its output when the exit code is not `code`.
pub fn cascade(args: &[&str], code: i32) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "cascade {args:?}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `cascade run SCENARIO --quiet --out OUT --trace TRACE EXTRA…`, expected to succeed: the one
/// way the trace tests (CSV rows, OTLP spans, the import round trip) run a scenario traced.
pub fn run_traced(scenario: &Path, out: &Path, trace: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        scenario.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    cascade(&args, 0);
}

/// Runs `toml` (written to `dir/scenario.toml`) with `--trace` and returns the trace's rows,
/// each split into its fields (time, ..., entity, event, ...), the header left out.
pub fn traced_rows(dir: &Path, toml: &str) -> Vec<Vec<String>> {
    let path = dir.join("scenario.toml");
    std::fs::write(&path, toml).unwrap();
    let trace = dir.join("trace.csv");
    run_traced(&path, &dir.join("out"), &trace, &[]);
    read(&trace)
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// Every file of tests/fixtures/import/ with the library that reads it: imported, checked,
/// pinned by goldens and fuzzed.
/// The trace files of tests/fixtures/traces/ (their README says which producer wrote each),
/// shared by the trace import tests, their goldens and the fuzzer.
pub const TRACE_FIXTURES: [&str; 4] = [
    "otlp-shop.json",
    "otlp-shop.jsonl",
    "zipkin-shop.json",
    "jaeger-shop.json",
];

pub const IMPORT_FIXTURES: [(&str, &str); 8] = [
    ("envoy", "envoy-bootstrap.yaml"),
    ("envoy", "envoy-local-ratelimit.yaml"),
    ("envoy", "envoy-route.json"),
    ("envoy", "envoy-cluster-slow-start.yaml"),
    ("grpc", "grpc-retry.json"),
    ("grpc", "grpc-hedging.json"),
    ("resilience4j", "resilience4j-demo.yml"),
    ("resilience4j", "resilience4j.properties"),
];

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/charts")
        .join(name)
}

/// Runs the small test scenario (10 s, a fault, a breaker, a variant, two expectations)
/// into `dir`.
pub fn small_run(dir: &Path) {
    let scenario = fixture("small.toml");
    cascade(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
}

/// A sweep directory in the final format: points.csv with a variant column, runs.csv (three
/// replications per point and variant: mean − sd, mean, mean + sd of points.csv), sweep.json
/// and the base scenario.
pub fn sweep_fixture(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for f in ["points.csv", "runs.csv", "sweep.json"] {
        std::fs::copy(fixture(f), dir.join(f)).unwrap();
    }
    std::fs::copy(fixture("small.toml"), dir.join("scenario.toml")).unwrap();
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses `text` strictly as XML: every tag closed in order, every entity known, one root.
pub fn assert_well_formed(what: &str, text: &str) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut depth = 0i64;
    let mut roots = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Start(_)) => {
                if depth == 0 {
                    roots += 1;
                }
                depth += 1;
            }
            Ok(Event::End(_)) => depth -= 1,
            Ok(Event::Empty(_)) if depth == 0 => roots += 1,
            Ok(Event::Text(t)) => {
                if let Err(e) = t.unescape() {
                    panic!("{what}: bad entity at {}: {e}", reader.buffer_position());
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!(
                "{what}: not well-formed at {}: {e}",
                reader.buffer_position()
            ),
        }
        assert!(depth >= 0, "{what}: a closing tag without its opening one");
    }
    assert_eq!(depth, 0, "{what}: tags left open");
    assert_eq!(roots, 1, "{what}: expected one root element");
}

/// Every file under `dir` but run.json (wall-clock facts), by path relative to `dir`, sorted,
/// with its bytes.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "run.json") {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A number from the environment (`CASCADE_GEN_CASES=20000`), if set; anything else set there
/// is a mistake the run should stop on.
pub fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
    )
}

#[test]
fn two_scratches_of_one_name_are_two_directories() {
    // import.rs once gave two tests the same name; one removed the other's scenario mid-run.
    let first = scratch("same-name");
    let second = scratch("same-name");
    assert_ne!(first.to_path_buf(), second.to_path_buf());
    std::fs::write(first.join("kept"), "x").unwrap();
    drop(second);
    assert!(first.join("kept").exists());
}

/// Every metric of a fault's verdict after `fault.<i>.`: the two every fault has, then those
/// of a judged one.
pub fn fault_verdict_names() -> impl Iterator<Item = &'static str> {
    let judged = cascade::metrics::names::JUDGED_METRICS.into_iter();
    judged.chain(cascade::metrics::names::VERDICT_METRICS)
}
