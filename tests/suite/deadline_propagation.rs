//! `propagate_deadline = false` (docs/policies.md §2): seed 004's reversed timeout chain, a
//! caller with a short timeout over a callee whose own call has a longer one. With the
//! deadline propagated the callee's call ends at its caller's deadline; without it, the call
//! runs on to its own timeout while nobody waits for the answer.

use crate::support::*;

/// web (100 ms timeout) → api (10 ms of work, then db with a 1 s timeout) → db (2 s of work).
/// 70 requests, at 0.1 s, 0.2 s, …, 7 s: each has ended well before the run does.
fn reversed_chain(propagate: bool) -> (cascade::Model, cascade::metrics::RunMetrics) {
    chain(propagate, "work = \"2s\"", "")
}

/// web (100 ms timeout) -> api (10 ms of work) -> db (1 s timeout, `propagate_deadline` as
/// given), db doing `db` (its work, or its calls) with `more` after the policies.
fn chain(propagate: bool, db: &str, more: &str) -> (cascade::Model, cascade::metrics::RunMetrics) {
    run_model(&format!(
        r#"
[scenario]
name = "reversed-timeout-chain"
duration = "10s"

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 10
policy = "web-api"
phases = [ {{ at = "7s", rate = 0 }} ]

[[service]]
name = "api"
workers = 100
work = "10ms"
calls = [ {{ to = "db", policy = "api-db" }} ]

[[service]]
name = "db"
workers = 100
{db}

[policy.web-api]
timeout = "100ms"

[policy.api-db]
timeout = "1s"
propagate_deadline = {propagate}
{more}
"#
    ))
}

#[test]
fn a_propagated_deadline_ends_the_callees_call_with_its_caller() {
    let (model, m) = reversed_chain(true);
    assert_counts_balance(&model, &m);
    let calls = metric(&m, "edge.api.db.calls");
    assert_eq!(calls, 70.0);
    assert_eq!(metric(&m, "edge.web.api.errors.timeout"), 70.0);
    // api's request carries web's E = t + 100 ms; its call to db starts at t + 10 ms with
    // D = t + 100 ms, so E = min(t + 10 ms + 1 s, D): it ends at D, 90 ms after it began.
    assert_eq!(metric(&m, "edge.api.db.errors.deadline_exceeded"), calls);
    assert_eq!(metric(&m, "edge.api.db.errors.timeout"), 0.0);
    assert_eq!(metric(&m, "edge.api.db.call_latency_mean_ms"), 90.0);
    // api answers at the very moment web gives up: none of its worker time is wasted.
    assert_eq!(metric(&m, "service.api.wasted_work_s"), 0.0);
    // db works from t + 10 ms to t + 2.01 s, abandoned at t + 100 ms: 1.91 s each.
    assert_close(
        "db wasted",
        metric(&m, "service.db.wasted_work_s"),
        70.0 * 1.91,
        1e-9,
    );
}

#[test]
fn without_propagation_the_callees_call_runs_to_its_own_timeout() {
    let (model, m) = reversed_chain(false);
    assert_counts_balance(&model, &m);
    let calls = metric(&m, "edge.api.db.calls");
    assert_eq!(calls, 70.0);
    // web still gives up at 100 ms: its own timeout is its own.
    assert_eq!(metric(&m, "edge.web.api.errors.timeout"), 70.0);
    assert_eq!(metric(&m, "client.web.latency_mean_ms"), 100.0);
    // api's call to db has no deadline now (D = none): it waits the whole 1 s timeout.
    assert_eq!(metric(&m, "edge.api.db.errors.timeout"), calls);
    assert_eq!(metric(&m, "edge.api.db.errors.deadline_exceeded"), 0.0);
    assert_eq!(metric(&m, "edge.api.db.call_latency_mean_ms"), 1000.0);
    // api holds its worker from web's give-up at t + 100 ms until t + 1.01 s: 0.91 s each.
    assert_close(
        "api wasted",
        metric(&m, "service.api.wasted_work_s"),
        70.0 * 0.91,
        1e-9,
    );
    // db's request carries only api's attempt expiry, t + 1.01 s; its work runs to
    // t + 2.01 s: 1 s each after api gave up.
    assert_close(
        "db wasted",
        metric(&m, "service.db.wasted_work_s"),
        70.0,
        1e-9,
    );
}

#[test]
fn the_callees_request_carries_only_the_attempts_timeout() {
    // One hop further down: db calls disk (a 5 s timeout, 3 s of work) at once. The deadline
    // db's request carries is C for that call: web's t + 100 ms with propagation, api's
    // attempt expiry t + 10 ms + 1 s without. Either way db→disk ends at that C.
    let chain = |propagate: bool| {
        chain(
            propagate,
            "calls = [ { to = \"disk\", policy = \"db-disk\" } ]",
            "[[service]]\nname = \"disk\"\nworkers = 100\nwork = \"3s\"\n\n[policy.db-disk]\ntimeout = \"5s\"",
        )
    };
    let (model, m) = chain(true);
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "edge.db.disk.errors.deadline_exceeded"), 70.0);
    assert_eq!(metric(&m, "edge.db.disk.call_latency_mean_ms"), 90.0);
    let (model, m) = chain(false);
    assert_counts_balance(&model, &m);
    // Not its own 5 s: the 1 s api's attempt gave db, less the 10 ms before it was sent.
    assert_eq!(metric(&m, "edge.db.disk.errors.deadline_exceeded"), 70.0);
    assert_eq!(metric(&m, "edge.db.disk.call_latency_mean_ms"), 1000.0);
    assert_eq!(metric(&m, "edge.api.db.errors.timeout"), 70.0);
}

#[test]
fn a_clients_call_cannot_leave_its_deadline_behind() {
    let toml = r#"
[scenario]
name = "client-propagate"
duration = "1s"

[[client]]
name = "web"
target = "api"
rate = 10
policy = "web-api"

[[service]]
name = "api"

[policy.web-api]
timeout = "100ms"
propagate_deadline = false
"#;
    let err = match cascade::scenario::load_str("test.toml", toml, &[]) {
        Ok(_) => panic!("a client's call with propagate_deadline = false was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("client.web.policy"), "{err}");
    assert!(err.contains("propagate_deadline = false"), "{err}");
}
