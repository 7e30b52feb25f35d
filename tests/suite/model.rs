//! The model's behaviour on hand-computable cases: arrivals and phases, closed loops, deadlines
//! and timeouts, reserve, wasted work, optional calls, failure mapping, network latency, the
//! warm-up, and the metric catalogue.

use crate::support::*;

fn scenario(body: &str) -> String {
    format!("[scenario]\nname = \"t\"\nduration = \"20s\"\nseed = 3\n{body}")
}

#[test]
fn constant_arrivals_follow_steps_and_ramps_exactly() {
    let m = run(&scenario(
        r#"
[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 100
phases = [ { at = "5s", rate = 300, ramp = "10s" }, { at = "15s", rate = 50 } ]

[[service]]
name = "s"
workers = 100
work = "1ms"
"#,
    ));
    // 100/s for 5 s, the ramp from 100 to 300 over 10 s averages 200/s, then 50/s for 5 s.
    let total = metric(&m, "client.c.requests");
    assert!((total - (500.0 + 2000.0 + 250.0)).abs() <= 2.0, "{total}");
    let per_bucket = m.series_of("client.c.requests").unwrap();
    assert!((per_bucket[2] - 100.0).abs() <= 1.0);
    // Bucket [9 s, 10 s) of the ramp: the rate goes from 180 to 200.
    assert!((per_bucket[9] - 190.0).abs() <= 1.0, "{}", per_bucket[9]);
    assert!((per_bucket[17] - 50.0).abs() <= 1.0);
}

#[test]
fn poisson_arrivals_average_their_rate_through_phases() {
    let m = run(&scenario(
        r#"
[[client]]
name = "c"
target = "s"
rate = 1000
phases = [ { at = "10s", rate = 3000 } ]

[[service]]
name = "s"
workers = 100
work = "1ms"
"#,
    ));
    let b = m.series_of("client.c.requests").unwrap();
    let first: f64 = b[..10].iter().sum();
    let second: f64 = b[10..].iter().sum();
    assert_close("rate before the step", first, 10_000.0, 0.03);
    assert_close("rate after the step", second, 30_000.0, 0.02);
}

#[test]
fn closed_loop_obeys_the_response_time_law() {
    // N users, think Z: throughput X = N / (R + Z).
    let m = run(r#"
[scenario]
name = "closed"
duration = "300s"
warmup = "10s"
seed = 4

[[client]]
name = "users"
target = "s"
arrival = "closed"
users = 30
think = { dist = "exponential", mean = "20ms" }

[[service]]
name = "s"
workers = 2
work = { dist = "exponential", mean = "1ms" }
"#);
    let x = metric(&m, "client.users.requests") / 300.0;
    let r = metric(&m, "client.users.latency_mean_ms") / 1000.0;
    assert_close("response time law", x, 30.0 / (r + 0.020), 0.02);
    // Utilization law: U = X * S / workers.
    assert_close(
        "utilization law",
        metric(&m, "service.s.utilization"),
        x * 0.001 / 2.0,
        0.02,
    );
}

#[test]
fn client_deadline_gives_up_and_the_late_work_is_wasted() {
    let m = run(&scenario(
        r#"
[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 10
deadline = "50ms"

[[service]]
name = "s"
workers = 10
work = "80ms"
"#,
    ));
    let finished = metric(&m, "client.c.errors.deadline_exceeded");
    assert!(finished >= 199.0);
    assert_eq!(metric(&m, "client.c.success"), 0.0);
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 50.0);
    assert!((metric(&m, "client.c.latency_p50_ms") - 50.0).abs() < 0.1);
    // Each request worked on for 30 ms after its caller left at 50 ms: that is the waste.
    let served = metric(&m, "service.s.served");
    assert!((metric(&m, "service.s.wasted_work_s") - served * 0.030).abs() < 1e-6);
}

#[test]
fn per_attempt_timeout_is_a_timeout_not_a_deadline() {
    let m = run(&scenario(
        r#"
[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 10
deadline = "1s"
policy = "p"

[[service]]
name = "s"
workers = 10
work = "80ms"

[policy.p]
timeout = "30ms"
"#,
    ));
    assert_eq!(metric(&m, "client.c.errors.deadline_exceeded"), 0.0);
    assert!(metric(&m, "client.c.errors.timeout") >= 199.0);
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 30.0);
    assert_eq!(
        metric(&m, "edge.c.s.errors.timeout"),
        metric(&m, "client.c.errors.timeout")
    );
}

#[test]
fn reserve_shortens_the_downstream_budget_and_failure_maps_to_unavailable() {
    // Deadline 100 ms; the gateway works 10 ms, then calls db with 20 ms kept in reserve, so db
    // gets until 80 ms; db takes 200 ms, so the call fails at 80 ms and the gateway answers 503.
    let m = run(&scenario(
        r#"
[[client]]
name = "c"
target = "gw"
arrival = "constant"
rate = 10
deadline = "100ms"

[[service]]
name = "gw"
workers = 10
work = "10ms"
calls = [ { to = "db", policy = "p" } ]

[[service]]
name = "db"
workers = 10
work = "200ms"

[policy.p]
reserve = "20ms"
"#,
    ));
    assert!(metric(&m, "client.c.errors.unavailable") >= 199.0);
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 80.0);
    assert_eq!(
        metric(&m, "edge.gw.db.errors.deadline_exceeded"),
        metric(&m, "edge.gw.db.calls")
    );
}

#[test]
fn optional_calls_degrade_and_required_ones_fail_as_configured() {
    let body = |optional: bool, fail_as: &str| {
        scenario(&format!(
            r#"
[[client]]
name = "c"
target = "gw"
arrival = "constant"
rate = 10

[[service]]
name = "gw"
workers = 10
calls = [ {{ to = "flaky", policy = "p", optional = {optional}{fail_as} }} ]

[[service]]
name = "flaky"
workers = 10
work = "100ms"

[policy.p]
timeout = "10ms"
"#
        ))
    };
    let m = run(&body(true, ""));
    assert_eq!(metric(&m, "client.c.success_ratio"), 1.0);
    assert_eq!(
        metric(&m, "client.c.degraded"),
        metric(&m, "client.c.success")
    );
    let m = run(&body(false, ""));
    assert_eq!(metric(&m, "client.c.success"), 0.0);
    assert!(metric(&m, "client.c.errors.unavailable") > 0.0);
    let m = run(&body(false, r#", fail_as = "propagate""#));
    assert_eq!(metric(&m, "client.c.errors.unavailable"), 0.0);
    assert!(metric(&m, "client.c.errors.timeout") > 0.0);
    let m = run(&body(false, r#", fail_as = "internal""#));
    assert!(metric(&m, "client.c.errors.internal") > 0.0);
}

#[test]
fn parallel_calls_overlap_and_network_latency_is_paid_both_ways() {
    let m = run(&scenario(
        r#"
[[client]]
name = "c"
target = "gw"
arrival = "constant"
rate = 10

[[service]]
name = "gw"
workers = 10
work = "1ms"
calls = [ { parallel = [ { to = "a", latency = "2ms" }, { to = "b", latency = "2ms" } ] }, { to = "a" } ]

[[service]]
name = "a"
workers = 10
work = "10ms"

[[service]]
name = "b"
workers = 10
work = "30ms"
"#,
    ));
    // 1 ms work + max(2+10+2, 2+30+2) in parallel + 10 ms sequential call = 45 ms.
    assert_eq!(metric(&m, "client.c.latency_max_ms"), 45.0);
    assert!((metric(&m, "client.c.latency_mean_ms") - 45.0).abs() < 1e-9);
    assert_eq!(
        metric(&m, "edge.gw.a.calls"),
        2.0 * metric(&m, "edge.gw.b.calls")
    );
}

#[test]
fn warmup_is_excluded_and_buckets_add_up_to_the_summary() {
    let m = run(r#"
[scenario]
name = "warm"
duration = "10s"
warmup = "4s"
bucket = "500ms"
seed = 8

[[client]]
name = "c"
target = "s"
rate = 200
phases = [ { at = "4s", rate = 50 } ]

[[service]]
name = "s"
workers = 1
queue = 5
work = { dist = "exponential", mean = "4ms" }
"#);
    assert_eq!(m.buckets(), 28);
    let series = m.series_of("client.c.requests").unwrap();
    let before: f64 = series[..8].iter().sum();
    assert_close("warm-up arrivals", before, 800.0, 0.15);
    for name in [
        "client.c.requests",
        "client.c.success",
        "service.s.arrivals",
        "service.s.served",
        "service.s.rejected",
        "edge.c.s.attempts",
    ] {
        let after: f64 = m.series_of(name).unwrap()[8..].iter().sum();
        assert_eq!(after, metric(&m, name), "{name}");
    }
    assert_close(
        "measured arrivals",
        metric(&m, "client.c.requests"),
        500.0,
        0.15,
    );
}

#[test]
fn memory_does_not_grow_with_simulated_duration() {
    let text = |secs: u64| {
        single_queue(
            9000.0,
            10,
            None,
            r#"{ dist = "exponential", mean = "1ms" }"#,
            secs,
            1,
        )
    };
    let short = cascade::scenario::load_str("m", &text(20), &[])
        .unwrap()
        .model;
    let long = cascade::scenario::load_str("m", &text(400), &[])
        .unwrap()
        .model;
    let (a, b) = (
        cascade::simulate(&short).unwrap(),
        cascade::simulate(&long).unwrap(),
    );
    // Requests in flight at once stay bounded by the queue's behaviour, not by run length.
    assert!(
        b.peak_in_flight < 2 * a.peak_in_flight.max(100),
        "{} vs {}",
        b.peak_in_flight,
        a.peak_in_flight
    );
}

#[test]
fn every_emitted_metric_is_in_the_catalogue_and_every_entry_is_emitted() {
    use cascade::metrics::catalogue::{CATALOGUE, describe, matches};
    let m = run(&scenario(
        r#"
[[client]]
name = "c"
target = "gw"
rate = 50
policy = "pg"

[policy.pg]
bulkhead = { pool = "pg" }

[[service]]
name = "gw"
calls = [ { to = "db", policy = "pg" }, { to = "db", p = 0.5 }, { choose = [ { weight = 1, calls = [ { to = "db" } ] }, { weight = 1 } ] } ]

[[service]]
name = "db"
work = "1ms"
reject_work = "1ms"
dedup_window = "1s"
contention = { k = 0.1, knee = 0 }
rate_limit = { max_tokens = 100, fill_interval = "1ms", key = "client" }

[[client]]
name = "app"
target = "api"
rate = 20
policy = "accruing"
mix = [ { operation = "read", weight = 3 }, { operation = "write", weight = 1 } ]

[policy.accruing]
failure_accrual = {}

[[service]]
name = "api"
rate_limit = { limiter = "limit_req", rate = "1000r/s", burst = 100, key = "client_operation" }
[[service.operation]]
name = "read"
work = "1ms"
[[service.operation]]
name = "write"
calls = [ { to = "db" } ]

[[client]]
name = "users"
target = "web"
rate = 60

[[service]]
name = "web"
work = "20ms"
instances = 1
probe = { liveness = { serve = "out_of_band", work = "50ms", timeout = "10ms", period = "2s", failure_threshold = 1 }, readiness = { serve = "out_of_band", period = "1s" }, startup = { serve = "out_of_band", period = "1s" } }
restart = { time = "1s", backoff = "1s", backoff_max = "2s" }
autoscale = { target = 0.5, max = 3, period = "1s" }

[[fault]]
kind = "latency"
target = "db"
factor = 2
start = "5s"
end = "6s"

[[window]]
name = "slow"
fault = 0
phase = "during"

[[alert]]
name = "always"
metric = "client.c.requests"
op = ">="
value = 0

[[alert]]
name = "slow_db"
metric = "service.db.sojourn_mean_ms"
baseline = true
op = ">"
value = 1.5
"#,
    ));
    for (name, _) in &m.summary {
        assert!(describe(name).is_some(), "{name} is not in the catalogue");
    }
    for d in CATALOGUE {
        let windowed = d.pattern == "window.<w>.<metric>";
        // A family of parts' metrics (`service.<s>.op.<o>.<metric>`) is emitted when some
        // part's metric is.
        let family = d
            .pattern
            .strip_suffix(".<metric>")
            .filter(|p| p.ends_with(".op.<o>"));
        let in_family = |n: &str| {
            family.is_some_and(|f| {
                let depth = f.split('.').count();
                let head: Vec<&str> = n.split('.').take(depth).collect();
                matches(f, &head.join(".")) && n.split('.').count() > depth
            })
        };
        assert!(
            m.summary.iter().any(|(n, _)| {
                matches(d.pattern, n) || windowed && n.starts_with("window.slow.") || in_family(n)
            }),
            "{} is never emitted",
            d.pattern
        );
    }
    // Per-fault verdicts and the run's own facts (`run.diverged`, `run.stopped_at_s`) are of
    // the whole run: summary only. Named pools' time averages are in both.
    let per_bucket = m.summary.iter().filter(|(n, _)| {
        !n.starts_with("fault.")
            && !n.starts_with("alert.")
            && !n.starts_with("window.")
            && !n.starts_with("run.")
            && !n.ends_with("in_flight_end")
    });
    assert_eq!(
        m.names.len(),
        per_bucket.count(),
        "the time series carries every summary metric"
    );
}

#[test]
fn set_overrides_reach_arrays_of_tables_inline_tables_and_phases() {
    use cascade::scenario::{Override, load_str};
    let base = scenario(
        r#"
[[client]]
name = "c"
target = "s"
rate = 10

[[service]]
name = "s"
work = { dist = "exponential", mean = "1ms" }
"#,
    );
    let set = |p: &str, v: &str| Override {
        path: p.into(),
        value: v.into(),
    };
    let model = load_str(
        "t",
        &base,
        &[
            set("service.s.workers", "7"),
            set("service.s.work.mean", "5ms"),
            set("client.c.phases", r#"[{ at = "3s", rate = 20 }]"#),
            set("scenario.seed", "99"),
        ],
    )
    .unwrap()
    .model;
    assert_eq!(model.services[0].workers, 7);
    assert!((model.services[0].plan.work.mean() - 5e6).abs() < 1.0);
    assert_eq!(model.seed, 99);
    let cascade::model::Load::Open { rate, .. } = &model.clients[0].load else {
        panic!("open loop")
    };
    assert_eq!(rate.rate_at(4_000_000_000), 20.0);
}

#[test]
fn a_run_covers_the_half_open_interval_and_constant_rates_do_not_drift() {
    let m = run(r#"
[scenario]
name = "edge"
duration = "2s"

[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 2

[[service]]
name = "s"
"#);
    // Arrivals at 0.5 s, 1 s and 1.5 s; the one due at 2 s is outside [0, 2 s).
    assert_eq!(metric(&m, "client.c.requests"), 3.0);
    // A rate whose gap is not a whole number of nanoseconds keeps its exact average.
    let text = single_queue(300_001.0, 1000, None, r#""0""#, 10, 1)
        .replace("warmup = \"10s\"", "")
        .replace("rate = 300001", "rate = 300001\narrival = \"constant\"");
    // The 3,000,010th arrival falls exactly at 10 s, outside the run.
    assert_eq!(metric(&run(&text), "client.load.requests"), 3_000_009.0);
}

#[test]
fn the_stepping_api_drives_a_run_event_by_event() {
    let text = scenario(
        r#"
[[client]]
name = "c"
target = "s"
arrival = "constant"
rate = 10

[[service]]
name = "s"
work = "50ms"
"#,
    );
    let model = cascade::scenario::load_str("t", &text, &[]).unwrap().model;
    let mut sim = cascade::Simulation::new(model);
    // First arrival at 100 ms: one request in flight until its work ends at 150 ms.
    assert_eq!(sim.step(), Some(100_000_000));
    assert_eq!(sim.in_flight(), (1, 1));
    sim.run_until(120_000_000);
    assert_eq!(sim.now(), 120_000_000);
    assert_eq!(sim.in_flight(), (1, 1));
    assert_eq!(sim.step(), Some(150_000_000));
    assert_eq!(sim.in_flight(), (0, 0));
    let result = sim.run().unwrap();
    assert_eq!(result.metrics.get("client.c.requests"), Some(199.0));
}
