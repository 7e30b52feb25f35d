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
        Some("time_ns,request,parent,entity,event,outcome,detail")
    );
    // Arrivals every 10 ms from 10 ms: four in 50 ms, each an api job calling db (6 ms of
    // work, then 3 ms): seven rows per request's call and job at each layer.
    let arrivals = rows.iter().filter(|r| r[4] == "arrival").count();
    assert_eq!(arrivals, 4);
    let first: Vec<(&str, &str, &str)> = rows.iter().take(15).map(|r| (r[0], r[3], r[4])).collect();
    assert_eq!(
        first,
        vec![
            ("10000000", "client.web", "arrival"),
            ("10000000", "edge.web.api", "call_start"),
            ("10000000", "service.api#0", "attempt"),
            ("10000000", "service.api#0", "work_start"),
            ("16000000", "service.api#0", "work_done"),
            ("16000000", "edge.api.db", "call_start"),
            ("16000000", "service.db#0", "attempt"),
            ("16000000", "service.db#0", "work_start"),
            ("19000000", "service.db#0", "work_done"),
            ("19000000", "service.db#0", "reply"),
            ("19000000", "edge.api.db", "answer"),
            ("19000000", "edge.api.db", "call_end"),
            ("19000000", "service.api#0", "reply"),
            ("19000000", "edge.web.api", "answer"),
            ("19000000", "edge.web.api", "call_end"),
        ]
    );
    // Parents link each job to its call and each call to the job that made it; an answer
    // names the job answered and its call.
    assert_eq!(rows[2][2], rows[1][1]);
    assert_eq!(rows[5][2], rows[2][1]);
    assert_eq!((rows[13][1], rows[13][2]), (rows[2][1], rows[1][1]));
    assert_eq!(rows[14][5], "ok");
    // A path without policy state has no streams; no deadline is `none`; the send time of the
    // answered job is its `attempt` row's.
    assert_eq!(
        rows[1][6],
        "caller_deadline=none deadline=none path=none seed=1"
    );
    assert_eq!(rows[13][6], "sent=10000000");
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

/// The engine cancels timers lazily: a timeout set for an attempt still fires after the
/// attempt was answered, and does nothing. The trace writes no row for such a timer, so a
/// replay can read every `attempt_timer` (`hedge_due`, `resume`, `permit_timeout`) row as the
/// timer acting: here each `attempt_timer` is the timeout of an attempt still unanswered.
#[test]
fn a_timer_outlived_by_its_attempt_writes_no_row() {
    let dir = crate::support::scratch("trace-stale-timers");
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("timeouts.toml");
    // 8 ms or 30 ms of work (half each) against a 10 ms timeout; half the attempts fail at
    // once and are retried 1 ms later, while the call lives on: their timers then fire during
    // the retry, for an attempt long answered.
    std::fs::write(
        &scenario,
        r#"[scenario]
name = "timeouts"
duration = "1s"

[[client]]
name = "web"
target = "api"
rate = 50
arrival = "constant"
policy = "short"

[[service]]
name = "api"
workers = 100
work = { dist = "mixture", of = [
  { weight = 1, dist = "constant", value = "8ms" },
  { weight = 1, dist = "constant", value = "30ms" },
] }

[policy.short]
timeout = "10ms"
retry = { attempts = 3, backoff = "constant", base = "1ms" }

[[fault]]
kind = "errors"
target = "api"
start = "0s"
end = "2s"
rate = 0.5
error = "unavailable"
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("run")
        .arg(&scenario)
        .args(["--quiet", "--out"])
        .arg(dir.join("out"))
        .arg("--trace")
        .arg(dir.join("trace.csv"))
        .output()
        .unwrap();
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
    let time = |r: &Vec<&str>| r[0].parse::<u64>().unwrap();
    let timeout = 10_000_000;
    // Each attempt (a job's `attempt` row, its parent the call) and when it was answered.
    let attempts: Vec<(&str, u64, Option<u64>)> = rows
        .iter()
        .filter(|r| r[4] == "attempt")
        .map(|a| {
            let answered = rows
                .iter()
                .find(|r| r[1] == a[1] && r[4] == "reply")
                .map(time);
            (a[2], time(a), answered)
        })
        .collect();
    let end = rows.iter().map(time).max().unwrap();
    let unanswered_at_timeout = attempts
        .iter()
        .filter(|(_, sent, answered)| {
            sent + timeout <= end && answered.is_none_or(|a| a > sent + timeout)
        })
        .count();
    let outlived = attempts
        .iter()
        .filter(|(_, sent, answered)| answered.is_some_and(|a| a < sent + timeout))
        .count();
    let retries = rows.iter().filter(|r| r[4] == "resume").count();
    assert!(
        unanswered_at_timeout > 5 && outlived > 5 && retries > 5,
        "{unanswered_at_timeout} timed out, {outlived} answered in time, {retries} retries"
    );
    let timers: Vec<&Vec<&str>> = rows.iter().filter(|r| r[4] == "attempt_timer").collect();
    assert_eq!(timers.len(), unanswered_at_timeout, "{csv}");
    for t in timers {
        // The call's latest attempt was sent one timeout earlier and is not answered yet.
        let (_, sent, answered) = attempts
            .iter()
            .rfind(|(call, sent, _)| *call == t[1] && *sent <= time(t))
            .unwrap();
        assert_eq!(sent + timeout, time(t), "{t:?}");
        assert!(answered.is_none_or(|a| a > time(t)), "{t:?}");
    }
}
