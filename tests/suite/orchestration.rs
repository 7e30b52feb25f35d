//! Orchestration (docs/scenario.md, "Orchestration"): probes, restarts with CrashLoopBackOff,
//! readiness at the balancer, the autoscaler. Times are read from `--trace` and compared, to
//! the nanosecond, with the times Kubernetes' rules imply.

use crate::support::*;
use cascade::metrics::RunMetrics;

const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

/// `(time, event)` of every trace row about `entity` (an instance: `service.web#0`).
fn instance_rows(name: &str, toml: &str, entity: &str) -> Vec<(u64, String)> {
    traced_rows(&scratch(name), toml)
        .into_iter()
        .filter(|r| r[3] == entity)
        .map(|r| (r[0].parse().unwrap(), r[4].clone()))
        .collect()
}

fn times(rows: &[(u64, String)], event: &str) -> Vec<u64> {
    rows.iter()
        .filter(|(_, e)| e == event)
        .map(|(t, _)| *t)
        .collect()
}

fn scenario(duration: &str, body: &str) -> String {
    format!("[scenario]\nname = \"o\"\nduration = \"{duration}\"\nseed = 5\n{body}")
}

/// One instance whose liveness probe always times out: the process answers it after 50 ms,
/// the kubelet waits 10 ms. `extra` adds service keys.
fn crash_looping(extra: &str) -> String {
    scenario(
        "70s",
        &format!(
            r#"
[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 10

[[service]]
name = "api"
work = "10ms"
probe = {{ liveness = {{ serve = "out_of_band", work = "50ms", timeout = "10ms", period = "1s", failure_threshold = 3 }}{extra} }}
restart = {{ time = "2s", backoff = "4s", backoff_max = "16s" }}
"#
        ),
    )
}

/// What the rules make of `crash_looping`, from the first liveness probe at `first`: a probe
/// every second from the process start, each failing 10 ms after it is sent, the third in a
/// row restarting. The first restart listens again after restart.time (2 s); the n-th in a
/// row waits 4 s · 2^(n-2) more, at most 16 s. After a restart liveness probing begins
/// `started` after listening (a startup probe's pass). Probes, failures, restarts, listening.
fn crash_loop_times(first: u64, started: u64) -> [Vec<u64>; 4] {
    let end = 70 * S;
    let [mut probes, mut failures, mut restarts, mut listening] = [vec![], vec![], vec![], vec![]];
    let mut start = first;
    for n in 1u32.. {
        for k in 0..3 {
            probes.extend(Some(start + k * S).filter(|&t| t < end));
            failures.extend(Some(start + k * S + 10 * MS).filter(|&t| t < end));
        }
        let restart = start + 2 * S + 10 * MS;
        if restart >= end {
            break;
        }
        restarts.push(restart);
        let backoff = if n == 1 {
            0
        } else {
            ((4 * S) << (n - 2)).min(16 * S)
        };
        let listen = restart + backoff + 2 * S;
        if listen >= end {
            break;
        }
        listening.push(listen);
        start = listen + started;
    }
    [probes, failures, restarts, listening]
}

#[test]
fn three_failed_liveness_probes_restart_the_instance_and_restarts_back_off_as_crash_loop_back_off()
{
    let rows = instance_rows("crash-loop", &crash_looping(""), "service.api#0");
    let first = times(&rows, "probe_liveness")[0];
    assert!(first < S, "the first probe at a phase within its period");
    let [probes, failures, restarts, listening] = crash_loop_times(first, 0);
    assert_eq!(times(&rows, "probe_liveness"), probes);
    assert_eq!(times(&rows, "probe_liveness_failed"), failures);
    assert_eq!(times(&rows, "restart"), restarts);
    assert_eq!(times(&rows, "listening"), listening);
    assert!(
        restarts.len() >= 5,
        "{restarts:?}: the back-off reached its cap"
    );

    let (model, m) = run_model(&crash_looping(""));
    assert_eq!(metric(&m, "service.api.restarts"), restarts.len() as f64);
    assert_eq!(
        metric(&m, "service.api.probes.liveness"),
        probes.len() as f64
    );
    assert_eq!(
        metric(&m, "service.api.probe_failures.liveness"),
        failures.len() as f64
    );
    // Requests that arrive while the process is down are answered unavailable (a closed
    // port), and every request is accounted for through the restarts.
    assert!(metric(&m, "client.web.errors.unavailable") > 400.0);
    assert_counts_balance(&model, &m);
}

#[test]
fn a_startup_probe_holds_liveness_and_the_balancer_back_until_it_passes() {
    // The startup probe, 500 ms after the process listens, passes at once: liveness probing
    // begins then (its initial_delay of 0 is past), and until then the instance is out of
    // rotation. The instances of the run's start are started already.
    let startup =
        r#", startup = { serve = "out_of_band", initial_delay = "500ms", period = "1s" }"#;
    let toml = crash_looping(startup);
    let rows = instance_rows("startup", &toml, "service.api#0");
    let first = times(&rows, "probe_liveness")[0];
    let [probes, _, restarts, listening] = crash_loop_times(first, 500 * MS);
    assert_eq!(times(&rows, "probe_liveness"), probes);
    assert_eq!(times(&rows, "restart"), restarts);
    let passed: Vec<u64> = listening
        .iter()
        .map(|l| l + 500 * MS)
        .filter(|&t| t < 70 * S)
        .collect();
    assert_eq!(times(&rows, "probe_startup"), passed);
    assert_eq!(times(&rows, "in_rotation"), passed);
    let m = run(&toml);
    assert_eq!(
        metric(&m, "service.api.probes.startup"),
        passed.len() as f64
    );
    assert_eq!(metric(&m, "service.api.probe_failures.startup"), 0.0);
}

#[test]
fn a_restarted_instance_works_cold_for_cold_start() {
    // Requests every 100 ms of 10 ms work never queue: each one's work is its attempt's
    // `attempt` to `work_done`. Those starting within 1 s of the process listening again
    // take cold_factor (3) times as long.
    let toml = crash_looping("").replace(
        "restart = {",
        "cold_start = \"1s\"\ncold_factor = 3.0\nrestart = {",
    );
    let rows = instance_rows("cold", &toml, "service.api#0");
    let listening = times(&rows, "listening");
    assert!(listening.len() >= 4);
    let (mut cold, mut warm) = (0, 0);
    let mut started = None;
    for (t, e) in &rows {
        match e.as_str() {
            "attempt" => started = Some(*t),
            "work_done" => {
                let s = started.take().expect("an attempt before its work is done");
                let is_cold = listening.iter().any(|&l| s >= l && s < l + S);
                assert_eq!(
                    t - s,
                    if is_cold { 30 * MS } else { 10 * MS },
                    "work from {s}"
                );
                if is_cold { cold += 1 } else { warm += 1 }
            }
            _ => {}
        }
    }
    assert!(cold >= 30 && warm >= 50, "{cold} cold, {warm} warm");
}

#[test]
fn an_out_of_band_answer_after_its_timeout_does_not_pass_the_next_probe() {
    // The process answers after 1.2 s, the kubelet waits 500 ms and probes every second: each
    // answer comes while the next probe is out. It is the late answer of the one before, not
    // that probe's: every probe fails.
    let toml = scenario(
        "30s",
        r#"
[[client]]
name = "web"
target = "api"
rate = 5

[[service]]
name = "api"
work = "1ms"
probe = { readiness = { serve = "out_of_band", work = "1200ms", timeout = "500ms", period = "1s" } }
"#,
    );
    let m = run(&toml);
    let probes = metric(&m, "service.api.probes.readiness");
    assert!(probes >= 29.0, "{probes}");
    // The last probe may still be out at the end.
    let failures = metric(&m, "service.api.probe_failures.readiness");
    assert!(probes - failures <= 1.0, "{failures} failures of {probes}");
}

/// Two instances behind round robin; instance 1 answers every request with an error from
/// 10 s to 30 s, readiness probes included (they are requests to `ready`, in the queue).
fn erroring_instance(readiness: &str) -> String {
    scenario(
        "40s",
        &format!(
            r#"
[[client]]
name = "web"
target = "api"
operation = "get"
arrival = "constant"
rate = 100

[[service]]
name = "api"
instances = 2
workers = 4
{readiness}
[[service.operation]]
name = "get"
work = "1ms"
[[service.operation]]
name = "ready"

[[fault]]
kind = "errors"
target = "api#1"
start = "10s"
end = "30s"
"#
        ),
    )
}

#[test]
fn a_failing_readiness_probe_takes_the_instance_out_of_the_balancer_until_it_passes() {
    let probe = r#"probe = { readiness = { operation = "ready", period = "1s", failure_threshold = 2, success_threshold = 2 } }"#;
    let toml = erroring_instance(probe);
    let rows = instance_rows("readiness", &toml, "service.api#1");
    let first = times(&rows, "probe_readiness")[0];
    // Probes at first + k s; the first two at or after 10 s fail, the second takes the
    // instance out; the first two at or after 30 s pass, the second puts it back.
    let at_or_after = |t: u64| first + (t.saturating_sub(first)).div_ceil(S) * S;
    let out = at_or_after(10 * S) + S;
    let back = at_or_after(30 * S) + S;
    assert_eq!(times(&rows, "out_of_rotation"), vec![out]);
    assert_eq!(times(&rows, "in_rotation"), vec![back]);

    let (model, m) = run_model(&toml);
    assert_close(
        "not_ready_s",
        metric(&m, "service.api.not_ready_s"),
        (back - out) as f64 / S as f64,
        1e-9,
    );
    // Half the requests (round robin) fail from 10 s until the instance leaves, none after.
    let errors = metric(&m, "client.web.errors.unavailable");
    let want = 50.0 * (out - 10 * S) as f64 / S as f64;
    assert!(
        (errors - want).abs() <= 2.0,
        "{errors} errors, {want} expected"
    );
    let per_second = m.series_of("client.web.errors.unavailable").unwrap();
    let left = (out / S + 1) as usize;
    assert!(
        per_second[left..].iter().all(|&e| e == 0.0),
        "{per_second:?}"
    );
    // The ready operation's arrivals are the probes.
    assert_eq!(
        metric(&m, "service.api.op.ready.arrivals"),
        metric(&m, "service.api.probes.readiness")
    );
    assert_counts_balance(&model, &m);

    // Without the probe the instance fails half the requests for the whole 20 s.
    let plain = run(&erroring_instance(""));
    assert_eq!(metric(&plain, "client.web.errors.unavailable"), 1000.0);
}

/// One instance whose deep readiness probe calls a database that fails from 10 s to 20 s;
/// the requests themselves never need it.
fn deep_readiness(none_ready: &str) -> String {
    scenario(
        "30s",
        &format!(
            r#"
[[client]]
name = "web"
target = "api"
operation = "get"
arrival = "constant"
rate = 100

[[service]]
name = "api"
workers = 4
probe = {{ readiness = {{ operation = "ready", period = "1s", failure_threshold = 1 }} }}
when_none_ready = "{none_ready}"
[[service.operation]]
name = "get"
work = "1ms"
[[service.operation]]
name = "ready"
calls = [ {{ to = "db" }} ]

[[service]]
name = "db"
work = "1ms"

[[fault]]
kind = "errors"
target = "db"
start = "10s"
end = "20s"
"#
        ),
    )
}

#[test]
fn with_every_instance_unready_fail_open_serves_and_refuse_refuses_until_ready_again() {
    let open = run(&deep_readiness("fail_open"));
    assert!(metric(&open, "service.api.not_ready_s") > 9.0);
    assert_eq!(
        metric(&open, "client.web.success"),
        metric(&open, "client.web.requests")
    );

    let toml = deep_readiness("refuse");
    let rows = instance_rows("none-ready", &toml, "service.api#0");
    let out = times(&rows, "out_of_rotation");
    let back = times(&rows, "in_rotation");
    assert_eq!((out.len(), back.len()), (1, 1), "{out:?} {back:?}");
    let (model, m) = run_model(&toml);
    // Arrivals every 10 ms; those in [out, back) are refused, answered unavailable (Envoy's
    // 503 "no healthy upstream").
    let refused = (back[0].div_ceil(10 * MS) - out[0].div_ceil(10 * MS)) as f64;
    let got = metric(&m, "client.web.errors.unavailable");
    assert!(
        (got - refused).abs() <= 1.0,
        "{got} refused, {refused} expected"
    );
    assert_counts_balance(&model, &m);
}

/// Seed 003's death spiral in small: four instances, a liveness probe every 5 s, restarts
/// with a cold start, and 50 % more load than they can serve from 20 s to 50 s.
fn spiral(probe: &str) -> String {
    scenario(
        "120s",
        &format!(
            r#"
[[client]]
name = "web"
target = "api"
operation = "get"
rate = 900
deadline = "2s"

[[service]]
name = "api"
instances = 4
workers = 8
queue = 1000
cold_start = "20s"
cold_factor = 2.0
probe = {{ liveness = {{ {probe}, period = "5s", timeout = "1s", failure_threshold = 3 }} }}
restart = {{ time = "5s" }}
[[service.operation]]
name = "get"
work = {{ dist = "exponential", mean = "30ms" }}
[[service.operation]]
name = "health"
work = "1ms"

[[fault]]
kind = "overload"
target = "web"
factor = 1.5
start = "20s"
end = "50s"
"#
        ),
    )
}

#[test]
fn a_liveness_probe_in_an_overloaded_queue_restarts_instances_for_good_and_out_of_band_it_does_not()
{
    // In the queue the probe waits behind the overload, times out three times in a row, and
    // the restart throws the instance's queue away and brings it back cold, at half speed:
    // the others take its share and follow. Long after the overload has gone the fleet is
    // still restarting.
    let queue = r#"operation = "health""#;
    let (model, m) = run_model(&spiral(queue));
    assert!(metric(&m, "service.api.restarts") >= 8.0);
    assert_eq!(
        metric(&m, "service.api.op.health.arrivals"),
        metric(&m, "service.api.probes.liveness")
    );
    assert_counts_balance(&model, &m);
    let again = run(&spiral(queue));
    assert_eq!(m.summary, again.summary, "deterministic");

    let calm = run(&spiral(r#"serve = "out_of_band""#));
    assert_eq!(metric(&calm, "service.api.restarts"), 0.0);
    let after = |m: &RunMetrics| metric(m, "fault.0.goodput_after_rps");
    assert!(after(&calm) > 700.0, "{}", after(&calm));
    assert!(
        after(&m) < 0.2 * after(&calm),
        "{} against {}",
        after(&m),
        after(&calm)
    );
}

/// 30 requests a second of 100 ms work (3 busy workers' worth) on one instance of one
/// worker, an autoscaler targeting 50 % utilization every second; at 60 s the load falls to
/// 4 a second.
fn scaling(extra: &str) -> String {
    scenario(
        "120s",
        &format!(
            r#"
[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 30
phases = [ {{ at = "60s", rate = 4 }} ]

[[service]]
name = "api"
work = "100ms"
autoscale = {{ target = 0.5, max = 10, period = "1s", down = {{ stabilization = "20s" }} }}
{extra}
"#
        ),
    )
}

#[test]
fn the_autoscaler_scales_at_its_syncs_to_load_over_target_and_down_after_its_stabilization() {
    let toml = scaling("");
    let mut count: i64 = 1;
    let mut area = 0u128;
    let mut last = 0u64;
    let mut history = vec![(0u64, 1i64)];
    for i in 0..20 {
        let rows = instance_rows(&format!("scale-{i}"), &toml, &format!("service.api#{i}"));
        for (t, e) in rows {
            match e.as_str() {
                "scale_up" => history.push((t, 1)),
                "scale_down" => history.push((t, -1)),
                _ => {}
            }
        }
    }
    history.sort();
    let mut at_59 = 0;
    let mut downs = vec![];
    for &(t, d) in &history[1..] {
        assert_eq!(t % S, 0, "scaled at {t}: syncs are whole seconds");
        area += (count as u128) * u128::from(t - last);
        last = t;
        count += d;
        assert!((1..=10).contains(&count), "{count} at {t}");
        if t < 59 * S {
            at_59 = count;
        }
        if d < 0 && t > 60 * S {
            downs.push(t);
        }
    }
    // 3 workers' worth of work at 50 % each: 6 instances once the backlog of the first
    // seconds is gone.
    assert_eq!(at_59, 6, "{history:?}");
    // After the fall the recommendation is 1 (0.4 busy / 0.5 target), but the scale-down
    // window keeps the highest of the last 20 s: the sync at 60 s (which saw the old load)
    // holds 6 until 80 s; then the way down is as fast as the default policy allows (100 %
    // per 15 s), to the most recommended within (60 s, 80 s]: 2, from the sync at 61 s,
    // whose second still held the work of requests sent just before 60 s
    // (ceil(6 × (0.4 + 0.15) / 6 / 0.5) = 2). At 81 s that one has left the window too.
    let mut want = vec![80 * S; 4];
    want.push(81 * S);
    assert_eq!(downs, want, "{history:?}");
    assert_eq!(count, 1);
    // docs/scenario.md ("Autoscaling") states these figures for this scenario: held to them.
    let doc = std::fs::read_to_string(crate::support::golden::repo().join("docs/scenario.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for claim in [
        "30 requests a second of 100 ms work (3 workers' worth), arriving evenly (`arrival = \"constant\"`)".to_string(),
        "`target = 0.5`, `max = 10`, `period = \"1s\"` and `down = { stabilization = \"20s\" }`".into(),
        format!("the autoscaler settles at {at_59} instances"),
        "when the load falls to 4 a second at 60 s".into(),
        format!("holds {at_59} in the 20 s scale-down window until 80 s"),
        format!(
            "the count falls to {} (the highest recommendation since) at 80 s and to {count} at 81 s",
            at_59 - 4
        ),
    ] {
        assert!(doc.contains(&claim), "docs/scenario.md does not say {claim:?}");
    }
    area += (count as u128) * u128::from(120 * S - last);

    let m = run(&toml);
    assert_close(
        "instances_mean",
        metric(&m, "service.api.instances_mean"),
        area as f64 / (120 * S) as f64,
        1e-9,
    );
    // A sync that adds or removes several instances is one scale event.
    let syncs = |sign: i64| {
        let mut at: Vec<u64> = history[1..]
            .iter()
            .filter(|h| h.1 == sign)
            .map(|h| h.0)
            .collect();
        at.dedup();
        at.len() as f64
    };
    assert_eq!(metric(&m, "service.api.scale_ups"), syncs(1));
    assert_eq!(metric(&m, "service.api.scale_downs"), syncs(-1));
    // Utilization is busy time over the capacity that existed: the work done (100 ms a
    // request) over instances_mean × the run.
    let busy = metric(&m, "service.api.served") * 0.1;
    let capacity = metric(&m, "service.api.instances_mean") * 120.0;
    assert_close(
        "utilization",
        metric(&m, "service.api.utilization"),
        busy / capacity,
        0.01,
    );
}

#[test]
fn a_fault_on_an_instance_that_does_not_exist_then_does_nothing() {
    // The fleet never grows past 6: instance 8 never exists, and its fault never acts.
    let plain = run(&scaling(""));
    let fault = r#"
[[fault]]
kind = "errors"
target = "api#8"
start = "10s"
end = "50s"
"#;
    let faulted = run(&scaling(fault));
    for name in ["client.web.success", "service.api.instances_mean"] {
        assert_eq!(metric(&faulted, name), metric(&plain, name), "{name}");
    }
}

#[test]
fn orchestration_keys_are_checked() {
    let c = crate::bad_input::Case::new("orchestration");
    let base = scenario(
        "10s",
        r#"
[[client]]
name = "web"
target = "api"
operation = "get"
rate = 10

[[service]]
name = "api"
instances = 2
probe = { liveness = { operation = "health" } }
autoscale = { target = 0.5, min = 1, max = 4 }
[[service.operation]]
name = "get"
work = "1ms"
[[service.operation]]
name = "health"
"#,
    );
    let with = |from: &str, to: &str| {
        assert!(base.contains(from), "{from}");
        base.replacen(from, to, 1)
    };
    c.rejects(
        &with("min = 1, max = 4", "min = 3, max = 2"),
        &[
            "scenario.toml:16",
            "service.api.autoscale.max",
            "at least `min` (3)",
        ],
    );
    c.rejects(
        &with("instances = 2", "instances = 5"),
        &[
            "scenario.toml:14",
            "service.api.instances",
            "between the autoscaler's min (1) and max (4)",
        ],
    );
    c.rejects(
        &with(
            "operation = \"health\" }",
            "operation = \"health\", success_threshold = 2 }",
        ),
        &[
            "scenario.toml:15",
            "service.api.probe.liveness.success_threshold",
            "must be 1",
        ],
    );
    c.rejects(
        &with(
            "operation = \"health\" }",
            "operation = \"health\", period = \"0s\" }",
        ),
        &[
            "scenario.toml:15",
            "service.api.probe.liveness.period",
            "at least 1ms",
        ],
    );
    c.rejects(
        &with(
            "operation = \"health\" }",
            "operation = \"health\", timeout = \"0s\" }",
        ),
        &[
            "scenario.toml:15",
            "service.api.probe.liveness.timeout",
            "longer than zero",
        ],
    );
    c.rejects(
        &with("operation = \"health\" }", "operation = \"healht\" }"),
        &[
            "scenario.toml:15",
            "service.api.probe.liveness.operation",
            "did you mean `health`",
        ],
    );
    c.rejects(
        &with("{ operation = \"health\" }", "{ }"),
        &[
            "scenario.toml:15",
            "service.api.probe.liveness",
            "name the operation",
        ],
    );
    c.rejects(
        &with("autoscale = { target = 0.5,", "autoscale = { target = 1.5,"),
        &[
            "scenario.toml:16",
            "service.api.autoscale.target",
            "at most 1",
        ],
    );
}

/// Two instances whose readiness probe always times out, so the balancer fails open to
/// both; `extra` adds service keys.
fn never_ready(extra: &str) -> String {
    scenario(
        "20s",
        &format!(
            r#"
[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 50

[[service]]
name = "api"
instances = 2
work = "1ms"
probe = {{ readiness = {{ serve = "out_of_band", work = "50ms", timeout = "10ms", period = "1s" }} }}
{extra}
"#
        ),
    )
}

#[test]
fn failing_open_picks_only_instances_that_exist() {
    // Regression: the balancer's fallback (nothing eligible) picked among every slot, the
    // empty ones an autoscaler keeps included, and those refused.
    let fixed = run(&never_ready(""));
    let scaled = run(&never_ready(
        "autoscale = { target = 0.5, min = 2, max = 2 }",
    ));
    assert_eq!(metric(&fixed, "client.web.success_ratio"), 1.0);
    assert_eq!(metric(&scaled, "client.web.success_ratio"), 1.0);
}

#[test]
fn an_autoscaler_max_whose_slots_overflow_is_refused_naming_it() {
    // Regression: 2 × max computed in u32 wrapped, passed the limits and panicked in the run.
    let toml = scaling("").replace("max = 10", "max = 2147483648");
    let Err(err) = cascade::scenario::load_str("test.toml", &toml, &[]) else {
        panic!("a max of 2^31 instances was accepted");
    };
    let text = err.to_string();
    assert!(text.contains("service.api.autoscale.max"), "{text}");
    assert!(text.contains("over the limit of 10,000"), "{text}");
}

/// `api` calls `db` through a breaker that stays open for 100 s, and its liveness probe runs
/// the same operation (the deep probe the seeds warn of). `db` fails for the first 5 s: the
/// breaker opens at once, and the eighth failed probe in a row restarts `api` after `db` is
/// well again.
const OPEN_BREAKER_AT_RESTART: &str = r#"
[[client]]
name = "web"
target = "api"
operation = "get"
arrival = "constant"
rate = 20

[[service]]
name = "api"
probe = { liveness = { operation = "get", initial_delay = "1s", period = "1s", failure_threshold = 8 } }
restart = { time = "1s" }
[[service.operation]]
name = "get"
calls = [ { to = "db", policy = "guarded" } ]

[[service]]
name = "db"
work = "1ms"

[policy.guarded]
breaker = { window = 10, min_calls = 5, failure_rate = 0.5, open = "100s" }

[[fault]]
kind = "errors"
target = "db"
start = "0s"
end = "5s"
"#;

#[test]
fn a_restarted_process_starts_with_fresh_policy_state_of_its_own() {
    // Regression: a liveness restart kept the old process's breakers, so the deep probe kept
    // failing on the breaker it had opened and the instance restarted again and again. A new
    // process has its own state anew: the probe passes after the first restart, and the
    // fresh breaker never opens (db is well by then).
    let rows = instance_rows(
        "fresh-restart",
        &scenario("60s", OPEN_BREAKER_AT_RESTART),
        "service.api#0",
    );
    let restarts = times(&rows, "restart");
    assert_eq!(restarts.len(), 1, "{restarts:?}");
    assert!(restarts[0] > 5 * S, "{restarts:?}");
    let m = run(&scenario("60s", OPEN_BREAKER_AT_RESTART));
    assert_eq!(metric(&m, "service.api.restarts"), 1.0);
    assert_eq!(metric(&m, "edge.api.db.breaker_opens"), 1.0);
}

/// Four instances, two of which fail throughout; ejections capped at 25 % of them.
fn two_bad_of_four(extra: &str) -> String {
    scenario(
        "60s",
        &format!(
            r#"
[[client]]
name = "web"
target = "api"
rate = 400

[[service]]
name = "api"
instances = 4
balancer = "round_robin"
work = "1ms"
outlier = {{ consecutive_failures = 5, max_ejection_percent = 25 }}
{extra}

[[fault]]
kind = "errors"
target = "api#1"
error = "unavailable"
start = "0s"
end = "60s"

[[fault]]
kind = "errors"
target = "api#2"
error = "unavailable"
start = "0s"
end = "60s"
"#
        ),
    )
}

#[test]
fn ejections_are_capped_by_the_instances_that_exist_not_the_slots() {
    // Regression: the cap divided by every slot, and an autoscaler keeps twice its max: with
    // 4 instances in 8 slots, 25 % let both bad ones go where one may (100 × 2 / 4 > 25):
    // the bad instances are ejected as often with the autoscaler (min = max = 4) as without.
    let fixed = run(&two_bad_of_four(""));
    let scaled = run(&two_bad_of_four(
        "autoscale = { target = 0.5, min = 4, max = 4 }",
    ));
    assert!(metric(&fixed, "service.api.ejections") > 0.0);
    for name in ["service.api.ejections", "client.web.success_ratio"] {
        assert_eq!(metric(&scaled, name), metric(&fixed, name), "{name}");
    }
}

/// The longest duration a scenario can write: u64::MAX nanoseconds.
const FOREVER: &str = "18446744073709551615ns";

#[test]
fn a_scale_down_stabilization_of_forever_never_scales_down() {
    // Regression: `t + window` wrapped, so the window held no recommendation and the fleet
    // scaled down as if it had none.
    let toml = scaling("").replace(
        "stabilization = \"20s\"",
        &format!("stabilization = \"{FOREVER}\""),
    );
    let m = run(&toml);
    assert!(metric(&m, "service.api.scale_ups") >= 1.0);
    assert_eq!(metric(&m, "service.api.scale_downs"), 0.0);
}

#[test]
fn a_scale_up_policy_over_a_period_of_forever_allows_its_value_once() {
    // Regression: `t + period` wrapped, so no earlier scale-up counted against the policy and
    // each sync added another instance.
    let toml = scaling("").replace(
        "down = {",
        &format!("up = {{ policies = [ {{ type = \"instances\", value = 1, period = \"{FOREVER}\" }} ] }}, down = {{"),
    );
    let m = run(&toml);
    assert_eq!(metric(&m, "service.api.scale_ups"), 1.0);
    assert!(metric(&m, "service.api.instances_mean") <= 2.0);
}

#[test]
fn a_probe_timeout_of_forever_never_expires() {
    // Regression: `now + timeout` wrapped to an instant already past: every probe failed at
    // once and the instance was restarted though it answers each probe in 50 ms.
    let toml = crash_looping("").replace("timeout = \"10ms\"", &format!("timeout = \"{FOREVER}\""));
    let m = run(&toml);
    assert!(metric(&m, "service.api.probes.liveness") >= 60.0);
    assert_eq!(metric(&m, "service.api.restarts"), 0.0);
    assert_eq!(metric(&m, "client.web.success_ratio"), 1.0);
}

#[test]
fn a_probe_period_of_forever_probes_once() {
    // Regression: `now + period` wrapped, so the tick after the first went back in time. The
    // autoscaler's new instance probes first when it listens (the first tick of the initial
    // fleet is drawn over the whole period).
    let probe = format!(
        r#"probe = {{ liveness = {{ serve = "out_of_band", work = "1ms", period = "{FOREVER}" }} }}"#
    );
    let rows = instance_rows("probe-forever", &scaling(&probe), "service.api#1");
    assert_eq!(times(&rows, "listening").len(), 1);
    assert_eq!(times(&rows, "probe_liveness").len(), 1);
    assert!(times(&rows, "restart").is_empty());
}

#[test]
fn periods_too_short_to_simulate_are_refused_naming_the_field() {
    // A probe or a sync every nanosecond would spend hours of the run on them.
    let probe = crash_looping("").replace("period = \"1s\"", "period = \"999us\"");
    let sync = scaling("").replace("period = \"1s\"", "period = \"1ns\"");
    for (toml, field) in [
        (probe, "service.api.probe.liveness.period"),
        (sync, "service.api.autoscale.period"),
    ] {
        let Err(err) = cascade::scenario::load_str("t.toml", &toml, &[]) else {
            panic!("{field} under 1 ms was accepted");
        };
        let text = err.to_string();
        assert!(
            text.contains(field) && text.contains("at least 1ms"),
            "{text}"
        );
    }
}
