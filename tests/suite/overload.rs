//! The physics of overload (`[service.contention]`, `after_work`, `reject_work`): throughput
//! against the contention law's closed form in a closed system, work after the calls inside the
//! seed 000 deadline, and refusals that take capacity from real work in proportion to their
//! rate. Brooker's collapse model is collapse.rs.

use crate::support::*;

/// `users` closed-loop users with no think time against one instance of `workers` workers
/// whose work (`work`, exponential unless constant) grows by the law `k`, `knee`.
fn closed(users: u32, workers: u32, work: &str, contention: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "contention"
duration = "200s"
warmup = "10s"

[[client]]
name = "load"
target = "server"
arrival = "closed"
users = {users}

[[service]]
name = "server"
workers = {workers}
work = {work}
contention = {contention}
{extra}
"#
    )
}

#[test]
fn contention_bends_closed_throughput_to_the_laws_curve() {
    // With at least as many workers as users, every request starts with all `n` users' jobs
    // at the server, itself included: work = S × (1 + k × max(0, n − knee)), so throughput is
    // X(n) = n / (S × f(n)). Past the knee it falls when k × knee > 1 (else it rises towards
    // 1 / (S k)): with S = 10 ms, k = 0.5, knee = 4 it peaks at 400 /s with 4 users and falls
    // to 267 /s with 8, 229 /s with 16, 213 /s with 32.
    let expected = |n: f64| n / (0.010 * (1.0 + 0.5 * (n - 4.0).max(0.0)));
    let mut measured = Vec::new();
    for n in [2, 4, 8, 16, 32] {
        let m = run(&closed(
            n,
            64,
            r#"{ dist = "exponential", mean = "10ms" }"#,
            "{ k = 0.5, knee = 4 }",
            "",
        ));
        let x = metric(&m, "service.server.throughput_rps");
        assert_close(
            &format!("throughput at {n} users"),
            x,
            expected(f64::from(n)),
            0.02,
        );
        measured.push(x);
    }
    assert!(
        measured[1] > measured[2] && measured[2] > measured[3] && measured[3] > measured[4],
        "{measured:?}"
    );
}

#[test]
fn a_table_gives_the_same_curve_as_the_law_it_tabulates_and_the_overhead_is_measured() {
    // Constant work: every job's overhead is exactly S × (f(n) − 1).
    let law = run(&closed(12, 64, r#""10ms""#, "{ k = 0.1, knee = 4 }", ""));
    let table = run(&closed(
        12,
        64,
        r#""10ms""#,
        "{ table = [[4, 1.0], [20, 2.6]] }",
        "",
    ));
    for m in [&law, &table] {
        assert_close(
            "throughput",
            metric(m, "service.server.throughput_rps"),
            12.0 / 0.018,
            0.001,
        );
        let served = metric(m, "service.server.served");
        assert_close(
            "contention work per request (s)",
            metric(m, "service.server.contention_work_s") / served,
            0.008,
            0.001,
        );
    }
}

#[test]
fn fewer_workers_than_users_cap_the_busy_count_at_the_pool() {
    // 32 users, 8 workers: 8 busy always, factor 1 + 0.1 × (8 − 4) = 1.4, X = 8 / 14 ms.
    let m = run(&closed(
        32,
        8,
        r#"{ dist = "exponential", mean = "10ms" }"#,
        "{ k = 0.1, knee = 4 }",
        "",
    ));
    assert_close(
        "throughput",
        metric(&m, "service.server.throughput_rps"),
        8.0 / 0.014,
        0.02,
    );
}

/// A front service of 10 ms own work, then a 40 ms call to a backend, under 4 closed users.
fn blocked_on_calls(counts: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "blocked"
duration = "100s"
warmup = "5s"

[[client]]
name = "load"
target = "front"
arrival = "closed"
users = 4

[[service]]
name = "front"
workers = 16
work = "10ms"
calls = [ {{ to = "back" }} ]
contention = {{ k = 0.5, knee = 1, counts = "{counts}" }}

[[service]]
name = "back"
workers = 16
work = "40ms"
"#
    ))
}

