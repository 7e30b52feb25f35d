//! Operations of a service (`[[service.operation]]`): one pool of workers shared by several
//! kinds of request, against queueing theory (Pollaczek-Khinchine for the mixed service time,
//! Erlang C, a single service with the mixture as its work), partitions of the pool, a
//! client's mix, per-operation metrics that add up to the service's, and faults on one
//! operation. A scenario without operations is byte-identical to before: the golden files of
//! `tests/golden/` are unchanged by the feature.

use crate::queueing::{erlang_c, pk_wait_ms};
use crate::support::*;

/// A client sending a mix of `small` and `large` to a service of `workers` workers whose two
/// operations do `small_work` and `large_work`.
fn two_operations(
    rate: f64,
    workers: u32,
    weights: (f64, f64),
    works: (&str, &str),
    secs: u64,
    seed: u64,
) -> String {
    format!(
        r#"
[scenario]
name = "ops"
duration = "{secs}s"
warmup = "10s"
seed = {seed}

[[client]]
name = "load"
target = "server"
rate = {rate}
mix = [ {{ operation = "small", weight = {} }}, {{ operation = "large", weight = {} }} ]

[[service]]
name = "server"
workers = {workers}
[[service.operation]]
name = "small"
work = {}
[[service.operation]]
name = "large"
work = {}
"#,
        weights.0, weights.1, works.0, works.1
    )
}

