//! `cascade run --trace`: every event as a CSV row, and a refusal past the row limit.

use std::process::Command;

const TINY: &str = r#"[scenario]
name = "tiny"
duration = "50ms"

[[client]]
name = "web"
target = "api"
rate = 100
arrival = "constant"

[[service]]
name = "api"
work = "6ms"
calls = [ { to = "db" } ]

[[service]]
name = "db"
work = "3ms"
"#;

fn run(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    std::fs::create_dir_all(dir).unwrap();
    let scenario = dir.join("tiny.toml");
    std::fs::write(&scenario, TINY).unwrap();
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("run")
        .arg(&scenario)
        .arg("--quiet")
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--trace")
        .arg(dir.join("trace.csv"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_trace_follows_each_request_through_the_services() {
    let dir = crate::support::scratch("trace");
    let out = run(&dir, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("trace.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(
        csv.lines().next(),
        Some("time_ns,request,parent,entity,event,outcome")
    );
    // Arrivals every 10 ms from 10 ms: four in 50 ms, each an api job calling db (6 ms of
    // work, then 3 ms): five rows per request's call and job at each layer.
    let arrivals = rows.iter().filter(|r| r[4] == "arrival").count();
    assert_eq!(arrivals, 4);
    let first: Vec<(&str, &str, &str)> = rows.iter().take(11).map(|r| (r[0], r[3], r[4])).collect();
    assert_eq!(
        first,
        vec![
            ("10000000", "client.web", "arrival"),
            ("10000000", "edge.web.api", "call_start"),
            ("10000000", "service.api#0", "attempt"),
            ("16000000", "service.api#0", "work_done"),
            ("16000000", "edge.api.db", "call_start"),
            ("16000000", "service.db#0", "attempt"),
            ("19000000", "service.db#0", "work_done"),
            ("19000000", "service.db#0", "reply"),
            ("19000000", "edge.api.db", "call_end"),
            ("19000000", "service.api#0", "reply"),
            ("19000000", "edge.web.api", "call_end"),
        ]
    );
    // Parents link each job to its call and each call to the job that made it.
    assert_eq!(rows[2][2], rows[1][1]);
    assert_eq!(rows[4][2], rows[2][1]);
    assert_eq!(rows[10][5], "ok");
    // Each request ends before the next arrives, so the client's calls reuse one slot: its
    // id counts the uses of that slot.
    let client_calls: Vec<&str> = rows
        .iter()
        .filter(|r| r[3] == "edge.web.api" && r[4] == "call_start")
        .map(|r| r[1])
        .collect();
    assert_eq!(client_calls, ["c0.1", "c0.2", "c0.3", "c0.4"]);
}

#[test]
fn a_trace_over_its_limit_is_refused_and_nothing_is_written() {
    let dir = crate::support::scratch("trace-limit");
    let out = run(&dir, &["--trace-limit", "10"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("over the limit of 10"), "{err}");
    assert!(!dir.join("out").exists() && !dir.join("trace.csv").exists());
}
