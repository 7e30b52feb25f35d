//! The policy stack end to end: the seeds' worked numbers, amplification across layers,
//! budgets, breakers and bulkheads on scenarios whose outcome can be reasoned out.

use crate::support::*;

#[test]
fn seed_000_retry_fits_inside_the_total_deadline() {
    // 500 ms deadline, 50 ms reserve, 60 ms of local work, 180 ms attempts, 40 ms backoff: the
    // first attempt times out at 240 ms, the second gets min(180, 450 - 280) = 170 ms and the
    // call fails at 450 ms.
    let m = run(r#"
[scenario]
name = "seed-000"
duration = "10s"

[[client]]
name = "page"
target = "product"
arrival = "constant"
rate = 10
deadline = "500ms"
phases = [ { at = "9s", rate = 0 } ]   # every request finishes inside the run

[[service]]
name = "product"
workers = 100
work = "60ms"
calls = [ { to = "inventory", policy = "inventory-client" } ]

[[service]]
name = "inventory"
workers = 100
work = "1s"

[policy.inventory-client]
timeout = "180ms"
reserve = "50ms"
retry = { attempts = 2, on = ["timeout"], backoff = "constant", base = "40ms", jitter = "none" }
"#);
    let calls = metric(&m, "edge.product.inventory.calls");
    assert_eq!(calls, 90.0, "arrivals at 0.1 s, 0.2 s, ..., 9 s");
    assert_eq!(metric(&m, "edge.product.inventory.attempts"), 2.0 * calls);
    assert_eq!(
        metric(&m, "edge.product.inventory.errors.deadline_exceeded"),
        calls,
        "the second attempt ends at the deadline"
    );
    assert_eq!(metric(&m, "client.page.latency_max_ms"), 450.0);
    assert!((metric(&m, "client.page.latency_p50_ms") - 450.0).abs() < 0.5);
}

fn acme(payment_fault: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "acme"
duration = "10s"

[[client]]
name = "shopper"
target = "checkout"
arrival = "constant"
rate = 10
deadline = "900ms"

[[service]]
name = "checkout"
workers = 100
work = "60ms"
# A failed payment answers "pending": the checkout is degraded, not failed.
calls = [ {{ to = "payments", policy = "payments", optional = true, idempotency_key = true, idempotent = false }} ]

[[service]]
name = "payments"
workers = 100
work = "2s"

[policy.payments]
timeout = "550ms"
reserve = "120ms"
min_attempt = "180ms"
retry = {{ attempts = 2, timeout = "140ms", on = ["timeout", "unavailable"], backoff = "constant", base = "0", jitter = "none" }}
{payment_fault}
"#
    ))
}

#[test]
fn acme_checkout_retries_only_when_more_than_180ms_remain() {
    // A slow provider: the 550 ms attempt times out 610 ms in, 780 - 610 = 170 ms remain, less
    // than 180: no retry, the order is reported pending (degraded) at 610 ms.
    let m = acme("");
    assert_eq!(metric(&m, "edge.checkout.payments.amplification"), 1.0);
    assert_eq!(
        metric(&m, "client.shopper.degraded"),
        metric(&m, "client.shopper.success")
    );
    assert_eq!(metric(&m, "client.shopper.latency_max_ms"), 610.0);
    // A provider that fails fast (20 ms) leaves plenty: one 140 ms retry, which fails fast too.
    let m = acme(
        r#"
[[fault]]
kind = "errors"
target = "payments"
latency = "20ms"
"#,
    );
    assert_eq!(metric(&m, "edge.checkout.payments.amplification"), 2.0);
    assert_eq!(metric(&m, "client.shopper.latency_max_ms"), 100.0);
}

#[test]
fn three_layers_of_three_attempts_make_27_at_the_bottom() {
    let m = run(r#"
[scenario]
name = "layers"
duration = "10s"

[[client]]
name = "user"
target = "a"
arrival = "constant"
rate = 10
policy = "retry3"

[[service]]
name = "a"
workers = 1000
calls = [ { to = "b", policy = "retry3" } ]

[[service]]
name = "b"
workers = 1000
calls = [ { to = "c", policy = "retry3" } ]

[[service]]
name = "c"
workers = 1000

[[fault]]
kind = "errors"
target = "c"

[policy.retry3]
retry = { attempts = 3, backoff = "constant", base = "1ms", jitter = "none" }
"#);
    let requests = metric(&m, "client.user.requests");
    assert_eq!(metric(&m, "service.c.arrivals"), 27.0 * requests);
    assert_eq!(metric(&m, "service.c.attempts_per_request"), 27.0);
    assert_eq!(metric(&m, "service.a.attempts_per_request"), 3.0);
    assert_eq!(metric(&m, "service.b.arrivals"), 9.0 * requests);
    for edge in ["user.a", "a.b", "b.c"] {
        assert_eq!(
            metric(&m, &format!("edge.{edge}.amplification")),
            3.0,
            "{edge}"
        );
    }
    assert_eq!(metric(&m, "client.user.errors.unavailable"), requests);
}

fn failing_dependency(budget: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "budget"
duration = "60s"
warmup = "10s"

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

[policy.p]
retry = {{ attempts = 4, backoff = "constant", base = "1ms", jitter = "none"{budget} }}
"#
    ))
}

