//! Regressions of scenarios that once panicked or hung: each runs to its end and its counts
//! balance (README, "Every count balances").

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
