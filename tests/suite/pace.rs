//! Paced closed-loop users (`pace` on a closed-loop client): each user starts its next request
//! at max(previous start + pace, previous end), a serial client on a fixed schedule.

use crate::support::*;

fn scenario(users: u32, wait: &str, work: &str, duration: &str) -> String {
    format!(
        r#"
[scenario]
name = "paced"
duration = "{duration}"
seed = 3

[[client]]
name = "web"
target = "api"
arrival = "closed"
users = {users}
{wait}

[[service]]
name = "api"
workers = {users}
work = {work}
"#
    )
}

#[test]
fn with_fast_answers_each_user_sends_exactly_duration_over_pace_requests() {
    // 3 users, 300 ms answers, a request every second for 10 s: starts at 0, 1, …, 9 s, ten
    // per user, three in each 1 s bucket.
    let m = run(&scenario(3, r#"pace = "1s""#, r#""300ms""#, "10s"));
    assert_eq!(metric(&m, "client.web.requests"), 30.0);
    assert_eq!(metric(&m, "client.web.success"), 30.0);
    let per_bucket = m.series_of("client.web.requests").unwrap();
    assert_eq!(per_bucket, vec![3.0; 10]);
    // A think of the same second waits after the answer instead (and before the first
    // request): every 1.3 s, at 1, 2.3, …, 8.8 s, seven per user.
    let thinking = run(&scenario(3, r#"think = "1s""#, r#""300ms""#, "10s"));
    assert_eq!(metric(&thinking, "client.web.requests"), 21.0);
}

#[test]
fn with_answers_slower_than_the_pace_the_next_request_starts_at_the_previous_end() {
    // One user, answers of 1.5 s, a pace of 1 s: back to back, at 0, 1.5, …, 9 s: seven
    // requests in 10 s, the last still in flight at the end.
    let m = run(&scenario(1, r#"pace = "1s""#, r#""1500ms""#, "10s"));
    assert_eq!(metric(&m, "client.web.requests"), 7.0);
    assert_eq!(metric(&m, "client.web.success"), 6.0);
    assert_eq!(metric(&m, "client.web.in_flight_end"), 1.0);
}

#[test]
fn every_start_is_the_later_of_the_previous_start_plus_pace_and_the_previous_end() {
    // Answers uniform in [0.5 s, 1.5 s) around a pace of 1 s: about half the requests end
    // before the pace comes round and half after. The trace gives every start (the client's
    // `arrival` rows) and every end (its call's `call_end`); each next start must be exactly
    // max(start + pace, end), in nanoseconds.
    let dir = scratch("pace-trace");
    let work = r#"{ dist = "uniform", min = "500ms", max = "1500ms" }"#;
    let rows = traced_rows(&dir, &scenario(1, r#"pace = "1s""#, work, "60s"));
    let times = |entity: &str, event: &str| -> Vec<u64> {
        rows.iter()
            .filter(|r| r[3] == entity && r[4] == event)
            .map(|r| r[0].parse().unwrap())
            .collect()
    };
    let starts = times("client.web", "arrival");
    let ends = times("edge.web.api", "call_end");
    const PACE: u64 = 1_000_000_000;
    assert_eq!(starts[0], 0);
    assert!(starts.len() > 40, "{} requests", starts.len());
    let (mut on_pace, mut on_end) = (0, 0);
    for k in 0..starts.len() - 1 {
        let want = (starts[k] + PACE).max(ends[k]);
        assert_eq!(starts[k + 1], want, "request {k}");
        if ends[k] < starts[k] + PACE {
            on_pace += 1;
        } else {
            on_end += 1;
        }
    }
    assert!(
        on_pace > 10 && on_end > 10,
        "{on_pace} on pace, {on_end} at the end"
    );
}