#[test]
fn two_operations_on_one_worker_wait_as_pollaczek_khinchine_says_for_the_mixed_work() {
    // 90% 0.5 ms and 10% 5.5 ms: E[S] = 1 ms, E[S^2] = 0.9 x 0.25 + 0.1 x 30.25 = 3.25 ms^2.
    let m = run(&two_operations(
        500.0,
        1,
        (0.9, 0.1),
        (r#""0.5ms""#, r#""5.5ms""#),
        3000,
        11,
    ));
    let wq = pk_wait_ms(0.5, 1.0, 3.25);
    assert_close(
        "mixed wait",
        metric(&m, "service.server.wait_mean_ms"),
        wq,
        0.03,
    );
    // FIFO and Poisson arrivals: each operation waits as long as the mix does, and spends
    // its own work on top.
    for (op, work) in [("small", 0.5), ("large", 5.5)] {
        let p = format!("service.server.op.{op}");
        assert_close(
            &format!("{op} wait"),
            metric(&m, &format!("{p}.wait_mean_ms")),
            wq,
            0.04,
        );
        assert_close(
            &format!("{op} sojourn"),
            metric(&m, &format!("{p}.sojourn_mean_ms")),
            wq + work,
            0.03,
        );
    }
    // The shares of the one worker: 0.5/s x 0.45 ms and 0.5/s x 0.55 ms.
    assert_close(
        "small utilization",
        metric(&m, "service.server.op.small.utilization"),
        0.225,
        0.02,
    );
    assert_close(
        "large utilization",
        metric(&m, "service.server.op.large.utilization"),
        0.275,
        0.02,
    );
}

#[test]
fn operations_with_the_same_exponential_work_are_one_m_m_c_queue() {
    let m = run(&two_operations(
        3000.0,
        4,
        (0.3, 0.7),
        (EXP_1MS_OP, EXP_1MS_OP),
        600,
        12,
    ));
    let wq_ms = erlang_c(4, 3.0) / (4000.0 - 3000.0) * 1000.0;
    assert_close(
        "M/M/4 wait",
        metric(&m, "service.server.wait_mean_ms"),
        wq_ms,
        0.03,
    );
}

const EXP_1MS_OP: &str = r#"{ dist = "exponential", mean = "1ms" }"#;

#[test]
fn operations_sharing_c_workers_match_one_service_whose_work_is_their_mixture() {
    // M/G/4 at rho = 0.6: the operations' pool against the same pool with a mixture as work
    // (a reference validated against Pollaczek-Khinchine at c = 1).
    let ops = run(&two_operations(
        2400.0,
        4,
        (0.9, 0.1),
        (r#""0.5ms""#, r#""5.5ms""#),
        1000,
        13,
    ));
    let mix = r#"{ dist = "mixture", of = [ { weight = 0.9, dist = "constant", value = "0.5ms" }, { weight = 0.1, dist = "constant", value = "5.5ms" } ] }"#;
    let single = run(&single_queue(2400.0, 4, None, mix, 1000, 14));
    for metric_name in ["wait_mean_ms", "sojourn_mean_ms", "queue_mean"] {
        assert_close(
            &format!("M/G/4 {metric_name}"),
            metric(&ops, &format!("service.server.{metric_name}")),
            metric(&single, &format!("service.server.{metric_name}")),
            0.05,
        );
    }
    assert_close(
        "utilization",
        metric(&ops, "service.server.utilization"),
        0.6,
        0.01,
    );
}

#[test]
fn a_services_metrics_are_the_sums_of_its_operations_in_every_bucket() {
    let (model, m) = run_model(
        &two_operations(800.0, 2, (0.5, 0.5), (r#""1ms""#, EXP_1MS_OP), 20, 15)
            .replace("warmup = \"10s\"", ""),
    );
    assert_counts_balance(&model, &m);
    for name in ["arrivals", "served", "success", "busy_area_never"] {
        let Some(total) = m.series_of(&format!("service.server.{name}")) else {
            continue;
        };
        let small = m
            .series_of(&format!("service.server.op.small.{name}"))
            .unwrap();
        let large = m
            .series_of(&format!("service.server.op.large.{name}"))
            .unwrap();
        for (b, t) in total.iter().enumerate() {
            assert_eq!(*t, small[b] + large[b], "{name} in bucket {b}");
        }
    }
    let sum = |prefix: &str, what: &str| {
        metric(&m, &format!("{prefix}.op.small.{what}"))
            + metric(&m, &format!("{prefix}.op.large.{what}"))
    };
    assert_eq!(
        metric(&m, "client.load.requests"),
        sum("client.load", "requests")
    );
    assert_eq!(
        metric(&m, "client.load.success"),
        sum("client.load", "success")
    );
    assert_eq!(
        metric(&m, "edge.load.server.calls"),
        sum("edge.load.server", "calls")
    );
    assert_close(
        "utilization",
        metric(&m, "service.server.utilization"),
        sum("service.server", "utilization"),
        1e-12,
    );
    // The mix's shares are binomial: 16,000 requests, half each, within 4 sigma (253).
    let small = metric(&m, "client.load.op.small.requests");
    let all = metric(&m, "client.load.requests");
    assert!(
        (small - all / 2.0).abs() < 4.0 * (all * 0.25).sqrt(),
        "{small} of {all}"
    );
    // An operation's calls count on its own edge, and the callee's operation agrees.
    assert_eq!(
        metric(&m, "edge.load.server.op.large.calls"),
        metric(&m, "service.server.op.large.arrivals")
    );
}

/// Seed 003's login and analytics on one thread pool of 10: analytics calls an events service
/// that slows from 5 ms to 400 ms from 20 s to 40 s; users give a login 200 ms, analytics 2 s;
/// `partition` caps analytics' workers.
fn login_analytics(partition: &str) -> String {
    format!(
        r#"
[scenario]
name = "pool"
duration = "60s"
seed = 3

[[client]]
name = "users"
target = "api"
rate = 500
deadline = "2s"
mix = [ {{ operation = "login", weight = 5, deadline = "200ms" }}, {{ operation = "analytics", weight = 1 }} ]

[[service]]
name = "api"
workers = 10
[[service.operation]]
name = "login"
work = {{ dist = "exponential", mean = "2ms" }}
[[service.operation]]
name = "analytics"
calls = [ {{ to = "events" }} ]
{partition}

[[service]]
name = "events"
workers = 200
work = "5ms"

[[fault]]
kind = "latency"
target = "events"
factor = 80
start = "20s"
end = "40s"
"#
    )
}

#[test]
fn a_slow_operation_starves_the_others_of_a_shared_pool_unless_a_partition_caps_it() {
    let shared = run(&login_analytics(""));
    let capped = run(&login_analytics("workers = 3\noverflow = \"refuse\""));
    let login = |m: &cascade::metrics::RunMetrics| metric(m, "client.users.op.login.success_ratio");
    // Without a partition 83 analytics requests a second, each holding a worker 400 ms, want 33
    // of the 10 workers: logins queue behind them and miss their 200 ms (a third of them).
    assert!(
        login(&shared) < 0.8,
        "shared pool: login success {}",
        login(&shared)
    );
    // With analytics capped at 3 workers, logins keep 7 and hardly notice.
    assert!(
        login(&capped) > 0.999,
        "partitioned: login success {}",
        login(&capped)
    );
    // The cap holds: analytics never has more than 3 of the 10 workers.
    let util = metric(&capped, "service.api.op.analytics.utilization");
    assert!(util <= 0.3 + 1e-9, "analytics utilization {util}");
    // The overflow is refused, as `overloaded`, at the service and seen by the client.
    let refused = metric(&capped, "service.api.op.analytics.rejected");
    assert!(refused > 1000.0, "refused {refused}");
    assert_eq!(
        metric(&capped, "client.users.op.analytics.errors.overloaded"),
        refused
    );
}

#[test]
fn a_queued_overflow_waits_for_its_partition_while_other_operations_pass_it() {
    let m = run(&login_analytics("workers = 3"));
    // Queued, not refused: analytics waits for its 3 workers and times out at the deadline,
    // while logins pass it in the queue.
    assert_eq!(metric(&m, "service.api.op.analytics.rejected"), 0.0);
    assert!(metric(&m, "client.users.op.analytics.errors.deadline_exceeded") > 1000.0);
    assert!(metric(&m, "client.users.op.login.success_ratio") > 0.999);
    assert!(metric(&m, "service.api.op.analytics.utilization") <= 0.3 + 1e-9);
}

#[test]
fn a_fault_on_one_operation_leaves_the_others_alone() {
    let text = two_operations(100.0, 8, (0.5, 0.5), (r#""2ms""#, r#""2ms""#), 20, 16)
        + "\n[[fault]]\nkind = \"latency\"\ntarget = \"server\"\noperation = \"large\"\nadd = \"10ms\"\n";
    let m = run(&text);
    assert_close(
        "small sojourn",
        metric(&m, "service.server.op.small.sojourn_mean_ms"),
        2.0,
        1e-9,
    );
    assert_close(
        "large sojourn",
        metric(&m, "service.server.op.large.sojourn_mean_ms"),
        12.0,
        1e-9,
    );
}

#[test]
fn an_operations_criticality_is_the_class_its_requests_are_shed_by() {
    // Batch exports are sheddable at the service, whatever the client says; interactive
    // requests keep the client's class (critical).
    let text = two_operations(4000.0, 2, (0.5, 0.5), (r#""1ms""#, r#""1ms""#), 10, 17)
        .replace(
            "[[service.operation]]\nname = \"large\"",
            "[[service.operation]]\nname = \"large\"\ncriticality = \"sheddable\"",
        )
        .replace(
            "workers = 2\n",
            "workers = 2\nadmission = { by = \"queue\", sheddable = 5 }\n",
        );
    let m = run(&text);
    assert!(metric(&m, "service.server.op.large.shed.sheddable") > 1000.0);
    assert_eq!(metric(&m, "service.server.op.small.shed.sheddable"), 0.0);
    assert_eq!(metric(&m, "service.server.op.small.shed.critical"), 0.0);
    assert_eq!(
        metric(&m, "service.server.shed.sheddable"),
        metric(&m, "service.server.op.large.shed.sheddable")
    );
}

#[test]
fn the_gateway_scenario_holds_its_reads_and_fails_its_gate_without_the_partition() {
    let scenario = crate::support::golden::repo().join("scenarios/gateway.toml");
    let path = scenario.to_str().unwrap();
    cascade(&["check", path], 0);
    let o = cascade(
        &[
            "check",
            path,
            "--set",
            "service.gateway.operation.checkout.workers=64",
        ],
        1,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("2 failed"), "{text}");
}

#[test]
fn charts_show_the_pairs_and_the_report_describes_the_operations() {
    let dir = scratch("operations-charts");
    let out = dir.join("run");
    let scenario = crate::support::golden::repo().join("scenarios/gateway.toml");
    let out_s = out.to_str().unwrap();
    cascade(
        &["run", scenario.to_str().unwrap(), "--out", out_s, "--quiet"],
        0,
    );
    cascade(&["chart", out_s], 0);
    let timeline = read(&out.join("charts/timeline.svg"));
    assert!(
        timeline.contains("mobile→gateway attempts"),
        "the pair's attempts are drawn"
    );
    assert!(
        !timeline.contains(".op."),
        "an operation's edge is drawn as its own line"
    );
    // The report describes the operations and measures each under its service.
    cascade(&["report", out_s], 0);
    let report = read(&out.join("report.html"));
    assert!(
        report.contains("checkout (POST /checkout)"),
        "the operations table"
    );
    assert!(
        report.contains("16 workers, overflow refused"),
        "the partition"
    );
}

#[test]
fn diff_patterns_leave_operations_out_unless_they_name_them() {
    let dir = scratch("operations-diff");
    let scenario = crate::support::golden::repo().join("scenarios/gateway.toml");
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out in [&a, &b] {
        let out = out.to_str().unwrap();
        cascade(
            &[
                "run",
                scenario.to_str().unwrap(),
                "--out",
                out,
                "--quiet",
                "--set",
                "scenario.duration=10s",
            ],
            0,
        );
    }
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let totals = cascade(
        &[
            "diff",
            a,
            b,
            "--metric",
            "service.*.arrivals",
            "--all-metrics",
        ],
        0,
    );
    let text = String::from_utf8_lossy(&totals.stdout);
    assert!(text.contains("service.gateway.arrivals"), "{text}");
    assert!(
        !text.contains(".op."),
        "a totals pattern listed an operation:\n{text}"
    );
    let parts = cascade(
        &[
            "diff",
            a,
            b,
            "--metric",
            "service.*.op.*.arrivals",
            "--all-metrics",
        ],
        0,
    );
    let text = String::from_utf8_lossy(&parts.stdout);
    assert!(
        text.contains("service.gateway.op.checkout.arrivals"),
        "{text}"
    );
}
