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
