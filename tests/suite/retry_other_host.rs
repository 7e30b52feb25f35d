//! `retry.other_host` (docs/policies.md, "A retry to another instance"): Envoy's
//! `previous_hosts` retry host predicate with `host_selection_retry_max_attempts`. A retry's
//! pick that is a host the call already tried is made again, at most `host_reselections`
//! times (Envoy's default 1), and the last pick stands. Worked on a fleet where `server#0`
//! answers every request `unavailable` at once and the others succeed.
//!
//! With N instances under the random balancer, a retry after `server#0` failed lands there
//! again only if every one of its 1 + k picks is `server#0`: (1/N)^(1+k) (Envoy's
//! `chooseHost` makes `host_selection_retry_max_attempts + 1` picks). A request of two
//! attempts fails when its first pick is `server#0` (1/N) and its retry lands there again:
//! p = (1/N)^(2+k), and (1/N)² without the key. Counts over n requests are binomial; the
//! bands below are four standard deviations, √(n·p·(1 − p)), either side, so a correct
//! engine fails one by chance about once in 16,000 runs (and the seed is fixed).

use crate::support::*;

/// `rate` requests a second for 10 s (no warm-up) to `instances` instances behind `balancer`,
/// two attempts each with a 15 ms constant backoff; `server#0` fails every request at once.
/// `retry` is written into the retry table.
fn fleet(
    instances: u32,
    balancer: &str,
    arrival: &str,
    rate: u32,
    retry: &str,
) -> (cascade::Model, cascade::metrics::RunMetrics) {
    run_model(&format!(
        r#"
[scenario]
name = "other-host"
duration = "10s"
warmup = "0s"
seed = 3

[[client]]
name = "load"
target = "server"
arrival = "{arrival}"
rate = {rate}
policy = "p"

[policy.p]
retry = {{ attempts = 2, on = ["unavailable"], backoff = "constant", base = "15ms", jitter = "none"{retry} }}

[[service]]
name = "server"
instances = {instances}
workers = 1000
balancer = "{balancer}"
work = "1ms"

[[fault]]
kind = "errors"
target = "server#0"
error = "unavailable"
start = "0s"
end = "10s"
"#
    ))
}

/// Failed requests and requests of a run.
fn failed(m: &cascade::metrics::RunMetrics) -> (f64, f64) {
    let requests = metric(m, "client.load.requests");
    (metric(m, "client.load.errors.unavailable"), requests)
}

/// Holds `got` of `n` to n·p within four standard deviations of the binomial.
fn within_band(what: &str, got: f64, n: f64, p: f64) {
    let (mean, sd) = (n * p, (n * p * (1.0 - p)).sqrt());
    assert!(
        (got - mean).abs() <= 4.0 * sd,
        "{what}: {got} of {n}, expected {mean:.1} ± {:.1}",
        4.0 * sd
    );
}

#[test]
fn round_robin_sends_every_retry_to_the_healthy_instance() {
    // A request every 10 ms from t = 10 ms (999 in 10 s), its retry 15 ms after. Round robin's
    // rotation then goes server#0 (the request at t), #1 (t + 10), #0 (the retry at t + 15),
    // #1 (t + 20), #0 (t + 30), ...: the request that found server#0 retries there too, and
    // every third request (333) fails twice.
    let (model, without) = fleet(2, "round_robin", "constant", 100, "");
    assert_counts_balance(&model, &without);
    assert_eq!(failed(&without), (333.0, 999.0));
    assert_eq!(metric(&without, "edge.load.server.retries"), 333.0);

    // With other_host the retry's pick of server#0 is picked again, and the next in the
    // rotation is server#1, every time, whatever was picked in between: no request fails.
    // The two picks of each retry shift the rotation, so every other request (the odd ones,
    // at 10, 30, 50 ms...) finds server#0 first: 500 of them, the last at 9,990 ms, whose
    // retry at 10,005 ms is past the end (499 retries sent, one request in flight).
    let (model, with) = fleet(2, "round_robin", "constant", 100, ", other_host = true");
    assert_counts_balance(&model, &with);
    assert_eq!(failed(&with), (0.0, 999.0));
    assert_eq!(metric(&with, "edge.load.server.retries"), 499.0);
    assert_eq!(metric(&with, "client.load.in_flight_end"), 1.0);
    assert_eq!(metric(&with, "client.load.success"), 998.0);
}

#[test]
fn random_retries_avoid_the_tried_host_as_envoy_picks() {
    // Two instances, 10,000 requests. Without the key a request fails with (1/2)² = 1/4;
    // with Envoy's one re-pick (1/2)³ = 1/8; with three, (1/2)⁵ = 1/32.
    let cases = [
        ("", 0.25),
        (", other_host = true", 0.125),
        (", other_host = true, host_reselections = 3", 1.0 / 32.0),
    ];
    for (retry, p) in cases {
        let (model, m) = fleet(2, "random", "poisson", 1000, retry);
        assert_counts_balance(&model, &m);
        let (fails, n) = failed(&m);
        within_band(&format!("random, `{retry}`"), fails, n, p);
        // Every failed first attempt is retried, whatever the key: n/2 retries.
        let retries = metric(&m, "edge.load.server.retries");
        within_band("retries", retries, n, 0.5);
    }
}

#[test]
fn among_four_instances_a_retry_repeats_its_host_with_a_quarter_to_the_power_of_its_picks() {
    // Four instances, one failing: a request fails with 1/4 · 1/4 = 1/16 without the key, and
    // 1/4 · (1/4)² = 1/64 with one re-pick.
    let (_, without) = fleet(4, "random", "poisson", 1000, "");
    let (fails, n) = failed(&without);
    within_band("four, without", fails, n, 1.0 / 16.0);
    let (_, with) = fleet(4, "random", "poisson", 1000, ", other_host = true");
    let (fails, n) = failed(&with);
    within_band("four, other_host", fails, n, 1.0 / 64.0);
}

#[test]
fn when_every_pick_was_tried_the_last_pick_stands() {
    // One instance, failing: the re-pick can only find it again, and the retry goes there
    // anyway (Envoy routes to the last host selected), so every request is sent twice but
    // the last (its retry at 10,005 ms is past the end): 998 fail, 2 · 998 + 1 attempts.
    let (model, m) = fleet(1, "round_robin", "constant", 100, ", other_host = true");
    assert_counts_balance(&model, &m);
    assert_eq!(failed(&m), (998.0, 999.0));
    assert_eq!(metric(&m, "edge.load.server.attempts"), 1997.0);
    assert_eq!(metric(&m, "edge.load.server.retries"), 998.0);
}

#[test]
fn other_host_off_changes_nothing() {
    // `other_host = false` is the absent key: the same draws, the same summary.
    let (_, absent) = fleet(3, "random", "poisson", 1000, "");
    let (_, off) = fleet(3, "random", "poisson", 1000, ", other_host = false");
    assert_eq!(absent.summary, off.summary);
}

#[test]
fn the_report_describes_a_retry_to_another_instance() {
    let describe = |retry: &str| {
        let (model, _) = fleet(2, "random", "poisson", 10, retry);
        let (spec, _) = model.specs_with_callers()[0];
        cascade::output::describe::retries(&spec.policy)
    };
    assert!(!describe("").contains("another instance"));
    assert!(describe(", other_host = true").ends_with("; to another instance (1 re-pick)"));
    assert!(
        describe(", other_host = true, host_reselections = 3")
            .ends_with("; to another instance (3 re-picks)")
    );
}
