//! Brooker's retry controls end to end ("Fixing retries with token buckets and circuit
//! breakers", 2022) — the adaptive token bucket and the retry-only breaker — and hedges that
//! draw on the retry budget (gRPC A6's retryThrottling), on scenarios whose numbers can be
//! worked out by hand.

use crate::support::*;

/// 1000 calls/s for 60 s after a 10 s warm-up; the callee fails `unavailable` with
/// probability `f`; up to 4 attempts, 1 ms apart, under `policy` (extra keys of the policy).
fn flaky(f: f64, retry_extra: &str, policy_extra: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "brooker"
duration = "60s"
warmup = "10s"
seed = 3

[[client]]
name = "c"
target = "s"
rate = 1000
policy = "p"

[[service]]
name = "s"
workers = 100

[[fault]]
kind = "errors"
target = "s"
rate = {f}

[policy.p]
retry = {{ attempts = 4, on = ["unavailable"], backoff = "constant", base = "1ms", jitter = "none"{retry_extra} }}
{policy_extra}
"#
    ))
}

const ADAPTIVE_PER_CALL: &str =
    r#", budget = { kind = "adaptive", max_tokens = 10, token_ratio = 0.1, earn_on = "call" }"#;
const ADAPTIVE: &str = r#", budget = { kind = "adaptive", max_tokens = 10, token_ratio = 0.1 }"#;

#[test]
fn in_a_total_outage_the_adaptive_bucket_allows_its_earning_and_no_more() {
    // Earning 0.1 a call, a retry costing 1: 0.1 retries a call once the full bucket's ten
    // are spent (in the warm-up): 1.1 attempts a call, seed 004's L_max.
    let per_call = flaky(1.0, ADAPTIVE_PER_CALL, "");
    let calls = metric(&per_call, "edge.c.s.calls");
    let retries = metric(&per_call, "edge.c.s.retries");
    assert!((retries - 0.1 * calls).abs() <= 1.0, "{retries} of {calls}");
    assert_close(
        "per call",
        metric(&per_call, "edge.c.s.amplification"),
        1.1,
        0.001,
    );
    // Every call wanted three retries and got at most one: each is refused at least once.
    assert_eq!(metric(&per_call, "edge.c.s.budget_exhausted"), calls);
    // Brooker's earning is per success: no success, no token, no retry at all.
    let per_success = flaky(1.0, ADAPTIVE, "");
    assert_eq!(metric(&per_success, "edge.c.s.retries"), 0.0);
    assert_eq!(metric(&per_success, "edge.c.s.amplification"), 1.0);
    // Without a budget: 1 + 3.
    assert_eq!(metric(&flaky(1.0, "", ""), "edge.c.s.amplification"), 4.0);
}

#[test]
fn at_a_low_failure_rate_the_adaptive_bucket_behaves_like_plain_retries() {
    // f = 0.05: a call wants 0.05 + 0.05^2 + 0.05^3 = 0.0526 retries and earns 0.1 x 0.95 =
    // 0.095 tokens: the bucket stays near full and never refuses, so the numbers are plain
    // retries': success 1 - 0.05^4, 1.0526 attempts a call.
    let adaptive = flaky(0.05, ADAPTIVE, "");
    assert_eq!(metric(&adaptive, "edge.c.s.budget_exhausted"), 0.0);
    assert_close(
        "amplification",
        metric(&adaptive, "edge.c.s.amplification"),
        1.052_625,
        0.003,
    );
    assert!(metric(&adaptive, "client.c.success_ratio") > 0.9999);
    let plain = flaky(0.05, "", "");
    assert_eq!(
        metric(&adaptive, "edge.c.s.attempts"),
        metric(&plain, "edge.c.s.attempts"),
        "same seed, same draws, no refusal: the same run"
    );
}

const BREAKER: &str = r#"breaker = { window = 100, min_calls = 20, failure_rate = 0.5, open = "5s", half_open_calls = 1, retries_only = true }"#;