#[test]
fn workers_blocked_on_calls_count_as_busy_unless_counts_says_working() {
    // Held (a thread per request): all 4 jobs hold a worker, so each work starts with busy = 4,
    // factor 2.5, 25 ms of work, and a request takes 65 ms.
    let held = blocked_on_calls("held");
    assert_close(
        "latency (held)",
        metric(&held, "client.load.latency_mean_ms"),
        65.0,
        0.001,
    );
    // Working: only jobs at their own work count. The four users fall into step, one after
    // another, so a work starts alone: factor 1, 50 ms a request, no overhead at all.
    let working = blocked_on_calls("working");
    assert!(
        metric(&working, "client.load.latency_mean_ms") < 60.0,
        "{}",
        metric(&working, "client.load.latency_mean_ms")
    );
    assert!(
        metric(&working, "service.front.contention_work_s")
            < metric(&held, "service.front.contention_work_s") / 2.0
    );
}

/// The seed 000 product page: 500 ms deadline, 60 ms of work, an inventory lookup of two
/// 180 ms attempts 40 ms apart with 50 ms kept in reserve, then `after` of work assembling
/// the answer. The inventory never answers in time; the lookup is optional.
fn product_page(after: &str, optional: bool, on_failure: bool) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "seed-000"
duration = "10s"

[[client]]
name = "page"
target = "product"
arrival = "constant"
rate = 10
deadline = "500ms"
phases = [ {{ at = "9s", rate = 0 }} ]

[[service]]
name = "product"
workers = 100
work = "60ms"
calls = [ {{ to = "inventory", policy = "inventory-client", optional = {optional} }} ]
after_work = "{after}"
after_work_on_failure = {on_failure}

[[service]]
name = "inventory"
workers = 100
work = "1s"

[policy.inventory-client]
timeout = "180ms"
reserve = "50ms"
retry = {{ attempts = 2, on = ["timeout"], backoff = "constant", base = "40ms", jitter = "none" }}
"#
    ))
}

#[test]
fn the_product_page_spends_its_reserve_assembling_the_answer() {
    // The lookup ends at 450 ms (the second attempt had 170 ms); 45 ms of assembly answers,
    // degraded, at 495 ms: inside the 500 ms deadline the reserve kept room for.
    let m = product_page("45ms", true, false);
    assert_eq!(
        metric(&m, "edge.product.inventory.call_latency_mean_ms"),
        390.0
    );
    assert_eq!(metric(&m, "client.page.latency_max_ms"), 495.0);
    assert_eq!(
        metric(&m, "client.page.degraded"),
        metric(&m, "client.page.requests")
    );
    // Assembly longer than the reserve misses the deadline.
    let late = product_page("60ms", true, false);
    assert_eq!(
        metric(&late, "client.page.errors.deadline_exceeded"),
        metric(&late, "client.page.requests")
    );
}

#[test]
fn a_failed_required_call_skips_the_after_work_unless_told_otherwise() {
    // Required lookup: it fails at 450 ms and the page answers at once (a fast error path)...
    let fast = product_page("45ms", false, false);
    assert_eq!(metric(&fast, "client.page.latency_max_ms"), 450.0);
    // ...or after its assembly, when `after_work_on_failure` says it is spent anyway.
    let slow = product_page("45ms", false, true);
    assert_eq!(metric(&slow, "client.page.latency_max_ms"), 495.0);
    assert_eq!(
        metric(&slow, "client.page.errors.unavailable"),
        metric(&slow, "client.page.requests")
    );
}

/// 20 closed-loop users keep 4 workers of 10 ms busy; `junk` open requests a second reach an
/// operation whose every request an `errors` fault answers, each refusal costing `reject`.
fn refusals(junk: u32, reject: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "refusals"
duration = "100s"
warmup = "5s"

[[client]]
name = "real"
target = "server"
arrival = "closed"
users = 20
operation = "work"

[[client]]
name = "junk"
target = "server"
rate = {junk}
operation = "junk"

[[service]]
name = "server"
workers = 4
reject_work = "{reject}"
[[service.operation]]
name = "work"
work = "10ms"
[[service.operation]]
name = "junk"
work = "10ms"

[[fault]]
kind = "errors"
target = "server"
operation = "junk"
rate = 1.0
start = "0s"
end = "200s"
"#
    ))
}

