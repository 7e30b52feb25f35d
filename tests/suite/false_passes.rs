//! Gates that passed falsely: a metric whose name answers one question while the gate asks
//! another. Each has a metric that answers the gate's question.

use crate::support::{metric, run};

/// Checkout calls payments through a breaker, with three attempts a call; payments is down
/// from 10 s to 40 s. A fallback answers each failed call.
fn payments_down(fallback: &str) -> String {
    format!(
        r#"
[scenario]
name = "payments-down"
duration = "50s"

[[client]]
name = "shop"
target = "checkout"
rate = 200
arrival = "constant"

[[service]]
name = "checkout"
workers = 50
calls = [ {{ to = "payments", policy = "pay" }} ]

[[service]]
name = "payments"
workers = 20
work = "5ms"

[policy.pay]
retry = {{ attempts = 3, backoff = "constant", base = "10ms" }}
breaker = {{ window = 20, min_calls = 10, failure_rate = 0.5, open = "5s" }}
{fallback}

[[fault]]
kind = "outage"
target = "payments"
start = "10s"
end = "40s"
"#
    )
}

#[test]
fn a_breaker_lowers_amplification_but_not_the_attempts_per_call_sent() {
    let m = run(&payments_down(""));
    let per_call = metric(&m, "edge.checkout.payments.amplification");
    let per_sent = metric(&m, "edge.checkout.payments.amplification_sent");
    // Most calls in the outage are refused by the open breaker before any attempt.
    assert!(per_call < 1.0, "amplification {per_call}");
    // Those that are sent during the outage make all three attempts.
    assert!(
        per_sent > 1.0 && per_sent > per_call,
        "amplification_sent {per_sent}"
    );
    let attempts = metric(&m, "edge.checkout.payments.attempts");
    let first = attempts
        - metric(&m, "edge.checkout.payments.retries")
        - metric(&m, "edge.checkout.payments.hedges");
    assert!((per_sent - attempts / first).abs() < 1e-12);
}

#[test]
fn a_fallback_keeps_success_ratio_whole_and_ok_ratio_says_what_was_not_charged() {
    let m = run(&payments_down(r#"fallback = { latency = "1ms" }"#));
    let success = metric(&m, "client.shop.success_ratio");
    let ok = metric(&m, "client.shop.ok_ratio");
    let degraded = metric(&m, "client.shop.degraded");
    let finished = metric(&m, "client.shop.success") / success;
    assert!(success > 0.99, "success_ratio {success}");
    // Payments is down for 30 s of the 50: about 60% of the requests are answered by the
    // fallback, and ok_ratio is what is left.
    assert!((0.3..0.5).contains(&ok), "ok_ratio {ok}");
    assert!((ok - (success - degraded / finished)).abs() < 1e-9);
}
