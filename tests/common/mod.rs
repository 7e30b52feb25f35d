//! Helpers shared by the integration tests.
#![allow(dead_code)]

use cascade::metrics::RunMetrics;

/// Compiles scenario text and runs it to the end.
pub fn run(toml: &str) -> RunMetrics {
    let model =
        cascade::scenario::load_str("test.toml", toml, &[]).unwrap_or_else(|e| panic!("{e}"));
    cascade::simulate(&model).metrics
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
