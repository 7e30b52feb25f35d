//! Slow start at the balancer (docs/scenario.md, "Slow start"): an instance coming into
//! rotation gets the share of the picks Envoy's weight gives it, max(min_weight,
//! (t / window)^(1 / aggression)), against weight 1 for the others. Counts are read from
//! `--trace`, second by second, and compared with that share summed over the picks.

use crate::support::*;

const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

/// Two instances behind `balancer`, 1000 requests a second (one each millisecond); instance
/// #1 crashes from 5 s to 10 s. `extra` adds service keys.
fn comeback(balancer: &str, work: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "slow"
duration = "30s"
seed = 3

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 1000

[[service]]
name = "api"
instances = 2
workers = 4
balancer = "{balancer}"
work = "{work}"
{extra}

[[fault]]
kind = "crash"
target = "api#1"
start = "5s"
end = "10s"
"#
    )
}

/// Attempts that reached `entity` in each whole second of the run.
fn per_second(name: &str, toml: &str, entity: &str) -> Vec<u64> {
    let mut counts = vec![0u64; 30];
    for r in traced_rows(&scratch(name), toml) {
        if r[3] == entity && r[4] == "attempt" {
            let t: u64 = r[0].parse().unwrap();
            counts[(t / S) as usize] += 1;
        }
    }
    counts
}

/// What slow start gives instance #1 in second `k`: Σ over the picks in it (one each
/// millisecond) of w / (1 + w), w its weight then (the other instance's is 1).
fn expected(k: u64, weight: impl Fn(u64) -> f64) -> f64 {
    (0..1000)
        .map(|m| k * S + m * MS)
        .map(|t| {
            let w = weight(t);
            w / (1.0 + w)
        })
        .sum()
}

/// Envoy's weight `t` ns after coming back at 10 s, for a 10 s window.
fn envoy_weight(t: u64, aggression: f64, min_weight: f64) -> f64 {
    let elapsed = (t - 10 * S).max(MS);
    if elapsed >= 10 * S {
        return 1.0;
    }
    (elapsed as f64 / (10 * S) as f64)
        .powf(1.0 / aggression)
        .max(min_weight)
}

fn assert_ramp(counts: &[u64], aggression: f64, min_weight: f64) {
    // Down while crashed; back to an even split once the window is over.
    assert!(counts[5..10].iter().all(|&c| c == 0), "{counts:?}");
    for k in 10..20 {
        let want = expected(k, |t| envoy_weight(t, aggression, min_weight));
        assert!(
            (counts[k as usize] as f64 - want).abs() <= 2.0,
            "second {k}: {} picks, Envoy's weights give {want:.1} ({counts:?})",
            counts[k as usize]
        );
    }
    assert!(counts[21..].iter().all(|&c| c == 500), "{counts:?}");
}

#[test]
fn round_robin_ramps_a_returning_instance_by_envoys_weight() {
    let plain = per_second(
        "rr-plain",
        &comeback("round_robin", "1ms", ""),
        "service.api#1",
    );
    assert_eq!(plain[11], 500, "without slow start it takes half at once");
    let toml = comeback("round_robin", "1ms", "slow_start = { window = \"10s\" }");
    assert_ramp(&per_second("rr-slow", &toml, "service.api#1"), 1.0, 0.1);
}

#[test]
fn aggression_and_the_floor_shape_the_ramp() {
    let toml = comeback(
        "round_robin",
        "1ms",
        "slow_start = { window = \"10s\", aggression = 2.0, min_weight_percent = 30 }",
    );
    assert_ramp(&per_second("rr-aggr", &toml, "service.api#1"), 2.0, 0.3);
}

#[test]
fn least_outstanding_weighs_by_weight_over_outstanding_plus_one() {
    // With work that takes no time nothing is outstanding at a pick, so Envoy's
    // weight / (active + 1) is the slow-start weight itself: the same shares as round robin.
    let toml = comeback(
        "least_outstanding",
        "0",
        "slow_start = { window = \"10s\" }",
    );
    assert_ramp(&per_second("lo-slow", &toml, "service.api#1"), 1.0, 0.1);
    // With work, a busy instance weighs less: the fresh one, idle, gets more than its
    // weight alone would give it.
    let busy = comeback(
        "least_outstanding",
        "3ms",
        "slow_start = { window = \"10s\" }",
    );
    let counts = per_second("lo-busy", &busy, "service.api#1");
    let by_weight = expected(11, |t| envoy_weight(t, 1.0, 0.1));
    assert!(
        counts[11] as f64 > by_weight,
        "{counts:?} against {by_weight}"
    );
    assert!(counts[11] < 500, "{counts:?}");
}

#[test]
fn an_instance_added_by_the_autoscaler_starts_slow() {
    let toml = |slow: &str| {
        format!(
            r#"
[scenario]
name = "slow"
duration = "60s"
seed = 3

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 30

[[service]]
name = "api"
work = "100ms"
autoscale = {{ target = 0.5, max = 2, period = "1s" }}
{slow}
"#
        )
    };
    let rows = |name: &str, slow: &str| traced_rows(&scratch(name), &toml(slow));
    let first_seconds = |rows: &[Vec<String>]| {
        let joined: u64 = rows
            .iter()
            .find(|r| r[3] == "service.api#1" && r[4] == "in_rotation")
            .map(|r| r[0].parse().unwrap())
            .expect("a second instance joins");
        rows.iter()
            .filter(|r| r[3] == "service.api#1" && r[4] == "attempt")
            .filter(|r| (joined..joined + 2 * S).contains(&r[0].parse().unwrap()))
            .count()
    };
    let plain = first_seconds(&rows("as-plain", ""));
    let slow = first_seconds(&rows("as-slow", "slow_start = { window = \"20s\" }"));
    // 30 a second split evenly is 30 in two seconds; at weight 0.1 it is about 5.
    assert!((28..=32).contains(&plain), "{plain}");
    assert!((3..=8).contains(&slow), "{slow}");
}

#[test]
fn slow_start_keys_are_checked() {
    let c = crate::bad_input::Case::new("slow-start");
    let base = comeback("round_robin", "1ms", "slow_start = { window = \"10s\" }");
    let with = |from: &str, to: &str| {
        assert!(base.contains(from), "{from}");
        base.replacen(from, to, 1)
    };
    c.rejects(
        &with("balancer = \"round_robin\"", "balancer = \"random\""),
        &["service.api.slow_start", "round_robin", "least_outstanding"],
    );
    c.rejects(
        &with("window = \"10s\"", "window = \"0s\""),
        &["service.api.slow_start.window", "longer than zero"],
    );
    c.rejects(
        &with("window = \"10s\"", "window = \"10s\", aggression = 0.0"),
        &["service.api.slow_start.aggression", "above zero"],
    );
    c.rejects(
        &with(
            "window = \"10s\"",
            "window = \"10s\", min_weight_percent = 150",
        ),
        &["service.api.slow_start.min_weight_percent", "0 to 100"],
    );
    c.rejects(
        &with("window = \"10s\"", "windw = \"10s\""),
        &["service.api.slow_start", "windw"],
    );
}
