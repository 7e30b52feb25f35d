//! `cascade margin` on a known boundary (scenarios/retry-collapse-margin.toml, whose header
//! derives it): a FIFO M/M/1 at mu = 1,000/s with three immediate retries stays collapsed after
//! its trigger iff lambda (1 + 3) > mu, a load boundary of 250/s (1.25x the written 200/s); a
//! ratio budget b with a floor of f retries per second moves it to (mu - f) / (1 + b). Each is
//! found within 5%. Output that does not depend on `--jobs`; exit 2 on bad input.

use cascade::margin::estimate::Estimate;
use cascade::margin::runs::Runs;
use cascade::margin::search::{Bounds, Found};
use cascade::margin::{Axis, find};
use cascade::scenario::Override;
use std::path::Path;
use std::process::Command;

const SCENARIO: &str = "scenarios/retry-collapse-margin.toml";
const WRITTEN_RATE: f64 = 200.0;
const MU: f64 = 1000.0;

fn bounds() -> Bounds {
    Bounds {
        reps: 3,
        max_runs: 60,
        tolerance: 0.02,
        min_x: 1.0 / 16.0,
        max_x: 16.0,
    }
}

/// The load margin of the scenario with `set` applied: the 50% point and its interval.
fn load_margin(set: &[&str]) -> Estimate {
    let overrides: Vec<Override> = set.iter().map(|s| Override::parse(s).unwrap()).collect();
    let scenario = cascade::scenario::load(Path::new(SCENARIO), &overrides).unwrap();
    let m = find(&scenario.model, 0, Axis::Load, bounds(), &mut Runs::new(2)).unwrap();
    assert!(matches!(m.found, Found::Bracketed { .. }), "{:?}", m.found);
    let e = m.estimate.expect("a bracketed search has an estimate");
    assert!(e.low <= e.x && e.x <= e.high, "{e:?}");
    e
}

fn assert_within_5_percent(found_rate: f64, boundary: f64) {
    let off = (found_rate / boundary - 1.0).abs();
    assert!(
        off <= 0.05,
        "found {found_rate:.1}/s, boundary {boundary:.1}/s ({:.1}% off)",
        100.0 * off
    );
}

#[test]
fn the_load_boundary_of_three_immediate_retries_is_a_quarter_of_the_service_rate() {
    let e = load_margin(&[]);
    assert_within_5_percent(e.x * WRITTEN_RATE, MU / 4.0);
}

#[test]
fn a_ratio_budget_moves_the_boundary_to_mu_less_the_floor_over_one_plus_the_ratio() {
    for (ratio, floor) in [(0.2, 10.0), (0.5, 10.0)] {
        let e = load_margin(&[
            &format!("policy.app-api.retry.budget.ratio={ratio}"),
            &format!("policy.app-api.retry.budget.min_per_s={floor}"),
        ]);
        assert_within_5_percent(e.x * WRITTEN_RATE, (MU - floor) / (1.0 + ratio));
    }
}

fn margin(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("margin")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_words_name_the_boundary_and_the_mechanism_and_do_not_depend_on_jobs() {
    let run = |jobs: &str| {
        let out = margin(&[SCENARIO, "--axis", "load", "--reps", "3", "--jobs", jobs]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("1");
    assert_eq!(text, run("2"));
    assert!(text.contains("load: recovers up to 1.2"), "{text}");
    assert!(text.contains("a retry storm sustains itself"), "{text}");
}

#[test]
fn a_fault_recovered_at_every_multiplier_is_said_so() {
    // At 200/s the retries never outrun the server (4 x 200 < 1,000): any stall drains, within
    // the 110 s watched, up to the 16x tried.
    let out = margin(&[SCENARIO, "--axis", "trigger", "--reps", "1", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[0]["found"], "recovers_throughout", "{json}");
    assert_eq!(
        json[0]["probes"].as_array().unwrap().len(),
        5,
        "1, 2, 4, 8, 16"
    );
}

#[test]
fn bad_input_exits_2_naming_the_flag() {
    for (args, says) in [
        (vec![SCENARIO, "--fault", "3"], "--fault 3"),
        (vec![SCENARIO, "--reps", "0"], "--reps"),
        (vec![SCENARIO, "--max-runs", "2"], "--max-runs 2"),
        (vec!["scenarios/bench-mmc.toml"], "no [[fault]]"),
    ] {
        let out = margin(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
