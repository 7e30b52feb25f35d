//! The tail lints (docs/lints.md): a per-try timeout below the 90th percentile of an attempt
//! (`timeout-below-p90`) and a breaker whose half-open probes the healthy tail fails too often
//! (`half-open-probes`), each with its share worked by hand from the distributions, beside a
//! setting next to it that does not fire.

use crate::lints::{of, scenario};

/// web -> api (policy `call`), api's work exponential with mean `mean`.
fn exponential_api(mean: &str, policy: &str) -> String {
    let api = format!("work = {{ dist = \"exponential\", mean = \"{mean}\" }}");
    scenario("rate = 10", &api, "work = \"1ms\"", policy)
}

/// The percentage a message states after "about ".
fn share_in(message: &str, after: &str) -> f64 {
    let rest = &message[message.find(after).expect(message) + after.len()..];
    let end = rest.find('%').expect(message);
    rest[..end].parse().expect(message)
}

#[test]
fn a_timeout_at_the_76th_percentile_cuts_24_percent_of_attempts() {
    // The trial: a 250 ms per-try timeout on a provider whose time is exponential with mean
    // 175 ms: P(X > 250 ms) = e^(-250/175) = 23.97%. Its median (121 ms) is under the timeout,
    // so `timeout-below-median` stays quiet; p90 = 175 ms x ln 10 = 403 ms.
    let toml = exponential_api("175ms", "timeout = \"250ms\"");
    assert!(of(&toml, "timeout-below-median").is_empty());
    let w = of(&toml, "timeout-below-p90");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("web -> api: the 250ms timeout"),
        "{}",
        w[0]
    );
    assert_eq!(share_in(&w[0], "): about "), 24.0, "{}", w[0]);
    let p90 = &w[0][w[0].find("percentile of an attempt, about ").unwrap() + 32..];
    let p90_ms: f64 = p90[..p90.find("ms").unwrap()].parse().unwrap();
    assert!((p90_ms - 402.9).abs() < 10.0, "{}", w[0]);
    // At 500 ms: e^(-500/175) = 5.7% of attempts, under a tenth: quiet.
    assert!(
        of(
            &exponential_api("175ms", "timeout = \"500ms\""),
            "timeout-below-p90"
        )
        .is_empty()
    );
    // The later attempts' own timeout is judged too: 200 ms cuts e^(-200/175) = 31.9%.
    let retry = "timeout = \"500ms\"\nretry = { attempts = 2, timeout = \"200ms\" }";
    let w = of(&exponential_api("175ms", retry), "timeout-below-p90");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(share_in(&w[0], "): about "), 32.0, "{}", w[0]);
}

#[test]
fn the_network_counts_in_the_attempt() {
    // api -> db: 1 in 5 of db's answers takes 200 ms, the rest 10 ms, and the network adds a
    // constant 20 ms each way: attempts take 50 ms or 240 ms. A 100 ms timeout cuts exactly the
    // slow fifth (p90 = 240 ms).
    let db = "work = { dist = \"mixture\", of = [ { weight = 80, dist = \"constant\", value = \
              \"10ms\" }, { weight = 20, dist = \"constant\", value = \"200ms\" } ] }";
    let api = "work = \"1ms\"\ncalls = [ { to = \"db\", policy = \"net\", latency = \"20ms\" } ]";
    let toml = scenario("rate = 10", api, db, "\n[policy.net]\ntimeout = \"100ms\"");
    let w = of(&toml, "timeout-below-p90");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("api -> db: the 100ms timeout"), "{}", w[0]);
    assert!(
        w[0].contains("about 240ms (sampled: the network both ways and db's time"),
        "{}",
        w[0]
    );
    assert_eq!(share_in(&w[0], "): about "), 20.0, "{}", w[0]);
    // At 250 ms every attempt ends in time.
    let late = toml.replace("timeout = \"100ms\"", "timeout = \"250ms\"");
    assert!(of(&late, "timeout-below-p90").is_empty());
}

#[test]
fn five_probes_at_a_fifth_failing_close_a_third_of_the_time() {
    // Every attempt of api takes 10 ms or, one in five, 1 s: a 250 ms timeout fails 20% of
    // probes. Five probes all pass with probability 0.8^5 = 32.8%: half-open re-opens more
    // often than it closes. Two probes: 0.8^2 = 64%, quiet.
    let api = "work = { dist = \"mixture\", of = [ { weight = 80, dist = \"constant\", value = \
               \"10ms\" }, { weight = 20, dist = \"constant\", value = \"1s\" } ] }";
    let breaker = |extra: &str| {
        let policy = format!(
            "timeout = \"250ms\"\n{extra}\nbreaker = {{ window = 100, min_calls = 10, \
             failure_rate = 0.5, open = \"5s\", half_open_calls = 5 }}"
        );
        scenario("rate = 10", api, "work = \"1ms\"", &policy)
    };
    let w = of(&breaker(""), "half-open-probes");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("all 5 probes pass"), "{}", w[0]);
    assert!(w[0].contains("timing out at 250ms"), "{}", w[0]);
    let failed = share_in(&w[0], "but about ");
    assert!((failed - 20.0).abs() <= 1.0, "{}", w[0]);
    let close = share_in(&w[0], " = ");
    assert!((close - 32.8).abs() <= 3.0, "{}", w[0]);
    let two = breaker("").replace("half_open_calls = 5", "half_open_calls = 2");
    assert!(of(&two, "half-open-probes").is_empty());
    // A breaker that does not count timeouts is not failed by them.
    let uncounted = breaker("").replace(
        "half_open_calls = 5",
        "half_open_calls = 5, count = [\"internal\"]",
    );
    assert!(of(&uncounted, "half-open-probes").is_empty());
    // Around the whole call with three attempts, a probe fails only when all three time out:
    // 0.2^3 = 0.8%, and five pass with probability 96%.
    let around_call = breaker("retry = { attempts = 3 }").replace(
        "half_open_calls = 5",
        "half_open_calls = 5, wraps = \"call\"",
    );
    assert!(of(&around_call, "half-open-probes").is_empty());
    // Around each attempt, the same three attempts leave each probe at 20%.
    assert_eq!(
        of(&breaker("retry = { attempts = 3 }"), "half-open-probes").len(),
        1
    );
}

#[test]
fn slow_calls_fail_probes_when_the_breaker_watches_them() {
    // No timeout; exponential time with mean 50 ms; slow above 100 ms: e^-2 = 13.5% of probes
    // fail. Five pass with probability 0.865^5 = 48.4%: under a half.
    let policy = "breaker = { window = 100, min_calls = 10, failure_rate = 0.5, slow_call_rate \
                  = 0.8, slow_call_duration = \"100ms\", open = \"5s\", half_open_calls = 5 }";
    let w = of(&exponential_api("50ms", policy), "half-open-probes");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("slower than 100ms"), "{}", w[0]);
    // Not watched (no slow_call_rate): nothing fails a probe.
    let plain = "breaker = { window = 100, min_calls = 10, failure_rate = 0.5, open = \"5s\", \
                 half_open_calls = 5 }";
    assert!(of(&exponential_api("50ms", plain), "half-open-probes").is_empty());
}
