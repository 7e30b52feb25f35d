//! No metric is ever NaN or infinite: every ratio, mean, percentile and verdict is defined where
//! it is computed (docs/metrics.md), for every committed
//! scenario and for the cases with nothing to divide by.

use crate::support;
use cascade::metrics::RunMetrics;
use std::path::Path;

fn assert_all_finite(what: &str, m: &RunMetrics) {
    for (name, v) in &m.summary {
        assert!(v.is_finite(), "{what}: summary {name} = {v}");
    }
    let width = m.names.len();
    for (k, v) in m.series.iter().enumerate() {
        assert!(
            v.is_finite(),
            "{what}: bucket {} of {} = {v}",
            k / width,
            m.names[k % width]
        );
    }
}

#[test]
fn every_metric_of_every_committed_scenario_and_variant_is_finite() {
    let mut seen = 0;
    for dir in ["scenarios", "docs/examples"] {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            // The example of an error message (docs/scenario.md §12): it does not load.
            .filter(|p| !p.ends_with("docs/examples/shop.toml"))
            .collect();
        files.sort();
        for path in files {
            let models = cascade::scenario::load_with_variants(Path::new(&path), &[])
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for (variant, scenario) in models {
                let model = scenario.model;
                let what = format!("{} {}", path.display(), variant.unwrap_or_default());
                let r = cascade::simulate(&model).unwrap();
                assert_all_finite(&what, &r.metrics);
                seen += 1;
            }
        }
    }
    assert!(seen >= 12, "{seen} runs");
}

/// A client that sends nothing, a service nobody reaches, a window with no requests, a window
/// in which no bucket starts, a fault with no goodput before it, one during the warm-up, and an
/// edge whose policies never see a call.
const EMPTY: &str = r#"[scenario]
name = "empty"
duration = "10s"
warmup = "2s"

[[client]]
name = "idle"
target = "quiet"
rate = 0
deadline = "1s"
policy = "guarded"

[[client]]
name = "late"
target = "api"
rate = 0
phases = [ { at = "6s", rate = 50 } ]

[[service]]
name = "quiet"
workers = 2
calls = [ { to = "never", policy = "guarded" } ]

[[service]]
name = "never"
workers = 1

[[service]]
name = "api"
workers = 4
work = "2ms"

[policy.guarded]
timeout = "100ms"
retry = { attempts = 3 }
breaker = { window = 10, min_calls = 5, failure_rate = 0.5 }
limit = { algorithm = "vegas" }
hedge = { delay = "p90" }

[[fault]]
kind = "outage"
target = "api"
start = "3s"
end = "7s"

[[fault]]
kind = "errors"
target = "quiet"
start = "0s"
end = "1s"

[[window]]
name = "silent"
start = "2s"
end = "5s"

[[window]]
name = "between"
start = "2500ms"
end = "2900ms"
"#;

#[test]
fn every_metric_is_finite_with_nothing_to_measure() {
    let (model, m) = support::run_model(EMPTY);
    assert_all_finite("empty", &m);
    // The cases the scenario is there for: each defined, as documented.
    for (name, want) in [
        ("client.idle.requests", 0.0),
        ("client.idle.success_ratio", 0.0),
        ("client.idle.latency_p99_ms", 0.0),
        ("client.idle.latency_mean_ms", 0.0),
        ("service.never.arrivals", 0.0),
        ("service.never.utilization", 0.0),
        ("service.never.sojourn_mean_ms", 0.0),
        ("service.never.wasted_share", 0.0),
        ("service.never.attempts_per_request", 0.0),
        ("edge.quiet.never.amplification", 0.0),
        ("window.silent.client.late.requests", 0.0),
        ("window.silent.client.late.success_ratio", 0.0),
        ("window.between.client.late.offered_rps", 0.0),
        ("fault.0.goodput_before_rps", 0.0),
    ] {
        assert_eq!(support::metric(&m, name), want, "{name}");
    }
    // The fault during the warm-up has no steady state before it: no verdict at all.
    assert!(m.get("fault.1.recovered").is_none());
    assert_eq!(model.faults.len(), 2);
}

/// A non-finite value reaching a result file is refused (a debug build stops) or written as
/// what it is, never as a plausible "0".
#[test]
fn a_non_finite_number_is_never_written_as_zero() {
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let written = std::panic::catch_unwind(|| cascade::number::exact(v));
        // A debug build stops; a release build writes the value as what it is.
        assert_eq!(written.is_err(), cfg!(debug_assertions), "{v}");
        if let Ok(text) = written {
            assert_ne!(text, "0", "{v}");
            assert_eq!(text.parse::<f64>().unwrap().is_nan(), v.is_nan(), "{text}");
        }
    }
    assert_eq!(cascade::number::exact(2.0), "2");
    assert_eq!(cascade::number::exact(0.25), "0.25");
}
