//! Compiles `[policy.NAME]` into the model's `Policy`: defaults applied, ranges checked.
//! Defaults follow the library named beside each one in docs/policies.md.

use super::document::{Located, Source};
use super::keys::stray_key;
use super::schema::{Dur, RawPolicy};
use super::schema_policy::*;
use crate::error::did_you_mean;
use crate::model::{Fallback, HedgeConfig, HedgeDelay, Outcome, Policy, ThrottleConfig};
use cascade_policy::backoff::{Backoff, Jitter, Schedule};
use cascade_policy::budget::{BudgetConfig, EarnOn};
use cascade_policy::bulkhead::BulkheadConfig;
use cascade_policy::outcome::OutcomeSet;
use cascade_policy::retry::{DEFAULT_RETRY_ON, NEVER_RETRIED, RetryAfterWait, RetryPolicy};
use std::collections::BTreeMap;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

pub fn compile_policy(
    src: &Source,
    name: &str,
    p: &RawPolicy,
    services: &BTreeMap<String, usize>,
) -> Located<Policy> {
    let p = &*super::preset::apply(src, name, p)?;
    let at = |f: &str| format!("policy.{name}.{f}");
    if p.timeout == Some(Dur(0)) {
        return Err(src.error_at(
            &at("timeout"),
            "must be longer than zero (leave it out for none)",
        ));
    }
    let (retry, budget) = match &p.retry {
        Some(r) => {
            let (retry, budget) = compile_retry(src, &at("retry"), r)?;
            (Some(retry), budget)
        }
        None => (None, None),
    };
    let policy = Policy {
        name: Some(name.to_string()),
        timeout: p.timeout.map(|d| d.0),
        reserve: p.reserve.map_or(0, |d| d.0),
        min_attempt: p.min_attempt.map_or(0, |d| d.0),
        cancel: p.cancel.unwrap_or(false),
        ignores_caller_deadline: p.propagate_deadline == Some(false),
        retry,
        budget,
        breaker: p
            .breaker
            .as_ref()
            .map(|b| super::breaker::compile_breaker(src, &at("breaker"), b))
            .transpose()?,
        fallback: p
            .fallback
            .as_ref()
            .map(|f| compile_fallback(src, &at("fallback"), f, services))
            .transpose()?,
        hedge: p
            .hedge
            .as_ref()
            .map(|h| compile_hedge(src, &at("hedge"), h))
            .transpose()?,
        throttle: p
            .throttle
            .as_ref()
            .map(|t| compile_throttle(src, &at("throttle"), t))
            .transpose()?,
        bulkhead: p
            .bulkhead
            .as_ref()
            .map(|b| compile_bulkhead(src, &at("bulkhead"), b))
            .transpose()?,
        limit: p
            .limit
            .as_ref()
            .map(|l| super::limit::compile_limit(src, &at("limit"), l))
            .transpose()?,
        failure_accrual: p
            .failure_accrual
            .as_ref()
            .map(|a| super::accrual::compile_accrual(src, &at("failure_accrual"), a))
            .transpose()?,
    };
    check_shared_hedge_budget(src, &at("hedge.uses_retry_budget"), &policy)?;
    Ok(policy)
}

/// Hedges drawing on the retry budget need one that a hedge can ask: a concurrency budget
/// counts retries until their attempt ends, which a hedged copy does not report.
fn check_shared_hedge_budget(src: &Source, at: &str, p: &Policy) -> Located<()> {
    if !p.hedge.as_ref().is_some_and(|h| h.uses_retry_budget) {
        return Ok(());
    }
    match p.budget {
        None => Err(src.error_at(
            at,
            "hedges can draw on the retry budget only when the policy has one (`retry.budget`)",
        )),
        Some(BudgetConfig::Concurrency { .. }) => Err(src.error_at(
            at,
            "a concurrency budget (Envoy's) cannot be shared with hedges; use a ratio, token_bucket or adaptive budget",
        )),
        Some(_) => Ok(()),
    }
}

