//! The mapping's unit tests: each expression shape onto an alert's condition, and each refusal.

use super::super::promql::parse;
use super::*;

fn series() -> Vec<Recorded> {
    [
        ("service.api.arrivals", "count"),
        ("service.api.errors.internal", "count"),
        ("service.api.queue_mean", "requests"),
        ("client.web.goodput_rps", "1/s"),
        ("client.web.latency_p50_ms", "ms"),
        ("client.web.latency_p99_ms", "ms"),
        ("service.api.wait_p99_ms", "ms"),
    ]
    .iter()
    .map(|(n, u)| Recorded {
        name: n.to_string(),
        unit: u.to_string(),
    })
    .collect()
}

fn try_map(expr: &str) -> Result<Mapped, String> {
    let maps: Vec<(String, String)> = [
        (r#"req_total{job="api"}"#, "service.api.arrivals"),
        (
            r#"req_total{code="500",job="api"}"#,
            "service.api.errors.internal",
        ),
        ("queue_length", "service.api.queue_mean"),
        ("ok_total", "client.web.goodput_rps"),
        ("lat_seconds_bucket", "client.web.latency"),
        ("wait_seconds", "service.api.wait_p99_ms"),
    ]
    .iter()
    .map(|(s, m)| {
        let Expr::Sel(sel) = parse(s).unwrap() else {
            panic!()
        };
        (sel.key(), m.to_string())
    })
    .collect();
    let series = series();
    let target = Target {
        maps: &maps,
        series: &series,
        bucket_ns: 60_000_000_000,
    };
    map(&parse(expr).unwrap(), &target)
}

#[test]
fn rates_become_counts_per_bucket() {
    let m = try_map(r#"sum(rate(req_total{job="api"}[1m])) > 5"#).unwrap();
    assert_eq!(
        (m.metrics, m.op, m.value),
        (vec!["service.api.arrivals".to_string()], ">", 300.0)
    );
    let m = try_map(r#"increase(req_total{job="api"}[1m]) >= 30"#).unwrap();
    assert_eq!(m.value, 30.0);
    // A rate already: as written; increase of it over the bucket divided by it.
    assert_eq!(try_map("rate(ok_total[1m]) < 100").unwrap().value, 100.0);
    assert_eq!(try_map("increase(ok_total[1m]) < 600").unwrap().value, 10.0);
    // The number first: the comparison turns round.
    let m = try_map(r#"5 < rate(req_total{job="api"}[1m])"#).unwrap();
    assert_eq!((m.op, m.value), (">", 300.0));
}

#[test]
fn a_ratio_of_rates_is_a_ratio_of_counts() {
    let m = try_map(
        r#"sum(rate(req_total{job="api",code="500"}[1m])) / sum(rate(req_total{job="api"}[1m])) > 0.05"#,
    )
    .unwrap();
    assert_eq!(
        m.metrics,
        ["service.api.errors.internal", "service.api.arrivals"]
    );
    assert_eq!(m.value, 0.05);
    let e = try_map(
        r#"sum(rate(req_total{job="api",code="500"}[1m])) / sum(rate(req_total{job="api"}[1m])) < 0.05"#,
    )
    .unwrap_err();
    assert!(e.contains("holds at 0"), "{e}");
}

#[test]
fn quantiles_map_to_the_catalogues() {
    let m = try_map("histogram_quantile(0.99, sum by (le) (rate(lat_seconds_bucket[1m]))) > 0.5")
        .unwrap();
    assert_eq!(
        (m.metrics[0].as_str(), m.value),
        ("client.web.latency_p99_ms", 500.0)
    );
    let e = try_map("histogram_quantile(0.95, sum(rate(lat_seconds_bucket[1m])) by (le)) > 0.5")
        .unwrap_err();
    assert_eq!(
        e,
        "cascade records the p50 and p99 of `client.web.latency`, not the p95 (0.95 quantile)"
    );
    let e = try_map(
        "histogram_quantile(0.99, sum by (le, route) (rate(lat_seconds_bucket[1m]))) > 0.5",
    )
    .unwrap_err();
    assert!(
        e.starts_with("`sum by (route)` gives one alert per group"),
        "{e}"
    );
}

#[test]
fn gauges_windows_and_counters_are_checked() {
    let m = try_map("queue_length > 10").unwrap();
    assert_eq!(
        (m.metrics[0].as_str(), m.value),
        ("service.api.queue_mean", 10.0)
    );
    assert_eq!(try_map("wait_seconds > 0.25").unwrap().value, 250.0);
    let e = try_map("wait_seconds < 0.25").unwrap_err();
    assert!(e.starts_with("`< 250` holds at 0"), "{e}");
    let e = try_map(r#"req_total{job="api"} > 10"#).unwrap_err();
    assert!(e.contains("a count of events per bucket"), "{e}");
    let e = try_map(r#"rate(req_total{job="api"}[5m]) > 10"#).unwrap_err();
    assert!(
        e.starts_with(
            "the window [5m] of `req_total{job=\"api\"}` is not the scenario's bucket (1m)"
        ),
        "{e}"
    );
    let e = try_map("rate(queue_length[1m]) > 10").unwrap_err();
    assert!(e.contains("not a count of events or a rate"), "{e}");
    let e = try_map("rate(unknown[1m]) > 10").unwrap_err();
    assert!(e.starts_with("no --map names `unknown`"), "{e}");
    assert!(try_map("queue_length == 0").unwrap_err().contains("`==`"));
    assert!(try_map("avg_over_time(queue_length[1m]) > 1").is_err());
    assert!(try_map("absent(up)").is_err());
    assert!(
        try_map("queue_length offset 1m > 1")
            .unwrap_err()
            .contains("`offset`")
    );
}

#[test]
fn names_of_quantiles_and_durations() {
    assert_eq!(quantile_digits(0.5), "50");
    assert_eq!(quantile_digits(0.99), "99");
    assert_eq!(quantile_digits(0.999), "999");
    assert_eq!(prom_duration(5_400_000_000_000), "1h30m");
    assert_eq!(prom_duration(1_000_000_000), "1s");
}
