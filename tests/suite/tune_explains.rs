//! `cascade tune` explains what it found: on a goal no setting meets (docs/examples/
//! tune-brownout.toml, worked out in its header) the best value of each expectation, the pair
//! never met together and the Pareto frontier, each of its points non-dominated among the runs
//! of runs.csv; a parameter that does nothing named as such; rounds that ran nothing say why;
//! and a winner's `--set` lines that reproduce its replication 0 when pasted into `cascade run`.

use crate::support::{self, Scratch};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

const BROWNOUT: &str = include_str!("../../docs/examples/tune-brownout.toml");
const RETRIES: &str = include_str!("../../docs/examples/tune-retries.toml");

fn cascade(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn brownout() -> (Scratch, String) {
    let d = support::scratch("tune-explains-brownout");
    std::fs::write(d.join("t.toml"), BROWNOUT).unwrap();
    let o = cascade(
        &d,
        &[
            "tune",
            "t.toml",
            "--param",
            "policy.pay.retry.attempts=1..5:1",
            "--param",
            "policy.pay.breaker.failure_rate=0.8,0.9,0.95",
            "--objective",
            "client.checkout.success_ratio",
            "--maximize",
            "--out",
            "out",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    (d, out)
}

/// runs.csv as (point, column → value) of replication 0 of the base run.
fn runs_csv(path: &Path) -> BTreeMap<usize, BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let mut out = BTreeMap::new();
    for row in r.records() {
        let row: BTreeMap<String, String> = head
            .iter()
            .cloned()
            .zip(row.unwrap().iter().map(String::from))
            .collect();
        if row["variant"] == "base" && row["rep"] == "0" {
            out.insert(row["point"].parse().unwrap(), row);
        }
    }
    out
}

#[test]
fn an_infeasible_goal_shows_the_best_of_each_expectation_and_the_frontier() {
    let (d, out) = brownout();
    // Success >= 0.99 needs 4 attempts (0.9919) and amplification <= 1.25 allows 1: each met
    // alone, never together. 3 breaker values × attempts 4, 5 meet the first; × 1 the second.
    for line in [
        "client.checkout.success_ratio >= 0.99: best 0.99",
        "met by 6 of 15",
        "edge.checkout.payments.amplification_sent <= 1.25: best 1.00 (policy.pay.retry.attempts=1 policy.pay.breaker.failure_rate=0.8); met by 3 of 15",
        "each met alone, never together: client.checkout.success_ratio >= 0.99 and edge.checkout.payments.amplification_sent <= 1.25",
        "the trade-off (5 on the Pareto frontier",
        "round 1 ran 0 runs: no candidate was left to run",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    let t = json(&d.join("out/tune.json"));
    let frontier = t["tradeoff"]["frontier"].as_array().unwrap();
    // One point per attempt count, best success first: 5, 4, 3, 2, 1 attempts.
    let attempts: Vec<&str> = (frontier.iter())
        .map(|f| f["params"]["policy.pay.retry.attempts"].as_str().unwrap())
        .collect();
    assert_eq!(attempts, ["5", "4", "3", "2", "1"]);
    // Each frontier point non-dominated among every candidate's run in runs.csv (one
    // replication each: every candidate went out in round 0): success higher is better,
    // amplification lower.
    let runs = runs_csv(&d.join("out/runs.csv"));
    assert_eq!(runs.len(), 15);
    let figures = |row: &BTreeMap<String, String>| -> (f64, f64) {
        (
            row["client.checkout.success_ratio"].parse().unwrap(),
            row["edge.checkout.payments.amplification_sent"]
                .parse()
                .unwrap(),
        )
    };
    for f in frontier {
        let point = f["point"].as_u64().unwrap() as usize;
        let (s, a) = figures(&runs[&point]);
        assert_eq!(f["values"][0].as_f64().unwrap(), s);
        assert_eq!(f["values"][1].as_f64().unwrap(), a);
        for (other, row) in &runs {
            let (s2, a2) = figures(row);
            let dominates = s2 >= s && a2 <= a && (s2 > s || a2 < a);
            assert!(!dominates, "point {other} dominates frontier point {point}");
        }
        // The figures of theory: success 1 − 0.3^a, amplification (1 − 0.3^a) / 0.7.
        let n: i32 = f["params"]["policy.pay.retry.attempts"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let success = 1.0 - 0.3f64.powi(n);
        assert!((s - success).abs() < 0.02, "{n} attempts: {s} vs {success}");
        assert!((a - success / 0.7).abs() < 0.03, "{n} attempts: {a}");
    }
}

#[test]
fn a_parameter_that_changes_nothing_is_named_with_the_values_tried() {
    let (d, out) = brownout();
    assert!(
        out.contains("  policy.pay.breaker.failure_rate (tried 0.8, 0.9, 0.95; 15 pairs)"),
        "{out}"
    );
    let t = json(&d.join("out/tune.json"));
    let named: Vec<&str> = (t["no_effect"].as_array().unwrap().iter())
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    // The attempts matter: only the breaker's rate is named.
    assert_eq!(named, ["policy.pay.breaker.failure_rate"]);
}

#[test]
fn the_winners_set_lines_reproduce_its_replication_0_in_cascade_run() {
    let d = support::scratch("tune-explains-winner");
    std::fs::write(d.join("t.toml"), RETRIES).unwrap();
    let o = cascade(
        &d,
        &[
            "tune",
            "t.toml",
            "--param",
            "policy.web-api.retry.attempts=1..5:1",
            "--param",
            "policy.web-api.timeout=1ms,3ms,10ms,30ms,100ms",
            "--objective",
            "client.web.success_ratio",
            "--maximize",
            "--set",
            "scenario.duration=1s",
            "--out",
            "out",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let t = json(&d.join("out/tune.json"));
    let ready = &t["ready"];
    let run = ready["run"].as_str().unwrap();
    // The search's own --set comes first, then the winner's.
    assert!(
        run.starts_with("cascade run t.toml --set scenario.duration=1s --set policy.web-api.retry.attempts=3 --set policy.web-api.timeout="),
        "{run}"
    );
    assert!(text(&o).contains(run), "the command is printed");
    let mut args: Vec<&str> = run.split(' ').skip(1).collect();
    args.extend(["--out", "run", "--quiet"]);
    let o = cascade(&d, &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let summary = json(&d.join("run/summary.json"));
    let best = t["best"]["point"].as_u64().unwrap() as usize;
    let row = &runs_csv(&d.join("out/runs.csv"))[&best];
    for metric in ["client.web.success_ratio", "edge.web.api.amplification"] {
        let ran = summary["metrics"][metric].as_f64().unwrap();
        let searched: f64 = row[metric].parse().unwrap();
        assert_eq!(ran, searched, "{metric}");
    }
    // Each export command runs as printed.
    let exports = ready["export"].as_array().unwrap();
    assert_eq!(
        exports.len(),
        3,
        "envoy, grpc and resilience4j express web-api"
    );
    for e in exports {
        let command = e["command"].as_str().unwrap();
        let args: Vec<&str> = command.split(' ').skip(1).collect();
        let o = cascade(&d, &args);
        assert_eq!(o.status.code(), Some(0), "{command}: {}", text(&o));
        assert!(!o.stdout.is_empty(), "{command}");
    }
}
