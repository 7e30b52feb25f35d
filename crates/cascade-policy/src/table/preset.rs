//! `preset = "LIBRARY"` on a policy or on one of its parts: that library's defaults, for the
//! version named, filled into the keys the table leaves out. The table's own keys win; a
//! part's own `preset` wins over its policy's. A preset fills the values of the parts that
//! are written and never adds one (a policy-level preset on a policy without `breaker` adds no
//! breaker, nor a `timeout`). Each library's defaults are values of the table types
//! (`parts`, `budget`) and, beside them, the same parts as the policy language writes them
//! (`PresetDef::parts`), which `cascade presets` prints; tests hold the two equal. Sources:
//! the libraries' files named in each entry, as docs/policies.md §13 of cascade cites them.

use super::budget::kind_name;
use super::duration::Dur;
use super::error::{Checked, TableError};
use super::raw::{
    BackoffKind, BudgetKind, JitterKind, RawBudget, RawBudgetTable, RawPolicy, RawRetry,
};
use super::raw_parts::{RawBreaker, RawBulkhead, RawHedge, RawThrottle, RawWindow};
use std::borrow::Cow;

/// The libraries a preset can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Preset {
    Resilience4j,
    Envoy,
    Grpc,
    Polly,
    Finagle,
    AwsSdkStandard,
    Tower,
}

/// One library's defaults, as `cascade presets` describes them.
pub struct PresetDef {
    pub preset: Preset,
    pub name: &'static str,
    /// The library version (or snapshot) the values were read from.
    pub version: &'static str,
    /// The files and documents they come from.
    pub source: &'static str,
    /// The parts it fills, as the policy language writes them (`retry`, `breaker`, ...): the
    /// text of `parts(preset)`.
    pub parts: &'static str,
    /// A `retry.budget` table written with this preset (or under a retry or policy that has
    /// it) is filled from this (the library's budget when one is configured): the text of
    /// `budget(preset)`.
    pub budget: Option<&'static str>,
    /// `retry.max` as a multiple of the resolved `base` (Envoy: 10 × base_interval).
    pub max_times_base: Option<u64>,
    /// What the library defines that a preset does not fill, and why.
    pub not_filled: &'static str,
}

