//! Lints: settings that cannot do what they seem to, found in the model without running it
//! (docs/lints.md). Each lint has an id a scenario can allow (`[scenario] allow = [ids]`); a
//! finding names the field to change, and the scenario layer locates it in the file.
//!
//! The lints reason from what the model fixes in advance: timeouts and deadlines passed down
//! the call graph (`facts.rs`), the load each call path is offered at the clients' base or peak
//! rate with first attempts only (`facts.rs`), and medians and means of service time estimated
//! from the distributions (`estimate.rs`). They stay quiet where the model leaves the answer
//! open (a closed-loop client without think time, a call reached only by a fallback).

mod admission_rate;
mod estimate;
mod facts;
mod gates;
mod held;
mod load;
mod median;
mod pace;
mod sampled;
mod tail;
mod timing;

use crate::model::Model;
pub use gates::Gate;

/// One lint: its id (as `allow` names it) and what it finds, in a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lint {
    pub id: &'static str,
    pub summary: &'static str,
}

pub const RETRY_CANNOT_FIT: &str = "retry-cannot-fit";
pub const INVERTED_TIMEOUT: &str = "inverted-timeout";
pub const TIMEOUT_BELOW_MEDIAN: &str = "timeout-below-median";
pub const BREAKER_MIN_CALLS: &str = "breaker-min-calls";
pub const BUDGET_FLOOR: &str = "budget-floor";
pub const HEDGE_BELOW_MEDIAN: &str = "hedge-below-median";
pub const BULKHEAD_BELOW_LITTLE: &str = "bulkhead-below-little";
pub const SUB_MICROSECOND_THINK: &str = "sub-microsecond-think";
pub const AMPLIFICATION_BEHIND_BREAKER: &str = "amplification-behind-breaker";
pub const TIMEOUT_BELOW_P90: &str = "timeout-below-p90";
pub const HALF_OPEN_PROBES: &str = "half-open-probes";
pub const RATE_LIMIT_BELOW_OFFERED: &str = "rate-limit-below-offered";
pub const LIMIT_HOLDS_PAST_DEADLINE: &str = "limit-holds-past-deadline";
pub const ADMISSION_LIMIT_BELOW_OFFERED: &str = "admission-limit-below-offered";

/// Every lint, in the order docs/lints.md describes them.
pub const LINTS: [Lint; 14] = [
    Lint {
        id: RETRY_CANNOT_FIT,
        summary: "a retry whose backoff (after a timed-out attempt, plus its timeout) cannot fit \
                  in the time the call has, so later attempts never happen",
    },
    Lint {
        id: INVERTED_TIMEOUT,
        summary: "a call that does not take its caller's deadline and waits at least as long as \
                  its caller waits for it",
    },
    Lint {
        id: TIMEOUT_BELOW_MEDIAN,
        summary: "a timeout or deadline below the callee's median service time",
    },
    Lint {
        id: TIMEOUT_BELOW_P90,
        summary: "a per-try timeout below the 90th percentile of an attempt, so more than a \
                  tenth of attempts time out on a healthy day",
    },
    Lint {
        id: BREAKER_MIN_CALLS,
        summary: "a breaker whose min_calls exceeds what its window can hold at the offered load",
    },
    Lint {
        id: HALF_OPEN_PROBES,
        summary: "a breaker whose half-open probes the callee's healthy tail fails so often \
                  that a round of probes more likely re-opens it than closes it",
    },
    Lint {
        id: BUDGET_FLOOR,
        summary: "a retry budget whose per-second floor allows more retries than its ratio at \
                  the offered load",
    },
    Lint {
        id: HEDGE_BELOW_MEDIAN,
        summary: "a hedge delay below the callee's median, so most calls are hedged",
    },
    Lint {
        id: BULKHEAD_BELOW_LITTLE,
        summary: "a bulkhead smaller than Little's law gives at the offered load",
    },
    Lint {
        id: RATE_LIMIT_BELOW_OFFERED,
        summary: "a rate limit whose long-run rate is below the calls each caller instance is \
                  offered at the base rate, refusing the rest for good (no Retry-After, no \
                  retry)",
    },
    Lint {
        id: ADMISSION_LIMIT_BELOW_OFFERED,
        summary: "a service's rate limit below the rate offered to it, whose refusals no caller \
                  retries after the Retry-After",
    },
    Lint {
        id: LIMIT_HOLDS_PAST_DEADLINE,
        summary: "a service's rate limiter that holds a request longer than any caller waits \
                  for it, or whose line grows without bound at the offered rate",
    },
    Lint {
        id: SUB_MICROSECOND_THINK,
        summary: "a closed loop's think time (its mean) or pace above zero but under a \
                  microsecond, which no real user keeps",
    },
    Lint {
        id: AMPLIFICATION_BEHIND_BREAKER,
        summary: "an upper bound on an edge's amplification where the calls go through a \
                  breaker, whose refusals lower it in an outage",
    },
];

