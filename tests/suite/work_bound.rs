//! The work bound (docs/scenario.md, "The work bound"): a closed-loop client answered at once
//! with a tiny `pace` or `think` stops with exit 2 naming the client and the key, where it
//! once ran a billion requests per user per simulated second; a run that has no result names
//! where it sits in its command (variant, sweep point, replication, seed).

use crate::support::*;
use cascade::engine::work_bound::allowed;

/// The issue's reproducer: two users against one worker with no queue, `wait` in their place.
fn refused(wait: &str) -> String {
    format!(
        r#"
[scenario]
name = "paced-1ns-queue0"
duration = "1s"
[[client]]
name = "poller"
target = "api"
arrival = "closed"
users = 2
{wait}
[[service]]
name = "api"
workers = 1
queue = 0
work = "1ms"
"#
    )
}

fn bound_error(toml: &str) -> cascade::error::WorkBound {
    let model = cascade::scenario::load_str("bound.toml", toml, &[])
        .unwrap()
        .model;
    match cascade::simulate(&model) {
        Err(cascade::Error::WorkBound(b)) => *b,
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("the run ended"),
    }
}

#[test]
fn a_paced_loop_refused_at_once_stops_at_the_bound_naming_client_and_pace() {
    let b = bound_error(&refused(r#"pace = "1ns""#));
    assert_eq!(
        (b.client.as_str(), b.key.as_str(), b.value.as_str()),
        ("poller", "client.poller.pace", "1ns")
    );
    // The gap is api's 1 ms of work (a pace of 1 ns is less): 1,000,000 + 1,000 × 2 × (1 + t /
    // 1 ms), passed within the first millisecond and a half, about a million requests in.
    assert_eq!(b.allowed, allowed(2, 1_000_000, b.at_ns));
    assert_eq!(
        b.allowed,
        1_000_000 + 2_000 + (2_000 * b.at_ns as u128 / 1_000_000) as u64
    );
    assert!(b.requests > b.allowed);
    assert!(b.at_ns < 1_500_000, "{}", b.at_ns);
    assert_eq!(b.formula, "1000000 + 1000 × 2 users × (1 + t / 1ms)");
    assert_eq!(
        (b.run.scenario.as_str(), b.run.seed),
        ("paced-1ns-queue0", 1)
    );
}

#[test]
fn a_thinking_loop_refused_at_once_names_think() {
    let b = bound_error(&refused(r#"think = "1ns""#));
    assert_eq!(
        (b.key.as_str(), b.value.as_str()),
        ("client.poller.think", "1ns")
    );
    assert!(b.requests > b.allowed && b.at_ns < 1_500_000);
}

#[test]
fn an_outage_stops_a_paced_loop_within_a_millisecond_of_its_start() {
    // Served, the users ask once per answer (exponential work, median 1 ms × ln 2); from the
    // outage at 100 ms every answer comes at once, and 2 × 10^9 requests a second pass the
    // bound's 1,000,000 + 2,000 × (1 + 100 ms / 693.147 µs) ≈ 1,290,000 within a millisecond.
    let toml = r#"
[scenario]
name = "paced-outage"
duration = "1s"
[[client]]
name = "poller"
target = "api"
arrival = "closed"
users = 2
pace = "1ns"
[[service]]
name = "api"
workers = 4
work = { dist = "exponential", mean = "1ms" }
[[fault]]
kind = "outage"
target = "api"
start = "100ms"
end = "900ms"
"#;
    let b = bound_error(toml);
    assert_eq!(b.key, "client.poller.pace");
    assert!((100_000_000..101_000_000).contains(&b.at_ns), "{}", b.at_ns);
    assert_eq!(b.allowed, allowed(2, 693_147, b.at_ns));
    assert!(
        b.gap_from
            .starts_with("693.147µs is the larger of its pace (1ns)"),
        "{}",
        b.gap_from
    );
}

#[test]
fn the_command_exits_2_naming_the_client_and_the_key_and_writes_nothing() {
    let dir = scratch("work-bound-cli");
    let file = dir.join("paced.toml");
    std::fs::write(&file, refused(r#"pace = "1ns""#)).unwrap();
    let out = dir.join("out");
    let run = cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        2,
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("paced-1ns-queue0, seed 1: client `poller` asked"),
        "{err}"
    );
    assert!(err.contains("give `client.poller.pace`"), "{err}");
    // The lint said so before the run.
    assert!(err.contains("warning[sub-microsecond-think]"), "{err}");
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn a_loop_refused_every_microsecond_is_heavy_but_within_the_bound() {
    // One user served a millisecond at a time (1,000 requests), the other refused every 1 µs
    // meanwhile (1,000,000): under the bound's 1,000,000 + 2,000 × (1 + 1 s / 1 ms) = 3,002,000.
    let m = run(&refused(r#"pace = "1us""#));
    assert_eq!(metric(&m, "client.poller.requests"), 1_001_000.0);
    // Every served answer is a success but the last, still at work when the run ends.
    assert_eq!(metric(&m, "client.poller.success"), 999.0);
    assert!(1_001_000 < allowed(2, 1_000_000, 1_000_000_000));
}

/// Closed-loop users whose requests take no time at all when `think` is 0: the no-progress
/// guard's case (tests/suite/trust.rs), here in a sweep with a variant.
const SPIN: &str = r#"
[scenario]
name = "spin"
duration = "10ms"
seed = 7

[[client]]
name = "web"
target = "api"
arrival = "closed"
users = 2
think = "1ms"

[[service]]
name = "api"
workers = 2
work = "0s"

[[variant]]
name = "spin"
set = { "client.web.think" = "0s" }

[sweep]
reps = 2
"service.api.workers" = [1, 2]
"#;

#[test]
fn a_run_without_progress_in_a_sweep_names_its_variant_point_replication_and_seed() {
    let dir = scratch("work-bound-sweep");
    let file = dir.join("spin.toml");
    std::fs::write(&file, SPIN).unwrap();
    let out = dir.join("sweep");
    let args = [
        "sweep",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let ran = cascade(&args, 2);
    let err = String::from_utf8_lossy(&ran.stderr);
    // Plan order: point, variant, replication; the first failure is point 1's `spin`, rep 0.
    assert!(
        err.contains(
            "spin, variant `spin`, sweep point 1 (service.api.workers = 1), replication 0, \
             seed 7: the run makes no progress"
        ),
        "{err}"
    );
    // Half the runs (the base's) are recorded, and no table is written.
    assert!(
        err.contains("holds 4 of the sweep's 8 runs and no tables: an unfinished sweep"),
        "{err}"
    );
    assert!(!out.join("runs.csv").exists() && !out.join("points.csv").exists());
    // The same command resumes: it runs only the four missing, which fail again.
    let again = cascade(&args, 2);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("holds 4 of the sweep's 8 runs"), "{err}");
}

#[test]
fn a_check_names_the_variant_and_replication_of_a_run_without_progress() {
    let dir = scratch("work-bound-check");
    let file = dir.join("spin.toml");
    let sweep = SPIN.find("[sweep]").unwrap();
    let expect = "[[expect]]\nvariant = \"spin\"\nmetric = \"client.web.requests\"\nop = \">=\"\nvalue = 1\nreps = 2\n";
    std::fs::write(&file, format!("{}{expect}", &SPIN[..sweep])).unwrap();
    let ran = cascade(&["check", file.to_str().unwrap()], 2);
    let err = String::from_utf8_lossy(&ran.stderr);
    assert!(
        err.contains("spin, variant `spin`, replication 0, seed 7: the run makes no progress"),
        "{err}"
    );
}