pub const PRESETS: [PresetDef; 7] = [
    PresetDef {
        preset: Preset::Resilience4j,
        name: "resilience4j",
        version: "2.x (resilience4j/resilience4j @ af9e7c97, 2026-05-05)",
        source: "RetryConfig.java, IntervalFunction.java (multiplier 1.5, randomization 0.5), CircuitBreakerConfig.java, BulkheadConfig.java",
        parts: concat!(
            "retry = { attempts = 3, backoff = \"constant\", base = \"500ms\", jitter = \"none\", multiplier = 1.5, jitter_factor = 0.5, retry_after = false, on = ",
            r#"["timeout", "unavailable", "overloaded", "internal", "refused"]"#,
            " }\n",
            "breaker = { window = 100, min_calls = 100, failure_rate = 0.5, slow_call_rate = 1.0, slow_call_duration = \"60s\", open = \"60s\", half_open_calls = 10 }\n",
            "bulkhead = { max_concurrent = 25, queue = 0, max_wait = \"0\" }\n",
        ),
        budget: None,
        max_times_base: None,
        not_filled: "TimeLimiter timeoutDuration 1s (write `timeout = \"1s\"`: a preset adds no timeout); the half-open rule differs (docs/policies.md §13)",
    },
    PresetDef {
        preset: Preset::Envoy,
        name: "envoy",
        version: "v3 API (envoyproxy/envoy source files)",
        source: "route_components.proto (num_retries 1), backoff_strategy.cc (25 ms, 10 × base, full jitter), circuit_breaker.proto (max_requests 1024, max_retries 3, retry_budget 20 % / 3), admission_control.proto (sr_threshold 95 %, sampling_window 30s)",
        parts: concat!(
            "retry = { retries = 1, backoff = \"exponential\", multiplier = 2.0, base = \"25ms\", jitter = \"full\", retry_after = false, budget = { kind = \"concurrency\", percent = 0, min = 3 } }\n",
            "bulkhead = { max_concurrent = 1024 }\n",
            "throttle = { k = 1.0526315789473684, window = \"30s\" }\n",
        ),
        budget: Some("{ kind = \"concurrency\", percent = 20, min = 3 }"),
        max_times_base: Some(10),
        not_filled: "route timeout 15s (write `total_timeout = \"15s\"`: a preset adds no timeout); retry_on (without it Envoy retries nothing: write `on`); the filled budget is max_retries 3, a written budget table is retry_budget's 20 % / 3",
    },
    PresetDef {
        preset: Preset::Grpc,
        name: "grpc",
        version: "gRFC A6 (grpc/proposal @ 1fd061ad; jitter text since 2024-08-29)",
        source: "A6-client-retries.md: exponential backoff ×U(0.8, 1.2), pushback honoured, hedgingDelay 0s",
        parts: concat!(
            "retry = { backoff = \"exponential\", jitter = \"proportional\", jitter_factor = 0.2, retry_after = true }\n",
            "hedge = { delay = \"0\" }\n",
        ),
        budget: None,
        max_times_base: None,
        not_filled: "maxAttempts, backoffs and retryableStatusCodes are required in gRPC (no defaults); retryThrottling has none either; no default deadline",
    },
    PresetDef {
        preset: Preset::Polly,
        name: "polly",
        version: "v8 (App-vNext/Polly @ 173d6d1d, 2026-08)",
        source: "RetryConstants.cs (MaxRetryAttempts 3, Delay 2s, Constant, no jitter), CircuitBreakerConstants.cs (0.1, 100, 30s, 5s, one probe), hedging (MaxHedgedAttempts 1, Delay 2s), the RateLimiter strategy's ConcurrencyLimiter (1000 permits, queue 0)",
        parts: concat!(
            "retry = { retries = 3, backoff = \"constant\", base = \"2s\", jitter = \"none\", multiplier = 2.0, jitter_factor = 0.25, retry_after = false, on = ",
            r#"["timeout", "unavailable", "overloaded", "internal", "refused"]"#,
            " }\n",
            "breaker = { failure_rate = 0.1, min_calls = 100, window = \"30s\", open = \"5s\", half_open_calls = 1 }\n",
            "hedge = { delay = \"2s\", max = 1 }\n",
            "bulkhead = { max_concurrent = 1000, queue = 0, max_wait = \"0\" }\n",
        ),
        budget: None,
        max_times_base: None,
        not_filled: "Timeout strategy 30s (write `timeout = \"30s\"` inside the retries or `total_timeout = \"30s\"` outside them: a preset adds no timeout); MaxDelay none (cascade's `max` stays 10s); UseJitter with exponential (decorrelated V2) is not simulated",
    },
    PresetDef {
        preset: Preset::Finagle,
        name: "finagle",
        version: "twitter/finagle @ 4feb34cb (2024-10)",
        source: "RetryBudget.scala (DefaultTtl 10s, DefaultMinRetriesPerSec 10, percentCanRetry 0.2)",
        parts: "retry = { budget = { kind = \"ratio\", ratio = 0.2, min_per_s = 10, window = \"10s\" } }\n",
        budget: Some("{ kind = \"ratio\", ratio = 0.2, min_per_s = 10, window = \"10s\" }"),
        max_times_base: None,
        not_filled: "RequeueFilter (requeues without backoff) is not simulated",
    },
    PresetDef {
        preset: Preset::AwsSdkStandard,
        name: "aws-sdk-standard",
        version: "botocore standard retry mode, classic (boto/botocore @ 0e6e2404, 2026-08-07)",
        source: "retries/standard.py (max_attempts 3, rand × min(2^(k−1) × 1s, 20s), transient and throttling errors)",
        parts: "retry = { attempts = 3, backoff = \"exponential\", multiplier = 2.0, base = \"1s\", max = \"20s\", jitter = \"full\", retry_after = false, on = [\"internal\", \"unavailable\", \"timeout\", \"refused\", \"overloaded\"] }\n",
        budget: None,
        max_times_base: None,
        not_filled: "the retry quota (capacity 500, cost 5 / 10) has no exact equivalent (docs/policies.md §13); read timeout 60s (write `timeout`: a preset adds no timeout)",
    },
    PresetDef {
        preset: Preset::Tower,
        name: "tower",
        version: "tower-rs/tower @ 8358ee71 (2026-02-12)",
        source: "retry/budget/tps_budget.rs (TpsBudget::default: 10s, 10 per second, 0.2), hedge/mod.rs (one hedge at most)",
        parts: concat!(
            "retry = { budget = { kind = \"ratio\", ratio = 0.2, min_per_s = 10, window = \"10s\" } }\n",
            "hedge = { max = 1 }\n",
        ),
        budget: Some("{ kind = \"ratio\", ratio = 0.2, min_per_s = 10, window = \"10s\" }"),
        max_times_base: None,
        not_filled: "ExponentialBackoff has no defaults and adds jitter on top (not expressible); Hedge's latency percentile and period have no defaults",
    },
];