/// What `retry = { attempts = 1 }` compiles to, every other key at its default: the retry
/// `cascade import grpc` writes to carry a hedging-only method's `retryThrottling`, so
/// `export::expressible` can say what that import gives back without a second copy of the
/// defaults.
pub fn single_attempt_retry() -> RetryPolicy {
    let src = Source::parse("defaults", "retry = { attempts = 1 }\n", &[]).expect("parses");
    let raw: RawRetry =
        serde_json::from_value(serde_json::json!({ "attempts": 1 })).expect("a valid retry");
    compile_retry(&src, "retry", &raw)
        .expect("one attempt with the defaults compiles")
        .0
}

fn compile_retry(
    src: &Source,
    at: &str,
    r: &RawRetry,
) -> Located<(RetryPolicy, Option<BudgetConfig>)> {
    let field = |f: &str| format!("{at}.{f}");
    let attempts = match (r.attempts, r.retries) {
        (Some(_), Some(_)) => {
            return Err(src.error_at(
                at,
                "give `attempts` (first try included) or `retries` (extra tries), not both",
            ));
        }
        (Some(0), None) => {
            return Err(src.error_at(&field("attempts"), "must be at least 1 (the first try)"));
        }
        (Some(a), None) => a,
        (None, Some(n)) => n.saturating_add(1),
        (None, None) => 3,
    };
    let on = match &r.on {
        None => DEFAULT_RETRY_ON.to_vec(),
        Some(names) => outcomes(src, &field("on"), names, &NEVER_RETRIED, "is never retried")?,
    };
    let base = r.base.map_or(100 * MS, |d| d.0);
    let max = r.max.map_or(10 * S, |d| d.0);
    if max < base {
        return Err(src.error_at(&field("max"), "must be at least `base`"));
    }
    let exponential = r.backoff.unwrap_or(BackoffKind::Exponential) == BackoffKind::Exponential;
    if r.multiplier.is_some() && (!exponential || r.jitter == Some(JitterKind::Decorrelated)) {
        return Err(src.error_at(
            &field("multiplier"),
            "applies only to exponential backoff without decorrelated jitter",
        ));
    }
    let multiplier = r.multiplier.unwrap_or(2.0);
    if !(multiplier >= 1.0 && multiplier.is_finite()) {
        return Err(src.error_at(&field("multiplier"), "must be 1 or more"));
    }
    let schedule = match r.backoff.unwrap_or(BackoffKind::Exponential) {
        BackoffKind::Constant => Schedule::Constant,
        BackoffKind::Linear => Schedule::Linear,
        BackoffKind::Exponential => Schedule::Exponential { multiplier },
    };
    let factor = r.jitter_factor.unwrap_or(0.2);
    if !(0.0..=1.0).contains(&factor) {
        return Err(src.error_at(&field("jitter_factor"), "must be between 0 and 1"));
    }
    if r.jitter_factor.is_some() && r.jitter != Some(JitterKind::Proportional) {
        return Err(src.error_at(
            &field("jitter_factor"),
            "applies only to jitter = \"proportional\"",
        ));
    }
    let jitter = match r.jitter.unwrap_or(JitterKind::Full) {
        JitterKind::None => Jitter::None,
        JitterKind::Full => Jitter::Full,
        JitterKind::Equal => Jitter::Equal,
        JitterKind::Decorrelated => Jitter::Decorrelated,
        JitterKind::Proportional => Jitter::Proportional { factor },
    };
    let budget = r
        .budget
        .as_ref()
        .map(|b| compile_budget(src, &field("budget"), b))
        .transpose()?;
    let retry_after = r.retry_after.unwrap_or(true);
    if r.retry_after_wait.is_some() && !retry_after {
        return Err(src.error_at(
            &field("retry_after_wait"),
            "applies only when a Retry-After is honoured (`retry_after = true`, the default)",
        ));
    }
    let retry = RetryPolicy {
        attempts,
        on: OutcomeSet::of(&on),
        backoff: Backoff {
            schedule,
            base,
            max,
            jitter,
        },
        retry_after,
        retry_after_wait: match r.retry_after_wait {
            None | Some(RetryAfterWaitKind::Replace) => RetryAfterWait::Replace,
            Some(RetryAfterWaitKind::Max) => RetryAfterWait::Max,
        },
        timeout: match r.timeout {
            Some(Dur(0)) => return Err(src.error_at(&field("timeout"), "must be longer than zero")),
            t => t.map(|d| d.0),
        },
    };
    Ok((retry, budget))
}

