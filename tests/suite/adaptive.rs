//! Adaptive policies end to end: concurrency limits on the caller, CoDel and adaptive LIFO at
//! the callee, outlier ejection on the balancer. Each is checked against what it is for.

use crate::support::{metric, run};

/// 1.5× overload on a server of capacity 1000/s (10 workers × 10 ms), callers that give up
/// after 100 ms and do not cancel: without a limit the queue grows until every answer is late.
fn overloaded(limit: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "limit"
duration = "60s"
warmup = "10s"
seed = 3

[[client]]
name = "load"
target = "server"
rate = 1500
policy = "p"

[policy.p]
timeout = "100ms"
{limit}

[[service]]
name = "server"
workers = 10
queue = 100000
work = {{ dist = "exponential", mean = "10ms" }}
"#
    ))
}

#[test]
fn without_a_limit_overload_turns_every_answer_late() {
    let m = overloaded("");
    assert!(metric(&m, "client.load.goodput_rps") < 100.0);
    assert!(metric(&m, "service.server.wasted_work_s") > 40.0);
}

#[test]
fn each_adaptive_limit_keeps_goodput_near_capacity_under_overload() {
    // AIMD backs off on latency above its own `timeout` (50 ms, inside the caller's 100 ms);
    // Vegas and Gradient2 judge RTTs against a no-load estimate, which needs windowed samples
    // when service times vary (the minimum of raw exponential samples is near zero).
    for algorithm in [
        r#"limit = { algorithm = "aimd", timeout = "50ms" }"#,
        r#"limit = { algorithm = "aimd", timeout = "50ms", window = {} }"#,
        r#"limit = { algorithm = "vegas", window = {} }"#,
        r#"limit = { algorithm = "gradient2", window = {} }"#,
    ] {
        let m = overloaded(algorithm);
        let goodput = metric(&m, "client.load.goodput_rps");
        let limited = metric(&m, "edge.load.server.limited");
        let limit = metric(&m, "edge.load.server.limit_mean");
        assert!(goodput > 850.0, "{algorithm}: goodput {goodput}");
        // The excess third of the load is turned away at the caller, not queued.
        assert!(
            limited > 0.25 * 1500.0 * 60.0,
            "{algorithm}: limited {limited}"
        );
        assert_eq!(metric(&m, "client.load.errors.limited"), limited);
        // A limit that lets ~1000/s through at 10-100 ms each sits between 10 and 100.
        assert!(
            (10.0..=100.0).contains(&limit),
            "{algorithm}: limit {limit}"
        );
    }
}

#[test]
fn an_aimd_limit_grows_by_one_while_used_and_stays_within_its_bounds() {
    // Under capacity with no drops, AIMD climbs from 20 by one per sample while the path uses
    // at least half of it; at 100/s and 10 ms (one in flight) it never does, so it stays 20.
    let m = run(r#"
[scenario]
name = "idle-limit"
duration = "20s"
seed = 1

[[client]]
name = "load"
target = "server"
rate = 100
policy = "p"

[policy.p]
limit = { algorithm = "aimd", initial = 20, min = 5, max = 30 }

[[service]]
name = "server"
workers = 10
work = "10ms"
"#);
    assert_eq!(metric(&m, "edge.load.server.limit_mean"), 20.0);
    assert_eq!(metric(&m, "edge.load.server.limited"), 0.0);
}

/// 1.2× overload on capacity 1000/s with an unbounded FIFO queue; callers wait up to 300 ms.
fn standing_queue(service_extra: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "queue"
duration = "60s"
warmup = "10s"
seed = 5

[[client]]
name = "load"
target = "server"
rate = 1200
deadline = "300ms"

[[service]]
name = "server"
workers = 10
queue = 100000
work = {{ dist = "exponential", mean = "10ms" }}
{service_extra}
"#
    ))
}

#[test]
fn a_fifo_queue_under_overload_serves_only_requests_whose_callers_left() {
    let m = standing_queue("");
    assert!(metric(&m, "client.load.goodput_rps") < 50.0);
    assert!(metric(&m, "service.server.wait_p99_ms") > 10_000.0);
}

