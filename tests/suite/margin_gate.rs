//! `[[expect]]` on a margin, judged by `cascade check --margin` alone: the gate of
//! scenarios/retry-collapse-margin.toml (`margin.fault.0.load >= 1.2`, the boundary 1.25x
//! its header derives) passes, fails when asked for more headroom than there is, judges the
//! whole interval with `ci = true`, and is said to be left out without `--margin`. Keys that
//! choose runs are refused, located, with exit 2.

use crate::support::{cascade, scratch};

const SCENARIO: &str = "scenarios/retry-collapse-margin.toml";

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_margin_gate_passes_with_margin_and_is_said_to_be_left_out_without() {
    let plain = stdout(&cascade(&["check", SCENARIO, "-q"], 0));
    assert!(!plain.contains("margin.fault.0.load"), "{plain}");
    assert!(
        plain.contains("1 check in 1 scenario: 1 passed, 0 failed (1 margin expectation not checked: add --margin)"),
        "{plain}"
    );
    let judged = stdout(&cascade(&["check", SCENARIO, "-q", "--margin"], 0));
    let row = judged
        .lines()
        .find(|l| l.contains("margin.fault.0.load >= 1.2"))
        .unwrap_or_else(|| panic!("{judged}"));
    assert!(row.starts_with('✓'), "{row}");
    // The 50% point, within 5% of 1.25x (250/s over the written 200/s), and its interval.
    let measured: f64 = row
        .split_whitespace()
        .rev()
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    assert!((measured / 1.25 - 1.0).abs() <= 0.05, "{row}");
    assert!(
        judged.contains("2 checks in 1 scenario: 2 passed, 0 failed"),
        "{judged}"
    );
    assert!(!judged.contains("not checked"), "{judged}");
}

#[test]
fn asking_for_more_headroom_than_there_is_fails_the_build() {
    let out = cascade(
        &[
            "check",
            SCENARIO,
            "-q",
            "--margin",
            "--set",
            "expect.1.value=1.4",
        ],
        1,
    );
    let text = stdout(&out);
    assert!(
        text.contains("✗  retry-collapse-margin  margin.fault.0.load >= 1.4"),
        "{text}"
    );
}

#[test]
fn with_ci_the_whole_interval_must_hold() {
    // The point (about 1.25) is above 1.245, but the interval's low end, one probe below the
    // boundary, is not: judged whole, the gate fails.
    let point = stdout(&cascade(
        &[
            "check",
            SCENARIO,
            "-q",
            "--margin",
            "--set",
            "expect.1.value=1.245",
        ],
        0,
    ));
    assert!(
        point.contains("✓  retry-collapse-margin  margin.fault.0.load >= 1.245"),
        "{point}"
    );
    let whole = stdout(&cascade(
        &[
            "check",
            SCENARIO,
            "-q",
            "--margin",
            "--set",
            "expect.1.value=1.245",
            "--set",
            "expect.1.ci=true",
        ],
        1,
    ));
    assert!(
        whole.contains("✗  retry-collapse-margin  95% CI: margin.fault.0.load >= 1.245"),
        "{whole}"
    );
}

#[test]
fn a_scenario_with_margin_gates_alone_needs_margin_and_says_so() {
    let dir = scratch("margin-only");
    let text = std::fs::read_to_string(SCENARIO).unwrap();
    let only = text.replace(
        "[[expect]]\nmetric = \"fault.0.recovered\"\nop = \"==\"\nvalue = 1\n",
        "",
    );
    assert_ne!(only, text, "the scenario's run expectation was removed");
    let path = dir.join("only.toml");
    std::fs::write(&path, only).unwrap();
    let p = path.to_str().unwrap();
    let err = cascade(&["check", p, "-q"], 2);
    let msg = String::from_utf8_lossy(&err.stderr);
    assert!(msg.contains("nothing to check without --margin"), "{msg}");
    let ok = stdout(&cascade(&["check", p, "-q", "--margin"], 0));
    assert!(
        ok.contains("1 check in 1 scenario: 1 passed, 0 failed"),
        "{ok}"
    );
}

#[test]
fn keys_that_choose_runs_and_bad_names_are_refused_where_written() {
    let dir = scratch("margin-refused");
    let text = std::fs::read_to_string(SCENARIO).unwrap();
    for (key, says) in [
        ("reps = 3", "expect.1.reps"),
        ("stat = \"min\"", "expect.1.stat"),
        ("variant = \"budget-20\"", "expect.1.variant"),
        ("window = { start = \"20s\" }", "expect.1.window"),
    ] {
        let path = dir.join("bad.toml");
        std::fs::write(&path, format!("{text}{key}\n")).unwrap();
        let out = cascade(&["check", path.to_str().unwrap(), "--margin"], 2);
        let msg = String::from_utf8_lossy(&out.stderr);
        assert!(
            msg.contains(says) && msg.contains("bad.toml"),
            "{key}: {msg}"
        );
    }
    for (set, says) in [
        ("expect.1.metric=\"margin.fault.1.load\"", "has 1 [[fault]]"),
        (
            "expect.1.metric=\"margin.fault.0.trigger\"",
            "unknown margin",
        ),
        ("expect.1.value=0", "above 0"),
    ] {
        let out = cascade(&["check", SCENARIO, "--set", set], 2);
        let msg = String::from_utf8_lossy(&out.stderr);
        assert!(
            msg.contains(says) && msg.contains("expect.1."),
            "{set}: {msg}"
        );
    }
}

#[test]
fn the_junit_case_says_what_was_searched_and_how_to_judge_it_again() {
    let dir = scratch("margin-junit");
    let xml = dir.join("junit.xml");
    // A failure carries the details: asked for 1.4x, the boundary is 1.25x.
    cascade(
        &[
            "check",
            SCENARIO,
            "-q",
            "--margin",
            "--set",
            "expect.1.value=1.4",
            "--junit",
            xml.to_str().unwrap(),
        ],
        1,
    );
    let xml = std::fs::read_to_string(xml).unwrap();
    assert!(xml.contains("margin.fault.0.load &gt;= 1.4"), "{xml}");
    assert!(xml.contains("where half the runs recover"), "{xml}");
    assert!(xml.contains("a search of "), "{xml}");
    assert!(
        xml.contains(
            "cascade check scenarios/retry-collapse-margin.toml --set expect.1.value=1.4 --margin"
        ),
        "{xml}"
    );
}

#[test]
fn tune_says_it_leaves_the_margin_gate_to_check() {
    let dir = scratch("margin-tune");
    let out = cascade(
        &[
            "tune",
            SCENARIO,
            "-q",
            "--param",
            "policy.app-api.retry.attempts=1..2:1",
            "--objective",
            "client.app.goodput_rps",
            "--maximize",
            "--out",
            dir.join("t").to_str().unwrap(),
        ],
        0,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not the 1 on margins") && err.contains("cascade check --margin"),
        "{err}"
    );
}
