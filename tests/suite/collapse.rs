//! Marc Brooker's collapse model against his analysis, and docs/validation.md's table of it:
//! the test computes the table's `cascade` column and holds the document's figures to it
//! (doc_numbers/computed.rs).

use crate::doc_numbers::computed::{
    self,
    Quoted::{Figure, Holds},
};
use crate::support::*;

const LATENCY: &str = "client.load.latency_mean_ms";
const RETRIES: &str = "edge.load.server.retries";
const ATTEMPTS: &str = "service.server.attempts_per_request";
const TIPPED: &str = "25 /s, constant, 10 s of 1.5× slowness at 100 s";

/// Brooker's collapse model: latency = 1 s + 0.01 s × concurrency, no queue (workers enough
/// for any concurrency), `arrival` arrivals at `rate`, and a client that waits `timeout` and
/// then tries once more, its first attempt still running (nothing is cancelled).
fn brooker(rate: u32, arrival: &str, timeout: &str, fault: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "brooker"
duration = "300s"
warmup = "60s"

[[client]]
name = "load"
target = "server"
arrival = "{arrival}"
rate = {rate}
policy = "client"

[[service]]
name = "server"
workers = 100000
work = "1s"
contention = {{ k = 0.01, knee = 0 }}

[policy.client]
timeout = "{timeout}"
retry = {{ attempts = 2, on = ["timeout"], backoff = "constant", base = "0", jitter = "none" }}
{fault}
"#
    ))
}

#[test]
fn brookers_collapse_happens_where_his_analysis_says() {
    // A request's concurrency counts itself: L = 1 + 0.01 (C + 1), where C = λ L others are
    // in flight on average (Little; Poisson arrivals see the time average). Without retries
    // L = 1.01 / (1 − 0.01 λ), stable for λ < 100 /s. A retry after a timeout T = 1.5 s doubles
    // the offered load once L > T; then L = 1.01 / (1 − 0.02 λ), which exists for λ < 50 /s.
    // So the calm state exists for λ < 100 (1 − 1.01/T) = 32.7 /s, the retrying one for
    // 50 (1 − 1.01/T) = 16.3 < λ < 50 /s; beyond 50 /s the retrying system grows without
    // bound. At 10 /s only the calm state exists: L = 1.12 s, and no request ever retries.
    let calm = brooker(10, "poisson", "1.5s", "");
    assert_close(
        "latency at 10/s",
        metric(&calm, "client.load.latency_mean_ms"),
        1010.0 / (1.0 - 0.1),
        0.01,
    );
    assert_eq!(metric(&calm, "edge.load.server.retries"), 0.0);
    // At 25 /s both exist. Steady arrivals stay calm at L = 1.35 s...
    let steady = brooker(25, "constant", "1.5s", "");
    assert_close(
        "latency at 25/s",
        metric(&steady, "client.load.latency_mean_ms"),
        1010.0 / (1.0 - 0.25),
        0.01,
    );
    assert_eq!(metric(&steady, "edge.load.server.retries"), 0.0);
    // ...but 10 s of slowness tips them into the retrying state, which outlives its trigger:
    // the metastable failure (L = 1.01 / (1 − 0.5) = 2.02 s > T, every attempt times out).
    let tipped = brooker(
        25,
        "constant",
        "1.5s",
        "[[fault]]\nkind = \"latency\"\ntarget = \"server\"\nfactor = 1.5\nstart = \"100s\"\nend = \"110s\"",
    );
    assert_close(
        "goodput before the trigger",
        metric(&tipped, "fault.0.client.load.goodput_before_rps"),
        25.0,
        0.01,
    );
    assert_eq!(
        metric(&tipped, "fault.0.client.load.goodput_after_rps"),
        0.0
    );
    // Poisson arrivals at 25 /s tip on their own: a burst is trigger enough.
    let bursty = brooker(25, "poisson", "1.5s", "");
    assert_eq!(metric(&bursty, "client.load.success"), 0.0);
    // At 60 /s without a retry (a timeout longer than any latency): L = 2.53 s, stable.
    let slow = brooker(60, "poisson", "1000s", "");
    assert_close(
        "latency at 60/s without a retry",
        metric(&slow, "client.load.latency_mean_ms"),
        1010.0 / (1.0 - 0.6),
        0.01,
    );
    // With the retry, 120 /s reach a server stable only below 100 /s: concurrency grows
    // without bound.
    let collapsed = brooker(60, "poisson", "1.5s", "");
    assert_close(
        "attempts per request",
        metric(&collapsed, "service.server.attempts_per_request"),
        2.0,
        0.01,
    );
    assert_eq!(metric(&collapsed, "client.load.success"), 0.0);
    assert!(
        metric(&collapsed, "service.server.in_system_mean")
            > 3.0 * metric(&slow, "service.server.in_system_mean")
    );

    // docs/validation.md's table of this model: its `cascade` column is these runs.
    let m = metric;
    let table = [
        (
            "10 /s, Poisson: calm only",
            "^{} ms",
            Figure(m(&calm, LATENCY)),
        ),
        (
            "10 /s, Poisson: calm only",
            "no retries",
            Holds(m(&calm, RETRIES) == 0.0),
        ),
        (
            "25 /s, constant: both states exist, calm",
            "^{} ms",
            Figure(m(&steady, LATENCY)),
        ),
        (
            "25 /s, constant: both states exist, calm",
            "no retries",
            Holds(m(&steady, RETRIES) == 0.0),
        ),
        (
            TIPPED,
            "goodput {} /s before",
            Figure(m(&tipped, "fault.0.client.load.goodput_before_rps")),
        ),
        (
            TIPPED,
            "before, {} after",
            Figure(m(&tipped, "fault.0.client.load.goodput_after_rps")),
        ),
        (
            "25 /s, Poisson",
            "{} attempts a request",
            Figure(m(&bursty, ATTEMPTS)),
        ),
        (
            "25 /s, Poisson",
            "none succeeds",
            Holds(m(&bursty, "client.load.success") == 0.0),
        ),
        (
            "60 /s, no retry (T = 1000 s)",
            "^{} ms$",
            Figure(m(&slow, LATENCY)),
        ),
        (
            "60 /s with the retry",
            "^{} attempts a request",
            Figure(m(&collapsed, ATTEMPTS)),
        ),
        (
            "60 /s with the retry",
            "none succeeds",
            Holds(m(&collapsed, "client.load.success") == 0.0),
        ),
        (
            "60 /s with the retry",
            "{} in flight on average",
            Figure(m(&collapsed, "service.server.in_system_mean")),
        ),
    ];
    computed::agree(
        "docs/validation.md",
        "| arrivals | closed form | cascade |",
        2,
        &table,
    );
}
