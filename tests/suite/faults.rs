//! Each fault kind changes what it should, by the arithmetic of the model, and nothing else.

use crate::support::{metric, run};

fn series(m: &cascade::metrics::RunMetrics, name: &str) -> Vec<f64> {
    m.series_of(name)
        .unwrap_or_else(|| panic!("no series {name}"))
        .to_vec()
}

/// One worker, constant arrivals every 10 ms, constant 5 ms of work: no queue until a fault.
fn steady(fault: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "steady"
duration = "30s"
seed = 1

[[client]]
name = "c"
target = "s"
rate = 100
arrival = "constant"

[[service]]
name = "s"
work = "5ms"

[[fault]]
{fault}
"#
    ))
}

#[test]
fn a_stall_queues_every_arrival_and_pauses_running_work() {
    let m = steady(
        r#"kind = "stall"
target = "s"
start = "10s"
end = "11s""#,
    );
    // During the 1 s stall the 100 arrivals queue up (0 to 100, mean 50); afterwards the
    // worker drains them at 200/s while 100/s keep coming: 100 to 0 over 1 s, mean 50 again.
    let queue = series(&m, "service.s.queue_mean");
    assert!((queue[10] - 50.0).abs() < 1.0, "{}", queue[10]);
    assert!((queue[11] - 50.0).abs() < 1.0, "{}", queue[11]);
    assert_eq!(queue[9], 0.0);
    assert!(queue[12] < 1e-9);
    // The request arriving as the stall starts waits it out: 1 s plus its 5 ms.
    let max = metric(&m, "client.c.latency_max_ms");
    assert!((max - 1005.0).abs() < 0.01, "{max}");
    // Nothing fails; every request is served.
    assert_eq!(metric(&m, "client.c.success_ratio"), 1.0);
}

