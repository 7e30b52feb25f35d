//! Equivalence with the simulator: small scenario fixtures (`tests/replay_fixtures/`) run by
//! the simulator with its trace, and each call's inputs fed through the tower stack under
//! tokio's paused clock (`tests/replay_support/`); every call decides alike: attempts sent
//! and when, refusals and by which policy, hedges, retries and their waits, breaker
//! transitions, limit values and the outcome. Each fixture also shows that the comparison
//! fails when one decision differs.

mod replay_support;

use replay_support::*;

#[test]
fn a_retry_storm_held_by_a_ratio_budget() {
    let (path, _) = same_decisions("retry-storm.toml", "web.api", "storm");
    // The fixture does what it is for: some retries paid, most refused by the budget.
    assert!(path.count(|d| matches!(d, Decision::Retry { .. })) >= 3);
    assert!(path.count(|d| matches!(d, Decision::BudgetExhausted { .. })) >= 10);
}

#[test]
fn a_retry_storm_with_one_wait_changed_is_told_apart() {
    let diff = perturbed_differs("retry-storm.toml", "web.api", "storm", |calls| {
        let wait = (calls.iter_mut().flatten())
            .find_map(|d| match d {
                Decision::Retry { wait, .. } => Some(wait),
                _ => None,
            })
            .expect("a retry");
        *wait += 1_000_000;
    });
    assert!(diff.contains("Retry"), "{diff}");
}

/// The first decision of `calls` that `pick` selects, to change.
fn first(calls: &mut [Vec<Decision>], pick: impl Fn(&Decision) -> bool) -> &mut Decision {
    (calls.iter_mut().flatten())
        .find(|d| pick(d))
        .expect("a decision to change")
}

#[test]
fn a_breaker_trips_and_recovers() {
    let (path, _) = same_decisions("breaker.toml", "web.api", "trip");
    let changes: Vec<String> = (path.calls.iter().flat_map(|c| &c.decisions))
        .filter_map(|d| match d {
            Decision::Breaker { change, .. } => Some(change.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(changes, ["opened", "half_opened", "closed"]);
    assert!(
        path.count(|d| matches!(d, Decision::Refused { policy, .. } if policy == "breaker")) >= 3
    );
    assert_eq!(
        path.count(|d| matches!(d, Decision::HalfOpenProbe { .. })),
        2
    );
}

#[test]
fn a_breaker_refusal_named_for_another_policy_is_told_apart() {
    let diff = perturbed_differs("breaker.toml", "web.api", "trip", |calls| {
        if let Decision::Refused { policy, .. } =
            first(calls, |d| matches!(d, Decision::Refused { .. }))
        {
            *policy = "throttle".into();
        }
    });
    assert!(diff.contains("throttle"), "{diff}");
}

#[test]
fn an_aimd_limit_under_overload() {
    let (path, _) = same_decisions("aimd.toml", "web.api", "adaptive");
    assert!(
        path.count(|d| matches!(d, Decision::Refused { policy, .. } if policy == "limit")) >= 3
    );
    // Up while answers are quick, then down to its minimum.
    assert_eq!(
        path.count(|d| matches!(d, Decision::Limit { value: 6, .. })),
        1
    );
    assert_eq!(
        path.count(|d| matches!(d, Decision::Limit { value: 1, .. })),
        1
    );
}

#[test]
fn an_aimd_limit_one_off_is_told_apart() {
    let diff = perturbed_differs("aimd.toml", "web.api", "adaptive", |calls| {
        if let Decision::Limit { value, .. } = first(calls, |d| matches!(d, Decision::Limit { .. }))
        {
            *value += 1;
        }
    });
    assert!(diff.contains("Limit"), "{diff}");
}

#[test]
fn a_hedged_call() {
    let (path, _) = same_decisions("hedge.toml", "web.api", "hedged");
    // Every call sends one copy, 5 ms after its attempt.
    for call in &path.calls {
        let Decision::Attempt { at, .. } = call.decisions[0] else {
            panic!("{call:?}")
        };
        assert_eq!(call.decisions[1], Decision::Hedge { at: at + 5_000_000 });
    }
}

#[test]
fn a_hedge_left_out_is_told_apart() {
    let diff = perturbed_differs("hedge.toml", "web.api", "hedged", |calls| {
        let call = (calls.iter_mut())
            .find(|c| c.iter().any(|d| matches!(d, Decision::Hedge { .. })))
            .expect("a hedged call");
        call.retain(|d| !matches!(d, Decision::Hedge { .. }));
    });
    assert!(diff.contains("Hedge"), "{diff}");
}

#[test]
fn a_deadline_propagated_through_two_hops() {
    let (front, replayed) = same_decisions("two-hops.toml", "web.api", "front");
    let (back, _) = same_decisions("two-hops.toml", "api.db", "back");
    // What the tower stack of the first hop sends api (its `Deadline`, and the `grpc-timeout`
    // header a process boundary would carry) is the deadline the simulator's api passed on to
    // its call to db: the second hop's caller deadline, call by call.
    let sent: Vec<Option<u64>> = replayed.seen.iter().map(|s| s.deadline).collect();
    let received: Vec<Option<u64>> = back.calls.iter().map(|c| c.caller_deadline).collect();
    assert_eq!(sent, received);
    assert_eq!(sent.len(), front.calls.len());
    // Each attempt's 60 ms, in the header too (its unit is the encoder's choice).
    let header = replayed.seen[0].grpc_timeout.clone();
    assert!(header.is_some());
    assert!(replayed.seen.iter().all(|s| s.grpc_timeout == header));
    // The reserve and the deadline decide: retries, and calls cut at the deadline.
    assert!(back.count(|d| matches!(d, Decision::Retry { .. })) >= 3);
    assert!(
        back.count(
            |d| matches!(d, Decision::End { outcome, .. } if outcome == "deadline_exceeded")
        ) >= 3
    );
}

#[test]
fn a_deadline_missed_a_nanosecond_later_is_told_apart() {
    let diff = perturbed_differs("two-hops.toml", "api.db", "back", |calls| {
        if let Decision::End { at, .. } = first(
            calls,
            |d| matches!(d, Decision::End { outcome, .. } if outcome == "deadline_exceeded"),
        ) {
            *at += 1;
        }
    });
    assert!(diff.contains("deadline_exceeded"), "{diff}");
}

#[test]
fn a_full_bulkhead() {
    let (path, _) = same_decisions("bulkhead.toml", "web.api", "pool");
    // Refused when the 5 ms wait is over, never at once (a place in line was free).
    for call in &path.calls {
        if let [
            Decision::Refused { at, policy },
            Decision::End { outcome, .. },
        ] = &call.decisions[..]
        {
            assert_eq!(policy, "bulkhead");
            assert_eq!(*at, call.start + 5_000_000);
            assert_eq!(outcome, "bulkhead_full");
        }
    }
    assert!(path.count(|d| matches!(d, Decision::Refused { .. })) >= 3);
    // Some calls were handed a permit while they waited: sent after they started.
    assert!(
        path.calls
            .iter()
            .any(|c| matches!(c.decisions[0], Decision::Attempt { at, .. } if at > c.start))
    );
}

#[test]
fn a_bulkhead_refusal_a_millisecond_late_is_told_apart() {
    let diff = perturbed_differs("bulkhead.toml", "web.api", "pool", |calls| {
        if let Decision::Refused { at, .. } =
            first(calls, |d| matches!(d, Decision::Refused { .. }))
        {
            *at += 1_000_000;
        }
    });
    assert!(diff.contains("Refused"), "{diff}");
}