#[test]
fn codel_sheds_the_standing_queue_and_keeps_served_waits_near_its_target() {
    let m = standing_queue(r#"codel = { target = "5ms", interval = "100ms" }"#);
    let goodput = metric(&m, "client.load.goodput_rps");
    assert!(goodput > 950.0, "goodput {goodput}");
    // The excess sixth of the arrivals is shed at dequeue, answered overloaded.
    let shed = metric(&m, "service.server.shed_codel");
    let arrivals = metric(&m, "service.server.arrivals");
    assert!(
        (0.12..0.25).contains(&(shed / arrivals)),
        "shed {shed} of {arrivals}"
    );
    assert_eq!(metric(&m, "client.load.errors.overloaded"), shed);
    // Served requests waited at most 2 x target while overloaded; the queue only builds in
    // an interval that judged it healthy.
    let wait = metric(&m, "service.server.wait_p99_ms");
    assert!(wait < 100.0, "wait p99 {wait}");
}

#[test]
fn adaptive_lifo_serves_the_newest_while_the_queue_is_long() {
    let m = standing_queue("adaptive_lifo = 20");
    let goodput = metric(&m, "client.load.goodput_rps");
    assert!(goodput > 900.0, "goodput {goodput}");
    // Below the threshold it stays FIFO: a queue that never reaches it behaves exactly as
    // FIFO (same seed, same draws).
    let light = |extra: &str| {
        run(&format!(
            r#"
[scenario]
name = "light"
duration = "20s"
seed = 5

[[client]]
name = "load"
target = "server"
rate = 500

[[service]]
name = "server"
workers = 10
work = {{ dist = "exponential", mean = "10ms" }}
{extra}
"#
        ))
    };
    let (fifo, adaptive) = (light(""), light("adaptive_lifo = 1000"));
    assert_eq!(
        metric(&fifo, "client.load.latency_p99_ms"),
        metric(&adaptive, "client.load.latency_p99_ms")
    );
}

/// Ten instances behind a round-robin balancer; instance #3 fails every request for 60 s.
fn one_bad_instance(outlier: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "outlier"
duration = "120s"
seed = 2

[[client]]
name = "load"
target = "server"
rate = 1000

[[service]]
name = "server"
instances = 10
workers = 4
balancer = "round_robin"
work = "1ms"
{outlier}

[[fault]]
kind = "errors"
target = "server#3"
error = "unavailable"
start = "0s"
end = "60s"
"#
    ))
}

#[test]
fn outlier_ejection_takes_a_failing_instance_out_of_rotation() {
    let without = one_bad_instance("");
    let failed = metric(&without, "client.load.errors.unavailable");
    // A tenth of 60 s of traffic fails.
    assert!((failed - 6_000.0).abs() < 100.0, "failed {failed}");
    assert_eq!(metric(&without, "service.server.ejections"), 0.0);

    let with = one_bad_instance("outlier = { consecutive_failures = 5 }");
    let failed = metric(&with, "client.load.errors.unavailable");
    // Ejected after 5 failures for 30 s, back at a sweep (every 10 s), out again after 5 more
    // failures for 60 s (the time grows): a handful of failures instead of thousands.
    assert!(failed <= 15.0, "failed {failed}");
    assert_eq!(metric(&with, "service.server.ejections"), 2.0);
    // Out from the first 5 ms; the sweep at 40 s (the first after 30 s) lets it back; out again
    // at once for 60 s, back at the sweep of 110 s: ejected about 110 s of 120.
    let ejected = metric(&with, "service.server.ejected_mean");
    assert!(
        (ejected - 110.0 / 120.0).abs() < 0.005,
        "ejected mean {ejected}"
    );
}

#[test]
fn outlier_ejection_respects_the_max_ejection_percent() {
    // Three instances at the default 10%: (1 + 0) / 3 is over 10%, so nothing is ejected
    // unless `always_eject_one` lets the first one go (Envoy's always_eject_one_host).
    let three = |outlier: &str| {
        run(&format!(
            r#"
[scenario]
name = "outlier3"
duration = "30s"
seed = 2

[[client]]
name = "load"
target = "server"
rate = 300

[[service]]
name = "server"
instances = 3
workers = 4
balancer = "round_robin"
work = "1ms"
{outlier}

[[fault]]
kind = "errors"
target = "server#0"
error = "internal"
"#
        ))
    };
    let capped = three("outlier = {}");
    assert_eq!(metric(&capped, "service.server.ejections"), 0.0);
    let one = three("outlier = { always_eject_one = true }");
    assert_eq!(metric(&one, "service.server.ejections"), 1.0);
    assert!(metric(&one, "client.load.errors.internal") <= 5.0);
}
