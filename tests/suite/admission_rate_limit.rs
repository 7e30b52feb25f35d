//! A rate limit at a service's admission (`rate_limit` on a `[[service]]`, docs/scenario.md
//! §4 and docs/policies.md "Rate limit at a service's admission"): Envoy's local rate limit
//! filter on each instance's inbound listener, one bucket per instance or one for the fleet.
//! Every figure here is the token bucket's closed form, computed by hand.

use crate::support::*;

/// Constant arrivals every `1 / rate` s from `1 / rate` on for 10 s, from client `c` to `s`
/// (`instances` instances, round robin, 1 ms of work), whose admission has a bucket of 5
/// refilled at 10/s with `extra` keys; `service` adds keys to `s`, `client` to `c`.
fn limited(
    rate: u32,
    instances: u32,
    extra: &str,
    service: &str,
    client: &str,
) -> (cascade::Model, cascade::metrics::RunMetrics) {
    run_model(&format!(
        r#"
[scenario]
name = "admission-rate-limit"
duration = "10s"

[[client]]
name = "c"
target = "s"
rate = {rate}
arrival = "constant"
{client}

[[service]]
name = "s"
instances = {instances}
workers = 100
work = "1ms"
rate_limit = {{ max_tokens = 5, fill_interval = "100ms"{extra} }}
{service}
"#
    ))
}

#[test]
fn a_bucket_at_admission_from_full_admits_b_plus_r_t() {
    // Arrivals at 1, 2, …, 9,999 ms, far above 10/s: each token is taken the millisecond it
    // is whole. 5 + ⌊10/s · 9.999 s⌋ = 104 admitted, the other 9,895 answered overloaded.
    let (model, m) = limited(1000, 1, "", "", "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.arrivals"), 9_999.0);
    assert_eq!(metric(&m, "service.s.admitted"), 104.0);
    assert_eq!(metric(&m, "service.s.served"), 104.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 9_895.0);
    assert_eq!(metric(&m, "service.s.errors.overloaded"), 9_895.0);
    assert_eq!(metric(&m, "client.c.errors.overloaded"), 9_895.0);
    // Nothing else turned them away.
    assert_eq!(metric(&m, "service.s.rejected"), 0.0);
    // By ticks (Envoy before 1.31): 5 + ⌊9.999 s / 100 ms⌋ · 1 = 104 too.
    let (_, m) = limited(1000, 1, ", refill = \"tick\"", "", "");
    assert_eq!(metric(&m, "service.s.admitted"), 104.0);
    // Two tokens a fill: 5 + ⌊20/s · 9.999 s⌋ = 204.
    let (_, m) = limited(1000, 1, ", tokens_per_fill = 2", "", "");
    assert_eq!(metric(&m, "service.s.admitted"), 204.0);
}

#[test]
fn per_instance_buckets_admit_n_times_the_limit_and_a_fleet_bucket_admits_it_once() {
    // Three instances, round robin, at 900/s: each sees 300/s, its last arrival at 9.998 s
    // or later, so each bucket admits 5 + ⌊10 · 9.99…⌋ = 104: 312 in all, three times the
    // limit meant for the service.
    let (model, m) = limited(900, 3, "", "", "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.arrivals"), 8_999.0);
    assert_eq!(metric(&m, "service.s.admitted"), 312.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 8_999.0 - 312.0);
    let table = cascade::output::run_tables::render_summary(&model, &m);
    assert!(
        table.contains("rate limit at s's admission: 10/s, burst 5, per instance: 3 instances of s admit up to 30/s fleet-wide"),
        "{table}"
    );
    // One bucket for the fleet: the last arrival at 9.998 s, 5 + ⌊10 · 9.998⌋ = 104 in all.
    let (model, m) = limited(900, 3, ", scope = \"fleet\"", "", "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.admitted"), 104.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 8_999.0 - 104.0);
    let table = cascade::output::run_tables::render_summary(&model, &m);
    assert!(
        table.contains("rate limit at s's admission: 10/s, burst 5, one bucket for the fleet: s's 3 instances admit up to 10/s together"),
        "{table}"
    );
}

#[test]
fn a_refusal_costs_the_refusal_work_of_the_overload_model() {
    // 9,895 refusals of 1 ms of worker time each, booked when the worker is done: the last,
    // refused at 9.999 s, is still being paid when the run ends at 10 s, so 9,894 × 1 ms.
    let (model, m) = limited(1000, 1, "", "reject_work = \"1ms\"", "");
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.rate_limited"), 9_895.0);
    assert_close(
        "refusal_work_s",
        metric(&m, "service.s.refusal_work_s"),
        9.894,
        1e-9,
    );
}

#[test]
fn a_service_without_a_rate_limit_emits_no_rate_limited_count() {
    let (_, m) = run_model(
        "[scenario]\nname = \"plain\"\nduration = \"1s\"\n\n[[client]]\nname = \"c\"\ntarget = \"s\"\nrate = 10\n\n[[service]]\nname = \"s\"\nwork = \"1ms\"\n",
    );
    assert!(m.get("service.s.rate_limited").is_none());
}

/// Two requests, at 50 and 100 ms, to a bucket of one token refilled every 100 ms, the
/// client's call retrying `overloaded` once after a constant 1 s unless a Retry-After it
/// honours says otherwise. The first takes the token; the second finds half a token and is
/// refused, with Retry-After = 50 ms when the limiter sends it.
fn retried(server_sends: bool, client_honours: bool) -> cascade::metrics::RunMetrics {
    let (model, m) = run_model(&format!(
        r#"
[scenario]
name = "retry-after"
duration = "3s"

[[client]]
name = "c"
target = "s"
rate = 20
arrival = "constant"
phases = [ {{ at = "110ms", rate = 0 }} ]
policy = "p"

[[service]]
name = "s"
workers = 100
work = "1ms"
rate_limit = {{ max_tokens = 1, fill_interval = "100ms", retry_after = {server_sends} }}

[policy.p]
retry = {{ attempts = 2, on = ["overloaded"], backoff = "constant", base = "1s", jitter = "none", retry_after = {client_honours} }}
"#
    ));
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.rate_limited"), 1.0);
    assert_eq!(metric(&m, "client.c.success"), 2.0);
    m
}

#[test]
fn retry_after_on_a_refusal_is_the_time_until_the_next_token() {
    // Honoured: the retry comes 50 ms later, when the token is whole: 1 ms and 51 ms.
    let m = retried(true, true);
    assert_close(
        "latency_mean_ms",
        metric(&m, "client.c.latency_mean_ms"),
        26.0,
        1e-9,
    );
    // Off by default (Envoy sends none): the backoff's 1 s, 1 ms and 1,001 ms.
    let m = retried(false, true);
    assert_close(
        "latency_mean_ms",
        metric(&m, "client.c.latency_mean_ms"),
        501.0,
        1e-9,
    );
    // Sent but not honoured by the caller: the backoff again.
    let m = retried(true, false);
    assert_close(
        "latency_mean_ms",
        metric(&m, "client.c.latency_mean_ms"),
        501.0,
        1e-9,
    );
}
