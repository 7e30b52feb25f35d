//! An open system offered more than it serves grows without bound: past
//! `scenario.max_in_flight` requests in flight the run stops and is a result (`run.diverged`,
//! `run.stopped_at_s`), measured up to the stop, instead of being killed for its memory.

use crate::support::{assert_counts_balance, cascade, metric, read, run_model, scratch};

/// 100,000 requests/s offered to 50,000/s of capacity with an unbounded queue: the backlog
/// grows by 50,000 a second, and each waiting request is two in flight (its call and its job).
fn overloaded(rate: u32, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "flood"
duration = "20s"
{extra}

[[client]]
name = "web"
target = "api"
rate = {rate}
arrival = "constant"

[[service]]
name = "api"
workers = 50
work = "1ms"
"#
    )
}

#[test]
fn a_run_past_its_in_flight_limit_stops_and_is_measured_up_to_then() {
    let (model, m) = run_model(&overloaded(100_000, "max_in_flight = 200_000"));
    assert_eq!(metric(&m, "run.diverged"), 1.0);
    // In flight = 2 × the backlog (50,000 more each second) + the 50 in service: past 200,000
    // just after 2 s. The check runs every 65,536 events (about 0.4 s of this run).
    let stopped = metric(&m, "run.stopped_at_s");
    assert!((2.0..2.6).contains(&stopped), "stopped at {stopped} s");
    // Requests arrive at a constant 100,000/s up to the stop, and every count balances.
    let requests = metric(&m, "client.web.requests");
    assert!((requests - 100_000.0 * stopped).abs() <= 1.0, "{requests}");
    assert_counts_balance(&model, &m);
    assert!(metric(&m, "client.web.in_flight_end") > 100_000.0);
    // Rates are over the time measured: the service served its full 50,000/s until the stop.
    let throughput = metric(&m, "service.api.throughput_rps");
    assert!((throughput - 50_000.0).abs() < 500.0, "{throughput}");
    // The time series ends at the stop: whole 1 s buckets, then the partial one.
    let buckets = m.series_of("client.web.requests").unwrap().len();
    assert_eq!(buckets, stopped.ceil() as usize);
}

#[test]
fn a_run_within_its_limit_reports_no_divergence_and_its_full_length() {
    let (_, m) = run_model(&overloaded(40_000, "warmup = \"2s\""));
    assert_eq!(metric(&m, "run.diverged"), 0.0);
    assert_eq!(metric(&m, "run.stopped_at_s"), 22.0);
    // The default limit, 1,000,000, is far above what a stable system holds.
    let (_, m) = run_model(&overloaded(40_000, ""));
    assert_eq!(metric(&m, "run.diverged"), 0.0);
}

#[test]
fn the_default_limit_stops_an_unbounded_queue() {
    let (_, m) = run_model(&overloaded(100_000, ""));
    assert_eq!(metric(&m, "run.diverged"), 1.0);
    // 1,000,000 in flight is a backlog of 500,000: about 10 s at 50,000 more a second.
    let stopped = metric(&m, "run.stopped_at_s");
    assert!((10.0..10.6).contains(&stopped), "stopped at {stopped} s");
}

#[test]
fn a_diverged_run_is_a_result_the_table_names_and_a_gate_can_test() {
    let dir = scratch("diverged-run");
    let file = dir.join("flood.toml");
    let gate = "\n[[expect]]\nmetric = \"run.diverged\"\nop = \"==\"\nvalue = 0\n";
    std::fs::write(&file, overloaded(100_000, "max_in_flight = 200_000") + gate).unwrap();
    let out_dir = dir.join("out");
    let out = cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ],
        0,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("DIVERGED: more than 200,000 requests in flight"),
        "{stdout}"
    );
    let summary = read(&out_dir.join("summary.json"));
    assert!(summary.contains("\"run.diverged\": 1"), "{summary}");
    // `check` judges the expectation on it: the run diverged, so the gate fails (exit 1).
    cascade(&["check", file.to_str().unwrap()], 1);
}

#[test]
fn a_sweep_keeps_diverged_runs_as_points() {
    let dir = scratch("diverged-sweep");
    let file = dir.join("flood.toml");
    std::fs::write(&file, overloaded(40_000, "max_in_flight = 200_000")).unwrap();
    let out_dir = dir.join("sweep");
    cascade(
        &[
            "sweep",
            file.to_str().unwrap(),
            "--param",
            "client.web.rate=40000,100000",
            "--metric",
            "run.*",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        0,
    );
    let runs = read(&out_dir.join("runs.csv"));
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "run.diverged").unwrap();
    let diverged: Vec<&str> = runs
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(column).unwrap())
        .collect();
    assert_eq!(diverged, ["0", "1"], "{runs}");
}

#[test]
fn timers_of_finished_requests_piling_up_stop_the_run_too() {
    // A client with a 10 s deadline whose requests are all turned away at once (no queue, one
    // worker of 1 s): few requests are ever in flight, but each leaves its deadline timer on
    // the event queue for 10 s. At 1,000,000 requests a second that is 10,000,000 pending
    // events, far past what memory should be spent on; the fuzzer found the same at 4e9 a
    // second, where the run died allocating its event queue. Past 4 × max_in_flight pending
    // events the run diverges instead.
    let (model, m) = run_model(
        r#"
[scenario]
name = "timers"
duration = "20s"
max_in_flight = 100_000

[[client]]
name = "web"
target = "api"
rate = 1000000
arrival = "constant"
deadline = "10s"

[[service]]
name = "api"
workers = 1
queue = 0
work = "1s"
"#,
    );
    assert_eq!(metric(&m, "run.diverged"), 1.0);
    // 400,000 pending timers at 1,000,000 a second: 0.4 s, checked every 65,536 events.
    let stopped = metric(&m, "run.stopped_at_s");
    assert!((0.4..0.6).contains(&stopped), "stopped at {stopped} s");
    assert!(metric(&m, "client.web.in_flight_end") < 10.0);
    assert_counts_balance(&model, &m);
}
