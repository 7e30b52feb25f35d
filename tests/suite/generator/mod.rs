//! Random valid scenarios, run through the library: no panic, no hang, every count balanced
//! at every client, service and edge, every metric finite, and the same bytes twice.
//!
//! `CASCADE_GEN_CASES=N` runs N cases instead of the default (split over the shards below);
//! `CASCADE_GEN_CASE=I` runs case I alone (the number a failure prints) and prints its TOML.
//! `CASCADE_GEN_KEEP_GOING=1` lists every failing case instead of stopping at the first.
//! A failing case prints its scenario, so it can also be saved and run with `cascade run`.

mod expects;
mod faults;
mod invariants;
mod policy;
mod scenario;

/// The scenario of case `i`, for other tests of what scenarios may hold (`schema.rs`).
pub use scenario::generate;

use crate::support::assert_counts_balance;
use std::sync::mpsc;
use std::time::Duration;

/// Cases by default, over all shards: at least 2,000 in the release test run.
const CASES: u64 = 2_000;
/// Shards: separate tests, so the test harness runs them on every core.
const SHARDS: u64 = 4;
/// A case that has not ended after this long hangs. Generous: a case takes milliseconds,
/// a run stopped for want of progress about a second in a debug build. Only a hang reaches
/// it, so the tests never depend on how fast the machine is.
const HANG: Duration = Duration::from_secs(120);

/// Runs shard `shard` of the cases: case `i` belongs to shard `i % SHARDS`.
fn run_shard(shard: u64) {
    if let Some(i) = crate::support::env_u64("CASCADE_GEN_CASE") {
        if i % SHARDS == shard {
            println!("{}", scenario::generate(i));
            check_case(i).unwrap_or_else(|e| panic!("{e}"));
        }
        return;
    }
    let cases = crate::support::env_u64("CASCADE_GEN_CASES").unwrap_or(CASES);
    // For hunting bugs: every failing case's first line, instead of stopping at the first.
    let keep_going = std::env::var_os("CASCADE_GEN_KEEP_GOING").is_some();
    let mut failed = Vec::new();
    for (ran, i) in (shard..cases).step_by(SHARDS as usize).enumerate() {
        if let Err(e) = check_case(i) {
            if !keep_going {
                panic!("after {ran} passing cases of shard {shard}: {e}");
            }
            failed.push(e.lines().next().unwrap_or_default().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{} failing cases:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn generated_scenarios_shard_0() {
    run_shard(0);
}

#[test]
fn generated_scenarios_shard_1() {
    run_shard(1);
}

#[test]
fn generated_scenarios_shard_2() {
    run_shard(2);
}

#[test]
fn generated_scenarios_shard_3() {
    run_shard(3);
}

/// Case `i`: its scenario checked in a thread of its own, so that a panic is caught with the
/// scenario in hand and a hang is noticed instead of waited for.
fn check_case(i: u64) -> Result<(), String> {
    let text = scenario::generate(i);
    let (tx, rx) = mpsc::channel();
    let body = text.clone();
    std::thread::Builder::new()
        .name(format!("gen-case-{i}"))
        .spawn(move || {
            let outcome = std::panic::catch_unwind(|| {
                check_scenario(&body)?;
                expects::check_expectations(i, &body)
            });
            let _ = tx.send(outcome.unwrap_or_else(|p| Err(panic_message(p))));
        })
        .unwrap();
    let failure = match rx.recv_timeout(HANG) {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(e)) => e,
        Err(mpsc::RecvTimeoutError::Timeout) => format!("no answer after {HANG:?}: a hang"),
        Err(mpsc::RecvTimeoutError::Disconnected) => "the case's thread died".to_string(),
    };
    Err(format!(
        "generated case {i} failed: {failure}\n\
         replay: CASCADE_GEN_CASE={i} cargo test --test suite generated_scenarios\n\
         --- scenario of case {i} ---\n{text}--- end of case {i} ---"
    ))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    let what = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".to_string());
    format!("panicked: {what}")
}

type Outputs = (cascade::Model, cascade::metrics::RunMetrics, String, String);

/// The outputs of one run: the model, its metrics, summary.json and timeseries.csv as
/// `cascade run` writes them, and the fault table it prints; or the run's error.
fn outputs(text: &str) -> Result<Outputs, String> {
    let scenario = cascade::scenario::load_str("gen.toml", text, &[])
        .map_err(|e| format!("the generator built an invalid scenario: {e}"))?;
    // The lints read every generated shape without panicking, and say the same each time.
    let warnings = scenario.warnings();
    if warnings != scenario.warnings() {
        return Err("the lints gave two different answers".into());
    }
    let model = scenario.model;
    match cascade::simulate(&model) {
        Ok(r) => {
            let files = cascade::output::run_files::summary_json(&model, &r.metrics)
                + &cascade::output::run_files::timeseries_csv(&r.metrics);
            let table = cascade::output::run_tables::render_faults(&model, &r.faults);
            Ok((model, r.metrics, files, table))
        }
        Err(e) => Err(format!("{e}")),
    }
}

fn check_scenario(text: &str) -> Result<(), String> {
    let first = outputs(text);
    let second = outputs(text);
    let (model, metrics, files, table) = match first {
        Ok(run) => run,
        // A closed loop answered at once is stopped, as documented, the same way each time.
        Err(e) if e.contains("makes no progress") => {
            return match second {
                Err(again) if again == e => Ok(()),
                _ => Err(format!("a second run ended otherwise than `{e}`")),
            };
        }
        Err(e) => return Err(e),
    };
    assert_counts_balance(&model, &metrics);
    invariants::check(&model, &metrics, &table)?;
    let mut bad: Vec<&str> = metrics
        .summary
        .iter()
        .filter(|(_, v)| !v.is_finite())
        .map(|(n, _)| n.as_str())
        .collect();
    let columns = metrics.names.len().max(1);
    for (k, v) in metrics.series.iter().enumerate() {
        if !v.is_finite() {
            bad.push(metrics.names[k % columns].as_str());
        }
    }
    bad.sort();
    bad.dedup();
    if !bad.is_empty() {
        return Err(format!("metrics not finite: {}", bad.join(", ")));
    }
    match second {
        Ok((_, _, again, _)) if again == files => Ok(()),
        Ok(_) => Err("a second run wrote different bytes".to_string()),
        Err(e) => Err(format!("a second run failed: {e}")),
    }
}

/// The generator reaches a pool shared by two paths of one caller (`bulkhead.pool` named by
/// two policies with the same settings), which a pool per policy never is.
#[test]
fn some_generated_scenarios_share_a_pool_between_paths() {
    let shared = (0..400)
        .filter(|&i| {
            let text = scenario::generate(i);
            let pools: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with("bulkhead = "))
                .filter_map(|l| l.split("pool = \"").nth(1))
                .filter_map(|rest| rest.split('"').next())
                .collect();
            (0..pools.len()).any(|a| pools[a + 1..].contains(&pools[a]))
        })
        .count();
    assert!(shared >= 4, "{shared} of 400 cases share a pool");
}

/// The generator reaches each way a `branch` fault warms back: an exponential curve, the
/// linear one spelled out, and a table of weights, among the cases the default run makes.
#[test]
fn some_generated_branch_faults_warm_back_along_each_curve() {
    let texts: Vec<String> = (0..2000).map(scenario::generate).collect();
    for key in [
        "warm_curve = \"exponential\"",
        "warm_curve = \"linear\"",
        "warm_table = [",
    ] {
        let cases = texts.iter().filter(|t| t.contains(key)).count();
        assert!(cases >= 3, "{cases} of 2,000 cases have `{key}`");
    }
}
