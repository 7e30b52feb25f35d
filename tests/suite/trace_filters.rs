//! `--trace-entity`, `--trace-request`, `--trace-from`/`--trace-to`: the rows each keeps,
//! checked row by row on runs small enough to follow by hand, and the row limit counted after
//! them.

use crate::support::{cascade, read, run_traced, scratch};
use std::path::Path;

/// web -> api -> db, a request every 10 ms from 10 ms (docs/examples/trace.toml): api works
/// 6 ms, db 3 ms, nothing overlaps.
const CHAIN: &str = r#"[scenario]
name = "chain"
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

/// The same chain with api working 15 ms, so requests overlap, and its calls to db (3 ms)
/// timing out at 2 ms and retried once: each request has two db jobs, one answering after its
/// call gave up, and slots are reused across requests (`c2.1` is request 1's, `c2.2` request 2's).
const OVERLAP: &str = r#"[scenario]
name = "overlap"
duration = "40ms"

[[client]]
name = "web"
target = "api"
rate = 100
arrival = "constant"

[[service]]
name = "api"
workers = 4
work = "15ms"
calls = [ { to = "db", policy = "db" } ]

[[service]]
name = "db"
workers = 4
work = "3ms"

[policy.db]
timeout = "2ms"
retry = { attempts = 2, backoff = "constant", base = "1ms" }
"#;

/// The trace's rows (header left out) of a run of `scenario` with `filters`.
fn trace(dir: &Path, scenario: &str, filters: &[&str]) -> Vec<String> {
    let file = dir.join("s.toml");
    std::fs::write(&file, scenario).unwrap();
    let csv = dir.join("trace.csv");
    run_traced(&file, &dir.join("out"), &csv, filters);
    let text = read(&csv);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("time_ns,request,parent,entity,event,outcome,detail")
    );
    lines.map(String::from).collect()
}

/// (time, request, event) of each row: what the hand-made lists below give.
fn brief(rows: &[String]) -> Vec<(String, String, String)> {
    rows.iter()
        .map(|r| {
            let f: Vec<&str> = r.split(',').collect();
            (f[0].into(), f[1].into(), f[4].into())
        })
        .collect()
}

fn want(rows: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    rows.iter()
        .map(|(t, r, e)| (t.to_string(), r.to_string(), e.to_string()))
        .collect()
}

#[test]
fn a_request_brings_its_calls_and_jobs_down_the_tree_and_nothing_else() {
    let d = scratch("trace-request");
    let all = trace(&d, OVERLAP, &[]);
    let second = trace(&d, OVERLAP, &["--trace-request", "2"]);
    assert_eq!(
        brief(&second),
        want(&[
            ("20000000", "c1.1", "call_start"),
            ("20000000", "j1.1", "attempt"),
            ("20000000", "j1.1", "work_start"),
            ("35000000", "j1.1", "work_done"),
            ("35000000", "c2.2", "call_start"),
            ("35000000", "j3.2", "attempt"),
            ("35000000", "j3.2", "work_start"),
            ("37000000", "c2.2", "attempt_timer"),
            ("37000000", "c2.2", "attempt_end"),
            ("37000000", "c2.2", "retry"),
            ("37302384", "c2.2", "resume"),
            ("37302384", "j2.2", "attempt"),
            ("37302384", "j2.2", "work_start"),
            ("38000000", "j3.2", "work_done"),
            ("38000000", "j3.2", "reply"),
            ("39302384", "c2.2", "attempt_timer"),
            ("39302384", "c2.2", "attempt_end"),
            ("39302384", "c2.2", "call_end"),
            ("39302384", "j1.1", "reply"),
            ("39302384", "j1.1", "answer"),
            ("39302384", "c1.1", "call_end"),
        ])
    );
    // By its id, the same rows.
    assert_eq!(trace(&d, OVERLAP, &["--trace-request", "c1.1"]), second);
    // Request 1 includes its db job that answers after its call gave up (j3.1 at 30.5 ms).
    let first = trace(&d, OVERLAP, &["--trace-request", "1"]);
    assert_eq!(first.len(), 23);
    assert!(
        first
            .last()
            .unwrap()
            .starts_with("30499972,j3.1,c2.1,service.db#0,reply,ok")
    );
    let third = trace(&d, OVERLAP, &["--trace-request", "3"]);
    assert_eq!(third.len(), 3);
    // The three families split every row but the arrivals, and keep the trace's order.
    let mut joined: Vec<&String> = first.iter().chain(&second).chain(&third).collect();
    let mut rest: Vec<&String> = all.iter().filter(|r| !r.contains(",arrival,")).collect();
    assert_eq!(joined.len(), rest.len());
    joined.sort();
    rest.sort();
    assert_eq!(joined, rest);
    // A job is a request too: its own rows.
    assert_eq!(
        brief(&trace(&d, OVERLAP, &["--trace-request", "j2.1"])),
        want(&[
            ("25000000", "j2.1", "attempt"),
            ("25000000", "j2.1", "work_start"),
            ("28000000", "j2.1", "work_done"),
            ("28000000", "j2.1", "reply"),
        ])
    );
    // A request beyond the run's: an empty trace, not an error.
    assert!(trace(&d, OVERLAP, &["--trace-request", "9"]).is_empty());
}

