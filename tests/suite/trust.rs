//! Regressions of scenarios that once panicked or hung: each runs to its end and its counts
//! balance (docs/metrics.md, "Every count balances").

use crate::support::{assert_counts_balance, run_model};

/// `api` waits on a parallel step whose first call (`a`, 2 ms) ends long before the second
/// (`b`, 50 ms); `extra` makes something end `api`'s job while it waits for `b`.
fn parallel(first: &str, second: &str, client_extra: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "parallel"
duration = "2s"

[[client]]
name = "web"
target = "api"
rate = 200
{client_extra}

[[service]]
name = "api"
workers = 50
work = "1ms"
calls = [ {{ parallel = [ {{ to = "{first}" }}, {{ to = "{second}" }} ] }} ]

[[service]]
name = "a"
workers = 50
work = "2ms"

[[service]]
name = "b"
workers = 50
work = "50ms"
{extra}
"#
    )
}

fn runs_and_balances(text: &str) -> cascade::metrics::RunMetrics {
    let (model, m) = run_model(text);
    assert_counts_balance(&model, &m);
    m
}

#[test]
fn a_caller_timeout_cancels_a_parallel_step_after_one_of_its_calls_ended() {
    // Both orders of the step: the call that ended first may be anywhere in the job's list.
    for (first, second) in [("a", "b"), ("b", "a")] {
        let text = parallel(
            first,
            second,
            "policy = \"edge\"",
            "[policy.edge]\ntimeout = \"20ms\"\ncancel = true",
        );
        let m = runs_and_balances(&text);
        assert!(
            m.get("edge.api.b.abandoned").unwrap() > 300.0,
            "{first}, {second}"
        );
    }
}

#[test]
fn a_deadline_cancels_a_parallel_step_after_one_of_its_calls_ended() {
    let text = parallel(
        "b",
        "a",
        "deadline = \"20ms\"\npolicy = \"edge\"",
        "[policy.edge]\ncancel = true",
    );
    let m = runs_and_balances(&text);
    assert!(m.get("edge.api.b.abandoned").unwrap() > 300.0);
}

#[test]
fn a_crash_ends_a_job_waiting_on_a_parallel_step_after_one_of_its_calls_ended() {
    let crash = "[[fault]]\nkind = \"crash\"\ntarget = \"api\"\nstart = \"1s\"\nend = \"1200ms\"";
    let m = runs_and_balances(&parallel("b", "a", "", crash));
    assert!(m.get("client.web.errors.unavailable").unwrap() > 0.0);
}

#[test]
fn a_crash_during_work_whose_answer_crosses_the_network_ends_that_work() {
    // `front` calls `api` over 20 ms of network: the crash's answers are still on their way
    // back when the crashed jobs' work would have ended.
    let text = r#"
[scenario]
name = "crash-over-network"
duration = "2s"

[[client]]
name = "web"
target = "front"
rate = 200

[[service]]
name = "front"
workers = 50
calls = [ { to = "api", latency = "20ms" } ]

[[service]]
name = "api"
workers = 4
work = "10ms"

[[fault]]
kind = "crash"
target = "api"
start = "1s"
end = "1100ms"
"#;
    let m = runs_and_balances(text);
    assert!(m.get("service.api.errors.unavailable").unwrap() > 0.0);
    // Busy workers never go below zero: utilization stays a share.
    let busy = m.get("service.api.utilization").unwrap();
    assert!((0.0..=1.0).contains(&busy), "utilization {busy}");
}

#[test]
fn the_quickstart_survives_a_crash_of_one_gateway_instance() {
    let quickstart = std::fs::read_to_string("scenarios/quickstart.toml").unwrap();
    for start in [20, 40] {
        let text = format!(
            "{quickstart}\n[[fault]]\nkind = \"crash\"\ntarget = \"gateway#0\"\nstart = \"{start}s\"\nend = \"{}s\"\n",
            start + 5
        );
        let (_, m) = run_model(&text);
        assert!(m.get("client.web.requests").unwrap() > 20_000.0);
    }
}

/// A closed loop of `users` whose requests take `work` at one service with enough workers.
fn closed_loop(users: u32, work: &str) -> String {
    format!(
        r#"
[scenario]
name = "spin"
duration = "10ms"

[[client]]
name = "web"
target = "api"
arrival = "closed"
users = {users}

[[service]]
name = "api"
workers = {users}
work = "{work}"
"#
    )
}

#[test]
fn a_closed_loop_answered_at_once_is_stopped_not_spun_forever() {
    let model = cascade::scenario::load_str("spin.toml", &closed_loop(10, "0s"), &[])
        .unwrap()
        .model;
    match cascade::simulate(&model) {
        Err(cascade::Error::NoProgress { at_ns, events, .. }) => {
            assert_eq!(at_ns, 0);
            assert!(events > cascade::engine::watchdog::BASE, "{events}");
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a run that never advances its clock ended"),
    }
    let dir = crate::support::scratch("trust-spin");
    let file = dir.join("spin.toml");
    std::fs::write(&file, closed_loop(10, "0s")).unwrap();
    let out = crate::support::cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("makes no progress"), "{err}");
    assert!(!dir.join("out").exists(), "nothing is written");
}

#[test]
fn many_users_starting_together_are_progress() {
    // 100,000 users all start at t = 0 (no think time): several events each at one instant,
    // far below the limit, and the clock moves on with their work.
    let (_, m) = run_model(&closed_loop(100_000, "1ms"));
    assert!(m.get("client.web.requests").unwrap() >= 900_000.0);
}

/// `reserve` is longer than the client's deadline: every call's own deadline (the client's
/// minus the reserve) has passed when it starts, so it fails `deadline_exceeded` at once and
/// its canned fallback takes over. The fallback was once scheduled at that deadline, before
/// now: the clock ran backwards (and in a debug build `now - started` overflowed).
fn fallback_past_its_deadline(latency: &str) -> String {
    format!(
        r#"
[scenario]
name = "fallback-past-deadline"
duration = "1s"

[[client]]
name = "web"
target = "api"
rate = 100
deadline = "5ms"
policy = "edge"

[[service]]
name = "api"
work = "1ms"

[policy.edge]
reserve = "10ms"
fallback = {{ latency = "{latency}" }}
"#
    )
}

#[test]
fn a_canned_fallback_for_a_call_past_its_deadline_answers_now_not_in_the_past() {
    // The client still waits 5 ms: a 1 ms canned answer reaches it (policies.md, fallback),
    // degraded, 1 ms after the request started.
    let m = runs_and_balances(&fallback_past_its_deadline("1ms"));
    let requests = m.get("client.web.requests").unwrap();
    assert!(requests > 50.0, "{requests}");
    assert_eq!(m.get("client.web.degraded"), Some(requests));
    assert_eq!(m.get("edge.web.api.attempts"), Some(0.0));
    assert_eq!(m.get("client.web.latency_max_ms"), Some(1.0));
    // A 10 ms answer cannot: the request ends deadline_exceeded at the client's 5 ms.
    let m = runs_and_balances(&fallback_past_its_deadline("10ms"));
    let requests = m.get("client.web.requests").unwrap();
    assert_eq!(m.get("client.web.errors.deadline_exceeded"), Some(requests));
    assert_eq!(m.get("client.web.latency_max_ms"), Some(5.0));
}
