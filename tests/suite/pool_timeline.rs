//! A named pool's permits in use and callers waiting as time series (`metrics/pool_series.rs`),
//! drawn on the timeline (`chart/pool_panel.rs`). Worked numbers by Little's law: 100 calls a
//! second that each hold a permit for 300 ms keep 30 permits out at every instant.

use crate::support::*;

/// 100 calls a second through two instances of `app`, each with its own pool `pg` of 20
/// before a database answering in exactly 300 ms; from 10 s to 20 s the database takes 300 ms
/// more, so 60 permits would be needed and calls wait in line.
const POOL: &str = r#"
[scenario]
name = "pool-series"
duration = "30s"
warmup = "2s"

[[client]]
name = "c"
target = "app"
arrival = "constant"
rate = 100

[[service]]
name = "app"
instances = 2
workers = 1000
work = "0"
calls = [ { to = "db", policy = "pool" } ]

[[service]]
name = "db"
workers = 1000
work = "300ms"

[policy.pool]
bulkhead = { max_concurrent = 20, queue = 1000, max_wait = "30s", pool = "pg" }

[[fault]]
kind = "latency"
target = "db"
add = "300ms"
start = "10s"
end = "20s"
"#;

const IN_USE: &str = "service.app.pool.pg.in_use_mean";
const WAITING: &str = "service.app.pool.pg.waiting_mean";

#[test]
fn a_pools_levels_are_series_summed_over_instances_and_their_mean_is_the_summarys() {
    let m = run(POOL);
    let (in_use, waiting) = (m.series_of(IN_USE).unwrap(), m.series_of(WAITING).unwrap());
    // Before the fault, exactly 30 permits out at every instant (15 on each instance), and
    // nobody waits: one bucket's mean is 30 exactly.
    assert_eq!(&in_use[1..10], [30.0; 9]);
    assert_eq!(&waiting[1..10], [0.0; 9]);
    // In the fault, each instance's 20 permits are all out (60 wanted) and the line grows.
    assert_eq!(&in_use[11..20], [40.0; 9]);
    assert!(waiting[10] > 0.0 && (11..20).all(|b| waiting[b] > waiting[b - 1]));
    // The summary's means are the time averages of the measured buckets (2 s to 30 s).
    let measured = |s: &[f64]| s[2..].iter().sum::<f64>() / (s.len() - 2) as f64;
    assert_close("in use", measured(&in_use), metric(&m, IN_USE), 1e-9);
    assert_close("waiting", measured(&waiting), metric(&m, WAITING), 1e-9);
}

#[test]
fn the_timeline_draws_a_panel_of_the_pools_that_move() {
    let s = scratch("pool-timeline");
    let dir: &std::path::Path = s.as_ref();
    let scenario = dir.join("pool.toml");
    std::fs::write(&scenario, POOL).unwrap();
    let out = dir.join("run");
    let (scenario, out) = (scenario.to_str().unwrap(), out.to_str().unwrap());
    cascade(&["run", scenario, "--out", out, "--quiet"], 0);
    cascade(&["chart", out], 0);
    let svg = read(&dir.join("run/charts/timeline.svg"));
    assert!(
        svg.contains("Pools (mean per bucket, all instances)"),
        "{svg}"
    );
    assert!(svg.contains("app pool pg in use") && svg.contains("app pool pg waiting"));
}

#[test]
fn an_alert_watches_a_pools_series() {
    // Regression: the alert's check of its series named only the entities' series, so a
    // pool's (added when the engine tracks the pools) was refused as "not in this scenario's
    // time series". Evaluated every second on [t − 1 s, t): 40 permits out from the bucket
    // [10 s, 11 s) to [19 s, 20 s); with `for = 5s` the alert is pending at 11 s and fires at
    // 16 s, 6 s after the fault's start (the bucket [10 s, 11 s) is over 36 from its first
    // tenth of a second on: the line fills at 100 calls a second).
    let text = format!(
        "{POOL}\n[[alert]]\nname = \"pool_full\"\nmetric = \"{IN_USE}\"\nop = \">\"\nvalue = 36\nevery = \"1s\"\nfor = \"5s\"\n"
    );
    let m = run(&text);
    assert_eq!(m.get("alert.pool_full.fired"), Some(1.0));
    assert_eq!(m.get("alert.pool_full.first_fire_s"), Some(16.0));
    assert_eq!(m.get("fault.0.alert.pool_full.detect_s"), Some(6.0));
    assert_eq!(m.get("alert.pool_full.false_pages"), Some(0.0));
}
