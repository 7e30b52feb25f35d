//! Rate limiters at a service's admission that hold requests (docs/policies.md "Rate limit at a
//! service's admission"): nginx's `limit_req` (a leaky bucket with a burst and a delay),
//! x/time/rate's `Wait` (a token bucket that reserves) and Guava's `RateLimiter`. Every figure
//! is computed by hand from the library's source, as each comment shows.

use crate::support::*;

/// `users` paced users all sending one request at t = 0 (their next is past the run's end) to
/// one instance of `s` with 1 ms of work, whose admission has `limit`; `client` adds keys.
fn at_once(
    users: u32,
    limit: &str,
    client: &str,
) -> (cascade::Model, cascade::metrics::RunMetrics) {
    run_model(&format!(
        r#"
[scenario]
name = "admission-rate-limit-delay"
duration = "10s"

[[client]]
name = "c"
target = "s"
arrival = "closed"
users = {users}
pace = "100s"
{client}

[[service]]
name = "s"
workers = 100
work = "1ms"
rate_limit = {{ {limit} }}
"#
    ))
}

/// Constant arrivals every millisecond from 1 ms to 9,999 ms at `s` (one instance, 1 ms of
/// work), whose admission has `limit`; `client` adds keys to the client.
fn steady(limit: &str, client: &str) -> (cascade::Model, cascade::metrics::RunMetrics) {
    run_model(&format!(
        r#"
[scenario]
name = "admission-rate-limit-delay"
duration = "10s"

[[client]]
name = "c"
target = "s"
rate = 1000
arrival = "constant"
{client}

[[service]]
name = "s"
workers = 1000
work = "1ms"
rate_limit = {{ {limit} }}
"#
    ))
}

#[test]
fn nginx_burst_example_one_at_once_five_delayed_one_refused() {
    // nginx's documented example: rate=1r/s burst=5, seven requests at once. The first finds
    // no node and passes at excess 0; the next five bring it to 1,000 … 5,000 thousandths
    // and wait (excess − 0) · 1000 / 1000 ms = 1 … 5 s; the seventh would be at 6,000 > 5,000:
    // refused with limit_req_status, 503 by default (unavailable).
    let (model, m) = at_once(7, r#"limiter = "limit_req", rate = "1r/s", burst = 5"#, "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.arrivals"), 7.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 1.0);
    assert_eq!(metric(&m, "service.s.errors.unavailable"), 1.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delayed"), 5.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_mean_ms"), 3_000.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_max_ms"), 5_000.0);
    assert_eq!(metric(&m, "service.s.served"), 6.0);
    // The queue wait counts from the end of the hold: nothing queued behind 100 workers.
    assert_eq!(metric(&m, "service.s.wait_p99_ms"), 0.0);
    // The client waited the hold and the work: 5 s + 1 ms for the last served.
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 5_001.0);
    assert_eq!(metric(&m, "client.c.errors.unavailable"), 1.0);
    // nodelay: the six pass at once; delay=2: three at once, then 1, 2 and 3 s.
    let (_, m) = at_once(
        7,
        r#"limiter = "limit_req", rate = "1r/s", burst = 5, nodelay = true"#,
        "",
    );
    assert_eq!(metric(&m, "service.s.served"), 6.0);
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 1.0);
    let (_, m) = at_once(
        7,
        r#"limiter = "limit_req", rate = "1r/s", burst = 5, delay = 2, status = 429"#,
        "",
    );
    assert_eq!(metric(&m, "service.s.rate_limit.delayed"), 3.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_mean_ms"), 2_000.0);
    assert_eq!(metric(&m, "service.s.errors.overloaded"), 1.0);
}

#[test]
fn a_caller_that_stops_waiting_leaves_its_held_request_unanswered() {
    // The same seven with a 2.5 s deadline: the holds of 3, 4 and 5 s outlive it. By default
    // a request carries on when its caller gives up, so all six are served, three of them
    // too late; with `cancel = true` (the client closes its connection, which nginx's delay
    // phase watches for) those three are dropped while held: never served, unanswered.
    let deadline = r#"deadline = "2500ms""#;
    let limit = r#"limiter = "limit_req", rate = "1r/s", burst = 5"#;
    let (model, m) = at_once(7, limit, deadline);
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.served"), 6.0);
    assert_eq!(metric(&m, "client.c.errors.deadline_exceeded"), 3.0);
    let cancelling = format!("{deadline}\npolicy = \"p\"\n\n[policy.p]\ncancel = true");
    let (model, m) = at_once(7, limit, &cancelling);
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.served"), 3.0);
    assert_eq!(metric(&m, "service.s.unanswered"), 3.0);
    assert_eq!(metric(&m, "client.c.errors.deadline_exceeded"), 3.0);
    assert_eq!(metric(&m, "client.c.errors.unavailable"), 1.0);
    assert_eq!(metric(&m, "client.c.success"), 3.0);
}

