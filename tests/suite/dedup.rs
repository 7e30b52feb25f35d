//! Idempotency at the callee (`dedup_window`, docs/policies.md "Idempotency"): attempts of a
//! keyed non-idempotent call that arrive while one of them runs wait for its answer, and
//! within the window after its success are answered from it, without work.

use crate::support::*;

/// web → api (no work) → payments, api's one call keyed and non-idempotent unless
/// `idempotent`, with policy `pay`. Requests every 0.1 s until `stop_at`, in a run of
/// `duration`; `payments` holds the payments service's own keys, `rest` the policies and any
/// further services or faults.
fn pay_chain(
    duration: &str,
    stop_at: &str,
    idempotent: bool,
    payments: &str,
    rest: &str,
) -> String {
    format!(
        r#"
[scenario]
name = "pay"
duration = "{duration}"

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 10
phases = [ {{ at = "{stop_at}", rate = 0 }} ]

[[service]]
name = "api"
workers = 100
calls = [ {{ to = "payments", policy = "pay", idempotent = {idempotent}, idempotency_key = true }} ]

[[service]]
name = "payments"
{payments}

{rest}
"#
    )
}

/// `pay_chain` with payments doing 100 ms of work under `dedup`, and `policy` as api's keys.
/// 70 requests, at 0.1 s, …, 7 s.
fn payment(policy: &str, idempotent: bool, dedup: &str) -> (cascade::Model, RunMetrics) {
    run_model(&pay_chain(
        "10s",
        "7s",
        idempotent,
        &format!("workers = 100\nwork = \"100ms\"\ndedup_window = \"{dedup}\""),
        &format!("[policy.pay]\n{policy}"),
    ))
}

use cascade::metrics::RunMetrics;

/// A 60 ms timeout, three attempts with no wait between them, on timeouts.
const RETRY_AT_ONCE: &str = r#"timeout = "60ms"
retry = { attempts = 3, on = ["timeout"], backoff = "constant", base = "0ms", jitter = "none" }"#;

#[test]
fn retries_after_timeouts_execute_once_and_wait_for_the_first_answer() {
    // Without deduplication each of the three attempts runs its 100 ms (at 0, 60 and 120 ms)
    // and each is given up at 60 ms: 3 executions a call, 2 of them duplicates, no success.
    let (model, off) = payment(RETRY_AT_ONCE, false, "0s");
    assert_counts_balance(&model, &off);
    assert_eq!(metric(&off, "service.payments.served"), 210.0);
    assert_eq!(metric(&off, "edge.api.payments.duplicates"), 140.0);
    assert_eq!(metric(&off, "edge.api.payments.errors.timeout"), 70.0);
    assert!(off.get("service.payments.dedup_hits").is_none());
    assert!(off.get("service.payments.dedup_saved_work_s").is_none());

    // With it the retry sent at 60 ms waits for the first execution, which answers at 100 ms:
    // the call succeeds in 100 ms after 2 attempts, one execution, one hit saving 100 ms.
    let (model, on) = payment(RETRY_AT_ONCE, false, "1h");
    assert_counts_balance(&model, &on);
    assert_eq!(metric(&on, "service.payments.served"), 70.0);
    assert_eq!(metric(&on, "edge.api.payments.duplicates"), 0.0);
    assert_eq!(metric(&on, "edge.api.payments.attempts"), 140.0);
    assert_eq!(metric(&on, "edge.api.payments.success"), 70.0);
    assert_eq!(metric(&on, "edge.api.payments.call_latency_mean_ms"), 100.0);
    assert_eq!(metric(&on, "service.payments.dedup_hits"), 70.0);
    assert_close(
        "saved",
        metric(&on, "service.payments.dedup_saved_work_s"),
        7.0,
        1e-9,
    );
    // The waiting attempt held no worker: payments' workers were busy 100 ms a call only.
    assert_close(
        "wasted",
        metric(&on, "service.payments.wasted_work_s"),
        70.0 * 0.04,
        1e-9,
    );
}

/// A 60 ms timeout, three attempts 50 ms apart: the retry comes after the first execution ends.
const RETRY_LATER: &str = r#"timeout = "60ms"
retry = { attempts = 3, on = ["timeout"], backoff = "constant", base = "50ms", jitter = "none" }"#;

#[test]
fn a_stored_success_answers_a_later_retry_within_the_window_only() {
    // The first execution succeeds at 100 ms (its caller gave up at 60); the retry arrives at
    // 110 ms and is answered from the stored success: one execution, latency 110 ms.
    let (model, on) = payment(RETRY_LATER, false, "1s");
    assert_counts_balance(&model, &on);
    assert_eq!(metric(&on, "service.payments.served"), 70.0);
    assert_eq!(metric(&on, "service.payments.dedup_hits"), 70.0);
    assert_eq!(metric(&on, "edge.api.payments.success"), 70.0);
    assert_eq!(metric(&on, "edge.api.payments.call_latency_mean_ms"), 110.0);

    // A 5 ms window has expired at 105 ms: the retry at 110 ms runs again (until 210), is
    // given up at 170, and the third at 220 finds that success expired at 215 too.
    let (model, short) = payment(RETRY_LATER, false, "5ms");
    assert_counts_balance(&model, &short);
    assert_eq!(metric(&short, "service.payments.served"), 210.0);
    assert_eq!(metric(&short, "service.payments.dedup_hits"), 0.0);
    assert_eq!(metric(&short, "edge.api.payments.duplicates"), 140.0);
    assert_eq!(metric(&short, "edge.api.payments.errors.timeout"), 70.0);
}