fn compile_budget(src: &Source, at: &str, b: &RawBudget) -> Located<BudgetConfig> {
    let field = |f: &str| format!("{at}.{f}");
    let fraction = |v: f64, f: &str| {
        if (0.0..=1.0).contains(&v) {
            Ok(v)
        } else {
            Err(src.error_at(&field(f), "must be between 0 and 1"))
        }
    };
    let t = match b {
        RawBudget::Ratio(r) if (0.0..=1.0).contains(r) => {
            return Ok(BudgetConfig::Ratio {
                ratio: *r,
                min_per_s: 10.0,
                window: 10 * S,
            });
        }
        RawBudget::Ratio(_) => {
            return Err(src.error_at(at, "a ratio budget must be between 0 and 1"));
        }
        RawBudget::Table(t) => t,
    };
    let kind = t.kind.unwrap_or_default();
    let allowed: &[&str] = match kind {
        BudgetKind::Ratio => &["ratio", "min_per_s", "window"],
        BudgetKind::TokenBucket => &["max_tokens", "token_ratio"],
        BudgetKind::Concurrency => &["percent", "min"],
        BudgetKind::Adaptive => &["max_tokens", "token_ratio", "earn_on"],
    };
    let present = [
        ("ratio", t.ratio.is_some()),
        ("min_per_s", t.min_per_s.is_some()),
        ("window", t.window.is_some()),
        ("max_tokens", t.max_tokens.is_some()),
        ("token_ratio", t.token_ratio.is_some()),
        ("earn_on", t.earn_on.is_some()),
        ("percent", t.percent.is_some()),
        ("min", t.min.is_some()),
    ];
    if let Some(f) = stray_key(&present, allowed) {
        return Err(src.error_at(
            &field(f),
            format!(
                "does not apply to this budget kind, which takes: {}",
                allowed.join(", ")
            ),
        ));
    }
    match kind {
        BudgetKind::Ratio => {
            let ratio = fraction(
                t.ratio
                    .ok_or_else(|| src.error_at(at, "a ratio budget needs `ratio`"))?,
                "ratio",
            )?;
            let min_per_s = t.min_per_s.unwrap_or(10.0);
            if !(min_per_s >= 0.0 && min_per_s.is_finite()) {
                return Err(src.error_at(&field("min_per_s"), "must be zero or more"));
            }
            let window = t.window.map_or(10 * S, |d| d.0);
            if window < 10 {
                return Err(src.error_at(&field("window"), "must be longer than zero"));
            }
            Ok(BudgetConfig::Ratio {
                ratio,
                min_per_s,
                window,
            })
        }
        BudgetKind::TokenBucket => {
            let max_tokens = bucket_size(src, &field("max_tokens"), t.max_tokens)?;
            let token_ratio = t.token_ratio.unwrap_or(0.1);
            if !(token_ratio > 0.0 && token_ratio.is_finite()) {
                return Err(src.error_at(&field("token_ratio"), "must be positive"));
            }
            Ok(BudgetConfig::TokenBucket {
                max_tokens,
                token_ratio,
            })
        }
        BudgetKind::Concurrency => {
            let percent = t.percent.unwrap_or(20.0);
            if !(0.0..=100.0).contains(&percent) {
                return Err(src.error_at(&field("percent"), "must be between 0 and 100"));
            }
            Ok(BudgetConfig::Concurrency {
                percent: percent / 100.0,
                min: t.min.unwrap_or(3),
            })
        }
        BudgetKind::Adaptive => {
            let max_tokens = bucket_size(src, &field("max_tokens"), t.max_tokens)?;
            let token_ratio = t.token_ratio.unwrap_or(0.1);
            // Counted in thousandths: a ratio that rounds to none would never earn a token.
            if !(token_ratio >= 0.001 && token_ratio <= max_tokens) {
                return Err(src.error_at(
                    &field("token_ratio"),
                    "must be from 0.001 (tokens are counted in thousandths) to `max_tokens`",
                ));
            }
            Ok(BudgetConfig::Adaptive {
                max_tokens,
                token_ratio,
                earn_on: match t.earn_on {
                    None | Some(EarnOnKind::Success) => EarnOn::Success,
                    Some(EarnOnKind::Call) => EarnOn::Call,
                },
            })
        }
    }
}

