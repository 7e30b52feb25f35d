//! `cascade tune` prunes its grid before anything runs: by the user's constraints (`[sweep]
//! constraint`, `--constraint`), counted by hand on a small grid, and by the `retry-cannot-fit`
//! lint, whose boundary is worked out below; bad constraints exit 2 naming the file, line and
//! field (or the option), with nothing written.

use crate::support::{self, cascade};
use std::path::Path;

const BROWNOUT: &str = include_str!("../../docs/examples/tune-brownout.toml");
const RETRIES: &str = include_str!("../../docs/examples/tune-retries.toml");

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The statuses of tune.json's candidates, with the reason of each pruned one.
fn pruned_points(tune: &serde_json::Value) -> Vec<(u64, String)> {
    tune["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "pruned")
        .map(|c| {
            (
                c["point"].as_u64().unwrap(),
                c["pruned_by"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_written_constraint_prunes_exactly_the_candidates_that_break_it() {
    // attempts 1..5 × timeout 100, 200, 300 ms (points: attempts slowest): attempts × timeout
    // ≤ 900 ms breaks at 4 × 300 (point 11), 5 × 200 (13) and 5 × 300 (14): 3 of 15. The
    // second constraint, from the command line, prunes attempts = 1 (points 0, 1, 2); none of
    // them also breaks the first, which keeps its own three.
    let d = support::scratch("tune-constraint-written");
    let text = BROWNOUT.replacen(
        "[[expect]]",
        "[sweep]\nconstraint = [\"attempts * timeout <= 900ms\"]\n\n[[expect]]",
        1,
    );
    let path = d.join("t.toml");
    std::fs::write(&path, text).unwrap();
    let out = d.join("out");
    let o = cascade(
        &[
            "tune",
            path.to_str().unwrap(),
            "--param",
            "policy.pay.retry.attempts=1..5:1",
            "--param",
            "policy.pay.timeout=100ms,200ms,300ms",
            "--constraint",
            "policy.pay.retry.attempts != 1",
            "--objective",
            "client.checkout.success_ratio",
            "--maximize",
            "--reps",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        1,
    );
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(
        stdout.contains(
            "pruned before running: 6 of 15 candidates, by the first constraint each breaks (9 searched):\n  attempts * timeout <= 900ms (3 of 15):\n    policy.pay.retry.attempts=4 policy.pay.timeout=300ms\n    policy.pay.retry.attempts=5 policy.pay.timeout=200ms\n    policy.pay.retry.attempts=5 policy.pay.timeout=300ms\n  policy.pay.retry.attempts != 1 (3 of 15): every candidate with policy.pay.retry.attempts = 1\n"
        ),
        "{stdout}"
    );
    // Round 0 holds the 9 left, and nothing pruned ran.
    assert!(stdout.contains("\n0               9 "), "{stdout}");
    let tune = json(&out.join("tune.json"));
    let first = "attempts * timeout <= 900ms".to_string();
    let second = "policy.pay.retry.attempts != 1".to_string();
    assert_eq!(
        pruned_points(&tune),
        [
            (0, second.clone()),
            (1, second.clone()),
            (2, second),
            (11, first.clone()),
            (13, first.clone()),
            (14, first)
        ]
    );
    assert_eq!(
        tune["pruned"][0]["candidates"],
        serde_json::json!([11, 13, 14])
    );
    assert_eq!(
        tune["pruned"][1]["candidates"],
        serde_json::json!([0, 1, 2])
    );
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(
        runs.lines().count(),
        1 + 9,
        "one run per candidate searched:\n{runs}"
    );
    for c in tune["candidates"].as_array().unwrap() {
        let ran = c["replications"].as_u64().unwrap();
        assert_eq!(ran == 0, c["status"] == "pruned", "{c}");
    }
}

#[test]
fn a_retry_that_cannot_fit_its_deadline_is_pruned_by_the_lint() {
    // A 250 ms deadline, a 1 ms constant backoff, retries on timeouts: after k timed-out
    // attempts of t, attempt k + 1 starts at k × (t + 1 ms) and must end before 250 ms. With
    // t = 200 ms attempt 3 would start at 402 ms; with t = 100 ms attempt 4 would start at
    // 303 ms; with 50 ms four attempts fit (the 4th ends at 203 ms). Pruned: (3, 200ms),
    // (4, 100ms), (4, 200ms), points 8, 10, 11 of attempts 1..4 × 50, 100, 200 ms.
    let d = support::scratch("tune-constraint-lint");
    let path = d.join("t.toml");
    std::fs::write(&path, RETRIES).unwrap();
    let out = d.join("out");
    let args = |out: &Path| {
        vec![
            "tune".to_string(),
            path.to_str().unwrap().into(),
            "--set".into(),
            "client.web.deadline=250ms".into(),
            "--param".into(),
            "policy.web-api.retry.attempts=1..4:1".into(),
            "--param".into(),
            "policy.web-api.timeout=50ms,100ms,200ms".into(),
            "--objective".into(),
            "client.web.success_ratio".into(),
            "--maximize".into(),
            "--reps".into(),
            "1".into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ]
    };
    let a = args(&out);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = cascade(&a, 0);
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(
        stdout.contains("pruned before running: 3 of 12 candidates"),
        "{stdout}"
    );
    let lint =
        "lint retry-cannot-fit: a retry whose later attempts cannot start in the time its call has";
    let tune = json(&out.join("tune.json"));
    assert_eq!(
        pruned_points(&tune),
        [(8, lint.into()), (10, lint.into()), (11, lint.into())]
    );
    // A scenario that allows the lint keeps every candidate.
    let allowed = RETRIES.replace("seed = 11", "seed = 11\nallow = [\"retry-cannot-fit\"]");
    std::fs::write(&path, allowed).unwrap();
    let out = d.join("allowed");
    let a = args(&out);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = cascade(&a, 0);
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(!stdout.contains("pruned"), "{stdout}");
    assert!(pruned_points(&json(&out.join("tune.json"))).is_empty());
}

#[test]
fn bad_constraints_exit_2_naming_the_field_or_the_option() {
    let d = support::scratch("tune-constraint-bad");
    let path = d.join("t.toml");
    let out = d.join("out");
    let tune = |extra: &[&str]| {
        let mut args = vec![
            "tune",
            path.to_str().unwrap(),
            "--param",
            "policy.pay.retry.attempts=1..3:1",
            "--param",
            "policy.pay.timeout=100ms,200ms",
            "--objective",
            "client.checkout.success_ratio",
            "--maximize",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = cascade(&args, 2);
        assert!(!out.exists(), "nothing is written on exit 2");
        String::from_utf8(o.stderr).unwrap()
    };
    let with = |constraint: &str| {
        let text = BROWNOUT.replacen(
            "[[expect]]",
            &format!("[sweep]\nconstraint = [\"attempts >= 1\", \"{constraint}\"]\n\n[[expect]]"),
            1,
        );
        std::fs::write(&path, text).unwrap();
    };
    // The line of the constraint in the file: after the brownout's own lines.
    let line = BROWNOUT[..BROWNOUT.find("[[expect]]").unwrap()]
        .lines()
        .count()
        + 2;
    for (constraint, needle) in [
        ("attempts * timeout", "expected one of < <= > >= == !="),
        (
            "attempts ^ 2 < 9",
            "column 10: `^` is not part of a constraint",
        ),
        ("tries < 3", "`tries` is no parameter of the grid"),
        ("timeout <= 900", "compares a duration with a number"),
    ] {
        with(constraint);
        let err = tune(&[]);
        assert!(err.contains(needle), "{constraint}: {err}");
        assert!(
            err.contains(&format!("t.toml:{line}:")),
            "{constraint}: {err}"
        );
        assert!(err.contains("sweep.constraint.1"), "{constraint}: {err}");
    }
    std::fs::write(&path, BROWNOUT).unwrap();
    let err = tune(&["--constraint", "attempts <"]);
    assert!(
        err.contains("--constraint `attempts <`: column 11: expected a name"),
        "{err}"
    );
    let err = tune(&["--constraint", "attempts > 9"]);
    assert!(
        err.contains("every one of the 6 candidates is pruned before running (by attempts > 9: 6)"),
        "{err}"
    );
    // `cascade sweep` runs every point: a file with constraints is refused there, located.
    with("attempts < 3");
    let o = cascade(
        &[
            "sweep",
            path.to_str().unwrap(),
            "--param",
            "policy.pay.retry.attempts=1,2",
            "--out",
            out.to_str().unwrap(),
        ],
        2,
    );
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("sweep.constraint.0"), "{err}");
    assert!(err.contains("`cascade sweep` runs every point"), "{err}");
}