pub fn def(preset: Preset) -> &'static PresetDef {
    PRESETS
        .iter()
        .find(|d| d.preset == preset)
        .expect("every preset has an entry")
}

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn names(kinds: &[&str]) -> Option<Vec<String>> {
    Some(kinds.iter().map(|k| k.to_string()).collect())
}

/// resilience4j's and Polly's retry `on`: every failure of the callee's.
const CALLEE_FAILURES: [&str; 5] = [
    "timeout",
    "unavailable",
    "overloaded",
    "internal",
    "refused",
];

/// Finagle's `RetryBudget` defaults, which tower's `TpsBudget` shares.
fn finagle_budget() -> RawBudgetTable {
    RawBudgetTable {
        kind: Some(BudgetKind::Ratio),
        ratio: Some(0.2),
        min_per_s: Some(10.0),
        window: Some(Dur(10 * S)),
        ..RawBudgetTable::default()
    }
}

/// A preset's parts as a table (`PresetDef::parts` writes the same).
pub fn parts(preset: Preset) -> RawPolicy {
    match preset {
        Preset::Resilience4j => RawPolicy {
            retry: Some(RawRetry {
                attempts: Some(3),
                backoff: Some(BackoffKind::Constant),
                base: Some(Dur(500 * MS)),
                jitter: Some(JitterKind::None),
                multiplier: Some(1.5),
                jitter_factor: Some(0.5),
                retry_after: Some(false),
                on: names(&CALLEE_FAILURES),
                ..RawRetry::default()
            }),
            breaker: Some(RawBreaker {
                window: Some(RawWindow::Calls(100)),
                min_calls: Some(100),
                failure_rate: Some(0.5),
                slow_call_rate: Some(1.0),
                slow_call_duration: Some(Dur(60 * S)),
                open: Some(Dur(60 * S)),
                half_open_calls: Some(10),
                ..RawBreaker::default()
            }),
            bulkhead: Some(RawBulkhead {
                max_concurrent: Some(25),
                queue: Some(0),
                max_wait: Some(Dur(0)),
                ..RawBulkhead::default()
            }),
            ..RawPolicy::default()
        },
        Preset::Envoy => RawPolicy {
            retry: Some(RawRetry {
                retries: Some(1),
                backoff: Some(BackoffKind::Exponential),
                multiplier: Some(2.0),
                base: Some(Dur(25 * MS)),
                jitter: Some(JitterKind::Full),
                retry_after: Some(false),
                budget: Some(RawBudget::Table(RawBudgetTable {
                    kind: Some(BudgetKind::Concurrency),
                    percent: Some(0.0),
                    min: Some(3),
                    ..RawBudgetTable::default()
                })),
                ..RawRetry::default()
            }),
            bulkhead: Some(RawBulkhead {
                max_concurrent: Some(1024),
                ..RawBulkhead::default()
            }),
            throttle: Some(RawThrottle {
                k: Some(1.0526315789473684),
                window: Some(Dur(30 * S)),
                ..RawThrottle::default()
            }),
            ..RawPolicy::default()
        },
        Preset::Grpc => RawPolicy {
            retry: Some(RawRetry {
                backoff: Some(BackoffKind::Exponential),
                jitter: Some(JitterKind::Proportional),
                jitter_factor: Some(0.2),
                retry_after: Some(true),
                ..RawRetry::default()
            }),
            hedge: Some(RawHedge {
                delay: Some("0".to_string()),
                ..RawHedge::default()
            }),
            ..RawPolicy::default()
        },
        Preset::Polly => RawPolicy {
            retry: Some(RawRetry {
                retries: Some(3),
                backoff: Some(BackoffKind::Constant),
                base: Some(Dur(2 * S)),
                jitter: Some(JitterKind::None),
                multiplier: Some(2.0),
                jitter_factor: Some(0.25),
                retry_after: Some(false),
                on: names(&CALLEE_FAILURES),
                ..RawRetry::default()
            }),
            breaker: Some(RawBreaker {
                failure_rate: Some(0.1),
                min_calls: Some(100),
                window: Some(RawWindow::Time("30s".to_string())),
                open: Some(Dur(5 * S)),
                half_open_calls: Some(1),
                ..RawBreaker::default()
            }),
            hedge: Some(RawHedge {
                delay: Some("2s".to_string()),
                max: Some(1),
                ..RawHedge::default()
            }),
            bulkhead: Some(RawBulkhead {
                max_concurrent: Some(1000),
                queue: Some(0),
                max_wait: Some(Dur(0)),
                ..RawBulkhead::default()
            }),
            ..RawPolicy::default()
        },
        Preset::Finagle => RawPolicy {
            retry: Some(RawRetry {
                budget: Some(RawBudget::Table(finagle_budget())),
                ..RawRetry::default()
            }),
            ..RawPolicy::default()
        },
        Preset::AwsSdkStandard => RawPolicy {
            retry: Some(RawRetry {
                attempts: Some(3),
                backoff: Some(BackoffKind::Exponential),
                multiplier: Some(2.0),
                base: Some(Dur(S)),
                max: Some(Dur(20 * S)),
                jitter: Some(JitterKind::Full),
                retry_after: Some(false),
                on: names(&[
                    "internal",
                    "unavailable",
                    "timeout",
                    "refused",
                    "overloaded",
                ]),
                ..RawRetry::default()
            }),
            ..RawPolicy::default()
        },
        Preset::Tower => RawPolicy {
            retry: Some(RawRetry {
                budget: Some(RawBudget::Table(finagle_budget())),
                ..RawRetry::default()
            }),
            hedge: Some(RawHedge {
                max: Some(1),
                ..RawHedge::default()
            }),
            ..RawPolicy::default()
        },
    }
}

