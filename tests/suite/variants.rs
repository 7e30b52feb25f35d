//! `[[variant]]`: the scenario again with some fields set otherwise, on the same random draws.

use std::path::Path;
use std::process::Command;

const SCENARIO: &str = r#"[scenario]
name = "variants"
duration = "30s"
seed = 7

[[client]]
name = "app"
target = "api"
rate = 500
policy = "p"

[policy.p]
timeout = "50ms"
retry = { attempts = 3 }

[[service]]
name = "api"
workers = 6
work = { dist = "exponential", mean = "10ms" }

[[variant]]
name = "wider"
set = { service.api.workers = 12 }

[[variant]]
name = "no-retry"
set = { "policy.p.retry.attempts" = 1, "policy.p.timeout" = "80ms" }
"#;

fn write(tag: &str, text: &str) -> crate::support::Scratch {
    let d = crate::support::scratch(&format!("variants-{tag}"));
    std::fs::write(d.join("v.toml"), text).unwrap();
    d
}

#[test]
fn variants_run_on_the_same_draws_with_their_own_settings() {
    let d = write("same", SCENARIO);
    let models = cascade::scenario::load_with_variants(&d.join("v.toml"), &[]).unwrap();
    let names: Vec<Option<&str>> = models.iter().map(|(n, _)| n.as_deref()).collect();
    assert_eq!(names, vec![None, Some("wider"), Some("no-retry")]);
    assert_eq!(models[1].1.services[0].workers, 12);
    assert_eq!(models[2].1.clients[0].call.policy.timeout, Some(80_000_000));
    let runs: Vec<_> = models
        .iter()
        .map(|(_, m)| cascade::simulate(m).unwrap().metrics)
        .collect();
    // Common random numbers: the same seed gives every variant the same arrivals.
    let requests: Vec<f64> = runs
        .iter()
        .map(|m| m.get("client.app.requests").unwrap())
        .collect();
    assert_eq!(requests[0], requests[1]);
    assert_eq!(requests[0], requests[2]);
    // Doubling the workers takes the overloaded api (ρ = 0.83 with retries on top) to ρ < 0.5.
    let success = |m: &cascade::metrics::RunMetrics| m.get("client.app.success_ratio").unwrap();
    assert!(success(&runs[1]) > success(&runs[0]));
}

#[test]
fn cascade_run_writes_each_variant_apart_and_compares_them() {
    let d = write("cli", SCENARIO);
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("run")
        .arg(d.join("v.toml"))
        .arg("--out")
        .arg(d.join("out"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("variants (same seed as the base)"),
        "{stdout}"
    );
    assert!(stdout.contains("wider") && stdout.contains("no-retry") && stdout.contains("Δ%"));
    for sub in ["", "wider", "no-retry"] {
        assert!(
            Path::new(&d.join("out").join(sub).join("summary.json")).exists(),
            "{sub}"
        );
    }
}

#[test]
fn a_bad_variant_is_named_in_the_error() {
    let d = write(
        "bad",
        &SCENARIO.replace("service.api.workers = 12", "service.api.wrkers = 12"),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("run")
        .arg(d.join("v.toml"))
        .arg("--out")
        .arg(d.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("in variant `wider`"), "{err}");
    assert!(err.contains("wrkers"), "{err}");
    assert!(!d.join("out").exists());
}
