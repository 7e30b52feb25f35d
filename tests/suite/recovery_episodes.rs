//! Several faults in one run: each episode judged against a steady span of its own, faults
//! that overlap judged once, an episode with no steady span before it not judged at all (and
//! a gate on its verdict failing, saying why), and verdicts per operation of a client's mix.

use crate::support::{cascade, metric, run, scratch};

/// The issue's reproducer: an outage, then, well after it, an error burst. Goodput after the
/// burst (about 500/s) is its level before it; the old verdict took "before" from the warm-up
/// to the burst, outage included (348/s), and with a two-sided band called it metastable.
const TWO_FAULTS: &str = r#"
[scenario]
name = "two-faults"
duration = "90s"

[[client]]
name = "web"
target = "api"
rate = 500

[[service]]
name = "api"
workers = 8
work = { dist = "exponential", mean = "10ms" }

[[fault]]
kind = "outage"
target = "api"
start = "10s"
end = "25s"

[[fault]]
kind = "errors"
target = "api"
rate = 0.5
start = "50s"
end = "60s"
"#;

fn stdout_of(name: &str, toml: &str, args: &[&str], code: i32) -> String {
    let dir = scratch(name);
    let path = dir.join("s.toml");
    std::fs::write(&path, toml).unwrap();
    let out_dir = dir.join("out");
    let mut all = vec![
        "run",
        path.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ];
    all.extend(args);
    let out = cascade(&all, code);
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_second_fault_is_judged_against_the_span_after_the_first_came_back() {
    let m = run(TWO_FAULTS);
    assert_eq!(metric(&m, "fault.0.recovered"), 1.0);
    let back = metric(&m, "fault.0.recovery_s");
    // Fault 1's baseline starts where fault 0's goodput came back (25 s + recovery_s).
    assert_eq!(metric(&m, "fault.1.judged"), 1.0);
    assert_eq!(metric(&m, "fault.1.baseline_s"), 50.0 - 25.0 - back);
    let before = metric(&m, "fault.1.goodput_before_rps");
    assert!((before - 500.0).abs() < 15.0, "before {before}");
    assert!((metric(&m, "fault.1.goodput_during_rps") - 250.0).abs() < 15.0);
    assert_eq!(metric(&m, "fault.1.recovered"), 1.0);
    let out = stdout_of("two-faults", TWO_FAULTS, &[], 0);
    assert!(!out.contains("metastable"), "{out}");
}

/// Two faults on api at overlapping times (20–30 s and 25–35 s), and a third well after.
const OVERLAPPING: &str = r#"
[scenario]
name = "overlap"
duration = "80s"

[[client]]
name = "web"
target = "api"
rate = 200
arrival = "constant"

[[service]]
name = "api"
workers = 4
work = "5ms"

[[fault]]
kind = "outage"
target = "api"
start = "20s"
end = "30s"

[[fault]]
kind = "latency"
target = "api"
factor = 2
start = "25s"
end = "35s"

[[fault]]
kind = "stall"
target = "api"
start = "60s"
end = "61s"
"#;

#[test]
fn faults_that_overlap_are_one_episode_with_one_verdict() {
    let m = run(OVERLAPPING);
    for name in crate::support::fault_verdict_names() {
        assert_eq!(
            m.get(&format!("fault.0.{name}")),
            m.get(&format!("fault.1.{name}")),
            "fault.0.{name} and fault.1.{name}"
        );
    }
    // The episode ends at 35 s: recovery is counted from there, and the outage's own end
    // (30 s), with the slowdown still on, is not a recovery.
    assert_eq!(metric(&m, "fault.0.recovered"), 1.0);
    assert_eq!(metric(&m, "fault.0.recovery_s"), 0.0);
    assert_eq!(metric(&m, "fault.0.baseline_s"), 20.0);
    // The third fault is its own episode, judged from 35 s on.
    assert_eq!(metric(&m, "fault.2.baseline_s"), 25.0);
    let out = stdout_of("overlap", OVERLAPPING, &[], 0);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("0+1 ")).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(
        rows[0].starts_with("0+1 outage on api, latency on api"),
        "{out}"
    );
    assert!(
        out.contains("faults 0+1: active at overlapping times, judged as one episode"),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.starts_with("1 ")), "{out}");
}

/// A retry storm that never ends (800/s, capacity 1000/s, four attempts of 100 ms, a 5 s
/// slowdown), then an error burst: no span after the storm is steady.
fn after_a_storm(extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "after-storm"
duration = "120s"
warmup = "10s"
seed = 1

[[client]]
name = "c"
target = "s"
rate = 800
policy = "p"

[policy.p]
timeout = "100ms"
retry = {{ attempts = 4, backoff = "constant", base = "1ms" }}

[[service]]
name = "s"
workers = 10
queue = 100000
work = {{ dist = "exponential", mean = "10ms" }}

[[fault]]
kind = "latency"
target = "s"
factor = 3
start = "30s"
end = "35s"

[[fault]]
kind = "errors"
target = "s"
rate = 0.2
start = "80s"
end = "90s"
{extra}
"#
    )
}