/// The budget table a preset fills a written `retry.budget` table from (`PresetDef::budget`
/// writes the same).
pub fn budget(preset: Preset) -> Option<RawBudgetTable> {
    match preset {
        Preset::Envoy => Some(RawBudgetTable {
            kind: Some(BudgetKind::Concurrency),
            percent: Some(20.0),
            min: Some(3),
            ..RawBudgetTable::default()
        }),
        Preset::Finagle | Preset::Tower => Some(finagle_budget()),
        _ => None,
    }
}

/// The table with its presets applied; borrowed as is when it names none (no cost). Errors
/// name the `preset` key relative to the policy table.
pub fn apply(p: &RawPolicy) -> Checked<Cow<'_, RawPolicy>> {
    if !names_a_preset(p) {
        return Ok(Cow::Borrowed(p));
    }
    let mut out = p.clone();
    let outer = p.preset;
    if let Some(r) = &mut out.retry {
        let chosen = r.preset.or(outer);
        if let Some(pr) = chosen {
            match parts(pr).retry {
                Some(d) => fill_retry(r, &d, def(pr).max_times_base),
                None if r.preset.is_some() => {
                    return Err(no_defaults("retry.preset", pr, "retry"));
                }
                None => {}
            }
        }
        if let Some(RawBudget::Table(t)) = &mut r.budget
            && let Some(pr) = t.preset.or(chosen)
        {
            let explicit = t.preset.is_some();
            match budget(pr) {
                Some(d) => fill_budget("retry.budget.preset", t, &d, pr, explicit)?,
                None if explicit => {
                    return Err(no_defaults("retry.budget.preset", pr, "budget"));
                }
                None => {}
            }
        }
    }
    macro_rules! part {
        ($field:ident, $fill:ident) => {
            if let Some(part) = &mut out.$field
                && let Some(pr) = part.preset.or(outer)
            {
                match parts(pr).$field {
                    Some(d) => $fill(part, &d),
                    None if part.preset.is_some() => {
                        return Err(no_defaults(
                            concat!(stringify!($field), ".preset"),
                            pr,
                            stringify!($field),
                        ));
                    }
                    None => {}
                }
            }
        };
    }
    part!(breaker, fill_breaker);
    part!(bulkhead, fill_bulkhead);
    part!(throttle, fill_throttle);
    part!(hedge, fill_hedge);
    Ok(Cow::Owned(out))
}

