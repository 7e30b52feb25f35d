//! `bulkhead.release = "answer"`: a connection pool, whose permit stays out until the callee's
//! answer reaches the caller or its work there is gone. Worked numbers by Little's law.

use crate::support::*;

/// 200 calls a second into a database that answers in 300 ms, through a pool of 40 with a
/// 100 ms timeout (`extra` adds to the policy).
fn pool_of_40(extra: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "pool"
duration = "30s"
warmup = "5s"

[[client]]
name = "c"
target = "app"
arrival = "constant"
rate = 200

[[service]]
name = "app"
workers = 1000
work = "0"
calls = [ {{ to = "db", policy = "pool", optional = true }} ]

[[service]]
name = "db"
workers = 1000
work = "300ms"

[policy.pool]
timeout = "100ms"
bulkhead = {{ max_concurrent = 40{extra} }}
"#
    ))
}

#[test]
fn release_on_return_holds_rate_times_timeout_and_lets_the_database_pile_up() {
    // Permits held = 200/s x min(100 ms, 300 ms) = 20 < 40: nothing is refused, and the
    // database holds 200/s x 300 ms = 60 requests, more than the pool of 40.
    let m = pool_of_40("");
    assert_eq!(metric(&m, "edge.app.db.rejected_bulkhead"), 0.0);
    let in_db = metric(&m, "service.db.in_system_mean");
    assert!((in_db - 60.0).abs() < 0.5, "{in_db}");
}

#[test]
fn release_on_answer_holds_rate_times_response_capped_at_the_pool() {
    // Permits held would be 200/s x 300 ms = 60; capped at 40, the database holds 40 requests,
    // serves 40 / 0.3 s = 133.3 a second, and the other 66.7 a second are refused.
    let m = pool_of_40(r#", release = "answer""#);
    let in_db = metric(&m, "service.db.in_system_mean");
    assert!((in_db - 40.0).abs() < 0.5, "{in_db}");
    let calls = metric(&m, "edge.app.db.calls");
    let refused = metric(&m, "edge.app.db.rejected_bulkhead") / calls;
    assert!((refused - 1.0 / 3.0).abs() < 0.01, "{refused}");
}

#[test]
fn a_crash_that_loses_the_work_gives_the_permits_back() {
    // The database crashes at 10 s for 5 s, loses what it held and swallows what reaches it
    // (`blackhole`: no answer ever comes):
    // the permits come back when that work is gone, so after the crash the pool serves 40
    // again, as before it.
    let m = run(r#"
[scenario]
name = "pool-crash"
duration = "30s"
warmup = "0s"

[[client]]
name = "c"
target = "app"
arrival = "constant"
rate = 200

[[service]]
name = "app"
workers = 1000
work = "0"
calls = [ { to = "db", policy = "pool", optional = true } ]

[[service]]
name = "db"
workers = 1000
work = "300ms"

[[fault]]
kind = "crash"
target = "db"
start = "10s"
end = "15s"
mode = "blackhole"

[policy.pool]
timeout = "100ms"
bulkhead = { max_concurrent = 40, release = "answer" }
"#);
    let served = m.series_of("service.db.served").unwrap();
    let mean = |r: std::ops::Range<usize>| served[r.clone()].iter().sum::<f64>() / r.len() as f64;
    let (before, after) = (mean(2..10), mean(20..30));
    // About 40 / 0.3 s = 133 a second (a freed permit waits up to 5 ms for the next arrival).
    assert!(before > 125.0 && before < 134.0, "{before}");
    assert!(
        (after - before).abs() < 1.0,
        "before {before}, after {after}"
    );
    assert_eq!(served[12], 0.0, "down");
}