#[test]
fn entities_and_a_time_span_keep_their_rows() {
    let d = scratch("trace-entity");
    // db's rows from 20 ms up to (not including) 40 ms: requests 2 and 3 at db.
    let rows = trace(
        &d,
        CHAIN,
        &[
            "--trace-entity",
            "db",
            "--trace-from",
            "20ms",
            "--trace-to",
            "40ms",
        ],
    );
    assert_eq!(
        rows,
        [
            "26000000,j1.2,c1.2,service.db#0,attempt,,",
            "26000000,j1.2,c1.2,service.db#0,work_start,,",
            "29000000,j1.2,c1.2,service.db#0,work_done,,",
            "29000000,j1.2,c1.2,service.db#0,reply,ok,",
            "36000000,j1.3,c1.3,service.db#0,attempt,,",
            "36000000,j1.3,c1.3,service.db#0,work_start,,",
            "39000000,j1.3,c1.3,service.db#0,work_done,,",
            "39000000,j1.3,c1.3,service.db#0,reply,ok,",
        ]
    );
    // An edge (spaces allowed) and a client, repeated: a row of either is kept.
    let rows = trace(
        &d,
        CHAIN,
        &[
            "--trace-entity",
            "web -> api",
            "--trace-entity",
            "web",
            "--trace-to",
            "20ms",
        ],
    );
    assert_eq!(
        rows,
        [
            "10000000,,,client.web,arrival,,",
            "10000000,c0.1,client.web,edge.web.api,call_start,,\
             caller_deadline=none deadline=none path=none seed=1",
            "19000000,j0.1,c0.1,edge.web.api,answer,ok,sent=10000000",
            "19000000,c0.1,client.web,edge.web.api,call_end,ok,",
        ]
    );
    // An instance is its service's rows at that instance; every entity filter and the span
    // combine with a request.
    let rows = trace(
        &d,
        CHAIN,
        &[
            "--trace-entity",
            "api#0",
            "--trace-request",
            "4",
            "--trace-from",
            "46ms",
        ],
    );
    assert_eq!(
        rows,
        [
            "46000000,j0.4,c0.4,service.api#0,work_done,,",
            "49000000,j0.4,c0.4,service.api#0,reply,ok,",
        ]
    );
}

#[test]
fn the_row_limit_counts_the_rows_kept() {
    let d = scratch("trace-filter-limit");
    // 60 rows in all: over a limit of 15, but request 2's 14 rows are not.
    assert_eq!(trace(&d, CHAIN, &[]).len(), 60);
    let rows = trace(&d, CHAIN, &["--trace-limit", "15", "--trace-request", "2"]);
    assert_eq!(rows.len(), 14);
    let file = d.join("s.toml");
    let trace_csv = d.join("over.csv");
    let out = cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            d.join("over").to_str().unwrap(),
            "--trace",
            trace_csv.to_str().unwrap(),
            "--trace-limit",
            "15",
            "--trace-entity",
            "api",
        ],
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    // api's rows: an attempt, its work's start and end and a reply per request, 16 in all.
    assert!(
        err.contains("the trace has 16 rows, over the limit of 15"),
        "{err}"
    );
    assert!(!trace_csv.exists() && !d.join("over").exists());
}

#[test]
fn bad_filters_are_refused_before_the_run() {
    let d = scratch("trace-filter-bad");
    let file = d.join("s.toml");
    std::fs::write(&file, CHAIN).unwrap();
    let csv = d.join("t.csv");
    let out_dir = d.join("out");
    let refused = |filter: &[&str]| {
        let mut args = vec![
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            out_dir.to_str().unwrap(),
            "--trace",
            csv.to_str().unwrap(),
        ];
        args.extend(filter);
        let out = cascade(&args, 2);
        assert!(!csv.exists() && !d.join("out").exists(), "{filter:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = refused(&["--trace-entity", "dbb"]);
    assert!(
        err.contains("--trace-entity dbb: no client or service has that name (did you mean `db`?)"),
        "{err}"
    );
    let err = refused(&["--trace-entity", "web->db"]);
    assert!(
        err.contains("no calls go that way") && err.contains("edges: web->api, api->db"),
        "{err}"
    );
    let err = refused(&["--trace-entity", "api#1"]);
    assert!(err.contains("`api` has instances #0 to #0"), "{err}");
    let err = refused(&["--trace-request", "r1"]);
    assert!(
        err.contains("--trace-request r1: expected a request"),
        "{err}"
    );
    let err = refused(&["--trace-request", "0"]);
    assert!(err.contains("counted from 1"), "{err}");
    let err = refused(&["--trace-from", "30ms", "--trace-to", "20ms"]);
    assert!(
        err.contains("--trace-to must be after --trace-from (20ms is not after 30ms)"),
        "{err}"
    );
    let err = refused(&["--trace-from", "30"]);
    assert!(err.contains("--trace-from 30: invalid duration"), "{err}");
    // A filter without --trace has nothing to filter: a usage error.
    let out = cascade(&["run", file.to_str().unwrap(), "--trace-entity", "db"], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--trace <FILE>"));
}
