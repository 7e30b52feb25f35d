//! `cascade check`: expectations turned into a table, JUnit XML and exit codes.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

const BASE: &str = r#"[scenario]
name = "gate"
duration = "10s"

[[client]]
name = "web"
target = "api"
rate = 100

[[service]]
name = "api"
workers = 4
work = "5ms"
"#;

fn dir(tag: &str) -> support::Scratch {
    support::scratch(&format!("check-{tag}"))
}

fn check(d: &Path, expects: &str, extra: &[&str]) -> Output {
    std::fs::write(d.join("gate.toml"), format!("{BASE}\n{expects}")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("check")
        .arg(d)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn passing_and_failing_expectations_set_the_exit_code_and_the_junit_counts() {
    let d = dir("pass");
    let pass = r#"
[[expect]]
metric = "client.web.success_ratio"
op = ">="
value = 0.99
"#;
    let out = check(&d, pass, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("✓") && stdout.contains("1 passed, 0 failed"),
        "{stdout}"
    );
    let fail = r#"
[[expect]]
metric = "client.web.success_ratio"
op = ">="
value = 0.99

[[expect]]
metric = "service.api.utilization"
op = "<"
value = 0.01

[[expect]]
metric = "client.web.requests"
op = "=="
value = 0
window = { start = "0s", end = "5s" }
"#;
    let junit = d.join("junit.xml");
    let out = check(&d, fail, &["--junit", junit.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("1 passed, 2 failed"), "{stdout}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    support::assert_well_formed("junit.xml", &xml);
    assert!(xml.contains(r#"<testsuites name="cascade check" tests="3" failures="2" time=""#));
    assert_eq!(xml.matches("<testcase ").count(), 3);
    assert_eq!(xml.matches("<failure ").count(), 2);
    assert!(xml.contains(r#"classname="gate""#));
}

#[test]
fn a_misspelt_metric_is_bad_input_not_a_pass() {
    let d = dir("typo");
    let typo = r#"
[[expect]]
metric = "client.web.sucess_ratio"
op = ">="
value = 0
"#;
    let out = check(&d, typo, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("gate.toml:17:1"), "{err}");
    assert!(
        err.contains("did you mean `client.web.success_ratio`"),
        "{err}"
    );
    let bad_op = r#"
[[expect]]
metric = "client.web.success_ratio"
op = "=>"
value = 0
"#;
    let out = check(&d, bad_op, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("expect.0.op") && err.contains("valid: < <= > >= == !="),
        "{err}"
    );
}

#[test]
fn a_gate_with_nothing_to_check_fails_as_bad_input() {
    let d = dir("empty");
    let out = check(&d, "", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nothing to check"), "{err}");
}

/// Writes `metric = "…"` as the hint in `err` says, in place of the expectation's metric line.
fn follow_the_hint(expects: &str, err: &str) -> String {
    let start = err
        .find("write `metric = \"")
        .expect("a hint to write the metric")
        + 7;
    let line = &err[start..start + err[start..].find('`').unwrap()];
    expects
        .lines()
        .map(|l| if l.starts_with("metric = ") { line } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An expectation that names its own window's metric (`window.expect-0.…`), with or without a
/// `window` key: the hint says what to write, and what it says then runs.
#[test]
fn the_hint_for_a_windowed_metric_name_works_when_followed() {
    let d = dir("window-hint");
    for expects in [
        "[[expect]]\nmetric = \"window.expect-0.client.web.success_ratio\"\nop = \">=\"\nvalue = 0.5\nwindow = { start = \"5s\" }\n",
        "[[expect]]\nmetric = \"window.expect-0.client.web.success_ratio\"\nop = \">=\"\nvalue = 0.5\n",
    ] {
        let out = check(&d, expects, &[]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("expect.0.metric"), "{err}");
        let mut fixed = follow_the_hint(expects, &err);
        // Without a window, the hint also asks for one.
        if !fixed.contains("window =") {
            assert!(err.contains("with `window` in this expectation"), "{err}");
            fixed.push_str("\nwindow = { start = \"5s\" }\n");
        }
        let out = check(&d, &fixed, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "after following the hint:\n{fixed}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(
            table.contains("client.web.success_ratio >= 0.5 [window.expect-0]"),
            "{table}"
        );
    }
}

/// A JUnit failure is enough to act on: it says what had to hold, what was measured (the
/// interval too when the whole interval was judged), on which runs and seed, and a command that
/// gives the same verdict again; `time=` is set on every suite and case.
#[test]
fn a_junit_failure_names_threshold_measured_interval_seed_and_the_command_that_reproduces_it() {
    let d = dir("junit-details");
    let fail = r#"
[[expect]]
metric = "service.api.utilization"
op = "<"
value = 0.01
reps = 3
ci = true
"#;
    let junit = d.join("junit.xml");
    let out = check(
        &d,
        fail,
        &[
            "--junit",
            junit.to_str().unwrap(),
            "--set",
            "client.web.rate=120",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    support::assert_well_formed("junit.xml", &xml);
    // 120/s of 5 ms on 4 workers: utilization 0.15, about; the row shows mean [lo, hi].
    let row = stdout.lines().find(|l| l.contains("✗")).unwrap();
    let shown: Vec<f64> = row
        .rsplit("< 0.01")
        .next()
        .unwrap()
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(shown.len(), 3, "{row}");
    assert!((shown[0] - 0.15).abs() < 0.01, "{row}");
    let failure = &xml[xml.find("<failure ").unwrap()..xml.find("</failure>").unwrap()];
    let file = d.join("gate.toml");
    for line in [
        "message=\"95% CI of mean of 3: service.api.utilization &lt; 0.01: measured 0.",
        "expectation: 95% CI of mean of 3: service.api.utilization &lt; 0.01\n",
        "threshold:   the whole 95% CI of the mean &lt; 0.01\n",
        "runs:        `base`, 3 replications, the first on the scenario's seed\n",
        "seed:        1\n",
    ] {
        assert!(failure.contains(line), "no {line:?} in\n{failure}");
    }
    let measured = failure.split("measured:    ").nth(1).unwrap();
    let measured = measured.lines().next().unwrap();
    assert!(measured.contains(" (95% CI ["), "{measured}");
    let reproduce = format!(
        "reproduce:   cascade check {} --set client.web.rate=120\n",
        file.display()
    );
    assert!(failure.contains(&reproduce), "{failure}");
    // The command gives the same verdict: the same row.
    let again = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args([
            "check",
            file.to_str().unwrap(),
            "--set",
            "client.web.rate=120",
        ])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&again.stdout).contains(row),
        "{row}"
    );
    assert_eq!(xml.matches(" time=\"").count(), 3, "{xml}");
    let parsed: Vec<f64> = xml
        .split(" time=\"")
        .skip(1)
        .map(|t| t[..t.find('"').unwrap()].parse().unwrap())
        .collect();
    assert!(parsed.iter().all(|t| *t >= 0.0), "{xml}");
}