/// A token bucket's size (gRPC's `maxTokens` range; the adaptive bucket takes the same).
fn bucket_size(src: &Source, at: &str, given: Option<f64>) -> Located<f64> {
    let max_tokens = given.unwrap_or(10.0);
    if !(max_tokens > 0.0 && max_tokens <= 1000.0) {
        return Err(src.error_at(at, "must be in (0, 1000], as gRPC requires"));
    }
    Ok(max_tokens)
}

fn compile_bulkhead(src: &Source, at: &str, b: &RawBulkhead) -> Located<BulkheadConfig> {
    let max_concurrent = b.max_concurrent.unwrap_or(25);
    if max_concurrent == 0 {
        return Err(src.error_at(&format!("{at}.max_concurrent"), "must be at least 1"));
    }
    let queue = b.queue.unwrap_or(0);
    let max_wait = b.max_wait.map_or(0, |d| d.0);
    if queue == 0 && max_wait > 0 {
        return Err(src.error_at(
            &format!("{at}.max_wait"),
            "waiting needs room to wait: set `queue` too",
        ));
    }
    if queue > 0 && max_wait == 0 {
        return Err(src.error_at(
            &format!("{at}.max_wait"),
            "a bulkhead queue needs `max_wait`, how long a call may wait for a permit",
        ));
    }
    if let Some(pool) = &b.pool {
        super::compile::check_name(src, &format!("{at}.pool"), pool)?;
    }
    Ok(BulkheadConfig {
        max_concurrent,
        queue,
        max_wait,
        release: b.release.unwrap_or_default(),
        wraps: b.wraps.unwrap_or_default(),
        pool: b.pool.clone(),
    })
}

/// Parses a list of outcome kinds, refusing the `forbidden` ones.
pub(super) fn outcomes(
    src: &Source,
    path: &str,
    names: &[String],
    forbidden: &[Outcome],
    why: &str,
) -> Located<Vec<Outcome>> {
    names
        .iter()
        .map(|n| match Outcome::from_name(n) {
            Some(o) if forbidden.contains(&o) => Err(src.error_at(path, format!("`{n}` {why}"))),
            Some(o) => Ok(o),
            None => {
                let valid: Vec<&str> = Outcome::ALL
                    .iter()
                    .filter(|o| !forbidden.contains(o))
                    .map(|o| o.name())
                    .collect();
                let hint = did_you_mean(n, valid.iter().copied());
                Err(src.error_at(
                    path,
                    format!("unknown outcome `{n}`{hint}; valid: {}", valid.join(", ")),
                ))
            }
        })
        .collect()
}

fn compile_throttle(src: &Source, at: &str, t: &RawThrottle) -> Located<ThrottleConfig> {
    let k = t.k.unwrap_or(2.0);
    if !(k > 0.0 && k.is_finite()) {
        return Err(src.error_at(&format!("{at}.k"), "must be positive (the SRE book uses 2)"));
    }
    let window = t.window.map_or(120 * S, |d| d.0);
    if window < 10 {
        return Err(src.error_at(&format!("{at}.window"), "must be longer than zero"));
    }
    Ok(ThrottleConfig { k, window })
}