#[test]
fn a_ten_percent_budget_holds_load_near_1_1x_plus_the_floor() {
    let without = failing_dependency("");
    assert_close(
        "no budget",
        metric(&without, "edge.c.s.amplification"),
        4.0,
        0.001,
    );
    // Retries <= 10% of calls + 10/s floor: at 1000 calls/s, 1.1 + 0.01.
    let with = failing_dependency(", budget = 0.1");
    let amp = metric(&with, "edge.c.s.amplification");
    assert!((1.10..=1.111 + 0.005).contains(&amp), "{amp}");
    assert!(metric(&with, "edge.c.s.budget_exhausted") > 0.0);
    // gRPC throttling: every call fails, tokens drain below half and stay there: almost no retries.
    let grpc = failing_dependency(
        r#", budget = { kind = "token_bucket", max_tokens = 10, token_ratio = 0.1 }"#,
    );
    assert!(metric(&grpc, "edge.c.s.amplification") < 1.01);
}

#[test]
fn a_breaker_stops_traffic_to_a_failing_dependency_and_closes_after_it_recovers() {
    let m = run(r#"
[scenario]
name = "breaker"
duration = "40s"

[[client]]
name = "c"
target = "s"
rate = 200
policy = "p"

[[service]]
name = "s"
workers = 50
work = "1ms"

[[fault]]
kind = "errors"
target = "s"
start = "10s"
end = "20s"

[policy.p]
breaker = { window = 20, min_calls = 10, failure_rate = 0.5, open = "2s", half_open_calls = 3 }
"#);
    let arrivals = m.series_of("service.s.arrivals").unwrap();
    let calls = m.series_of("edge.c.s.calls").unwrap();
    let during: f64 = arrivals[11..20].iter().sum();
    let offered: f64 = calls[11..20].iter().sum();
    assert!(
        during < 0.02 * offered,
        "the breaker keeps the dependency dark: {during} of {offered}"
    );
    // Open for 2 s, then 3 probes, which fail and re-open it: about 5 opens in the 10 s fault.
    let opens = metric(&m, "edge.c.s.breaker_opens");
    assert!((4.0..=6.0).contains(&opens), "{opens}");
    assert!(metric(&m, "edge.c.s.breaker_open_s") > 9.0);
    assert!(metric(&m, "edge.c.s.rejected_breaker") > 0.9 * offered);
    // After the fault the first probes succeed and it closes: full success again.
    let success = m.series_of("client.c.success_ratio").unwrap();
    assert!(
        success[23..].iter().all(|s| *s == 1.0),
        "{:?}",
        &success[20..]
    );
    assert_eq!(
        metric(&m, "edge.c.s.breaker_open_s"),
        m.series_of("edge.c.s.breaker_open_s")
            .unwrap()
            .iter()
            .sum::<f64>()
    );
    // During the fault the first probe fails at once (the fault answers without delay) and
    // re-opens it, so its half-open spells last no time; after the fault three probes succeed
    // (three arrivals at 200/s, then 1 ms of work) and close it.
    let probes = metric(&m, "edge.c.s.half_open_probes");
    assert_eq!(
        probes,
        (opens - 1.0) + 3.0,
        "{probes} probes for {opens} opens"
    );
    let half_open = metric(&m, "edge.c.s.breaker_half_open_s");
    assert!(half_open > 0.001 && half_open < 0.03, "{half_open}");
    let half_series = m.series_of("edge.c.s.breaker_half_open_s").unwrap();
    assert_eq!(half_series.iter().filter(|h| **h > 0.0).count(), 1);
    // The breaker's state per bucket: never more than the bucket's own second.
    let open = m.series_of("edge.c.s.breaker_open_s").unwrap();
    let half = m.series_of("edge.c.s.breaker_half_open_s").unwrap();
    assert!(open.iter().zip(&half).all(|(o, h)| o + h <= 1.0 + 1e-9));
    assert!(open[..10].iter().chain(&open[21..]).all(|o| *o == 0.0));
}

fn login_and_analytics(bulkhead: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "bulkhead"
duration = "30s"
warmup = "5s"

[[client]]
name = "users"
target = "web"
rate = 100
deadline = "2s"

[[service]]
name = "web"
workers = 20
work = "1ms"
calls = [ {{ parallel = [ {{ to = "login" }}, {{ to = "analytics", optional = true, policy = "analytics" }} ] }} ]

[[service]]
name = "login"
workers = 20
work = "5ms"

[[service]]
name = "analytics"
workers = 200
work = "5ms"

# Analytics turns slow: every call takes 1.5 s.
[[fault]]
kind = "latency"
target = "analytics"
add = "1.5s"

[policy.analytics]
timeout = "1.8s"
{bulkhead}
"#
    ))
}