#[test]
fn a_cancelled_execution_stores_nothing() {
    // `cancel`: the caller's timeout at 60 ms stops the execution, so the retry sent then
    // finds nothing in progress and runs again; so does the third. Three executions a call.
    let policy = format!("{RETRY_AT_ONCE}\ncancel = true");
    let (model, m) = payment(&policy, false, "1h");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.payments.dedup_hits"), 0.0);
    assert_eq!(metric(&m, "edge.api.payments.duplicates"), 140.0);
    assert_eq!(metric(&m, "edge.api.payments.errors.timeout"), 70.0);
    assert_eq!(metric(&m, "service.payments.served"), 0.0);
}

#[test]
fn a_failure_is_not_stored_and_the_waiter_runs_after_it() {
    // payments calls ledger with a 10 ms timeout and ledger takes 200 ms, so each execution
    // fails at 10 ms after it starts. A hedge at 5 ms waits for the first, is released by its
    // failure at 10 ms and runs itself, failing at 20 ms: two executions, no hit.
    let text = |dedup: &str| {
        pay_chain(
            "10s",
            "7s",
            false,
            &format!(
                "workers = 100\ndedup_window = \"{dedup}\"\ncalls = [ {{ to = \"ledger\", policy = \"ledger\" }} ]"
            ),
            "[[service]]\nname = \"ledger\"\nworkers = 1000\nwork = \"200ms\"\n\n\
             [policy.pay]\nhedge = { delay = \"5ms\" }\n\n[policy.ledger]\ntimeout = \"10ms\"",
        )
    };
    let (model, m) = run_model(&text("1h"));
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.payments.dedup_hits"), 0.0);
    assert_eq!(metric(&m, "service.payments.served"), 140.0);
    assert_eq!(metric(&m, "edge.api.payments.duplicates"), 70.0);
    assert_eq!(metric(&m, "edge.api.payments.success"), 0.0);
    // The second execution starts when the first fails: the call fails at 20 ms, not at 15.
    assert_eq!(metric(&m, "edge.api.payments.call_latency_mean_ms"), 20.0);
    let (_, off) = run_model(&text("0s"));
    assert_eq!(metric(&off, "edge.api.payments.call_latency_mean_ms"), 15.0);
}

#[test]
fn an_idempotent_call_is_not_deduplicated_even_with_a_key() {
    let (model, m) = payment(RETRY_AT_ONCE, true, "1h");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.payments.dedup_hits"), 0.0);
    assert_eq!(metric(&m, "service.payments.served"), 210.0);
    assert_eq!(metric(&m, "edge.api.payments.errors.timeout"), 70.0);
}

/// One request at 100 ms: api hedges its keyed payment after 5 ms, so the copy reaches
/// payments' other instance (round robin) while the first runs there, and waits for it.
/// `target` crashes at 150 ms, with `mode`.
fn crash(target: &str, mode: &str, dedup: &str) -> (cascade::Model, RunMetrics) {
    run_model(&pay_chain(
        "2s",
        "150ms",
        false,
        &format!("instances = 2\nworkers = 100\nwork = \"100ms\"\ndedup_window = \"{dedup}\""),
        &format!(
            "[policy.pay]\nhedge = {{ delay = \"5ms\" }}\n\n\
             [[fault]]\nkind = \"crash\"\ntarget = \"{target}\"\nstart = \"150ms\"\nmode = \"{mode}\""
        ),
    ))
}

#[test]
fn an_execution_lost_in_a_crash_releases_its_waiter_to_run() {
    // Without deduplication the copy runs on payments#1 from 105 ms and answers at 205 ms.
    let (model, off) = crash("payments#0", "blackhole", "0s");
    assert_counts_balance(&model, &off);
    assert_eq!(
        metric(&off, "edge.api.payments.call_latency_mean_ms"),
        105.0
    );
    // With it the copy waits for the execution on payments#0, lost with it at 150 ms (no
    // answer): released then, it runs 100 ms itself, and the call ends at 250 ms.
    let (model, lost) = crash("payments#0", "blackhole", "1h");
    assert_counts_balance(&model, &lost);
    assert_eq!(metric(&lost, "edge.api.payments.success"), 1.0);
    assert_eq!(
        metric(&lost, "edge.api.payments.call_latency_mean_ms"),
        150.0
    );
    assert_eq!(metric(&lost, "service.payments.unanswered"), 1.0);
    assert_eq!(metric(&lost, "service.payments.dedup_hits"), 0.0);
    assert_eq!(metric(&lost, "edge.api.payments.duplicates"), 1.0);
    // Refused, the lost execution answers `unavailable`: a failure, not stored; the same.
    let (model, refused) = crash("payments#0", "refuse", "1h");
    assert_counts_balance(&model, &refused);
    assert_eq!(metric(&refused, "edge.api.payments.success"), 1.0);
    assert_eq!(
        metric(&refused, "edge.api.payments.call_latency_mean_ms"),
        150.0
    );
    assert_eq!(metric(&refused, "service.payments.dedup_hits"), 0.0);
}

#[test]
fn a_waiter_lost_in_a_crash_is_forgotten() {
    // The copy parked on payments#1 is lost with it at 150 ms; the execution on payments#0
    // answers at 200 ms, the call's success in 100 ms, with nobody left to answer from it.
    for mode in ["blackhole", "refuse"] {
        let (model, m) = crash("payments#1", mode, "1h");
        assert_counts_balance(&model, &m);
        assert_eq!(metric(&m, "edge.api.payments.success"), 1.0, "{mode}");
        assert_eq!(metric(&m, "edge.api.payments.call_latency_mean_ms"), 100.0);
        assert_eq!(metric(&m, "service.payments.dedup_hits"), 0.0, "{mode}");
        assert_eq!(metric(&m, "service.payments.served"), 1.0, "{mode}");
    }
}