fn compile_fallback(
    src: &Source,
    at: &str,
    f: &RawFallback,
    services: &BTreeMap<String, usize>,
) -> Located<Fallback> {
    let on = match &f.on {
        None => Outcome::failures()
            .iter()
            .copied()
            .filter(|o| *o != Outcome::Invalid)
            .collect(),
        Some(names) => outcomes(
            src,
            &format!("{at}.on"),
            names,
            &[Outcome::Ok, Outcome::Degraded],
            "is not a failure",
        )?,
    };
    let to = match &f.to {
        None => {
            if f.policy.is_some() {
                return Err(src.error_at(
                    &format!("{at}.policy"),
                    "applies only to a fallback that calls a service (`to`)",
                ));
            }
            None
        }
        Some(name) => {
            if f.latency.is_some() {
                return Err(src.error_at(
                    &format!("{at}.latency"),
                    "a fallback either answers after `latency` or calls `to`, not both",
                ));
            }
            let service = services.get(name).copied().ok_or_else(|| {
                let hint = did_you_mean(name, services.keys().map(String::as_str));
                src.error_at(
                    &format!("{at}.to"),
                    format!("no service named `{name}`{hint}"),
                )
            })?;
            Some((service, f.policy.clone()))
        }
    };
    Ok(Fallback {
        on: OutcomeSet::of(&on),
        latency: f.latency.map_or(0, |d| d.0),
        to,
    })
}

fn compile_hedge(src: &Source, at: &str, h: &RawHedge) -> Located<HedgeConfig> {
    let field = |f: &str| format!("{at}.{f}");
    let Some(delay) = &h.delay else {
        return Err(src.error_at(
            at,
            "a hedge needs `delay`: a duration like \"50ms\" or a percentile like \"p95\"",
        ));
    };
    let delay = match delay.strip_prefix('p').map(str::parse::<f64>) {
        Some(Ok(p)) if p > 0.0 && p < 100.0 => HedgeDelay::Percentile(p / 100.0),
        Some(_) => {
            return Err(src.error_at(&field("delay"), "a percentile is written p50 to p99.9"));
        }
        None => match crate::time::parse_duration(delay) {
            Ok(ns) => HedgeDelay::Fixed(ns),
            Err(e) => {
                return Err(src.error_at(
                    &field("delay"),
                    format!("a duration like \"50ms\" or a percentile like \"p95\": {e}"),
                ));
            }
        },
    };
    let max = h.max.unwrap_or(1);
    if !(1..=3).contains(&max) {
        return Err(src.error_at(&field("max"), "hedges per call must be 1 to 3"));
    }
    if let Some(b) = h.budget
        && !(b > 0.0 && b <= 1.0)
    {
        return Err(src.error_at(
            &field("budget"),
            "must be in (0, 1]: hedges as a share of calls",
        ));
    }
    if h.min_samples.is_some() && !matches!(delay, HedgeDelay::Percentile(_)) {
        return Err(src.error_at(
            &field("min_samples"),
            "applies only to a learned (percentile) delay",
        ));
    }
    if h.min_samples == Some(0) {
        return Err(src.error_at(&field("min_samples"), "must be at least 1"));
    }
    let period = h.period.map_or(S, |d| d.0);
    if period == 0 {
        return Err(src.error_at(&field("period"), "must be longer than zero"));
    }
    let uses_retry_budget = h.uses_retry_budget.unwrap_or(false);
    if uses_retry_budget && h.budget.is_some() {
        return Err(src.error_at(
            &field("uses_retry_budget"),
            "hedges draw on either their own `budget` or the retry budget, not both",
        ));
    }
    Ok(HedgeConfig {
        delay,
        max,
        budget: h.budget,
        uses_retry_budget,
        min_samples: h.min_samples.unwrap_or(20),
        period,
    })
}
