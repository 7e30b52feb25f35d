//! Fan-out by count (`count = N` on a call): N identical calls in one parallel step, each its
//! own call. Dean & Barroso's tail arithmetic ("The Tail at Scale", 2013): a request that waits
//! for 100 leaves, each slow 1% of the time, is slow with probability 1 − 0.99^100 = 63.4%.

use crate::support::*;

fn scenario(root_calls: &str) -> String {
    format!(
        r#"
[scenario]
name = "fanout"
duration = "100s"
seed = 7

[[client]]
name = "web"
target = "root"
arrival = "constant"
rate = 20

[[service]]
name = "root"
workers = 50
calls = [ {root_calls} ]

[[service]]
name = "leaf"
workers = 300
work = {{ dist = "mixture", of = [
  {{ weight = 99, dist = "constant", value = "1ms" }},
  {{ weight = 1, dist = "constant", value = "101ms" }},
] }}

[policy.retrying]
timeout = "1s"
retry = {{ attempts = 2, jitter = "none", base = "1ms" }}
"#
    )
}

#[test]
fn a_fan_out_of_100_leaves_slow_1_percent_of_the_time_makes_63_percent_of_requests_slow() {
    let m = run(&scenario(r#"{ to = "leaf", count = 100 }"#));
    // 20/s, constant, for 100 s: arrivals at 50 ms, 100 ms, …, 99.95 s.
    let requests = metric(&m, "client.web.requests");
    assert_eq!(requests, 1_999.0);
    // Every request's 100 calls start together (the root does no work of its own), so the
    // callee sees exactly 100 times the root's jobs, ended or not.
    assert_eq!(metric(&m, "service.root.arrivals"), requests);
    assert_eq!(metric(&m, "edge.root.leaf.calls"), 100.0 * requests);
    assert_eq!(metric(&m, "service.leaf.arrivals"), 100.0 * requests);
    // 300 leaf workers never queue (at most 100 new calls and a few slow ones from earlier
    // requests at once), so a request takes 1 ms, or 101 ms when any of its leaves is slow:
    // its mean latency (exact, not from the histogram) is 1 ms + 100 ms × the slow share.
    let done = metric(&m, "client.web.success");
    assert_eq!(done + metric(&m, "client.web.in_flight_end"), requests);
    let slow = (metric(&m, "client.web.latency_mean_ms") - 1.0) / 100.0;
    let p = 1.0 - 0.99f64.powi(100);
    let sd = (p * (1.0 - p) / done).sqrt();
    assert!(
        (slow - p).abs() <= 4.0 * sd,
        "slow share {slow:.4}, want {p:.4} ± 4 × {sd:.4}"
    );
    // One leaf alone is slow 1% of the time: the fan-out, not the leaf, makes the tail.
    let single = run(&scenario(r#"{ to = "leaf" }"#));
    let slow_one = (metric(&single, "client.web.latency_mean_ms") - 1.0) / 100.0;
    assert!(slow_one < 0.02, "one leaf: slow share {slow_one:.4}");
}

#[test]
fn a_count_is_the_calls_written_out_each_with_its_own_policy_state() {
    // The same step as `count = 3` on a single call, as `count` inside `parallel`, and as
    // three calls written out: the same call specs in the same order, so the same run, number
    // for number (each copy's policy state draws from its own stream, as a written call's).
    let written = run(&scenario(
        r#"{ parallel = [ { to = "leaf", policy = "retrying" }, { to = "leaf", policy = "retrying" }, { to = "leaf", policy = "retrying" } ] }"#,
    ));
    let counted = run(&scenario(
        r#"{ to = "leaf", policy = "retrying", count = 3 }"#,
    ));
    let inside = run(&scenario(
        r#"{ parallel = [ { to = "leaf", policy = "retrying", count = 2 }, { to = "leaf", policy = "retrying" } ] }"#,
    ));
    assert_eq!(counted.summary, written.summary);
    assert_eq!(inside.summary, written.summary);
    assert_eq!(counted.series, written.series);
    assert_eq!(metric(&counted, "edge.root.leaf.calls"), 3.0 * 1_999.0);
    let (model, _) = run_model(&scenario(
        r#"{ to = "leaf", policy = "retrying", count = 3 }"#,
    ));
    let ids: Vec<usize> = model.services[0].plan.steps[0]
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(ids[0] != ids[1] && ids[1] != ids[2], "own specs: {ids:?}");
}

/// `scenarios/fanout-hedge.toml`, `cascade check`ed as committed and without its hedge.
fn check_fanout_hedge(extra: &[&str], code: i32) -> String {
    let path = crate::support::golden::repo().join("scenarios/fanout-hedge.toml");
    let mut args = vec!["check", path.to_str().unwrap()];
    args.extend(extra);
    String::from_utf8_lossy(&cascade(&args, code).stdout).into_owned()
}

#[test]
fn the_committed_fan_out_keeps_its_requests_only_with_its_hedge() {
    // With the hedge, every expectation holds; without it (the calls' policy swapped for one
    // that only times out, as the file's header says) a request fails whenever one of its 100
    // shards is slow, and `cascade check` exits 1 on the base's success and p90, while the
    // hedge count and the unhedged variant's own gates still hold.
    let with = check_fanout_hedge(&[], 0);
    assert!(with.contains("5 passed, 0 failed"), "{with}");
    let text = read(&crate::support::golden::repo().join("scenarios/fanout-hedge.toml"));
    let unhedge = "service.search.calls.shard.policy=unhedged";
    assert!(text.contains(&format!("--set {unhedge}")), "header");
    let without = check_fanout_hedge(&["--set", unhedge], 1);
    assert!(without.contains("3 passed, 2 failed"), "{without}");
    let success = without
        .lines()
        .find(|l| l.contains("client.users.success_ratio >= 0.98"))
        .unwrap();
    assert!(success.starts_with('✗'), "should fail unhedged: {success}");
    // What it measures there: 0.99^100 = 0.366 of requests meet no slow shard.
    let measured: f64 = success.split_whitespace().last().unwrap().parse().unwrap();
    assert!((0.33..=0.40).contains(&measured), "{success}");
}

#[test]
fn the_committed_fan_outs_unhedged_variant_is_the_set_its_header_documents() {
    let dir = scratch("fanout-hedge-variant");
    let path = crate::support::golden::repo().join("scenarios/fanout-hedge.toml");
    let (base, set) = (dir.join("base"), dir.join("set"));
    let path = path.to_str().unwrap();
    cascade(
        &["run", path, "--quiet", "--out", base.to_str().unwrap()],
        0,
    );
    let unhedge = "service.search.calls.shard.policy=unhedged";
    let out = set.to_str().unwrap();
    cascade(&["run", path, "--quiet", "--out", out, "--set", unhedge], 0);
    let variant = read(&base.join("unhedged/summary.json"));
    assert_eq!(variant, read(&set.join("summary.json")));
    assert_ne!(variant, read(&base.join("summary.json")));
}
