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