#[test]
fn the_retry_only_breaker_stops_retries_but_every_first_try_goes_out() {
    // f = 0.6, above the breaker's 50%: it is open nearly all the time. First tries still go
    // out and succeed 40% of the time; the retries it refuses are the calls' failures.
    let m = flaky(0.6, "", BREAKER);
    let calls = metric(&m, "edge.c.s.calls");
    let attempts = metric(&m, "edge.c.s.attempts");
    let retries = metric(&m, "edge.c.s.retries");
    assert_eq!(attempts, calls + retries, "every first try was sent");
    assert!(
        retries / calls < 0.01,
        "{retries} retries for {calls} calls"
    );
    assert_close("success", metric(&m, "client.c.success_ratio"), 0.4, 0.01);
    // Each failed first try wanted a retry, and the open breaker refused nearly all: 0.6 a call.
    assert_close(
        "refused retries a call",
        metric(&m, "edge.c.s.rejected_breaker") / calls,
        0.6,
        0.01,
    );
    // An ordinary breaker refuses first tries too, turning 60% failures into nearly 100%.
    let ordinary = flaky(
        0.6,
        "",
        &BREAKER.replace("retries_only = true", "retries_only = false"),
    );
    assert!(metric(&ordinary, "client.c.success_ratio") < 0.01);
    assert!(metric(&ordinary, "edge.c.s.attempts") < 0.01 * calls);
}

#[test]
fn a_closed_retry_only_breaker_lets_retries_save_calls() {
    // f = 0.2, under the breaker's 50%: it never opens and the retries do their work:
    // 1 - 0.2^4 = 0.9984 succeed at 1 + 0.2 + 0.04 + 0.008 = 1.248 attempts a call.
    let m = flaky(0.2, "", BREAKER);
    assert_eq!(metric(&m, "edge.c.s.breaker_opens"), 0.0);
    assert_close(
        "success",
        metric(&m, "client.c.success_ratio"),
        0.9984,
        0.001,
    );
    assert_close(
        "amplification",
        metric(&m, "edge.c.s.amplification"),
        1.248,
        0.005,
    );
}

/// 1000 calls/s, 60 s after a 10 s warm-up; the callee answers after 60 ms (`add` of latency on
/// its 10 ms), the attempt times out at 100 ms; one hedge after 20 ms, drawing on the retry
/// budget `budget`.
fn hedged(add: &str, budget: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "hedged"
duration = "60s"
warmup = "10s"
seed = 3

[[client]]
name = "c"
target = "s"
rate = 1000
policy = "p"

[[service]]
name = "s"
workers = 1000
work = "10ms"

[[fault]]
kind = "latency"
target = "s"
add = "{add}"

[policy.p]
timeout = "100ms"
retry = {{ attempts = 2, on = ["timeout"], backoff = "constant", base = "0", jitter = "none", budget = {budget} }}
hedge = {{ delay = "20ms", max = 1, uses_retry_budget = true }}
"#
    ))
}

#[test]
fn hedges_drawing_on_the_retry_budget_follow_its_rule() {
    let grpc = r#"{ kind = "token_bucket", max_tokens = 10, token_ratio = 0.1 }"#;
    // Slow but answering: successes keep gRPC's bucket full, so every call hedges: 2.0.
    let healthy = hedged("50ms", grpc);
    let calls = metric(&healthy, "edge.c.s.calls");
    // All but the calls started in the run's last 20 ms (about 20 at 1000/s).
    let unhedged = calls - metric(&healthy, "edge.c.s.hedges");
    assert!(
        (0.0..=40.0).contains(&unhedged),
        "{unhedged} calls not hedged"
    );
    assert_eq!(metric(&healthy, "edge.c.s.hedge_budget_exhausted"), 0.0);
    // Every attempt timing out: five failures bring 10 tokens to 5 (<= max/2) in the warm-up,
    // and from then on no hedge, and no retry, is sent (gRPC A6).
    let failing = hedged("200ms", grpc);
    assert_eq!(metric(&failing, "edge.c.s.hedges"), 0.0);
    assert_eq!(metric(&failing, "edge.c.s.retries"), 0.0);
    assert_eq!(metric(&failing, "edge.c.s.amplification"), 1.0);
    let calls = metric(&failing, "edge.c.s.calls");
    let refused = metric(&failing, "edge.c.s.hedge_budget_exhausted");
    assert!(
        (0.0..=40.0).contains(&(calls - refused)),
        "{refused} of {calls}"
    );
    // A ratio budget of 10% of calls, no floor: retries and hedges together stay within it.
    // Healthy, nothing is retried and hedges take the whole 10%: 1.1 attempts a call.
    let ratio = hedged("50ms", "{ ratio = 0.1, min_per_s = 0 }");
    assert_close(
        "ratio-budgeted hedges a call",
        metric(&ratio, "edge.c.s.hedges") / metric(&ratio, "edge.c.s.calls"),
        0.1,
        0.002,
    );
}