#[test]
fn a_leaky_bucket_under_steady_overload_admits_its_burst_then_its_rate() {
    // 10r/s (10 thousandths drained a ms), burst=5, one arrival a ms from 1 ms. At 1 ms the
    // node is made (excess 0); at 2 … 6 ms the excess is 990, 1,980, 2,970, 3,960, 4,950
    // (passes); from 7 ms 5,940 and more: refused, and a refusal moves nothing. A pass comes
    // when 4,950 − 10·d + 1,000 <= 5,000, d >= 95 ms after 6 ms: at 101 ms (excess 5,000),
    // then every 100 ms (5,000 − 1,000 + 1,000): 101, 201, …, 9,901 — 99 of them. 6 + 99 = 105
    // admitted of 9,999.
    let (model, m) = steady(
        r#"limiter = "limit_req", rate = "10r/s", burst = 5, nodelay = true"#,
        "",
    );
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.arrivals"), 9_999.0);
    assert_eq!(metric(&m, "service.s.admitted"), 105.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 9_999.0 - 105.0);
    // nodelay holds nothing, and says so by not counting holds at all.
    assert!(m.get("service.s.rate_limit.delayed").is_none());
    // Without nodelay the same 105 pass the limiter; all but the first are held
    // excess · 1000 / 10,000 ms: 99, 198, 297, 396, 495 ms, then 500 ms each (99 times).
    let (_, m) = steady(r#"limiter = "limit_req", rate = "10r/s", burst = 5"#, "");
    assert_eq!(metric(&m, "service.s.rate_limited"), 9_999.0 - 105.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delayed"), 104.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_max_ms"), 500.0);
    let mean = (99.0 + 198.0 + 297.0 + 396.0 + 495.0 + 99.0 * 500.0) / 104.0;
    assert!((metric(&m, "service.s.rate_limit.delay_mean_ms") - mean).abs() < 1e-9);
}

#[test]
fn x_time_rate_wait_holds_what_its_deadline_allows_and_refuses_the_rest() {
    // NewLimiter(10, 5), Wait with a 250 ms deadline. The bucket is full (5) until the first
    // arrival at 1 ms, so the n-th reservation at t waits (n − 5 − 10·(t − 1 ms)) / 10 s,
    // allowed while that is <= 0.25 s: seven at 1 … 7 ms (the 6th waits 95 ms, the 7th
    // 194 ms; the 8th at 8 ms would wait 293 ms: refused, taking nothing), then the 8 + k-th
    // at 51 + 100·k ms, waiting exactly 250 ms (k = 0 … 99, the last at 9,951 ms): 107
    // reserved of 9,999, 102 of them held.
    let (model, m) = steady(
        r#"max_tokens = 5, fill_interval = "100ms", wait = true"#,
        r#"deadline = "250ms""#,
    );
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.rate_limited"), 9_999.0 - 107.0);
    assert_eq!(metric(&m, "service.s.errors.overloaded"), 9_999.0 - 107.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delayed"), 102.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_max_ms"), 250.0);
    let mean = (95.0 + 194.0 + 100.0 * 250.0) / 102.0;
    assert!((metric(&m, "service.s.rate_limit.delay_mean_ms") - mean).abs() < 1e-9);
    // Envoy's filter (no wait) on the same bucket: 5 + ⌊10 · 9.999⌋ = 104, none held.
    let (_, m) = steady(r#"max_tokens = 5, fill_interval = "100ms""#, "");
    assert_eq!(metric(&m, "service.s.admitted"), 104.0);
    assert!(m.get("service.s.rate_limit.delayed").is_none());
}

#[test]
fn guava_acquire_waits_its_turn_and_try_acquire_refuses_past_its_timeout() {
    // RateLimiter.create(2): three acquire() at once are granted at 0, 0.5 and 1 s (the
    // first is free and the next pays its 0.5 s); tryAcquire(600 ms) refuses the third,
    // granted only at 1 s, with a 429.
    let (_, m) = at_once(
        3,
        r#"limiter = "smooth_bursty", permits_per_second = 2"#,
        "",
    );
    assert_eq!(metric(&m, "service.s.served"), 3.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delayed"), 2.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_mean_ms"), 750.0);
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 1_001.0);
    let (_, m) = at_once(
        3,
        r#"limiter = "smooth_bursty", permits_per_second = 2, timeout = "600ms", retry_after = true"#,
        "",
    );
    assert_eq!(metric(&m, "service.s.served"), 2.0);
    assert_eq!(metric(&m, "service.s.errors.overloaded"), 1.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_max_ms"), 500.0);
}

