//! Replicated expectations (`reps`, `stat`, `ci`) and baselines (`--save-baseline`,
//! `--baseline`): a worsened policy is flagged, an unchanged one passes.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

/// Retries against a service that fails 20% of attempts; the retry count is what a worse
/// policy changes.
const SCENARIO: &str = r#"[scenario]
name = "flaky"
duration = "10s"
seed = 4

[[client]]
name = "web"
target = "api"
rate = 200
policy = "p"

[[service]]
name = "api"
workers = 8
work = { dist = "exponential", mean = "5ms" }

[policy.p]
timeout = "100ms"
retry = { attempts = 3, backoff = "constant", base = "1ms" }

[[fault]]
target = "api"
kind = "errors"
rate = 0.2
start = "0s"
end = "10s"
"#;

fn dir(tag: &str) -> support::Scratch {
    support::scratch(&format!("baseline-{tag}"))
}

fn check(d: &Path, expects: &str, extra: &[&str]) -> Output {
    std::fs::write(d.join("flaky.toml"), format!("{SCENARIO}\n{expects}")).unwrap();
    let bl = d.join("baselines");
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("check")
        .arg(d.join("flaky.toml"))
        .args(["--baseline-dir", bl.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap()
}

const REPLICATED: &str = r#"
[[expect]]
metric = "client.web.success_ratio"
op = ">="
value = 0.97
reps = 5
ci = true

[[expect]]
metric = "edge.web.api.amplification"
op = "<="
value = 1.3
reps = 5
stat = "max"
"#;

#[test]
fn replicated_expectations_judge_a_statistic_or_the_whole_interval() {
    let d = dir("reps");
    let o = check(&d, REPLICATED, &["--jobs", "2"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    // 20% errors, 3 attempts: success 1 − 0.2³ = 0.992; amplification 1 + 0.2 + 0.04 = 1.24.
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("95% CI of mean of 5: client.web.success_ratio >= 0.97"),
        "{stdout}"
    );
    assert!(
        stdout.contains("max of 5: edge.web.api.amplification <= 1.3"),
        "{stdout}"
    );
    // The interval is shown beside the mean, and it is a real interval around 0.992.
    let line = stdout.lines().find(|l| l.contains("95% CI")).unwrap();
    let nums: Vec<f64> = line
        .rsplit("  ")
        .next()
        .unwrap()
        .replace(['[', ']', ','], " ")
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(nums.len(), 3, "{line}");
    assert!(nums[1] < nums[0] && nums[0] < nums[2], "{line}");
    assert!((nums[0] - 0.992).abs() < 0.005, "{line}");
    // The same numbers whatever the threads.
    let again = check(&d, REPLICATED, &["--jobs", "1"]);
    assert_eq!(again.stdout, o.stdout);
    // An interval that straddles the bound fails where the mean alone would pass.
    let tight = REPLICATED.replace("value = 0.97", "value = 0.992");
    let o = check(&d, &tight, &[]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_statistic_without_replications_is_bad_input() {
    let d = dir("badstat");
    let cases = [
        ("stat = \"max\"", "needs replications"),
        ("reps = 3\nstat = \"p101\"", "unknown statistic"),
        (
            "reps = 3\nci = true\nstat = \"min\"",
            "confidence interval of the mean",
        ),
        ("reps = 0", "at least 1"),
    ];
    for (extra, message) in cases {
        let text = format!(
            "[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \">=\"\nvalue = 0.9\n{extra}\n"
        );
        let o = check(&d, &text, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(message), "{extra}: {err}");
        assert!(err.contains("flaky.toml:"), "{err}");
    }
}

#[test]
fn a_baseline_flags_a_worsened_policy_and_passes_an_unchanged_one() {
    let d = dir("compare");
    let gate =
        "[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \">=\"\nvalue = 0.5\nreps = 4\n";
    let saved = check(&d, gate, &["--save-baseline", "main"]);
    assert_eq!(saved.status.code(), Some(0));
    let stored = d.join("baselines/main/flaky.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stored).unwrap()).unwrap();
    assert_eq!(json["reps"], 4);
    assert_eq!(
        json["metrics"]["client.web.success_ratio"]
            .as_array()
            .unwrap()
            .len(),
        4
    );

    // Unchanged: same seeds, same numbers; everything within noise, exit 0.
    let same = check(&d, gate, &["--baseline", "main"]);
    let out = String::from_utf8_lossy(&same.stdout);
    assert_eq!(same.status.code(), Some(0), "{out}");
    assert!(out.contains("0 improved, 0 regressed, 0 changed"), "{out}");

    // Worsened: one attempt instead of three. Success falls from 0.992 to 0.8: a significant
    // regression of the gated metric (Welch over 4 replications each), so exit 1.
    let worse = check(
        &d,
        gate,
        &["--baseline", "main", "--set", "policy.p.retry.attempts=1"],
    );
    let out = String::from_utf8_lossy(&worse.stdout);
    assert_eq!(worse.status.code(), Some(1), "{out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("client.web.success_ratio (gated)"))
        .unwrap();
    assert!(row.ends_with("regressed"), "{row}");
    let p: f64 = row.split_whitespace().nth(5).unwrap().parse().unwrap();
    assert!(p < 0.05, "{row}");
    // Fewer retries also means lower amplification: reported as improved, not gated.
    assert!(
        out.lines()
            .any(|l| l.starts_with("edge.web.api.amplification ") && l.ends_with("improved")),
        "{out}"
    );
    // A --gate pattern turns any metric into a gate; a missing baseline is bad input.
    let gated = check(
        &d,
        "",
        &[
            "--baseline",
            "main",
            "--gate",
            "client.*.goodput_rps",
            "--set",
            "policy.p.retry.attempts=1",
        ],
    );
    assert_eq!(gated.status.code(), Some(1));
    let missing = check(&d, gate, &["--baseline", "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--save-baseline nope"));
}

#[test]
fn run_compares_with_a_baseline_too() {
    let d = dir("run");
    std::fs::write(d.join("flaky.toml"), SCENARIO).unwrap();
    let bl = d.join("bl");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cascade"))
            .arg("run")
            .arg(d.join("flaky.toml"))
            .args(["--quiet", "--out", d.join("out").to_str().unwrap()])
            .args(["--baseline-dir", bl.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    assert_eq!(run(&["--save-baseline", "v1"]).status.code(), Some(0));
    assert!(bl.join("v1/flaky.json").exists());
    assert_eq!(
        run(&["--baseline", "v1", "--gate", "*"]).status.code(),
        Some(0)
    );
    let worse = run(&[
        "--baseline",
        "v1",
        "--gate",
        "client.web.success_ratio",
        "--set",
        "policy.p.retry.attempts=1",
    ]);
    assert_eq!(worse.status.code(), Some(1));
}