#[test]
fn a_fault_after_one_that_never_came_back_is_not_judged_and_a_gate_on_it_fails_saying_why() {
    let m = run(&after_a_storm(""));
    assert_eq!(metric(&m, "fault.0.recovered"), 0.0);
    assert_eq!(metric(&m, "fault.1.judged"), 0.0);
    assert_eq!(metric(&m, "fault.1.baseline_s"), 0.0);
    for name in cascade::metrics::names::VERDICT_METRICS {
        assert!(
            m.get(&format!("fault.1.{name}")).is_none(),
            "fault.1.{name}"
        );
    }
    let out = stdout_of("after-storm", &after_a_storm(""), &[], 0);
    assert!(
        out.contains("fault 1: not judged: fault 0 before it did not recover"),
        "{out}"
    );
    let gated =
        after_a_storm("[[expect]]\nmetric = \"fault.1.recovered\"\nop = \"==\"\nvalue = 1\n");
    let dir = scratch("after-storm-gate");
    let path = dir.join("s.toml");
    std::fs::write(&path, gated).unwrap();
    let out = cascade(&["check", path.to_str().unwrap()], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fault 1 was not judged in this run (fault.1.judged = 0"),
        "{err}"
    );
}

#[test]
fn a_named_baseline_judges_a_fault_the_default_cannot() {
    let named = after_a_storm("").replace(
        "rate = 0.2\nstart = \"80s\"",
        "rate = 0.2\nbaseline = { start = \"10s\", end = \"30s\" }\nstart = \"80s\"",
    );
    let m = run(&named);
    assert_eq!(metric(&m, "fault.1.judged"), 1.0);
    assert_eq!(metric(&m, "fault.1.baseline_s"), 20.0);
    assert!((metric(&m, "fault.1.goodput_before_rps") - 800.0).abs() < 20.0);
    // Still in the storm: not back, and, watched for 30 s, metastable.
    assert_eq!(metric(&m, "fault.1.recovered"), 0.0);
}

#[test]
fn a_baseline_that_is_not_steady_or_not_before_its_fault_is_refused_by_its_key() {
    let with = |span: &str| {
        after_a_storm("").replace(
            "rate = 0.2\nstart = \"80s\"",
            &format!("rate = 0.2\nbaseline = {span}\nstart = \"80s\""),
        )
    };
    for (span, says) in [
        (
            r#"{ start = "5s", end = "20s" }"#,
            "must be at or after the warm-up's end (10s)",
        ),
        (
            r#"{ start = "60s", end = "85s" }"#,
            "must be at or before the fault's start (80s)",
        ),
        (
            r#"{ start = "20s", end = "40s" }"#,
            "fault 0 is active in it (30s–35s): a baseline must be steady",
        ),
        (
            r#"{ start = "40.5s", end = "41.2s" }"#,
            "the span must hold a whole bucket (1s)",
        ),
    ] {
        let out = stdout_of("bad-baseline", &with(span), &[], 2);
        assert!(out.contains(says), "{span}: {out}");
        assert!(out.contains("fault.1.baseline"), "{span}: {out}");
    }
}

/// Checkout is 4% of web's requests and calls payments, which a stall tips into a retry storm
/// that outlives it (40 checkouts/s, three attempts of 100 ms, 4 workers of 40 ms: 120
/// attempts/s against 100/s). Browse never notices.
const CHECKOUT_COLLAPSE: &str = r#"
[scenario]
name = "checkout-collapse"
duration = "60s"
warmup = "5s"

[[client]]
name = "web"
target = "gateway"
rate = 1000
mix = [
  { operation = "browse", weight = 24 },
  { operation = "checkout", weight = 1 },
]

[[service]]
name = "gateway"
workers = 64

[[service.operation]]
name = "browse"
work = "1ms"

[[service.operation]]
name = "checkout"
work = "1ms"
calls = [ { to = "payments", policy = "storm" } ]

[[service]]
name = "payments"
workers = 4
queue = 100000
work = "40ms"

[policy.storm]
timeout = "100ms"
retry = { attempts = 3, backoff = "constant", base = "1ms" }

[[fault]]
kind = "stall"
target = "payments"
start = "15s"
end = "25s"
"#;

#[test]
fn an_operation_that_collapses_gets_its_own_verdict_where_its_client_reads_recovered() {
    let m = run(CHECKOUT_COLLAPSE);
    assert_eq!(metric(&m, "fault.0.client.web.recovered"), 1.0);
    assert_eq!(metric(&m, "fault.0.client.web.op.browse.recovered"), 1.0);
    assert_eq!(metric(&m, "fault.0.client.web.op.checkout.recovered"), 0.0);
    let before = metric(&m, "fault.0.client.web.op.checkout.goodput_before_rps");
    assert!((before - 40.0).abs() < 5.0, "checkout before {before}");
    assert!(metric(&m, "fault.0.client.web.op.checkout.goodput_after_rps") < 1.0);
    let out = stdout_of("checkout-collapse", CHECKOUT_COLLAPSE, &[], 0);
    assert!(
        out.contains("fault 0: not recovered at client web op checkout (0/s after against"),
        "{out}"
    );
}
