//! `total_timeout` (docs/policies.md §2): a timeout over a call's every attempt and backoff,
//! Envoy's route timeout beside its `per_try_timeout`. Worked by hand on a callee that never
//! answers in time: 250 ms tries, 100 ms constant backoff, three attempts.

use crate::support::*;

/// app -> gw (no work) -> pay (1 s of work, always past the 250 ms per-try timeout), five
/// requests a second apart; gw's call to pay has `total` written in, the client `deadline`.
fn gateway(total: &str, deadline: &str) -> (cascade::Model, cascade::metrics::RunMetrics) {
    run_model(&format!(
        r#"
[scenario]
name = "total-timeout"
duration = "10s"

[[client]]
name = "app"
target = "gw"
arrival = "constant"
rate = 1
phases = [ {{ at = "5s", rate = 0 }} ]
{deadline}

[[service]]
name = "gw"
workers = 100
work = "0"
calls = [ {{ to = "pay", policy = "route" }} ]

[[service]]
name = "pay"
workers = 100
work = "1s"

[policy.route]
timeout = "250ms"
{total}
retry = {{ attempts = 3, backoff = "constant", base = "100ms", jitter = "none", on = ["timeout"] }}
"#
    ))
}

#[test]
fn a_total_timeout_ends_the_call_after_the_attempts_that_fit() {
    // Attempt 1: 0-250 ms, times out; backoff to 350 ms; attempt 2 is waited for until
    // min(350 + 250, 600) = 600 ms, when the whole call's 600 ms pass: deadline_exceeded, and
    // attempt 3 never starts.
    let (model, m) = gateway("total_timeout = \"600ms\"", "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "edge.gw.pay.calls"), 5.0);
    assert_eq!(metric(&m, "edge.gw.pay.attempts"), 10.0);
    assert_eq!(metric(&m, "edge.gw.pay.retries"), 5.0);
    assert_eq!(metric(&m, "edge.gw.pay.errors.deadline_exceeded"), 5.0);
    assert_eq!(metric(&m, "edge.gw.pay.errors.timeout"), 0.0);
    let p50 = metric(&m, "client.app.latency_p50_ms");
    assert!((p50 - 600.0).abs() < 0.5, "client p50 {p50} ms, not 600");
}

#[test]
fn without_it_every_attempt_runs_to_its_own_timeout() {
    // 250 + 100 + 250 + 100 + 250 = 950 ms, the last attempt's timeout the call's outcome.
    let (_, m) = gateway("", "");
    assert_eq!(metric(&m, "edge.gw.pay.attempts"), 15.0);
    assert_eq!(metric(&m, "edge.gw.pay.errors.timeout"), 5.0);
    assert_eq!(metric(&m, "edge.gw.pay.errors.deadline_exceeded"), 0.0);
    let p50 = metric(&m, "client.app.latency_p50_ms");
    assert!((p50 - 950.0).abs() < 0.5, "client p50 {p50} ms, not 950");
}

#[test]
fn the_earlier_of_the_callers_deadline_and_the_total_timeout_ends_the_call() {
    // The client's 500 ms deadline comes first: attempt 2 (from 350 ms) is cut at 500 ms.
    let (_, m) = gateway("total_timeout = \"600ms\"", "deadline = \"500ms\"");
    assert_eq!(metric(&m, "edge.gw.pay.attempts"), 10.0);
    assert_eq!(metric(&m, "edge.gw.pay.errors.deadline_exceeded"), 5.0);
    let p50 = metric(&m, "client.app.latency_p50_ms");
    assert!((p50 - 500.0).abs() < 0.5, "client p50 {p50} ms, not 500");
    // A later deadline (2 s) leaves the 600 ms total timeout to end the call.
    let (_, m) = gateway("total_timeout = \"600ms\"", "deadline = \"2s\"");
    let p50 = metric(&m, "client.app.latency_p50_ms");
    assert!((p50 - 600.0).abs() < 0.5, "client p50 {p50} ms, not 600");
}

#[test]
fn a_total_timeout_too_short_for_the_retries_is_linted_and_one_long_enough_is_not() {
    let warnings = |toml: &str| {
        let s = cascade::scenario::load_str("t.toml", toml, &[]).expect("compiles");
        (s.warnings().into_iter())
            .filter(|w| w.id == "retry-cannot-fit")
            .map(|w| w.at.message)
            .collect::<Vec<_>>()
    };
    let gw = |total: &str| {
        format!(
            "[scenario]\nname = \"t\"\nduration = \"10s\"\n\n[[client]]\nname = \"app\"\n\
             target = \"gw\"\nrate = 1\n\n[[service]]\nname = \"gw\"\nworkers = 10\n\
             work = \"0\"\ncalls = [ {{ to = \"pay\", policy = \"route\" }} ]\n\n[[service]]\n\
             name = \"pay\"\nworkers = 10\nwork = \"10ms\"\n\n[policy.route]\n\
             timeout = \"250ms\"\n{total}\nretry = {{ attempts = 3, backoff = \"constant\", \
             base = \"100ms\", jitter = \"none\", on = [\"timeout\"] }}\n"
        )
    };
    // After two timed-out attempts and one backoff, 600 ms are gone: the third never runs.
    let w = warnings(&gw("total_timeout = \"600ms\""));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("attempt 3 of 3 never follows a timed-out attempt")
            && w[0].contains("(its 600ms total_timeout)"),
        "{}",
        w[0]
    );
    // 3 x 250 + 2 x 100 = 950 ms fit in 951 ms.
    assert!(warnings(&gw("total_timeout = \"951ms\"")).is_empty());
    assert!(warnings(&gw("")).is_empty());
}

#[test]
fn a_zero_total_timeout_is_refused_at_its_field() {
    let toml = "[scenario]\nname = \"t\"\nduration = \"1s\"\n[[client]]\nname = \"c\"\n\
                target = \"s\"\nrate = 1\npolicy = \"p\"\n[[service]]\nname = \"s\"\n\
                work = \"1ms\"\n[policy.p]\ntotal_timeout = \"0s\"\n";
    let Err(e) = cascade::scenario::load_str("t.toml", toml, &[]) else {
        panic!("a zero total_timeout was accepted");
    };
    let e = e.to_string();
    assert!(
        e.contains("policy.p.total_timeout") && e.contains("longer than zero"),
        "{e}"
    );
}
