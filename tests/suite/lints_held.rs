//! `limit-holds-past-deadline` (docs/lints.md): a service's rate limiter that holds a request
//! longer than any caller waits for it, or whose line grows without bound, with its numbers
//! worked by hand; quiet beside it where the hold fits or nobody gives up.

use crate::lints::{of, scenario};

/// web (rate `rate`, `client` keys) -> api with `limit`; api calls db.
fn held(rate: u32, client: &str, limit: &str) -> Vec<String> {
    let toml = scenario(
        &format!("rate = {rate}\n{client}"),
        &format!("work = \"1ms\"\nrate_limit = {{ {limit} }}"),
        "work = \"1ms\"",
        "",
    );
    of(&toml, "limit-holds-past-deadline")
}

#[test]
fn an_nginx_burst_that_drains_slower_than_the_deadline_is_found() {
    // 300 requests of burst past delay 0 at 100/s: the last waits 3 s; web gives up at 1 s.
    let deadline = "deadline = \"1s\"";
    let found = held(
        50,
        deadline,
        r#"limiter = "limit_req", rate = "100r/s", burst = 300"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0],
        "api's rate limit holds a request up to 3s (nginx holds the 300 requests of its burst \
         past `delay` until they drain at 100 calls/s), longer than any caller waits for it \
         (1s, client web's 1s deadline, passed on by web -> api): a request held that long is \
         served after its caller gave up, its work wasted"
    );
    // 50 of burst (0.5 s), or only 50 of 300 held (delay = 250), fit the second; nodelay
    // holds nothing; without a deadline nobody gives up.
    for quiet in [
        r#"limiter = "limit_req", rate = "100r/s", burst = 50"#,
        r#"limiter = "limit_req", rate = "100r/s", burst = 300, delay = 250"#,
        r#"limiter = "limit_req", rate = "100r/s", burst = 300, nodelay = true"#,
        // x/time/rate's Wait never waits past the deadline.
        r#"max_tokens = 5, fill_interval = "100ms", wait = true"#,
    ] {
        assert!(held(50, deadline, quiet).is_empty(), "{quiet}");
    }
    assert!(
        held(
            50,
            "",
            r#"limiter = "limit_req", rate = "100r/s", burst = 300"#
        )
        .is_empty()
    );
}

#[test]
fn a_timeout_past_the_deadline_and_a_line_without_bound_are_found() {
    // resilience4j's default timeoutDuration (5 s) against web's 1 s deadline.
    let r4j = r#"limiter = "resilience4j", limit_for_period = 10, limit_refresh_period = "100ms""#;
    let found = held(50, "deadline = \"1s\"", r4j);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("holds a request up to 5s (resilience4j holds"),
        "{}",
        found[0]
    );
    // tower at 10/s offered 50/s refuses nothing: its line grows without bound, deadline or
    // not; offered 5/s it keeps up, and is quiet.
    let tower = r#"limiter = "tower", num = 1, per = "100ms""#;
    let found = held(50, "", tower);
    assert_eq!(
        found,
        [
            "api's rate limit: it refuses nothing, and at the base rate of 50.0 calls/s it is \
          offered more than its 10.0 calls/s: its line of held requests grows without bound"
        ]
    );
    assert!(held(5, "", tower).is_empty());
    // Guava's acquire() the same; its tryAcquire(2s) against a 1 s deadline too.
    assert_eq!(
        held(
            50,
            "",
            r#"limiter = "smooth_bursty", permits_per_second = 10"#
        )
        .len(),
        1
    );
    let timeout = r#"limiter = "smooth_bursty", permits_per_second = 100, timeout = "2s""#;
    assert_eq!(held(50, "deadline = \"1s\"", timeout).len(), 1);
    assert!(held(50, "deadline = \"3s\"", timeout).is_empty());
}
