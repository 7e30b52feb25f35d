//! A client's `network` (docs/scenario.md §3): the one-way delay its requests cross before the
//! first service and its answers cross back, inside its deadline and its policy's timeouts and
//! counted in its latency. Worked by hand on a 10 ms service with ample workers (no queueing).

use crate::support::*;

/// web -> api (10 ms of work, 1,000 workers), with the client's keys written in.
fn shop(client: &str, duration: &str) -> String {
    format!(
        r#"
[scenario]
name = "client-network"
duration = "{duration}"

[[client]]
name = "web"
target = "api"
rate = 200
{client}

[[service]]
name = "api"
workers = 1000
work = "10ms"
"#
    )
}

#[test]
fn a_constant_network_adds_its_delay_both_ways() {
    // 40 ms out, 10 ms of work, 40 ms back: every request takes 90 ms at the client.
    let (model, m) = run_model(&shop("network = \"40ms\"", "5s"));
    assert_counts_balance(&model, &m);
    assert!(metric(&m, "client.web.requests") > 900.0);
    for q in ["p50", "p99", "max"] {
        let t = metric(&m, &format!("client.web.latency_{q}_ms"));
        assert!((t - 90.0).abs() < 0.5, "client {q} {t} ms, not 90");
    }
    assert_close(
        "client mean",
        metric(&m, "client.web.latency_mean_ms"),
        90.0,
        1e-6,
    );
    assert_eq!(metric(&m, "client.web.success_ratio"), 1.0);
    // Without the key the client pays nothing.
    let m = run(&shop("", "5s"));
    assert_close("mean", metric(&m, "client.web.latency_mean_ms"), 10.0, 1e-6);
}

#[test]
fn the_network_is_spent_from_the_deadline() {
    // 40 + 10 + 40 = 90 ms > 85 ms: every request gives up at its deadline, 85 ms after its
    // start, while its answer is still on its way back. (Arrivals stop at 4 s: every request
    // has ended by the run's end.)
    let (model, m) = run_model(&shop(
        "network = \"40ms\"\ndeadline = \"85ms\"\nphases = [ { at = \"4s\", rate = 0 } ]",
        "5s",
    ));
    assert_counts_balance(&model, &m);
    let requests = metric(&m, "client.web.requests");
    assert_eq!(metric(&m, "client.web.errors.deadline_exceeded"), requests);
    assert_eq!(metric(&m, "client.web.success"), 0.0);
    assert_close("mean", metric(&m, "client.web.latency_mean_ms"), 85.0, 1e-6);
    // A 95 ms deadline leaves room: every request succeeds in 90 ms.
    let m = run(&shop("network = \"40ms\"\ndeadline = \"95ms\"", "5s"));
    assert_eq!(metric(&m, "client.web.success_ratio"), 1.0);
    assert_close("mean", metric(&m, "client.web.latency_mean_ms"), 90.0, 1e-6);
}

#[test]
fn the_policys_timeout_is_measured_at_the_client() {
    // A 60 ms attempt timeout against a 90 ms round trip: every attempt times out at 60 ms.
    let toml = shop(
        "network = \"40ms\"\npolicy = \"call\"\nphases = [ { at = \"4s\", rate = 0 } ]",
        "5s",
    ) + "\n[policy.call]\ntimeout = \"60ms\"\n";
    let m = run(&toml);
    let requests = metric(&m, "client.web.requests");
    assert_eq!(metric(&m, "client.web.errors.timeout"), requests);
    assert_close("mean", metric(&m, "client.web.latency_mean_ms"), 60.0, 1e-6);
}

#[test]
fn an_exponential_network_adds_twice_its_mean() {
    // Mean latency = 10 ms + 2 × 20 ms = 50 ms. The two draws are independent exponentials:
    // the latency's variance is 2 × 20² ms², so over n requests the mean's standard error is
    // 20 √2 / √n ms; 5 standard errors is the tolerance.
    let (model, m) = run_model(&shop(
        "network = { dist = \"exponential\", mean = \"20ms\" }",
        "60s",
    ));
    assert_counts_balance(&model, &m);
    let n = metric(&m, "client.web.requests");
    assert!(n > 10_000.0, "{n}");
    let se = 20.0 * 2f64.sqrt() / n.sqrt();
    assert_close(
        "client mean",
        metric(&m, "client.web.latency_mean_ms"),
        50.0,
        5.0 * se,
    );
    // The median of the sum of two exponentials of mean m solves (1 + x/m) e^(-x/m) = 1/2:
    // x = 1.678 m, 33.6 ms here, plus the 10 ms of work (within the histogram's resolution).
    let p50 = metric(&m, "client.web.latency_p50_ms");
    assert!(
        (p50 - 43.6).abs() < 1.5,
        "client p50 {p50} ms, not about 43.6"
    );
}

#[test]
fn a_bad_network_is_located() {
    let toml = shop("network = \"forty\"", "5s");
    let e = cascade::scenario::load_str("net.toml", &toml, &[]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("net.toml:10:") && text.contains("client.web.network"),
        "{text}"
    );
    let toml = shop("network = { dist = \"exponential\" }", "5s");
    let text = cascade::scenario::load_str("net.toml", &toml, &[])
        .unwrap_err()
        .to_string();
    assert!(text.contains("client.web.network"), "{text}");
}

#[test]
fn the_lints_spend_the_network_from_the_deadline() {
    use crate::lints::{of, scenario};
    // web's 300 ms deadline reaches api 40 ms later at the soonest: 260 ms for api's call to
    // db, whose timed-out 200 ms attempt and 80 ms backoff (280 ms) leave no room for a retry.
    let api = "work = \"1ms\"\ncalls = [ { to = \"db\", policy = \"db\" } ]";
    let policy = "\n[policy.db]\ntimeout = \"200ms\"\nretry = { attempts = 2, backoff = \
                  \"constant\", base = \"80ms\", jitter = \"none\" }";
    let client = |network: &str| format!("rate = 10\ndeadline = \"300ms\"\n{network}");
    let toml = scenario(&client("network = \"40ms\""), api, "work = \"1ms\"", policy);
    let m = of(&toml, "retry-cannot-fit");
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("of the 260ms the call has")
            && m[0].contains("web's 300ms deadline")
            && m[0].contains("less the 40ms network on the way"),
        "{}",
        m[0]
    );
    // Without the network the same retry fits in 300 ms; an exponential network can take no
    // time at all, so it subtracts nothing.
    assert!(
        of(
            &scenario(&client(""), api, "work = \"1ms\"", policy),
            "retry-cannot-fit"
        )
        .is_empty()
    );
    let exp = client("network = { dist = \"exponential\", mean = \"40ms\" }");
    assert!(
        of(
            &scenario(&exp, api, "work = \"1ms\"", policy),
            "retry-cannot-fit"
        )
        .is_empty()
    );
    // An 85 ms deadline is below the median attempt, 40 + 10 + 40 = 90 ms.
    let short = |network: &str| format!("rate = 10\ndeadline = \"85ms\"\n{network}");
    let toml = scenario(&short("network = \"40ms\""), "work = \"10ms\"", "", "");
    let m = of(&toml, "timeout-below-median");
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("network both ways"), "{}", m[0]);
    assert!(
        of(
            &scenario(&short(""), "work = \"10ms\"", "", ""),
            "timeout-below-median"
        )
        .is_empty()
    );
}
