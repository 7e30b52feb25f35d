//! Fire-and-forget calls (`wait = false`, docs/scenario.md "Keys of a call"): an event-bus
//! publish. The step goes on at once, the consumer is loaded with every attempt (retries go on
//! in the background), and the publish's outcome is counted on its edge.

use crate::support::*;

/// web → api (10 ms of work, then `calls`) → db (5 ms) and bus (1 s, the slow consumer).
/// The publish has a 300 ms timeout and 3 attempts 50 ms apart. 70 requests, at 0.1 s, …, 7 s.
fn publishing(calls: &str, wait: bool) -> (cascade::Model, cascade::metrics::RunMetrics) {
    run_model(
        &format!(
            r#"
[scenario]
name = "publish"
duration = "10s"

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 10
phases = [ {{ at = "7s", rate = 0 }} ]

[[service]]
name = "api"
workers = 100
work = "10ms"
calls = {calls}

[[service]]
name = "db"
workers = 100
work = "5ms"

[[service]]
name = "bus"
workers = 100
work = "1s"

[policy.publish]
timeout = "300ms"
retry = {{ attempts = 3, on = ["timeout"], backoff = "constant", base = "50ms", jitter = "none" }}
"#
        )
        .replace("WAIT", &wait.to_string()),
    )
}

const SEQUENCE: &str = r#"[ { to = "bus", wait = WAIT, policy = "publish" }, { to = "db" } ]"#;
const PARALLEL: &str =
    r#"[ { parallel = [ { to = "db" }, { to = "bus", wait = WAIT, policy = "publish" } ] } ]"#;

#[test]
fn a_publish_to_a_slow_consumer_adds_nothing_to_the_callers_latency() {
    for calls in [SEQUENCE, PARALLEL] {
        let (model, m) = publishing(calls, false);
        assert_counts_balance(&model, &m);
        // api's 10 ms and db's 5 ms: the publish's step (or its half of the step) is over at once.
        assert_eq!(metric(&m, "client.web.latency_mean_ms"), 15.0, "{calls}");
        assert_eq!(metric(&m, "client.web.latency_max_ms"), 15.0, "{calls}");
        assert_eq!(metric(&m, "client.web.success"), 70.0, "{calls}");
        // Each publish times out at 310 ms, 660 ms and 1010 ms after the request began (three
        // 300 ms attempts, 50 ms apart), in the background: every attempt reaches the bus.
        assert_eq!(metric(&m, "edge.api.bus.calls"), 70.0, "{calls}");
        assert_eq!(metric(&m, "edge.api.bus.attempts"), 210.0, "{calls}");
        assert_eq!(metric(&m, "edge.api.bus.retries"), 140.0, "{calls}");
        assert_eq!(metric(&m, "service.bus.arrivals"), 210.0, "{calls}");
        // The outcome is counted on the edge, though nobody waited for it.
        assert_eq!(metric(&m, "edge.api.bus.errors.timeout"), 70.0, "{calls}");
        assert_eq!(metric(&m, "edge.api.bus.success"), 0.0, "{calls}");
        assert_eq!(
            metric(&m, "edge.api.bus.call_latency_mean_ms"),
            1000.0,
            "{calls}"
        );
        // Each attempt runs its full second at the bus, 700 ms after the publisher stopped
        // waiting for it.
        assert_close(
            "bus wasted",
            metric(&m, "service.bus.wasted_work_s"),
            210.0 * 0.7,
            1e-9,
        );
    }
}

#[test]
fn waiting_for_the_same_call_takes_its_whole_retry_loop() {
    // The control: the same call waited for. The request waits for the publish's three
    // attempts (1 s and the 10 ms before it) and db, and fails with the publish.
    let (model, m) = publishing(SEQUENCE, true);
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "client.web.latency_mean_ms"), 1010.0);
    assert_eq!(metric(&m, "client.web.errors.unavailable"), 70.0);
    assert_eq!(metric(&m, "edge.api.db.calls"), 0.0);
    let (model, m) = publishing(PARALLEL, true);
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "client.web.latency_mean_ms"), 1010.0);
}

#[test]
fn a_publish_outlives_the_request_that_made_it() {
    // web gives up on api after 12 ms and cancels it: api's request is stopped while it waits
    // for db, but its publish, made at 10 ms, is nobody's child and runs its retries to the end.
    let (model, m) = run_model(
        r#"
[scenario]
name = "publish-cancelled"
duration = "10s"

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 10
policy = "web-api"
phases = [ { at = "7s", rate = 0 } ]

[[service]]
name = "api"
workers = 100
work = "10ms"
calls = [ { parallel = [ { to = "db" }, { to = "bus", wait = false, policy = "publish" } ] } ]

[[service]]
name = "db"
workers = 100
work = "5ms"

[[service]]
name = "bus"
workers = 100
work = "1s"

[policy.web-api]
timeout = "12ms"
cancel = true

[policy.publish]
timeout = "300ms"
retry = { attempts = 3, on = ["timeout"], backoff = "constant", base = "50ms", jitter = "none" }
"#,
    );
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "client.web.errors.timeout"), 70.0);
    // The db call was dropped with api's request; the publishes were not.
    assert_eq!(metric(&m, "edge.api.db.abandoned"), 70.0);
    assert_eq!(metric(&m, "edge.api.bus.abandoned"), 0.0);
    assert_eq!(metric(&m, "edge.api.bus.attempts"), 210.0);
    assert_eq!(metric(&m, "edge.api.bus.errors.timeout"), 70.0);
}
