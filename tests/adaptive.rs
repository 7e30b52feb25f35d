//! Adaptive policies end to end: concurrency limits on the caller, CoDel and adaptive LIFO at
//! the callee, outlier ejection on the balancer. Each is checked against what it is for.

mod common;
use common::{metric, run};

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