#[test]
fn a_capacity_cut_makes_the_service_an_m_m_c_with_fewer_workers() {
    // M/M/10 at 400/s with 10 ms work (a = 4 erlangs), cut to 5 workers for 2000 s.
    let m = run(r#"
[scenario]
name = "capacity"
duration = "2200s"
bucket = "100s"
seed = 4

[[client]]
name = "c"
target = "s"
rate = 400

[[service]]
name = "s"
workers = 10
work = { dist = "exponential", mean = "10ms" }

[[fault]]
kind = "capacity"
target = "s"
workers = 5
start = "100s"
end = "2100s"
"#);
    // Erlang C with c = 5, a = 4: P(wait) = 0.5541, Lq = P(wait) a / (c − a) = 2.2165.
    let (c, a) = (5.0f64, 4.0f64);
    let mut sum = 0.0;
    let mut term = 1.0;
    for k in 0..5 {
        if k > 0 {
            term *= a / k as f64;
        }
        sum += term;
    }
    let top = term * a / c * c / (c - a);
    let p_wait = top / (sum + top);
    let lq = p_wait * a / (c - a);
    let queue = series(&m, "service.s.queue_mean");
    let during: f64 = queue[2..21].iter().sum::<f64>() / 19.0;
    assert!((during - lq).abs() / lq < 0.05, "{during} vs {lq}");
    // Utilization is measured against all 10 workers: 4 busy on average either way.
    let util = series(&m, "service.s.utilization");
    assert!((util[10] - 0.4).abs() < 0.02);
    assert!(queue[0] < 0.1 && queue[21] < 0.1);
}

#[test]
fn a_crash_loses_work_in_flight_and_the_balancer_avoids_the_instance_until_it_is_back() {
    let m = run(r#"
[scenario]
name = "crash"
duration = "30s"
seed = 2

[[client]]
name = "c"
target = "s"
rate = 1000

[[service]]
name = "s"
instances = 2
workers = 50
balancer = "round_robin"
work = "20ms"

[[fault]]
kind = "crash"
target = "s#0"
start = "10s"
restart = "5s"
cold_start = "5s"
cold_factor = 3
"#);
    // At 1000/s split two ways and 20 ms each, instance #0 holds 10 requests when it dies:
    // they are answered unavailable. Nothing else fails: while it is down every request goes
    // to #1 (50 workers, 20 in use), so none is refused.
    assert_eq!(metric(&m, "client.c.errors.unavailable"), 10.0);
    assert_eq!(metric(&m, "client.c.errors.refused"), 0.0);
    // Back at 15 s, cold for 5 s: its half of the requests take 60 ms; before and after, 20.
    let p99 = series(&m, "client.c.latency_p99_ms");
    assert!((p99[5] - 20.0).abs() < 0.1, "{}", p99[5]);
    assert!((p99[17] - 60.0).abs() < 0.1, "{}", p99[17]);
    assert!((p99[25] - 20.0).abs() < 0.1, "{}", p99[25]);
    // While down, the survivor does all the work: 1000/s x 20 ms = 20 busy of 100 workers.
    let util = series(&m, "service.s.utilization");
    assert!((util[12] - 0.2).abs() < 0.01, "{}", util[12]);
}

#[test]
fn a_blackhole_crash_leaves_its_callers_to_their_timeouts() {
    let m = run(r#"
[scenario]
name = "crash-blackhole"
duration = "20s"
seed = 2

[[client]]
name = "c"
target = "s"
rate = 1000
policy = "p"

[policy.p]
timeout = "100ms"

[[service]]
name = "s"
instances = 2
workers = 50
balancer = "round_robin"
work = "20ms"

[[fault]]
kind = "crash"
target = "s#0"
mode = "blackhole"
start = "10s"
end = "12s"
"#);
    assert_eq!(metric(&m, "client.c.errors.timeout"), 10.0);
    assert_eq!(metric(&m, "client.c.errors.unavailable"), 0.0);
}

#[test]
fn an_overload_multiplies_the_offered_rate_along_its_ramps() {
    let m = run(r#"
[scenario]
name = "overload"
duration = "40s"
seed = 3

[[client]]
name = "c"
target = "s"
rate = 100
arrival = "constant"

[[service]]
name = "s"
workers = 100
work = "1ms"

[[fault]]
kind = "overload"
target = "c"
factor = 3
start = "10s"
end = "30s"
ramp = "4s"
"#);
    let requests = series(&m, "client.c.requests");
    assert_eq!(requests[5], 100.0);
    // Second 11 of the onset ramp: factor 1 + 2 x 1.5/4 on average = 1.75.
    assert!((requests[11] - 175.0).abs() <= 1.0, "{}", requests[11]);
    assert!((requests[20] - 300.0).abs() <= 1.0);
    assert!((requests[28] - 175.0).abs() <= 1.0, "{}", requests[28]);
    assert_eq!(requests[35], 100.0);
    let total: f64 = requests.iter().sum();
    // 4000 + 200/s x 12 s at full + 100/s x 8 s on the ramps.
    assert!((total - 7200.0).abs() <= 2.0, "{total}");
}

#[test]
fn an_overload_adds_closed_loop_users_for_its_window() {
    let users = |fault: &str| {
        run(&format!(
            r#"
[scenario]
name = "closed-overload"
duration = "30s"
seed = 3

[[client]]
name = "c"
target = "s"
arrival = "closed"
users = 10
think = "90ms"

[[service]]
name = "s"
workers = 100
work = "10ms"
{fault}
"#
        ))
    };
    // Each user makes one request per 100 ms: 100/s for 10 users, 300/s with 20 more.
    let m = users(
        r#"[[fault]]
kind = "overload"
target = "c"
users = 20
start = "10s"
end = "20s""#,
    );
    let requests = series(&m, "client.c.requests");
    assert!((requests[5] - 100.0).abs() <= 1.0);
    assert!((requests[15] - 300.0).abs() <= 1.0, "{}", requests[15]);
    assert!((requests[25] - 100.0).abs() <= 1.0, "{}", requests[25]);
}

#[test]
fn ramped_errors_and_latency_grow_linearly() {
    let m = steady(
        r#"kind = "errors"
target = "s"
rate = 1.0
start = "10s"
end = "20s"
ramp = "5s""#,
    );
    let errors = series(&m, "client.c.errors.unavailable");
    // Intensity rises 0 to 1 over 10-15 s: second 10 fails a tenth, second 14 nine tenths.
    assert!((errors[10] - 10.0).abs() <= 6.0, "{}", errors[10]);
    assert!((errors[14] - 90.0).abs() <= 6.0, "{}", errors[14]);
    let ramped: f64 = errors[10..20].iter().sum();
    // Full for 0 s in the middle: the two 5 s ramps average one half: 500 of 1000.
    assert!((ramped - 500.0).abs() <= 30.0, "{ramped}");
    let m = steady(
        r#"kind = "latency"
target = "s"
factor = 2.0
start = "10s"
end = "20s"
ramp = "5s""#,
    );
    let mean = series(&m, "client.c.latency_mean_ms");
    // Work 5 ms x (1 + intensity): 5.5 ms on average over second 10 of the onset.
    assert!((mean[10] - 5.5).abs() < 0.05, "{}", mean[10]);
    assert!((mean[14] - 9.5).abs() < 0.05, "{}", mean[14]);
    assert!((mean[19] - 5.5).abs() < 0.05, "{}", mean[19]);
}

#[test]
fn an_errors_fault_on_one_edge_leaves_the_other_edges_alone() {
    let two_callers = |fault: &str| {
        run(&format!(
            r#"
[scenario]
name = "edges"
duration = "20s"
seed = 9

[[client]]
name = "a"
target = "db"
rate = 200

[[client]]
name = "b"
target = "db"
rate = 200

[[service]]
name = "db"
workers = 20
work = {{ dist = "exponential", mean = "5ms" }}
{fault}
"#
        ))
    };
    let clean = two_callers("");
    let faulty = two_callers(
        r#"[[fault]]
kind = "errors"
target = "a->db"
rate = 0.5"#,
    );
    assert!(metric(&faulty, "edge.a.db.errors.unavailable") > 1500.0);
    // b's arrivals are its own draws: the same calls, none failed. (Only the few still in
    // flight at the end can differ, as a's failures free workers sooner.)
    assert_eq!(
        metric(&faulty, "edge.b.db.calls"),
        metric(&clean, "edge.b.db.calls")
    );
    assert_eq!(metric(&faulty, "edge.b.db.errors.unavailable"), 0.0);
    let (with, without) = (
        metric(&faulty, "edge.b.db.success"),
        metric(&clean, "edge.b.db.success"),
    );
    assert!((with - without).abs() <= 3.0, "{with} vs {without}");
}

#[test]
fn a_latency_factor_past_any_run_holds_the_worker_for_the_rest_of_it() {
    // Regression: 5 ms × 2^63 saturated to u64::MAX ns and `now + work` overflowed. The
    // slowed work is capped at 2^62 ns: the first request slowed never ends, its one worker
    // is held to the end, and every later arrival queues behind it.
    for factor in ["9223372036854775807", "1e300"] {
        let m = steady(&format!(
            "kind = \"latency\"\ntarget = \"s\"\nfactor = {factor}\nstart = \"10s\"\nend = \"11s\""
        ));
        // Arrivals every 10 ms from 10 ms: 999 before 10 s, then none served.
        assert_eq!(metric(&m, "service.s.served"), 999.0, "factor {factor}");
        // Half busy for 10 s, then busy for 20: 25 of 30 s.
        let utilization = metric(&m, "service.s.utilization");
        assert!(
            (utilization - 25.0 / 30.0).abs() < 1e-3,
            "factor {factor}: {utilization}"
        );
    }
}

/// One worker, 10 ms of constant work, a request at 1 s and one at 2 s (a constant rate of
/// 1/s), and `faults`: the run, its measured events with them.
fn two_requests(faults: &str) -> cascade::RunResult {
    let text = format!(
        r#"
[scenario]
name = "two"
duration = "2900ms"
warmup = "0s"
seed = 1

[[client]]
name = "c"
target = "s"
rate = 1
arrival = "constant"

[[service]]
name = "s"
work = "10ms"
{faults}
"#
    );
    let model = cascade::scenario::load_str("test.toml", &text, &[])
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    cascade::simulate(&model).unwrap()
}

#[test]
fn work_due_just_inside_a_stall_ends_after_it_in_one_step() {
    // Regression: the work's end moved on by the overshoot (1 µs) at a time, 1.49 M events to
    // cross the stall. The first request's 10 ms end at 1.010 s, 1 µs into a stall from
    // 1.009999 s to 2.499999 s: its last microsecond runs after the stall, to 2.5 s (1500 ms).
    // The second arrives at 2 s, queues, and gets the worker at 2.5 s: done at 2.51 s (510 ms).
    let stalled = two_requests(
        "[[fault]]\nkind = \"stall\"\ntarget = \"s\"\nstart = \"1009999us\"\nend = \"2499999us\"",
    );
    let m = &stalled.metrics;
    assert_eq!(metric(m, "client.c.requests"), 2.0);
    assert_eq!(metric(m, "client.c.success"), 2.0);
    assert_eq!(metric(m, "client.c.latency_max_ms"), 1500.0);
    assert_eq!(
        metric(m, "client.c.latency_mean_ms"),
        (1500.0 + 510.0) / 2.0
    );
    // Beside the run without it: the stall's end, and the work's end moved once.
    let plain = two_requests("");
    assert!(
        stalled.events <= plain.events + 2,
        "{} events with the stall, {} without",
        stalled.events,
        plain.events
    );
}

#[test]
fn work_paused_by_overlapping_and_touching_stalls_resumes_once_after_them() {
    // The first request's work is due at 1.010 s, 1 ns into a stall of the service from
    // 1.009999999 s to 1.5 s; one of its instance from 1.4 s to 1.7 s overlaps it, and a
    // third from 1.7 s to 2 s touches that: they hold it as one, their overlap counted once,
    // so its last ns runs from 2 s (1000.000001 ms). Stepped by the ns, that was 10^9 events.
    // The second arrives at 2 s, behind it: 10 ms from 2.000000001 s (10.000001 ms).
    let stalled = two_requests(
        "[[fault]]\nkind = \"stall\"\ntarget = \"s\"\nstart = \"1009999999ns\"\nend = \"1500ms\"
[[fault]]\nkind = \"stall\"\ntarget = \"s#0\"\nstart = \"1400ms\"\nend = \"1700ms\"
[[fault]]\nkind = \"stall\"\ntarget = \"s\"\nstart = \"1700ms\"\nend = \"2s\"",
    );
    let m = &stalled.metrics;
    assert_eq!(metric(m, "client.c.success"), 2.0);
    let (first, second) = (1_000_000_001u64, 10_000_001u64);
    assert_eq!(metric(m, "client.c.latency_max_ms"), first as f64 / 1e6);
    assert_eq!(
        metric(m, "client.c.latency_mean_ms"),
        (first + second) as f64 / 2.0 / 1e6
    );
    // Beside the run without them: the stalls' three ends, and the work's end moved once.
    let plain = two_requests("");
    assert!(
        stalled.events <= plain.events + 4,
        "{} events with the stalls, {} without",
        stalled.events,
        plain.events
    );
}