#[test]
fn a_bulkhead_keeps_a_slow_optional_dependency_from_starving_login() {
    // Without a bulkhead every web worker waits 1.5 s on analytics: 20 workers serve about 13
    // requests a second of the 100 offered, and the rest time out.
    let without = login_and_analytics("");
    assert!(metric(&without, "client.users.success_ratio") < 0.2);
    // With at most 5 analytics calls in flight, the rest are refused at once and the page is
    // answered degraded in milliseconds.
    let with = login_and_analytics("bulkhead = { max_concurrent = 5 }");
    assert!(metric(&with, "client.users.success_ratio") > 0.99);
    assert!(
        metric(&with, "edge.web.analytics.rejected_bulkhead")
            > 0.9 * metric(&with, "edge.web.analytics.calls")
    );
    assert!(metric(&with, "client.users.latency_p90_ms") < 50.0);
}

/// Erlang B blocking probability.
fn erlang_b(c: u32, a: f64) -> f64 {
    (1..=c).fold(1.0, |b, k| a * b / (k as f64 + a * b))
}

#[test]
fn sre_adaptive_throttling_settles_where_the_book_says() {
    // Offered D = 1000/s against a backend of 10 workers x 20/s with no queue: what it accepts
    // at load S is A(S) = S (1 - B(10, S / 20)). With K = 2 the sent rate S solves
    // S = D (1 - p), p = max(0, (D - K A(S)) / (D + 1/W)) (counts over the window W).
    let m = run(r#"
[scenario]
name = "throttle"
duration = "300s"
warmup = "60s"

[[client]]
name = "c"
target = "s"
rate = 1000
policy = "p"

[[service]]
name = "s"
workers = 10
queue = 0
work = { dist = "exponential", mean = "50ms" }

[policy.p]
throttle = { k = 2.0, window = "60s" }
"#);
    let (d, k, w) = (1000.0, 2.0, 60.0);
    let accepted = |s: f64| s * (1.0 - erlang_b(10, s / 20.0));
    let gap = |s: f64| d * (1.0 - ((d - k * accepted(s)) / (d + 1.0 / w)).max(0.0)) - s;
    let (mut lo, mut hi) = (1.0, d);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if gap(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    let sent = metric(&m, "service.s.arrivals") / 300.0;
    assert_close("sent rate", sent, lo, 0.03);
    // Everything not sent was throttled locally.
    let throttled = metric(&m, "edge.c.s.throttled");
    assert_close(
        "throttled",
        throttled,
        metric(&m, "edge.c.s.calls") - metric(&m, "edge.c.s.attempts"),
        1e-9,
    );
    assert!(throttled > 0.5 * metric(&m, "edge.c.s.calls"));
}

fn with_fallback(fallback: &str, backup_workers: u32) -> cascade::metrics::RunMetrics {
    run(&fallback_scenario(fallback, backup_workers))
}

/// A client calling `primary`, which always fails, through a policy with `fallback`.
fn fallback_scenario(fallback: &str, backup_workers: u32) -> String {
    format!(
        r#"
[scenario]
name = "fallback"
duration = "30s"
warmup = "5s"

[[client]]
name = "c"
target = "primary"
rate = 500
policy = "p"

[[service]]
name = "primary"
workers = 100
work = "1ms"

[[service]]
name = "backup"
workers = {backup_workers}
queue = 0
work = "10ms"

[[fault]]
kind = "errors"
target = "primary"

[policy.p]
fallback = {fallback}
"#
    )
}

#[test]
fn a_client_falling_back_to_its_own_target_counts_each_request_once() {
    // Regression: the client's outcomes were read off its edge, which a fallback to the same
    // service shares, so every request ended twice (42 requests, 84 errors).
    let (model, m) = crate::support::run_model(&fallback_scenario(r#"{ to = "primary" }"#, 1));
    crate::support::assert_counts_balance(&model, &m);
    let requests = metric(&m, "client.c.requests");
    // Both calls of a request fail on `primary`: the edge makes two calls, the client ends
    // one request, unanswered.
    assert!(requests > 10_000.0, "{requests}");
    let calls = metric(&m, "edge.c.primary.calls");
    assert!((calls - 2.0 * requests).abs() <= 2.0, "{calls} calls");
    assert!((metric(&m, "edge.c.primary.fallbacks") - requests).abs() <= 2.0);
    assert_eq!(metric(&m, "client.c.success"), 0.0);
    assert!((metric(&m, "client.c.errors.unavailable") - requests).abs() <= 2.0);
}

#[test]
fn fallback_answers_degraded_with_its_own_latency() {
    let m = with_fallback(r#"{ latency = "5ms" }"#, 1);
    assert_eq!(metric(&m, "client.c.success_ratio"), 1.0);
    assert_eq!(
        metric(&m, "client.c.degraded"),
        metric(&m, "client.c.success")
    );
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 5.0);
    assert_eq!(
        metric(&m, "edge.c.primary.fallbacks"),
        metric(&m, "edge.c.primary.calls")
    );
    // Every call ends degraded, but those still in their 5 ms fallback at the end do not
    // end within the run.
    let degraded = metric(&m, "edge.c.primary.degraded");
    let calls = metric(&m, "edge.c.primary.calls");
    assert!(calls - degraded >= 0.0 && calls - degraded < 10.0);
}

#[test]
fn a_fallback_service_can_be_overloaded_by_the_diverted_traffic() {
    // Every call falls back to a backup of 2 workers x 100/s with no queue: an Erlang loss
    // system offered 500/s (5 erlangs), which turns away B(2, 5) of them.
    let m = with_fallback(r#"{ to = "backup" }"#, 2);
    let calls = metric(&m, "edge.c.primary.calls");
    assert_eq!(
        metric(&m, "edge.c.backup.calls"),
        metric(&m, "edge.c.primary.fallbacks")
    );
    let turned_away = metric(&m, "service.backup.rejected") / metric(&m, "service.backup.arrivals");
    assert_close("backup blocking", turned_away, erlang_b(2, 5.0), 0.03);
    // Answered by the backup: degraded; turned away: the primary's failure stands.
    assert_close(
        "degraded share",
        metric(&m, "client.c.degraded") / calls,
        1.0 - erlang_b(2, 5.0),
        0.03,
    );
    assert!(metric(&m, "client.c.errors.unavailable") > 0.5 * calls);
    assert_eq!(metric(&m, "client.c.errors.overloaded"), 0.0);
}

fn overload_by_two(admission: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "ro-02"
duration = "60s"
warmup = "10s"

[[client]]
name = "checkout"
target = "api"
rate = 500
deadline = "500ms"
criticality = "critical"

[[client]]
name = "batch"
target = "api"
rate = 1500
deadline = "500ms"
criticality = "sheddable"

# 10 workers x 10 ms: a capacity of 1000/s, offered twice that.
[[service]]
name = "api"
workers = 10
queue = 1000
work = {{ dist = "exponential", mean = "10ms" }}
{admission}
"#
    ))
}

#[test]
fn criticality_shedding_keeps_goodput_at_twice_capacity() {
    // Seed 004, RO-02: at 2x capacity, goodput stays at or above 90% of capacity, and the
    // critical class meets its objective while the sheddable one is turned away.
    let goodput = |m: &cascade::metrics::RunMetrics| {
        metric(m, "client.checkout.goodput_rps") + metric(m, "client.batch.goodput_rps")
    };
    let without = overload_by_two("");
    assert!(
        goodput(&without) < 100.0,
        "a long FIFO queue serves only requests nobody waits for: {}",
        goodput(&without)
    );
    let with = overload_by_two(r#"admission = { by = "queue", sheddable = 20, critical = 500 }"#);
    assert!(goodput(&with) >= 900.0, "{}", goodput(&with));
    assert!(metric(&with, "client.checkout.success_ratio") > 0.999);
    assert_eq!(metric(&with, "service.api.shed.critical"), 0.0);
    assert!(
        metric(&with, "service.api.shed.sheddable") > 0.4 * metric(&with, "client.batch.requests")
    );
    assert_eq!(
        metric(&with, "client.batch.errors.overloaded"),
        metric(&with, "service.api.shed.sheddable")
    );
}

fn gives_up_early(policy: &str, back: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "cancel"
duration = "20s"

[[client]]
name = "c"
target = "front"
arrival = "constant"
rate = 50
deadline = "100ms"
policy = "p"

[[service]]
name = "front"
workers = 100
work = "10ms"
calls = [ {{ to = "back" }} ]

[[service]]
name = "back"
workers = 1
work = "60ms"
{back}

[policy.p]
timeout = "40ms"
{policy}
"#
    ))
}

#[test]
fn cancel_stops_orphaned_work_down_the_tree() {
    // front works 10 ms, then waits on back (1 worker x 60 ms, offered 50/s: overloaded). The
    // client gives up after 40 ms. Without cancel, back keeps serving requests nobody awaits.
    let orphaned = gives_up_early("", "");
    assert!(metric(&orphaned, "service.back.wasted_work_s") > 10.0);
    // front itself stops at 40 ms too: its call to back is bounded by the same deadline.
    assert_eq!(metric(&orphaned, "service.front.wasted_work_s"), 0.0);
    // With cancel, the give-up stops front's job and, through it, its call to back.
    let cancelled = gives_up_early("cancel = true", "");
    assert_eq!(metric(&cancelled, "service.front.wasted_work_s"), 0.0);
    assert_eq!(metric(&cancelled, "service.back.wasted_work_s"), 0.0);
    assert!(
        metric(&cancelled, "service.back.queue_mean")
            < metric(&orphaned, "service.back.queue_mean")
    );
    // drop_expired alone: back skips queued requests whose deadline passed; they are not waste.
    let dropped = gives_up_early("", "drop_expired = true");
    assert!(metric(&dropped, "service.back.dropped_expired") > 0.0);
    assert!(
        metric(&dropped, "service.back.wasted_work_s")
            < metric(&orphaned, "service.back.wasted_work_s")
    );
}

#[test]
fn a_retried_non_idempotent_call_whose_first_attempt_ran_is_a_duplicate() {
    // Payments take 300 ms but the caller waits 200 ms, then retries with its idempotency key:
    // both attempts execute, so every call runs twice.
    let m = run(r#"
[scenario]
name = "duplicates"
duration = "10s"

[[client]]
name = "shop"
target = "checkout"
arrival = "constant"
rate = 10
phases = [ { at = "9s", rate = 0 } ]

[[service]]
name = "checkout"
workers = 100
calls = [ { to = "payments", policy = "p", idempotent = false, idempotency_key = true } ]

[[service]]
name = "payments"
workers = 100
work = "300ms"

[policy.p]
timeout = "200ms"
retry = { attempts = 2, backoff = "constant", base = "10ms", jitter = "none" }
"#);
    let calls = metric(&m, "edge.checkout.payments.calls");
    assert_eq!(metric(&m, "edge.checkout.payments.duplicates"), calls);
    // Idempotent calls never count duplicates; without a key a non-idempotent call is not retried.
    let text = |keys: &str| {
        format!(
            r#"
[scenario]
name = "d"
duration = "10s"
[[client]]
name = "shop"
target = "checkout"
arrival = "constant"
rate = 10
[[service]]
name = "checkout"
workers = 100
calls = [ {{ to = "payments", policy = "p"{keys} }} ]
[[service]]
name = "payments"
workers = 100
work = "300ms"
[policy.p]
timeout = "200ms"
retry = {{ attempts = 2 }}
"#
        )
    };
    let idempotent = run(&text(""));
    assert_eq!(
        metric(&idempotent, "edge.checkout.payments.duplicates"),
        0.0
    );
    let unkeyed = run(&text(", idempotent = false"));
    assert_eq!(metric(&unkeyed, "edge.checkout.payments.retries"), 0.0);
    assert_eq!(metric(&unkeyed, "edge.checkout.payments.duplicates"), 0.0);
}

#[test]
fn a_canned_fallback_that_would_answer_after_the_deadline_does_not() {
    let text = |latency: &str| {
        format!(
            r#"
[scenario]
name = "late-fallback"
duration = "5s"
[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 10
deadline = "100ms"
policy = "p"
[[service]]
name = "s"
[[fault]]
kind = "errors"
target = "s"
[policy.p]
fallback = {{ latency = "{latency}" }}
"#
        )
    };
    let on_time = run(&text("50ms"));
    assert_eq!(metric(&on_time, "client.c.success_ratio"), 1.0);
    assert_eq!(metric(&on_time, "client.c.latency_max_ms"), 50.0);
    let late = run(&text("150ms"));
    assert_eq!(metric(&late, "client.c.success"), 0.0);
    assert_eq!(
        metric(&late, "client.c.errors.deadline_exceeded"),
        metric(&late, "client.c.requests") - 1.0
    );
    assert_eq!(metric(&late, "client.c.latency_max_ms"), 100.0);
}

/// A call that ends at its own deadline D = C − reserve still leaves its caller `reserve`:
/// a fallback answers if its answer reaches the caller before C. The client's deadline C is
/// 100 ms, the call's D 80 ms, and the service takes 200 ms, so every attempt ends
/// deadline_exceeded at 80 ms.
fn reserve_fallback(fallback: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "reserve-fallback"
duration = "5s"
[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 10
deadline = "100ms"
policy = "p"
[[service]]
name = "s"
workers = 100
work = "200ms"
[[service]]
name = "cache"
work = "5ms"
[policy.p]
reserve = "20ms"
fallback = {fallback}
"#
    ))
}

#[test]
fn a_fallback_answers_a_call_that_ended_at_its_deadline_while_the_caller_still_waits() {
    // Canned, 5 ms: degraded at 80 + 5 = 85 ms, before C.
    let canned = reserve_fallback(r#"{ latency = "5ms" }"#);
    let requests = metric(&canned, "client.c.requests");
    assert_eq!(metric(&canned, "client.c.degraded"), requests);
    assert_eq!(metric(&canned, "client.c.latency_max_ms"), 85.0);
    assert_close(
        "p50",
        metric(&canned, "client.c.latency_p50_ms"),
        85.0,
        0.001,
    );
    // Canned, 20 ms: due at 100 ms, C itself, where the caller stops waiting: too late. (The
    // last request, sent at 4.9 s, is still waiting when the run ends at 5 s.)
    let late = reserve_fallback(r#"{ latency = "20ms" }"#);
    assert_eq!(metric(&late, "client.c.success"), 0.0);
    assert_eq!(
        metric(&late, "client.c.errors.deadline_exceeded"),
        requests - 1.0
    );
    assert_eq!(metric(&late, "client.c.latency_max_ms"), 100.0);
    // A fallback call has C as its caller's deadline too: the cache answers at 85 ms.
    let call = reserve_fallback(r#"{ to = "cache" }"#);
    assert_eq!(metric(&call, "client.c.degraded"), requests);
    assert_eq!(metric(&call, "edge.c.cache.success"), requests);
    assert_eq!(metric(&call, "client.c.latency_max_ms"), 85.0);
}

fn heavy_tail(hedge: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "hedge"
duration = "60s"
warmup = "5s"

[[client]]
name = "c"
target = "store"
rate = 500
policy = "p"

# 95% of reads take 10 ms, 5% take 500 ms (a GC pause, a cold cache): p99 is the slow mode.
[[service]]
name = "store"
instances = 4
workers = 200
balancer = "random"
work = {{ dist = "mixture", of = [ {{ weight = 0.95, dist = "constant", value = "10ms" }}, {{ weight = 0.05, dist = "constant", value = "500ms" }} ] }}

[policy.p]
{hedge}
"#
    ))
}

#[test]
fn hedging_cuts_p99_on_a_heavy_tail_at_a_bounded_extra_load() {
    let plain = heavy_tail("");
    assert!((metric(&plain, "client.c.latency_p99_ms") - 500.0).abs() < 1.0);
    // A hedge after 20 ms answers in 30 ms unless it is slow too (5% of 5%).
    let fixed = heavy_tail(r#"hedge = { delay = "20ms" }"#);
    assert!(
        metric(&fixed, "client.c.latency_p99_ms") <= 31.0,
        "{}",
        metric(&fixed, "client.c.latency_p99_ms")
    );
    let amp = metric(&fixed, "edge.c.store.amplification");
    assert!(
        (1.04..=1.06).contains(&amp),
        "only the slow 5% are hedged: {amp}"
    );
    assert_eq!(
        metric(&fixed, "edge.c.store.hedges"),
        metric(&fixed, "edge.c.store.attempts") - metric(&fixed, "edge.c.store.calls")
    );
    // The losers keep running: their work is wasted.
    assert!(metric(&fixed, "service.store.wasted_work_s") > 0.0);
    // A learned p90 delay (10 ms here) hedges about as much, once a period of samples exists.
    let learned = heavy_tail(r#"hedge = { delay = "p90", min_samples = 50 }"#);
    assert!(
        metric(&learned, "client.c.latency_p99_ms") <= 25.0,
        "{}",
        metric(&learned, "client.c.latency_p99_ms")
    );
    // A hedge budget of 1% caps the extra load below the slow share.
    let capped = heavy_tail(r#"hedge = { delay = "20ms", budget = 0.01 }"#);
    assert!(metric(&capped, "edge.c.store.amplification") <= 1.011);
    // Every attempt still unanswered at 20 ms wants a hedge: sent plus refused is about the
    // unbudgeted run's count.
    let wanted = metric(&fixed, "edge.c.store.hedges");
    let sent = metric(&capped, "edge.c.store.hedges");
    let refused = metric(&capped, "edge.c.store.hedge_budget_exhausted");
    assert!(refused > 0.0 && sent < wanted);
    assert!(
        ((sent + refused) / wanted - 1.0).abs() < 0.05,
        "{sent} + {refused} vs {wanted}"
    );
}

#[test]
fn a_spike_sets_off_a_retry_storm_that_only_a_budget_or_fewer_attempts_end() {
    use cascade::scenario::{Override, load};
    let last_20s = |set: &[(&str, &str)]| {
        let overrides: Vec<Override> = set
            .iter()
            .map(|(p, v)| Override {
                path: p.to_string(),
                value: v.to_string(),
            })
            .collect();
        let model = load(
            std::path::Path::new("scenarios/retry-storm.toml"),
            &overrides,
        )
        .unwrap()
        .model;
        let m = cascade::simulate(&model).unwrap().metrics;
        let ratio = m.series_of("client.app.success_ratio").unwrap();
        let before = ratio[20..30].iter().sum::<f64>() / 10.0;
        (before, ratio[80..].iter().sum::<f64>() / 20.0)
    };
    // Healthy before the spike in every case; after it, 4 attempts x 700/s > 1000/s of
    // capacity keeps the queue full: the storm outlives its trigger.
    let (before, after) = last_20s(&[]);
    assert_eq!(before, 1.0);
    assert_eq!(after, 0.0, "metastable: no recovery without a change");
    // 1.1 x 700/s and 1 x 700/s are below capacity: the queue drains and service returns.
    assert_eq!(last_20s(&[("policy.clients.retry.budget", "0.1")]).1, 1.0);
    assert_eq!(last_20s(&[("policy.clients.retry.attempts", "1")]).1, 1.0);
    // Stopping timed-out work breaks the loop too.
    assert_eq!(last_20s(&[("policy.clients.cancel", "true")]).1, 1.0);
}

#[test]
fn a_bulkhead_queue_waits_at_most_max_wait_and_hands_permits_over_in_order() {
    let m = run(r#"
[scenario]
name = "bulkhead-wait"
duration = "20s"
warmup = "1s"

[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 100
policy = "p"

[[service]]
name = "s"
workers = 100
work = "50ms"

[policy.p]
bulkhead = { max_concurrent = 2, queue = 3, max_wait = "20ms" }
"#);
    // Two permits held 50 ms each: at most 40 calls a second get through, never more than two
    // at once (utilization of 100 workers <= 2%).
    let ok = metric(&m, "client.c.success");
    let rejected = metric(&m, "edge.c.s.rejected_bulkhead");
    assert!(metric(&m, "service.s.utilization") <= 0.02 + 1e-9);
    assert_close("throughput through the bulkhead", ok / 20.0, 40.0, 0.01);
    // Every call ends one way or the other (a few are still in flight at the end).
    let requests = metric(&m, "client.c.requests");
    assert!(ok + rejected <= requests + 5.0 && ok + rejected >= requests - 5.0);
    // Some calls waited for a permit, none longer than max_wait.
    let max = metric(&m, "client.c.latency_max_ms");
    assert!(max > 50.0 && max <= 70.0, "{max}");
    assert_eq!(metric(&m, "client.c.errors.bulkhead_full"), rejected);
}

#[test]
fn a_call_wrapping_breaker_ignores_calls_the_caller_turned_away_itself() {
    // The dependency always fails; a one-permit bulkhead turns most calls away locally. Those
    // refusals say nothing of the dependency, so the breaker sees only real failures and opens.
    let m = run(r#"
[scenario]
name = "wraps-call"
duration = "20s"

[[client]]
name = "c"
target = "s"
rate = 1000
policy = "p"

[[service]]
name = "s"
workers = 10
work = "5ms"

[[fault]]
kind = "errors"
target = "s"
latency = "5ms"

[policy.p]
bulkhead = { max_concurrent = 1 }
breaker = { wraps = "call", window = 100, min_calls = 50, failure_rate = 0.5, open = "1s" }
"#);
    // Counted as successes, the four in five local refusals would hold the failure rate near
    // 20%, far below 50% over a window of 100; ignored, it is 100% and the breaker opens.
    assert!(metric(&m, "edge.c.s.rejected_bulkhead") > 0.0);
    let opens = metric(&m, "edge.c.s.breaker_opens");
    assert!(opens >= 10.0, "opens {opens}");
    assert!(metric(&m, "edge.c.s.rejected_breaker") > 0.8 * 1000.0 * 20.0);
}

#[test]
fn retry_after_wait_max_waits_the_backoff_when_the_retry_after_is_shorter() {
    // Every attempt is answered `overloaded` at once with a Retry-After of 10 ms (an `errors`
    // fault at rate 1); two attempts, a constant 40 ms backoff without jitter. A call is its
    // two attempts and the wait between them, so its latency is exactly the wait: 10 ms when
    // the Retry-After replaces the backoff, max(10, 40) = 40 ms with "max"; a Retry-After of
    // 70 ms waits 70 ms either way.
    let latency = |wait: &str, retry_after: &str| {
        let m = run(&format!(
            r#"
[scenario]
name = "retry-after-max"
duration = "10s"

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 10
policy = "retrying"

[[service]]
name = "api"
work = "1ms"

[policy.retrying]
retry = {{ attempts = 2, backoff = "constant", base = "40ms", jitter = "none"{wait} }}

[[fault]]
kind = "errors"
target = "api"
rate = 1
error = "overloaded"
retry_after = "{retry_after}"
"#
        ));
        assert_eq!(
            metric(&m, "edge.web.api.retries"),
            metric(&m, "client.web.requests")
        );
        metric(&m, "edge.web.api.call_latency_mean_ms")
    };
    assert_eq!(latency("", "10ms"), 10.0);
    assert_eq!(latency(r#", retry_after_wait = "replace""#, "10ms"), 10.0);
    assert_eq!(latency(r#", retry_after_wait = "max""#, "10ms"), 40.0);
    assert_eq!(latency(r#", retry_after_wait = "max""#, "70ms"), 70.0);
    assert_eq!(latency("", "70ms"), 70.0);
}

#[test]
fn a_half_open_probe_that_ends_unsent_in_a_bulkheads_line_gives_its_place_back() {
    // The breaker opens on the outage's first failure and is half-open 1 s later, letting two
    // probes through. The first takes the bulkhead's one permit for 300 ms; the second waits
    // in line and is handed the permit with 800 ms of its 1 s deadline left, under the 850 ms
    // `min_attempt`: it ends deadline_exceeded without being sent. Its place among the probes
    // must come back, or the breaker stays half-open with no probe out and turns every later
    // call away for the rest of the run.
    let m = run(r#"
[scenario]
name = "probe-in-line"
duration = "10s"

[[client]]
name = "app"
target = "api"
arrival = "constant"
rate = 10
deadline = "1s"

[[service]]
name = "api"
workers = 100
work = "0ms"
calls = [ { to = "db", policy = "guarded" } ]

[[service]]
name = "db"
workers = 100
work = "300ms"

[[fault]]
kind = "errors"
target = "db"
start = "2s"
end = "2.5s"

[policy.guarded]
min_attempt = "850ms"
breaker = { consecutive_failures = 1, open = "1s", half_open_calls = 2 }
bulkhead = { max_concurrent = 1, queue = 10, max_wait = "1s" }
"#);
    let refused = metric(&m, "edge.api.db.rejected_breaker");
    let half_open_s = metric(&m, "edge.api.db.breaker_half_open_s");
    assert!(
        half_open_s < 1.0,
        "the breaker closes after its probes ({half_open_s} s half-open, {refused} refused)"
    );
    // Turned away only while open (1 s at 10 a second) and while both probes are out.
    assert!(refused <= 13.0, "{refused} refused");
}

/// Constant arrivals every `1 / rate` s from `1 / rate` on, from `caller` (a client, or a
/// service of `instances` called by a client) to `s`, the call through a token bucket of 5
/// refilled at 10/s.
fn rate_limited(
    rate: u32,
    instances: u32,
    refill: &str,
) -> (cascade::Model, cascade::metrics::RunMetrics) {
    let (target, front) = match instances {
        0 => ("s", String::new()),
        n => (
            "front",
            format!(
                "[[service]]\nname = \"front\"\ninstances = {n}\nworkers = 100\nwork = \"1ms\"\ncalls = [{{ to = \"s\", policy = \"p\" }}]\n"
            ),
        ),
    };
    let policy = if instances == 0 { "policy = \"p\"" } else { "" };
    run_model(&format!(
        r#"
[scenario]
name = "rate-limit"
duration = "10s"

[[client]]
name = "c"
target = "{target}"
rate = {rate}
arrival = "constant"
{policy}

{front}
[[service]]
name = "s"
workers = 100
work = "1ms"

[policy.p]
rate_limit = {{ max_tokens = 5, fill_interval = "100ms", refill = "{refill}" }}
"#
    ))
}

#[test]
fn a_token_bucket_from_full_admits_b_plus_r_t() {
    // Arrivals at 1, 2, …, 9,999 ms: far above 10/s, so every token is taken the millisecond
    // it is whole. Continuous: 5 + ⌊10/s · 9.999 s⌋ = 104 admitted, the rest refused.
    let (_, m) = rate_limited(1000, 0, "continuous");
    assert_eq!(metric(&m, "edge.c.s.calls"), 9_999.0);
    assert_eq!(metric(&m, "edge.c.s.attempts"), 104.0);
    assert_eq!(metric(&m, "edge.c.s.rate_limited"), 9_895.0);
    assert_eq!(metric(&m, "client.c.errors.rate_limited"), 9_895.0);
    // By ticks (Envoy before 1.31), 5 + ⌊9.999 s / 100 ms⌋ · 1 = 104 too; a tick's token
    // waits for the tick, where the continuous bucket's is whole at the same instant here.
    let (_, m) = rate_limited(1000, 0, "tick");
    assert_eq!(metric(&m, "edge.c.s.attempts"), 104.0);
}

#[test]
fn a_per_instance_limit_on_n_instances_admits_n_times_it() {
    // Three front instances, round robin, each 300/s: each bucket admits 5 + ⌊10 · 9.9989⌋ =
    // 104, so the edge admits 3 × 104 = 312, three times the limit meant.
    let (model, m) = rate_limited(900, 3, "continuous");
    assert_eq!(metric(&m, "edge.front.s.calls"), 8_999.0);
    assert_eq!(metric(&m, "edge.front.s.attempts"), 312.0);
    assert_eq!(metric(&m, "edge.front.s.rate_limited"), 8_999.0 - 312.0);
    // The run's table says so under the edges.
    let table = cascade::output::run_tables::render_summary(&model, &m);
    assert!(
        table.contains("rate limit front -> s: 10/s, burst 5, per caller instance: 3 instances of front admit up to 30/s fleet-wide"),
        "{table}"
    );
}
