//! Recovery after a fault, and the metastable failures that never recover.

use crate::support::{metric, run};

/// A 5 s slowdown (work x3) under open-loop clients whose calls retry: capacity 1000/s.
fn slowdown(rate: u32, retry: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "metastable"
duration = "120s"
warmup = "10s"
seed = 1

[[client]]
name = "c"
target = "s"
rate = {rate}
policy = "p"

[policy.p]
timeout = "100ms"
{retry}

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
"#
    ))
}

#[test]
fn a_retry_storm_outlives_its_trigger_unless_a_budget_or_fewer_attempts_end_it() {
    let storm = slowdown(
        800,
        r#"retry = { attempts = 4, backoff = "constant", base = "1ms" }"#,
    );
    assert_eq!(metric(&storm, "fault.0.recovered"), 0.0);
    assert!(metric(&storm, "fault.0.goodput_after_rps") < 50.0);
    assert!((metric(&storm, "fault.0.goodput_before_rps") - 800.0).abs() < 20.0);
    let budget = slowdown(
        800,
        r#"retry = { attempts = 4, backoff = "constant", base = "1ms", budget = 0.1 }"#,
    );
    assert_eq!(metric(&budget, "fault.0.recovered"), 1.0);
    // Without retries the backlog built during the slowdown, (800 − 1000/3)/s x 5 s, drains
    // at (1000 − 800)/s: 11.7 s, so goodput is back in the 12th bucket after the end.
    let once = slowdown(800, "");
    assert_eq!(metric(&once, "fault.0.recovered"), 1.0);
    assert_eq!(metric(&once, "fault.0.recovery_s"), 12.0);
}

#[test]
fn the_storm_persists_exactly_where_arrivals_times_attempts_exceed_capacity() {
    // Fluid argument: in the storm every call times out and makes all its attempts, and the
    // service still serves every one (no cancel). With 2 attempts the load is 2 x rate against
    // a capacity of 1000/s: it drains below 500/s and grows above it.
    let two = r#"retry = { attempts = 2, backoff = "constant", base = "1ms" }"#;
    let below = slowdown(450, two);
    assert_eq!(metric(&below, "fault.0.recovered"), 1.0);
    let above = slowdown(550, two);
    assert_eq!(metric(&above, "fault.0.recovered"), 0.0);
}

