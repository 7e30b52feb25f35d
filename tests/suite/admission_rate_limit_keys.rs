//! A service's admission rate limit keyed by tenant (`rate_limit.key`, docs/policies.md
//! "Rate limit at a service's admission"): one bucket per client the request came from, or
//! per operation of a client's mix, so a noisy tenant empties its own bucket and not the
//! others'. The figures are the token bucket's closed form, computed by hand.

use crate::support::*;

/// A noisy client at 1,000/s and a quiet one at 5/s, both constant from `1 / rate` on for
/// 10 s, into `s` (`via` a zero-work gateway when given) whose admission bucket of 5 is
/// refilled at 10/s, with `key` added to its `rate_limit`.
fn tenants(key: &str, via_gateway: bool) -> (cascade::Model, cascade::metrics::RunMetrics) {
    let target = if via_gateway { "gateway" } else { "s" };
    let gateway = if via_gateway {
        "[[service]]\nname = \"gateway\"\nworkers = 1000\nwork = \"0s\"\ncalls = [ { to = \"s\" } ]\n"
    } else {
        ""
    };
    run_model(&format!(
        r#"
[scenario]
name = "tenants"
duration = "10s"

[[client]]
name = "noisy"
target = "{target}"
rate = 1000
arrival = "constant"

[[client]]
name = "quiet"
target = "{target}"
rate = 5
arrival = "constant"

{gateway}
[[service]]
name = "s"
workers = 100
work = "1ms"
rate_limit = {{ max_tokens = 5, fill_interval = "100ms"{key} }}
"#
    ))
}

#[test]
fn one_bucket_for_all_lets_the_noisy_tenant_take_every_token() {
    // The noisy client's arrivals at 1, 2, … ms take the 5 tokens by 5 ms, then each token
    // the millisecond it is whole: at 105, 205, …, 9,905 ms. The quiet client's, at 200,
    // 400, …, 9,800 ms, each find 0.95 of a token: all 49 refused.
    let (model, m) = tenants("", false);
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.arrivals"), 9_999.0 + 49.0);
    assert_eq!(metric(&m, "service.s.admitted"), 104.0);
    assert_eq!(metric(&m, "client.quiet.success"), 0.0);
    assert_eq!(metric(&m, "client.quiet.errors.overloaded"), 49.0);
    // Unkeyed, no per-tenant counts are emitted.
    assert!(m.get("service.s.rate_limit.client.quiet.passed").is_none());
}

#[test]
fn a_bucket_per_client_limits_the_noisy_tenant_alone() {
    // The noisy client's bucket admits 5 + ⌊10/s · 9.999 s⌋ = 104 of its 9,999; the quiet
    // client's own bucket, at 5/s under its 10/s, admits all 49.
    let (model, m) = tenants(", key = \"client\"", false);
    assert_counts_balance(&model, &m);
    assert_eq!(metric(&m, "service.s.admitted"), 104.0 + 49.0);
    assert_eq!(metric(&m, "service.s.rate_limited"), 9_895.0);
    assert_eq!(metric(&m, "client.quiet.success"), 49.0);
    assert_eq!(metric(&m, "client.noisy.success"), 104.0);
    assert_eq!(
        metric(&m, "service.s.rate_limit.client.noisy.passed"),
        104.0
    );
    assert_eq!(
        metric(&m, "service.s.rate_limit.client.noisy.refused"),
        9_895.0
    );
    assert_eq!(metric(&m, "service.s.rate_limit.client.quiet.passed"), 49.0);
    assert_eq!(metric(&m, "service.s.rate_limit.client.quiet.refused"), 0.0);
    let table = cascade::output::run_tables::render_summary(&model, &m);
    assert!(
        table.contains("rate limit at s's admission: 10/s, burst 5, per instance: 1 instance of s admits up to 10/s fleet-wide; keyed by client: each tenant has its own, the figures are per tenant"),
        "{table}"
    );
}

#[test]
fn the_tenant_is_the_client_the_request_came_from_however_deep() {
    // Behind a gateway that does no work the arrivals at `s` are the clients' own, so the
    // figures are those of the direct calls: the tenant travels with the request.
    let (model, m) = tenants(", key = \"client\"", true);
    assert_counts_balance(&model, &m);
    assert_eq!(
        metric(&m, "service.s.rate_limit.client.noisy.passed"),
        104.0
    );
    assert_eq!(metric(&m, "service.s.rate_limit.client.quiet.passed"), 49.0);
    assert_eq!(metric(&m, "service.s.rate_limit.client.quiet.refused"), 0.0);
    assert_eq!(metric(&m, "client.quiet.success"), 49.0);
}

#[test]
fn a_bucket_per_client_operation_splits_a_mixed_client() {
    // One client at 1,000/s, half its requests to each of two operations (a draw each):
    // each operation's bucket admits at most 5 + ⌊10/s · 9.999 s⌋ = 104, so together more
    // than the 104 one bucket for the client would admit, and each key's counts add up to
    // its operation's requests.
    let (model, m) = run_model(
        r#"
[scenario]
name = "operations"
duration = "10s"

[[client]]
name = "c"
target = "s"
rate = 1000
arrival = "constant"
mix = [ { operation = "read", weight = 1 }, { operation = "write", weight = 1 } ]

[[service]]
name = "s"
workers = 100
rate_limit = { max_tokens = 5, fill_interval = "100ms", key = "client_operation" }

[[service.operation]]
name = "read"
work = "1ms"

[[service.operation]]
name = "write"
work = "1ms"
"#,
    );
    assert_counts_balance(&model, &m);
    let mut admitted = 0.0;
    for op in ["read", "write"] {
        let passed = metric(&m, &format!("service.s.rate_limit.client.c.op.{op}.passed"));
        let refused = metric(
            &m,
            &format!("service.s.rate_limit.client.c.op.{op}.refused"),
        );
        assert_eq!(
            passed + refused,
            metric(&m, &format!("client.c.op.{op}.requests"))
        );
        assert!((100.0..=104.0).contains(&passed), "{op}: {passed}");
        admitted += passed;
    }
    assert_eq!(metric(&m, "service.s.admitted"), admitted);
    assert!(admitted > 104.0);
    // The mixed client's whole is no key of its own.
    assert!(m.get("service.s.rate_limit.client.c.passed").is_none());
}
