//! Finagle's failure accrual end to end (`cascade-policy/src/accrual.rs`): a caller marks a failing host
//! dead after five consecutive failures, its balancer sends elsewhere, one probe goes each
//! time the mark is over, and when every host is marked the balancer panics and sends anyway.
//! The counts are hand-computed from Finagle's backoff, equalJittered(5 s, 300 s).

use crate::support::{metric, run};

/// 300 requests a second to three round-robin instances; `server#0` (or all of `target`)
/// answers every request `unavailable` from 0 to `end`.
fn failing_host(
    accrual: &str,
    target: &str,
    end: &str,
    duration: &str,
) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "accrual"
duration = "{duration}"
seed = 5

[[client]]
name = "load"
target = "server"
rate = 300
policy = "p"

[policy.p]
timeout = "1s"
{accrual}

[[service]]
name = "server"
instances = 3
workers = 4
balancer = "round_robin"
work = "1ms"

[[fault]]
kind = "errors"
target = "{target}"
error = "unavailable"
start = "0s"
end = "{end}"
"#
    ))
}

const ACCRUAL: &str = "failure_accrual = {}";

#[test]
fn a_dead_host_gets_five_failures_and_one_probe_per_mark() {
    // Without accrual a third of 78 s of traffic fails.
    let without = failing_host("", "server#0", "78s", "78s");
    let failed = metric(&without, "client.load.errors.unavailable");
    assert!((failed - 7_800.0).abs() < 150.0, "failed {failed}");

    // With it: marked after 5 failures (about 17 ms in) for 5 s; each probe fails and marks
    // the host again for the next duration, in [5, 10), [10, 20), [20, 40) s: probes at
    // about 5.0 s, in [10, 15), in [20, 35) and in [40, 75) s; the fifth would come at 80 s
    // or later. So 5 + 4 failures, whatever the jitter draws.
    let with = failing_host(ACCRUAL, "server#0", "78s", "78s");
    assert_eq!(metric(&with, "client.load.errors.unavailable"), 9.0);
    assert_eq!(metric(&with, "edge.load.server.accrual_removals"), 1.0);
    assert_eq!(metric(&with, "edge.load.server.accrual_probes"), 4.0);
    assert_eq!(metric(&with, "edge.load.server.accrual_revivals"), 0.0);
    assert_eq!(metric(&with, "edge.load.server.accrual_panics"), 0.0);
    // Steered, not refused: every request was sent and the other two hosts took them.
    assert_eq!(
        metric(&with, "client.load.requests"),
        metric(&with, "edge.load.server.attempts")
    );
}

#[test]
fn a_probe_after_the_fault_revives_the_host() {
    // The fault ends at 20 s: probes at about 5 s and in [10, 15) s fail, the third, in
    // [20, 35) s, succeeds: one removal, three probes, one revival, 5 + 2 failures.
    let m = failing_host(ACCRUAL, "server#0", "20s", "60s");
    assert_eq!(metric(&m, "client.load.errors.unavailable"), 7.0);
    assert_eq!(metric(&m, "edge.load.server.accrual_removals"), 1.0);
    assert_eq!(metric(&m, "edge.load.server.accrual_probes"), 3.0);
    assert_eq!(metric(&m, "edge.load.server.accrual_revivals"), 1.0);
}

#[test]
fn a_constant_mark_probes_on_a_fixed_period() {
    // mark_dead_max = mark_dead_for: every mark lasts 5 s, so probes at about 5, 10, ..., 75 s:
    // 15 of them in 78 s.
    let m = failing_host(
        "failure_accrual = { mark_dead_for = \"5s\", mark_dead_max = \"5s\" }",
        "server#0",
        "78s",
        "78s",
    );
    assert_eq!(metric(&m, "edge.load.server.accrual_probes"), 15.0);
    assert_eq!(metric(&m, "client.load.errors.unavailable"), 5.0 + 15.0);
}

#[test]
fn with_every_host_marked_the_balancer_panics_and_sends_anyway() {
    let m = failing_host(ACCRUAL, "server", "20s", "20s");
    let requests = metric(&m, "client.load.requests");
    // Every host is marked after its five failures; from then on each pick is a panic, and
    // the request still goes out (Finagle uses the balancer's last pick): nothing is refused
    // by the caller, everything fails at the hosts.
    assert_eq!(metric(&m, "edge.load.server.accrual_removals"), 3.0);
    assert_eq!(metric(&m, "client.load.errors.unavailable"), requests);
    assert_eq!(metric(&m, "edge.load.server.attempts"), requests);
    let panics = metric(&m, "edge.load.server.accrual_panics");
    assert!(panics > requests - 100.0, "panics {panics} of {requests}");
}

#[test]
fn without_accrual_no_accrual_metrics_are_written() {
    let m = failing_host("", "server#0", "5s", "5s");
    assert!(!m.summary.iter().any(|(name, _)| name.contains("accrual")));
}