/// Whether `id` names a lint.
pub fn known(id: &str) -> bool {
    LINTS.iter().any(|l| l.id == id)
}

/// A setting a lint found: which lint, the field to change (`policy.api.timeout`) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub id: &'static str,
    pub field: String,
    pub message: String,
}

/// Every finding of every lint on `model` and the scenario's `gates`, in lint order, each once.
pub fn lint(model: &Model, gates: &[Gate]) -> Vec<Finding> {
    let facts = facts::Facts::of(model);
    let mut out = Vec::new();
    timing::retry_cannot_fit(&facts, &mut out);
    timing::inverted_timeout(&facts, &mut out);
    // Once for both median lints: a median without a closed form (a gamma's) is read from a
    // sample of 40,001 draws.
    let medians = estimate::Estimates::of(&facts, estimate::Stat::Median);
    median::timeout_below_median(&facts, &medians, &mut out);
    // Drawn only when a call has a timeout or a breaker: most scenarios pay nothing for it.
    let mut sampled = facts
        .sites
        .iter()
        .any(|s| {
            let p = &s.spec.policy;
            p.timeout().is_some()
                || p.retry().is_some_and(|r| r.timeout().is_some())
                || p.breaker().is_some()
        })
        .then(|| sampled::Sampled::of(&facts));
    if let Some(sampled) = sampled.as_mut() {
        tail::timeout_below_p90(&facts, sampled, &mut out);
    }
    load::breaker_min_calls(&facts, &mut out);
    if let Some(sampled) = sampled.as_mut() {
        tail::half_open_probes(&facts, sampled, &mut out);
    }
    load::budget_floor(&facts, &mut out);
    median::hedge_below_median(&facts, &medians, &mut out);
    load::bulkhead_below_little(&facts, &mut out);
    load::rate_limit_below_offered(&facts, &mut out);
    admission_rate::admission_limit_below_offered(&facts, &mut out);
    held::limit_holds_past_deadline(&facts, &mut out);
    pace::sub_microsecond_think(&facts, &mut out);
    gates::amplification_behind_breaker(&facts, gates, &mut out);
    let mut seen = Vec::new();
    out.retain(|f| {
        let fresh = !seen.contains(f);
        if fresh {
            seen.push(f.clone());
        }
        fresh
    });
    out
}

/// The `retry-cannot-fit` findings of `model` alone: `cascade tune` prunes the candidates that
/// have one (a retry whose later attempts never start is a setting with fewer attempts, run
/// again), with the very rule that warns about it.
pub fn retry_cannot_fit(model: &Model) -> Vec<Finding> {
    let mut out = Vec::new();
    timing::retry_cannot_fit(&facts::Facts::of(model), &mut out);
    out
}

/// A duration in ns for a message: `150ms`, `1.6s`.
fn dur(ns: u64) -> String {
    crate::time::format_duration(ns)
}

/// An estimated duration in ns for a message, rounded to the nanosecond.
fn dur_f(ns: f64) -> String {
    dur(ns.max(0.0).round() as u64)
}

/// A rate of calls for a message: `40.0 calls/s`, `2.50 calls/s`.
fn per_s(rate: f64) -> String {
    format!("{} calls/s", crate::number::sig3(rate))
}
