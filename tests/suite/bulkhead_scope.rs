//! Bulkhead scope: a pool shared by name across one caller's paths (`bulkhead.pool`), and a
//! permit around the whole retry loop (`bulkhead.wraps = "call"`). Worked numbers by Little's
//! law: permits held = calls per second x how long each holds one.

use crate::support::*;

/// Every request makes two queries at once, each through its own policy, 100 a second each,
/// into a database that answers in 300 ms; both policies name a pool of 40 when `pool` is
/// given, and keep their own otherwise.
fn two_queries(pool: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "shared-pool"
duration = "30s"
warmup = "5s"

[[client]]
name = "c"
target = "app"
arrival = "constant"
rate = 100

[[service]]
name = "app"
workers = 1000
work = "0"
calls = [ {{ to = "db", policy = "orders", optional = true }}, {{ to = "db", policy = "users", optional = true }} ]

[[service]]
name = "db"
workers = 1000
work = "300ms"

[policy.orders]
bulkhead = {{ max_concurrent = 40, release = "answer"{pool} }}

[policy.users]
bulkhead = {{ max_concurrent = 40, release = "answer"{pool} }}
"#
    ))
}

#[test]
fn two_paths_sharing_a_pool_of_40_hold_40_in_all_not_80() {
    // Each path wants 100/s x 300 ms = 30 permits, 60 in all. Shared, the pool caps them at
    // 40: the database holds 40 and serves 40 / 0.3 s = 133.3 of the 200 queries a second.
    let m = two_queries(r#", pool = "pg""#);
    let held = metric(&m, "service.app.pool.pg.in_use_mean");
    assert!((held - 40.0).abs() < 0.5, "{held}");
    let in_db = metric(&m, "service.db.in_system_mean");
    assert!((in_db - 40.0).abs() < 0.5, "{in_db}");
    let refused = metric(&m, "edge.app.db.rejected_bulkhead") / metric(&m, "edge.app.db.calls");
    assert!((refused - 1.0 / 3.0).abs() < 0.01, "{refused}");
}

#[test]
fn two_paths_with_pools_of_their_own_hold_30_each() {
    // Apart, each pool of 40 holds its path's 30: nothing is refused, the database holds 60.
    let m = two_queries("");
    assert_eq!(metric(&m, "edge.app.db.rejected_bulkhead"), 0.0);
    let in_db = metric(&m, "service.db.in_system_mean");
    assert!((in_db - 60.0).abs() < 0.5, "{in_db}");
    assert!(
        !m.summary.iter().any(|(n, _)| n.contains(".pool.")),
        "no named pool, no pool metrics"
    );
}

/// 10 calls a second into a database that never answers within the 100 ms timeout; each call
/// tries twice, 200 ms apart. The client's pool `p` wraps `wraps`, with `extra` settings.
fn retried_timeouts(wraps: &str, extra: &str) -> cascade::metrics::RunMetrics {
    run(&format!(
        r#"
[scenario]
name = "whole-loop"
duration = "30s"
warmup = "5s"

[[client]]
name = "c"
target = "db"
arrival = "constant"
rate = 10
policy = "p"

[[service]]
name = "db"
workers = 1000
work = "1s"

[policy.p]
timeout = "100ms"
retry = {{ attempts = 2, on = ["timeout"], backoff = "constant", base = "200ms", jitter = "none" }}
bulkhead = {{ pool = "p", wraps = "{wraps}"{extra} }}
"#
    ))
}

#[test]
fn a_permit_around_the_call_is_held_through_the_backoff() {
    // Per call: attempt 100 ms + backoff 200 ms + attempt 100 ms = 400 ms, so 10/s x 0.4 s = 4
    // permits held; per attempt only the two attempts' 200 ms: 2.
    let whole = metric(&retried_timeouts("call", ""), "client.c.pool.p.in_use_mean");
    assert!((whole - 4.0).abs() < 1e-6, "{whole}");
    let each = metric(
        &retried_timeouts("attempt", ""),
        "client.c.pool.p.in_use_mean",
    );
    assert!((each - 2.0).abs() < 1e-6, "{each}");
}

#[test]
fn a_connection_around_the_call_waits_for_the_last_attempts_work() {
    // With release = "answer" the call's permit comes back when its last job is gone: the
    // second attempt, sent at 300 ms, is worked on for 1 s, so 1.3 s a call: 13 held.
    let m = retried_timeouts("call", r#", release = "answer""#);
    let held = metric(&m, "client.c.pool.p.in_use_mean");
    assert!((held - 13.0).abs() < 1e-6, "{held}");
}

#[test]
fn a_full_whole_call_bulkhead_refuses_before_the_first_attempt() {
    // 4 permits wanted (above), 2 to have: half the calls are refused bulkhead_full and
    // never reach the database, whose calls then see one first try and one retry each.
    let m = retried_timeouts("call", ", max_concurrent = 2");
    let calls = metric(&m, "edge.c.db.calls");
    let refused = metric(&m, "edge.c.db.rejected_bulkhead");
    assert_eq!(metric(&m, "client.c.errors.bulkhead_full"), refused);
    assert!((refused / calls - 0.5).abs() < 0.01, "{refused} of {calls}");
    let attempts = metric(&m, "edge.c.db.attempts");
    assert!(
        ((calls - refused) * 2.0 - attempts).abs() <= 2.0,
        "{attempts}"
    );
    let held = metric(&m, "client.c.pool.p.in_use_mean");
    assert!((held - 2.0).abs() < 0.01, "{held}");
}

#[test]
fn a_pools_paths_must_agree_and_its_keys_are_checked() {
    use crate::bad_input::{Case, GOOD};
    let c = Case::new("bulkhead-scope");
    // Two of api's paths name pool `pg`, through policies that disagree on one setting.
    let shared = |first: &str, second: &str| {
        GOOD.replace(
            r#"calls = [ { to = "db", policy = "db-client" } ]"#,
            r#"calls = [ { to = "db", policy = "db-client" }, { to = "db", policy = "db-other" } ]"#,
        ) + &format!(
            "bulkhead = {{ pool = \"pg\"{first} }}\n\n[policy.db-other]\nbulkhead = {{ pool = \"pg\"{second} }}\n"
        )
    };
    c.rejects(
        &shared(", max_concurrent = 40", ", max_concurrent = 20"),
        &[
            "scenario.toml:29",
            "policy.db-other.bulkhead.max_concurrent",
            "service `api` shares pool `pg` between policies `db-client` and `db-other`",
        ],
    );
    c.rejects(
        &shared(r#", wraps = "call""#, ""),
        &["policy.db-other.bulkhead.wraps", "must agree"],
    );
    let with = |b: &str| GOOD.to_string() + &format!("bulkhead = {{ {b} }}\n");
    c.rejects(
        &with(r#"pool = "pg pool""#),
        &["policy.db-client.bulkhead.pool", "not a valid name"],
    );
    c.rejects(
        &with(r#"wraps = "retry""#),
        &["policy.db-client.bulkhead.wraps", "attempt", "call"],
    );
}

#[test]
fn waiting_for_a_whole_call_permit_counts_against_the_deadline() {
    // One connection, held 1 s by each query the database works on (release = "answer"),
    // while callers give up after 30 ms: every caller that waits reaches its deadline D first
    // (max_wait 1 s is longer), so the calls end deadline_exceeded, never bulkhead_full, and
    // about one query a second is sent: the one waiting when the connection comes back.
    let m = run(r#"
[scenario]
name = "wait-for-call-permit"
duration = "30s"
warmup = "5s"

[[client]]
name = "c"
target = "db"
arrival = "constant"
rate = 100
deadline = "30ms"
policy = "p"

[[service]]
name = "db"
workers = 1000
work = "1s"

[policy.p]
bulkhead = { max_concurrent = 1, queue = 5, max_wait = "1s", wraps = "call", release = "answer", pool = "p" }
"#);
    assert_eq!(metric(&m, "edge.c.db.rejected_bulkhead"), 0.0);
    assert_eq!(metric(&m, "client.c.errors.bulkhead_full"), 0.0);
    let calls = metric(&m, "edge.c.db.calls");
    let late = metric(&m, "client.c.errors.deadline_exceeded");
    assert!(late / calls > 0.98, "{late} of {calls}");
    let attempts = metric(&m, "edge.c.db.attempts");
    // 30 s measured after the warm-up, 100 calls a second: 3,000 calls, 30 queries.
    assert_eq!(calls, 3000.0);
    assert!((29.0..=31.0).contains(&attempts), "{attempts} in 30 s");
    let held = metric(&m, "client.c.pool.p.in_use_mean");
    assert!(held > 0.99, "the one connection is always out: {held}");
}