#[test]
fn recovery_time_matches_the_hand_computed_drain() {
    // One worker, 5 ms per request, a request every 10 ms. A 1 s stall queues 100 requests;
    // the worker then drains them at 200/s while 100/s arrive: back to normal 1 s after the
    // stall. Goodput in that second is 200/s (the backlog answered): above the baseline, so
    // it counts as back at once (recovery is one-sided and judged on goodput alone), although
    // the answers of that second are up to a second late; from the next bucket on it is
    // 100/s again.
    let m = run(r#"
[scenario]
name = "drain"
duration = "40s"
seed = 1
recovery_hold = "5s"

[[client]]
name = "c"
target = "s"
rate = 100
arrival = "constant"

[[service]]
name = "s"
work = "5ms"

[[fault]]
kind = "stall"
target = "s"
start = "10s"
end = "11s"
"#);
    assert_eq!(metric(&m, "fault.0.recovered"), 1.0);
    assert_eq!(metric(&m, "fault.0.recovery_s"), 0.0);
    let goodput = m.series_of("client.c.goodput_rps").unwrap();
    let p99 = m.series_of("client.c.latency_p99_ms").unwrap();
    assert!((goodput[11] - 200.0).abs() <= 1.0, "{}", goodput[11]);
    assert!(
        p99[11] > 900.0,
        "the drained backlog is late: p99 {} ms",
        p99[11]
    );
    assert!((goodput[12] - 100.0).abs() <= 1.0, "{}", goodput[12]);
    // (The first bucket misses the request at 0 s: arrivals start one gap in.)
    assert!((metric(&m, "fault.0.goodput_before_rps") - 100.0).abs() <= 0.1);
    assert_eq!(metric(&m, "fault.0.goodput_during_rps"), 0.0);
}

#[test]
fn a_fault_from_the_start_has_no_level_to_recover_to() {
    let m = run(r#"
[scenario]
name = "no-before"
duration = "20s"

[[client]]
name = "c"
target = "s"
rate = 10

[[service]]
name = "s"
work = "1ms"

[[fault]]
kind = "errors"
target = "s"
rate = 0.5
end = "5s"
"#);
    assert!(m.get("fault.0.recovered").is_none());
}

#[test]
fn windows_measure_any_metric_over_a_span_or_a_fault_phase() {
    let m = run(r#"
[scenario]
name = "windows"
duration = "30s"
seed = 1

[[client]]
name = "c"
target = "s"
rate = 100
arrival = "constant"

[[service]]
name = "s"
work = "5ms"

[[fault]]
kind = "errors"
target = "s"
rate = 1.0
start = "10s"
end = "15s"

[[window]]
name = "hit"
fault = 0
phase = "during"

[[window]]
name = "calm"
fault = 0
phase = "before"

[[window]]
name = "late"
start = "20s"
end = "30s"
"#);
    assert_eq!(metric(&m, "window.hit.client.c.success"), 0.0);
    assert_eq!(metric(&m, "window.hit.client.c.errors.unavailable"), 500.0);
    assert_eq!(metric(&m, "window.hit.client.c.success_ratio"), 0.0);
    assert_eq!(metric(&m, "window.late.client.c.success_ratio"), 1.0);
    assert_eq!(metric(&m, "window.late.client.c.goodput_rps"), 100.0);
    assert_eq!(metric(&m, "window.late.service.s.utilization"), 0.5);
    // Before the fault: the first 10 s (the first arrival is 10 ms in).
    assert_eq!(metric(&m, "window.calm.client.c.requests"), 999.0);
    // The whole run's summary is unchanged by windows.
    assert_eq!(metric(&m, "client.c.errors.unavailable"), 500.0);
}

/// A small client (20/s) behind a large one (1,000/s): its service is refused from 10 s to
/// 20 s (fault 0), then again from 20 s to the end (fault 1). All goodput together is back
/// within the band at once (1,000/s ± 3√1,020), so the aggregate reads "recovered", while the
/// small client never comes back. A third client sends nothing before 30 s.
/// A large client and a small one on services of their own. The small one's service is stalled
/// from 10 s to 20 s and then stays down in a retry storm (one worker, 40 ms a request, 20/s
/// sent with a 100 ms timeout and three attempts, timed-out attempts still served: 60
/// attempts/s against 25/s), while the large one never notices. A second fault, an outage of
/// the large one's service from 50 s to the end, is apart from the first.
const SMALL_BEHIND_LARGE: &str = r#"
[scenario]
name = "small-behind-large"
duration = "60s"

[[client]]
name = "large"
target = "bulk"
arrival = "constant"
rate = 1000

[[client]]
name = "small"
target = "niche"
arrival = "constant"
rate = 20
policy = "storm"

[[client]]
name = "late"
target = "bulk"
arrival = "constant"
rate = 0
phases = [ { at = "30s", rate = 10 } ]

[policy.storm]
timeout = "100ms"
retry = { attempts = 3, backoff = "constant", base = "1ms" }

[[service]]
name = "bulk"
workers = 10
work = "1ms"

[[service]]
name = "niche"
queue = 100000
work = "40ms"

[[fault]]
kind = "stall"
target = "niche"
start = "10s"
end = "20s"

[[fault]]
kind = "outage"
target = "bulk"
start = "50s"
"#;

#[test]
fn each_client_gets_its_own_recovery_verdict() {
    let m = run(SMALL_BEHIND_LARGE);
    assert_eq!(
        metric(&m, "fault.0.recovered"),
        1.0,
        "the aggregate hides it"
    );
    assert_eq!(metric(&m, "fault.0.client.large.recovered"), 1.0);
    assert_eq!(metric(&m, "fault.0.client.large.recovery_s"), 0.0);
    assert_eq!(metric(&m, "fault.0.client.small.recovered"), 0.0);
    // Bucket 0 answers 19 (the arrival at 1 s falls in bucket 1), the next nine 20 each.
    assert_eq!(metric(&m, "fault.0.client.small.goodput_before_rps"), 19.9);
    assert_eq!(metric(&m, "fault.0.client.small.goodput_during_rps"), 0.0);
    assert_eq!(metric(&m, "fault.0.client.small.goodput_after_rps"), 0.0);
    // Not recovered: the time watched after the fault's end, up to fault 1's start.
    assert_eq!(metric(&m, "fault.0.client.small.recovery_s"), 30.0);
    // No traffic before the fault: no level to come back to, no verdict.
    assert!(m.get("fault.0.client.late.recovered").is_none());
    assert!(m.get("fault.0.client.late.goodput_before_rps").is_none());
    // Fault 1's baseline runs from where goodput came back after fault 0 (20 s) to 50 s; it
    // lasts to the end: every client with traffic then is judged, none recovered.
    assert_eq!(metric(&m, "fault.1.baseline_s"), 30.0);
    assert_eq!(metric(&m, "fault.1.client.small.recovered"), 0.0);
    assert_eq!(metric(&m, "fault.1.client.late.recovered"), 0.0);
}

#[test]
fn the_table_names_the_clients_that_did_not_recover() {
    let dir = crate::support::scratch("recovery-clients");
    let path = dir.join("s.toml");
    std::fs::write(&path, SMALL_BEHIND_LARGE).unwrap();
    let out = crate::support::cascade(
        &[
            "run",
            path.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        0,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("fault 0: not recovered at client small (0/s after against 19.9/s before)"),
        "{stdout}"
    );
    // Fault 1 lasts to the end: no client could have recovered, and none is named.
    assert!(!stdout.contains("fault 1: not recovered at"), "{stdout}");
}
