//! Replaying a simulated run through the tower stack. The simulator (the `cascade` crate) runs
//! a scenario fixture with `--trace`'s rows; each call path's calls are read back from them
//! with their inputs (start, the caller's deadline, each attempt's answer: its latency,
//! outcome and Retry-After, and the seed of the path's random streams) and their decisions
//! (attempts sent and when, hedges, refusals and by which policy, retries and their waits,
//! budget refusals, breaker changes, half-open probes, limit values, the outcome). The same
//! inputs then go through a `CascadeLayer` built from the fixture's `[policy.NAME]` table, on
//! tokio's paused clock, its events gathered per call; `differences` compares the two lists
//! call by call.
//!
//! Tolerance: none on the decisions or their instants (ns), given fixtures whose times fall on
//! whole milliseconds (constant arrivals and work, no network latency, no jitter): tokio's
//! timers wake on the millisecond, and an answer's instant is read from the clock when it
//! comes. Two calls of one path starting at the same instant are started in trace order, which
//! the fixtures avoid relying on.

#![allow(dead_code)] // each test uses its own part

mod replayed;
mod trace;

pub use replayed::*;
pub use trace::*;

/// One decision of a call, at its instant (ns since the run's start), as both sides name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Attempt `n` (from 1) sent.
    Attempt {
        at: u64,
        n: u32,
    },
    Hedge {
        at: u64,
    },
    Refused {
        at: u64,
        policy: String,
    },
    Retry {
        at: u64,
        wait: u64,
    },
    BudgetExhausted {
        at: u64,
    },
    HedgeBudgetExhausted {
        at: u64,
    },
    Breaker {
        at: u64,
        change: String,
    },
    HalfOpenProbe {
        at: u64,
    },
    Limit {
        at: u64,
        value: u32,
    },
    End {
        at: u64,
        outcome: String,
    },
}

pub fn at(d: &Decision) -> u64 {
    match *d {
        Decision::Attempt { at, .. }
        | Decision::Hedge { at }
        | Decision::Refused { at, .. }
        | Decision::Retry { at, .. }
        | Decision::BudgetExhausted { at }
        | Decision::HedgeBudgetExhausted { at }
        | Decision::Breaker { at, .. }
        | Decision::HalfOpenProbe { at }
        | Decision::Limit { at, .. }
        | Decision::End { at, .. } => at,
    }
}

/// Where the two lists part, call by call: `None` when every call decided alike.
pub fn differences(
    path: &SimPath,
    expected: &[Vec<Decision>],
    actual: &[Vec<Decision>],
) -> Option<String> {
    if expected.len() != actual.len() {
        return Some(format!(
            "{} calls simulated, {} replayed",
            expected.len(),
            actual.len()
        ));
    }
    for (k, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            let at = e
                .iter()
                .zip(a)
                .position(|(x, y)| x != y)
                .unwrap_or(e.len().min(a.len()));
            return Some(format!(
                "call {k} ({}, started at {} ns) parts at decision {at}:\n  simulator: {e:?}\n  tower:     {a:?}",
                path.calls[k].id, path.calls[k].start
            ));
        }
    }
    None
}

/// Simulates `fixture`, replays the path on `edge` through the stack of `[policy.<policy>]`
/// and asserts the same decisions, call by call; returns both for further checks.
pub fn same_decisions(fixture: &str, edge: &str, policy: &str) -> (SimPath, Replayed) {
    let run = simulate(fixture);
    let path = run.path(edge);
    let replayed = replay(&path, &run.table(policy));
    let expected = path.before_end(path.decisions());
    if let Some(d) = differences(&path, &expected, &replayed.decisions) {
        panic!("{fixture}, {}: {d}", path.name);
    }
    (path, replayed)
}

/// The replay of `fixture` compared with its run with one decision changed by `perturb`:
/// the comparison must find the difference.
pub fn perturbed_differs(
    fixture: &str,
    edge: &str,
    policy: &str,
    perturb: impl Fn(&mut Vec<Vec<Decision>>),
) -> String {
    let run = simulate(fixture);
    let path = run.path(edge);
    let replayed = replay(&path, &run.table(policy));
    let mut expected = path.before_end(path.decisions());
    assert_eq!(differences(&path, &expected, &replayed.decisions), None);
    perturb(&mut expected);
    differences(&path, &expected, &replayed.decisions).expect("the changed decision is told apart")
}
