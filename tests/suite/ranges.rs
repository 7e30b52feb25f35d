//! Numbers that once fell outside their range, each from a scenario that produced one.

use crate::support::run;

/// A bulkhead around the whole call (`wraps = "call"`, a shared pool, a queue with a
/// `max_wait`) on a fan-out of 20, under a caller whose own timeout passes first: the
/// bulkhead's wait timer was put at the call's deadline, already past, so the clock ran
/// backwards, and mid's utilization read 2,635,249,153 (a level below zero in an unsigned
/// integer; with overflow checks, a panic).
const UTIL_HUGE: &str = r#"
[scenario]
name = "util-huge"
duration = "2s"
[[client]]
name = "web"
target = "edge"
rate = 1277.94
[[service]]
name = "edge"
instances = 4
calls = [{ to = "front" }]
[[service]]
name = "front"
workers = 8
calls = [{ to = "mid", policy = "short", latency = { dist = "empirical", percentiles = [[0, "0.5ms"], [100, "200ms"]] } }]
[[service]]
name = "mid"
workers = 14
calls = [{ to = "leaf", policy = "pooled", latency = { dist = "normal", mean = "16.328ms", stddev = "8.557ms" }, count = 20 }]
[[service]]
name = "leaf"
[policy.short]
timeout = "102.468ms"
[policy.pooled]
bulkhead = { queue = 3, max_wait = "34.174ms", wraps = "call", pool = "pool0" }
"#;

#[test]
fn a_bulkhead_wait_past_its_deadline_ends_now_and_levels_stay_in_range() {
    let m = run(UTIL_HUGE);
    for (name, v) in &m.summary {
        if name.ends_with(".utilization") {
            assert!((0.0..=1.0).contains(v), "{name} = {v}");
        }
        if name.ends_with(".in_system_mean") || name.ends_with(".queue_mean") {
            assert!((0.0..1e4).contains(v), "{name} = {v}");
        }
    }
    let util = m.get("service.mid.utilization").unwrap();
    assert!((util - 0.0527).abs() < 0.01, "mid utilization {util}");
}

/// One db worker, every answer 185 ms late for a caller that waits at most 694 ms: from
/// early on, db works for callers that have gone. Its wasted time was booked whole when each
/// job ended, warm-up and earlier windows included, so `wasted_share` read 1.016 over the run
/// and 1.108 in the last second; it is now booked in the span it is spent.
const WASTED_SHARE: &str = r#"
[scenario]
name = "wasted-share"
duration = "4s"
warmup = "1s"
[[client]]
name = "web"
target = "api"
rate = 741.52
deadline = "693.857ms"
[[service]]
name = "api"
calls = [{ to = "db" }]
[[service]]
name = "db"
[[fault]]
kind = "latency"
target = "db#0"
add = "184.672ms"
[[window]]
name = "late"
start = "4s"
"#;

#[test]
fn wasted_work_is_booked_in_the_span_it_was_spent() {
    let m = run(WASTED_SHARE);
    for name in [
        "service.db.wasted_share",
        "window.late.service.db.wasted_share",
    ] {
        let share = m.get(name).unwrap();
        assert!((0.0..=1.0).contains(&share), "{name} = {share}");
    }
    // The one worker is busy with abandoned work all the measured time: 4 s of it, and 1 s
    // in the last second, never more than the time itself.
    let wasted = m.get("service.db.wasted_work_s").unwrap();
    assert!(wasted <= 4.0 + 1e-9 && wasted > 3.5, "wasted {wasted} s");
    let late = m.get("window.late.service.db.wasted_work_s").unwrap();
    assert!(late <= 1.0 + 1e-9 && late > 0.9, "late {late} s");
    let series = m.series_of("service.db.wasted_work_s").unwrap();
    assert!(series.iter().all(|w| *w <= 1.0 + 1e-9), "{series:?}");
}