fn names_a_preset(p: &RawPolicy) -> bool {
    p.preset.is_some()
        || p.retry.as_ref().is_some_and(|r| {
            r.preset.is_some()
                || matches!(&r.budget, Some(RawBudget::Table(t)) if t.preset.is_some())
        })
        || p.breaker.as_ref().is_some_and(|b| b.preset.is_some())
        || p.bulkhead.as_ref().is_some_and(|b| b.preset.is_some())
        || p.throttle.as_ref().is_some_and(|t| t.preset.is_some())
        || p.hedge.as_ref().is_some_and(|h| h.preset.is_some())
}

fn no_defaults(at: &str, pr: Preset, part: &str) -> TableError {
    let have: Vec<&str> = PRESETS
        .iter()
        .filter(|d| {
            if part == "budget" {
                d.budget.is_some()
            } else {
                let p = parts(d.preset);
                match part {
                    "retry" => p.retry.is_some(),
                    "breaker" => p.breaker.is_some(),
                    "bulkhead" => p.bulkhead.is_some(),
                    "throttle" => p.throttle.is_some(),
                    _ => p.hedge.is_some(),
                }
            }
        })
        .map(|d| d.name)
        .collect();
    TableError::at(
        at,
        format!(
            "{} defines no defaults for `{part}`; presets that do: {}",
            def(pr).name,
            have.join(", ")
        ),
    )
}

fn fill<T: Clone>(dst: &mut Option<T>, src: &Option<T>) {
    if dst.is_none() {
        dst.clone_from(src);
    }
}

fn fill_retry(r: &mut RawRetry, d: &RawRetry, max_times_base: Option<u64>) {
    // `attempts` and `retries` say one thing two ways: the scenario's either one stands.
    if r.attempts.is_none() && r.retries.is_none() {
        fill(&mut r.attempts, &d.attempts);
        fill(&mut r.retries, &d.retries);
    }
    fill(&mut r.on, &d.on);
    fill(&mut r.backoff, &d.backoff);
    fill(&mut r.base, &d.base);
    if r.max.is_none() {
        r.max = match (max_times_base, r.base) {
            (Some(k), Some(base)) => Some(Dur(base.0.saturating_mul(k))),
            _ => d.max,
        };
    }
    fill(&mut r.jitter, &d.jitter);
    // The library's multiplier and jitter factor apply only where the resolved schedule uses
    // them (cascade refuses them elsewhere).
    let exponential = r.backoff.unwrap_or(BackoffKind::Exponential) == BackoffKind::Exponential;
    if exponential && r.jitter != Some(JitterKind::Decorrelated) {
        fill(&mut r.multiplier, &d.multiplier);
    }
    if r.jitter == Some(JitterKind::Proportional) {
        fill(&mut r.jitter_factor, &d.jitter_factor);
    }
    // `retry_after_wait` written says a Retry-After is honoured: keep the preset's `false` out.
    if r.retry_after_wait.is_none() {
        fill(&mut r.retry_after, &d.retry_after);
    }
    if r.retry_after != Some(false) {
        fill(&mut r.retry_after_wait, &d.retry_after_wait);
    }
    fill(&mut r.budget, &d.budget);
    fill(&mut r.timeout, &d.timeout);
}