#[test]
fn refusals_take_capacity_from_real_work_in_proportion_to_their_rate() {
    // 4 workers give 4 worker-seconds a second; each refusal takes 2 ms of one, so real work
    // gets 4 − 0.002 R of them: served = (4 − 0.002 R) / 10 ms = 400 − 0.2 R per second.
    for (junk, served) in [(0, 400.0), (500, 300.0), (1000, 200.0), (1500, 100.0)] {
        let m = refusals(junk, "2ms");
        assert_close(
            &format!("real served at {junk} refusals/s"),
            metric(&m, "service.server.op.work.throughput_rps"),
            served,
            0.02,
        );
        let refused = metric(&m, "service.server.op.junk.errors.unavailable");
        assert_eq!(refused == 0.0, junk == 0);
        if junk > 0 {
            assert_close(
                "refusal work (s)",
                metric(&m, "service.server.refusal_work_s"),
                refused * 0.002,
                0.01,
            );
        }
    }
    // Free refusals take nothing.
    let free = refusals(1000, "0s");
    assert_close(
        "real served with free refusals",
        metric(&free, "service.server.op.work.throughput_rps"),
        400.0,
        0.02,
    );
}

#[test]
fn existing_scenarios_emit_no_overload_metric() {
    let m = run(&closed(2, 4, r#""10ms""#, "{ k = 0.0 }", ""));
    assert!(metric(&m, "service.server.contention_work_s") == 0.0);
    assert!(
        !m.summary.iter().any(|(n, _)| n.ends_with("refusal_work_s")),
        "a service without reject_work emits no refusal_work_s"
    );
    let plain = run(r#"
[scenario]
name = "plain"
duration = "5s"
[[client]]
name = "c"
target = "s"
rate = 10
[[service]]
name = "s"
work = "1ms"
"#);
    assert!(
        !plain
            .summary
            .iter()
            .any(|(n, _)| n.contains("contention") || n.contains("refusal")),
    );
}

#[test]
fn the_factor_is_fixed_when_the_work_starts() {
    // Two requests 50 ms apart to a service whose work is 100 ms × busy workers: the first
    // starts alone and takes 100 ms though the second joins halfway; the second starts with
    // two busy and takes 200 ms. (Rescaled while concurrency changed, the first would take
    // 150 ms.)
    let m = run(r#"
[scenario]
name = "fixed"
duration = "2s"

[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 20
phases = [ { at = "0.12s", rate = 0 } ]

[[service]]
name = "s"
workers = 4
work = "100ms"
contention = { k = 1.0, knee = 1 }
"#);
    assert_eq!(metric(&m, "client.c.requests"), 2.0);
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 200.0);
    assert_eq!(metric(&m, "client.c.latency_mean_ms"), 150.0);
    assert_eq!(metric(&m, "service.s.contention_work_s"), 0.1);
}

#[test]
fn the_refusal_storm_scenario_holds_with_its_cure_and_fails_without() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/refusal-storm.toml");
    cascade(&["check", file], 0);
    cascade(
        &["check", file, "--set", "policy.web-api.throttle.k=1000"],
        1,
    );
    // Free refusals, no cure: the overload alone leaves the API serving at capacity.
    let m = run_model_file(
        file,
        &[
            "service.api.reject_work=0s",
            "policy.web-api.throttle.k=1000",
        ],
    );
    assert!(metric(&m, "fault.0.client.web.goodput_during_rps") > 780.0);
    let storm = run_model_file(file, &["policy.web-api.throttle.k=1000"]);
    assert!(metric(&storm, "fault.0.client.web.goodput_during_rps") < 20.0);
}

fn run_model_file(path: &str, sets: &[&str]) -> cascade::metrics::RunMetrics {
    let text = std::fs::read_to_string(path).unwrap();
    let sets: Vec<_> = sets
        .iter()
        .map(|s| cascade::scenario::Override::parse(s).unwrap())
        .collect();
    let model = cascade::scenario::load_str(path, &text, &sets)
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    cascade::simulate(&model).unwrap().metrics
}