#[test]
fn resilience4j_reserves_cycles_and_parks_a_refused_caller_for_its_timeout() {
    // AtomicRateLimiter, limitForPeriod 2 per 100 ms, timeoutDuration 250 ms, seven at t = 0
    // (cycle 0): two pass; the 3rd and 4th reserve cycle 1 (wait 100 ms, count -2), the 5th
    // and 6th cycle 2 (200 ms); the 7th's permit would come at 300 ms, past the timeout: it
    // is parked the whole 250 ms, then refused (429), taking nothing.
    let limit = r#"limiter = "resilience4j", limit_for_period = 2, limit_refresh_period = "100ms", timeout_duration = "250ms""#;
    let (model, m) = at_once(7, limit, "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.served"), 6.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delayed"), 4.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_mean_ms"), 150.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delay_max_ms"), 200.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 1.0);
    assert_eq!(metric(&m, "client.c.errors.overloaded"), 1.0);
    // The refusal is answered when its parking ends: the slowest answer, at 250 ms.
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 250.0);
}

#[test]
fn tower_rate_limit_holds_each_request_for_its_window_and_refuses_none() {
    // Rate::new(2, 100 ms), five at t = 0: the window opened by the first takes two; the
    // others wait for the next windows, 100, 100 and 200 ms.
    let (model, m) = at_once(5, r#"limiter = "tower", num = 2, per = "100ms""#, "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.served"), 5.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 0.0);
    assert_eq!(metric(&m, "service.s.rate_limit.delayed"), 3.0);
    assert!((metric(&m, "service.s.rate_limit.delay_mean_ms") - 400.0 / 3.0).abs() < 1e-9);
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 201.0);
}

#[test]
fn the_run_table_says_which_limiter_and_what_it_does_over_the_rate() {
    let (model, m) = at_once(
        7,
        r#"limiter = "limit_req", rate = "1r/s", burst = 5, delay = 2"#,
        "",
    );
    let table = cascade::output::run_tables::render_summary(&model, &m);
    assert!(
        table.contains("rate limit at s's admission: nginx limit_req 1/s, burst 5, the first 2 over the rate passed, the rest held, per instance: 1 instance of s admits up to 1/s fleet-wide, refusals answered 503"),
        "{table}"
    );
    let (model, m) = at_once(
        1,
        r#"limiter = "smooth_bursty", permits_per_second = 2"#,
        "",
    );
    let table = cascade::output::run_tables::render_summary(&model, &m);
    assert!(
        table.contains("rate limit at s's admission: Guava RateLimiter 2/s, acquire(): every request waits its turn"),
        "{table}"
    );
}

#[test]
fn a_key_of_another_limiter_or_a_bad_value_is_refused_by_field() {
    let cases = [
        (
            r#"limiter = "limit_req", rate = "1r/s", max_tokens = 5"#,
            "rate_limit.max_tokens",
            "belongs to limiter = \"token_bucket\"",
        ),
        (
            r#"max_tokens = 5, fill_interval = "1s", burst = 5"#,
            "rate_limit.burst",
            "belongs to limiter = \"limit_req\"",
        ),
        (
            r#"limiter = "limit_req", burst = 5"#,
            "rate_limit.rate",
            "is required",
        ),
        (
            r#"limiter = "limit_req", rate = "1r/h""#,
            "rate_limit.rate",
            "per second or per minute",
        ),
        (
            r#"limiter = "limit_req", rate = "1r/s", burst = 2, delay = 3"#,
            "rate_limit.delay",
            "must not exceed burst",
        ),
        (
            r#"limiter = "limit_req", rate = "1r/s", burst = 2, delay = 1, nodelay = true"#,
            "rate_limit.nodelay",
            "exclude each other",
        ),
        (
            r#"limiter = "smooth_bursty""#,
            "rate_limit.permits_per_second",
            "is required",
        ),
        (
            r#"limiter = "smooth_bursty", permits_per_second = 0"#,
            "rate_limit.permits_per_second",
            "above 0",
        ),
        (
            r#"max_tokens = 5, fill_interval = "1s", refill = "tick", wait = true"#,
            "rate_limit.wait",
            "continuous",
        ),
        (
            r#"max_tokens = 5, fill_interval = "1s", status = 200"#,
            "rate_limit.status",
            "400 to 599",
        ),
    ];
    for (limit, field, says) in cases {
        let toml = format!(
            "[scenario]\nname = \"x\"\nduration = \"1s\"\n\n[[client]]\nname = \"c\"\ntarget = \"s\"\nrate = 1\n\n[[service]]\nname = \"s\"\nwork = \"1ms\"\nrate_limit = {{ {limit} }}\n"
        );
        let err = cascade::scenario::load_str("test.toml", &toml, &[])
            .err()
            .unwrap_or_else(|| panic!("{limit} was taken"))
            .to_string();
        assert!(
            err.contains(&format!("service.s.{field}")) && err.contains(says),
            "{limit}: {err}"
        );
        assert!(err.contains("test.toml:13:"), "{limit}: {err}");
    }
}