/// Fills a budget table of the preset's kind; one of another kind is refused when the
/// preset is its own (`explicit`) and left alone when it comes from the retry or the policy.
fn fill_budget(
    at: &str,
    t: &mut RawBudgetTable,
    d: &RawBudgetTable,
    pr: Preset,
    explicit: bool,
) -> Checked<()> {
    let kind = d.kind.unwrap_or_default();
    match t.kind {
        Some(k) if k != kind && !explicit => return Ok(()),
        Some(k) if k != kind => {
            return Err(TableError::at(
                at,
                format!(
                    "{}'s budget is kind `{}`, this one another: leave `kind` out or the preset",
                    def(pr).name,
                    kind_name(kind)
                ),
            ));
        }
        _ => t.kind = Some(kind),
    }
    fill(&mut t.ratio, &d.ratio);
    fill(&mut t.min_per_s, &d.min_per_s);
    fill(&mut t.window, &d.window);
    fill(&mut t.max_tokens, &d.max_tokens);
    fill(&mut t.token_ratio, &d.token_ratio);
    fill(&mut t.earn_on, &d.earn_on);
    fill(&mut t.percent, &d.percent);
    fill(&mut t.min, &d.min);
    Ok(())
}

fn fill_breaker(b: &mut RawBreaker, d: &RawBreaker) {
    fill(&mut b.window, &d.window);
    fill(&mut b.min_calls, &d.min_calls);
    fill(&mut b.failure_rate, &d.failure_rate);
    fill(&mut b.slow_call_rate, &d.slow_call_rate);
    fill(&mut b.slow_call_duration, &d.slow_call_duration);
    fill(&mut b.consecutive_failures, &d.consecutive_failures);
    fill(&mut b.open, &d.open);
    fill(&mut b.open_multiplier, &d.open_multiplier);
    fill(&mut b.open_max, &d.open_max);
    fill(&mut b.half_open_calls, &d.half_open_calls);
    fill(&mut b.count, &d.count);
    fill(&mut b.wraps, &d.wraps);
    fill(&mut b.scope, &d.scope);
    fill(&mut b.retries_only, &d.retries_only);
}

fn fill_bulkhead(b: &mut RawBulkhead, d: &RawBulkhead) {
    fill(&mut b.max_concurrent, &d.max_concurrent);
    // A queue and its wait go together: the scenario's own either one keeps the preset's pair out.
    if b.queue.is_none() && b.max_wait.is_none() {
        fill(&mut b.queue, &d.queue);
        fill(&mut b.max_wait, &d.max_wait);
    }
    fill(&mut b.release, &d.release);
}

fn fill_throttle(t: &mut RawThrottle, d: &RawThrottle) {
    fill(&mut t.k, &d.k);
    fill(&mut t.window, &d.window);
}

