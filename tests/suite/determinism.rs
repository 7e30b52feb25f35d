//! Same scenario and seed, byte-identical outputs; another seed, other outputs; an unrelated
//! service leaves the others' numbers exactly as they were (random streams per entity).

use cascade::output::run_files::{summary_json, timeseries_csv};

const BASE: &str = r#"
[scenario]
name = "det"
duration = "30s"
warmup = "2s"
seed = 42

[[client]]
name = "web"
target = "api"
rate = 300
deadline = "300ms"
phases = [ { at = "10s", rate = 900, ramp = "5s" }, { at = "20s", rate = 300 } ]

[[service]]
name = "api"
instances = 3
workers = 4
queue = 40
balancer = "power_of_two"
work = { dist = "lognormal", median = "2ms", p99 = "20ms" }
calls = [ { to = "db", policy = "db", latency = { dist = "uniform", min = "100us", max = "400us" } } ]

[[service]]
name = "db"
instances = 2
workers = 8
balancer = "random"
work = { dist = "exponential", mean = "3ms" }

[policy.db]
timeout = "50ms"
reserve = "10ms"
"#;

const UNRELATED: &str = r#"
[[client]]
name = "other"
target = "reports"
rate = 50

[[service]]
name = "reports"
workers = 2
work = { dist = "exponential", mean = "10ms" }
"#;

fn outputs(text: &str) -> (String, String, cascade::metrics::RunMetrics) {
    let model = cascade::scenario::load_str("det.toml", text, &[])
        .unwrap()
        .model;
    let metrics = cascade::simulate(&model).unwrap().metrics;
    (
        summary_json(&model, &metrics),
        timeseries_csv(&metrics),
        metrics,
    )
}

#[test]
fn same_seed_gives_identical_bytes() {
    let (s1, t1, _) = outputs(BASE);
    let (s2, t2, _) = outputs(BASE);
    assert_eq!(s1, s2);
    assert_eq!(t1, t2);
}

#[test]
fn another_seed_gives_other_numbers() {
    let (s1, _, m1) = outputs(BASE);
    let (s2, _, m2) = outputs(&BASE.replace("seed = 42", "seed = 43"));
    assert_ne!(s1, s2);
    assert_ne!(
        m1.get("client.web.latency_mean_ms"),
        m2.get("client.web.latency_mean_ms")
    );
}

#[test]
fn an_unrelated_service_changes_nothing_else() {
    let (_, _, before) = outputs(BASE);
    let (_, _, after) = outputs(&format!("{BASE}{UNRELATED}"));
    for (name, value) in &before.summary {
        assert_eq!(
            after.get(name),
            Some(*value),
            "{name} changed when an unrelated service was added"
        );
    }
    assert!(after.get("service.reports.served").unwrap() > 0.0);
}