fn fill_hedge(h: &mut RawHedge, d: &RawHedge) {
    fill(&mut h.delay, &d.delay);
    fill(&mut h.max, &d.max);
    fill(&mut h.budget, &d.budget);
    fill(&mut h.uses_retry_budget, &d.uses_retry_budget);
    fill(&mut h.min_samples, &d.min_samples);
    fill(&mut h.period, &d.period);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::PolicyConfig;

    /// Every part a preset can fill, written empty, under the policy-level `preset`.
    fn every_part_under(preset: Preset) -> RawPolicy {
        RawPolicy {
            preset: Some(preset),
            retry: Some(RawRetry::default()),
            breaker: Some(RawBreaker::default()),
            bulkhead: Some(RawBulkhead::default()),
            throttle: Some(RawThrottle::default()),
            hedge: Some(RawHedge::default()),
            ..RawPolicy::default()
        }
    }

    #[test]
    fn every_preset_names_no_preset_itself() {
        for d in &PRESETS {
            assert!(!names_a_preset(&parts(d.preset)), "{}", d.name);
            assert_eq!(budget(d.preset).is_some(), d.budget.is_some(), "{}", d.name);
            assert!(budget(d.preset).is_none_or(|b| b.preset.is_none()));
        }
    }

    #[test]
    fn a_preset_fills_empty_parts_with_its_values_and_they_compile() {
        for d in &PRESETS {
            let filled = apply(&every_part_under(d.preset)).unwrap().into_owned();
            let values = parts(d.preset);
            // What the retry gets: the preset's keys, less a multiplier or jitter factor its
            // own schedule does not use, and Envoy's `max` from the resolved `base`.
            let mut retry = values.retry.clone().unwrap_or_default();
            if retry.backoff.unwrap_or(BackoffKind::Exponential) != BackoffKind::Exponential
                || retry.jitter == Some(JitterKind::Decorrelated)
            {
                retry.multiplier = None;
            }
            if retry.jitter != Some(JitterKind::Proportional) {
                retry.jitter_factor = None;
            }
            if let (Some(k), Some(base)) = (d.max_times_base, retry.base) {
                retry.max = Some(Dur(base.0 * k));
            }
            assert_eq!(filled.retry, Some(retry), "{}", d.name);
            assert_eq!(
                filled.breaker,
                Some(values.breaker.clone().unwrap_or_default())
            );
            assert_eq!(
                filled.bulkhead,
                Some(values.bulkhead.clone().unwrap_or_default())
            );
            assert_eq!(
                filled.throttle,
                Some(values.throttle.clone().unwrap_or_default())
            );
            assert_eq!(filled.hedge, Some(values.hedge.clone().unwrap_or_default()));
            // Filled, every part compiles (a hedge without the preset's delay is given one).
            let mut filled = filled;
            if let Some(h) = &mut filled.hedge {
                h.delay.get_or_insert_with(|| "10ms".to_string());
            }
            PolicyConfig::new(&filled).unwrap_or_else(|e| panic!("{}: {e}", d.name));
        }
    }

    #[test]
    fn a_part_naming_a_preset_without_its_defaults_is_refused() {
        let p = RawPolicy {
            throttle: Some(RawThrottle {
                preset: Some(Preset::Grpc),
                ..RawThrottle::default()
            }),
            ..RawPolicy::default()
        };
        let e = apply(&p).unwrap_err();
        assert_eq!(e.path, "throttle.preset");
        assert_eq!(
            e.message,
            "grpc defines no defaults for `throttle`; presets that do: envoy"
        );
    }

    /// The fragment `cascade presets` prints, read back: the TOML of `PresetDef::parts` (keys,
    /// strings, numbers, booleans, arrays and inline tables, one key a line) as JSON.
    #[cfg(feature = "serde")]
    fn toml_fragment_as_json(text: &str) -> String {
        let mut out = String::from("{");
        let mut chars = text.trim_end().chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    out.push('"');
                    for s in chars.by_ref() {
                        out.push(s);
                        if s == '"' {
                            break;
                        }
                    }
                }
                '=' => out.push(':'),
                '\n' => out.push(','),
                c if c.is_ascii_digit() || c == '-' => {
                    out.push(c);
                    while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() || **d == '.') {
                        out.push(d);
                        chars.next();
                    }
                }
                c if c.is_ascii_alphabetic() || c == '_' => {
                    let mut word = String::from(c);
                    while let Some(&w) = chars
                        .peek()
                        .filter(|w| w.is_ascii_alphanumeric() || **w == '_')
                    {
                        word.push(w);
                        chars.next();
                    }
                    match word.as_str() {
                        "true" | "false" => out.push_str(&word),
                        _ => out.push_str(&format!("\"{word}\"")),
                    }
                }
                c => out.push(c),
            }
        }
        out.push('}');
        out
    }

    #[cfg(feature = "serde")]
    #[test]
    fn the_printed_fragments_read_back_as_the_presets_values() {
        for d in &PRESETS {
            let json = toml_fragment_as_json(d.parts);
            let read: RawPolicy =
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}: {json}", d.name));
            assert_eq!(read, parts(d.preset), "{}", d.name);
            if let Some(b) = d.budget {
                let json = toml_fragment_as_json(&format!("budget = {b}"));
                let read: serde_json::Value = serde_json::from_str(&json).unwrap();
                let read: RawBudgetTable = serde_json::from_value(read["budget"].clone()).unwrap();
                assert_eq!(Some(read), budget(d.preset), "{}", d.name);
            }
        }
    }
}
