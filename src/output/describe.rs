//! Short human descriptions of a model's parts for charts and reports: each edge's policy
//! settings (the per-dependency resilience matrix) and each fault's schedule and effect.

use crate::model::fault::{Cut, Effect, Fault, Slowdown, Target, Warm};
use crate::model::{BreakerPolicy, CallSpec, Model, Outcome, Policy};
use crate::number::short;
use crate::output::units;
use crate::time::format_duration as dur;
use cascade_policy::Nanos;
use cascade_policy::backoff::{Jitter, Schedule};
use cascade_policy::breaker::Window;
use cascade_policy::budget::BudgetConfig;
use cascade_policy::hedge::HedgeDelay;
use cascade_policy::limit::LimitAlgorithm;
use cascade_policy::outcome::OutcomeSet;
use cascade_policy::rate_limiter::RateLimiterConfig;
use cascade_policy::token_bucket::Refill;

/// A call as the matrix shows it: who calls whom, through which policy.
#[derive(Debug, Clone)]
pub struct EdgeCall<'a> {
    /// `web.gateway`, as in metric names (`web.gateway.op.checkout` for one operation's).
    pub edge: String,
    pub from: String,
    pub to: String,
    /// The callee's operation, for an operation's edge.
    pub operation: Option<String>,
    /// A pair's edge whose calls are all on its operations' edges (listed too).
    pub has_parts: bool,
    pub call: &'a CallSpec,
}

/// Every edge's first call spec, in edge order: clients' calls, then services' steps. A pair
/// whose calls go to operations shows its first operation's call.
pub fn edge_calls(model: &Model) -> Vec<EdgeCall<'_>> {
    let mut specs: Vec<(String, &CallSpec)> = Vec::new();
    for c in &model.clients {
        specs.extend(c.calls().map(|call| (c.name.clone(), call)));
    }
    for s in &model.services {
        specs.extend(s.calls().map(|call| (s.name.clone(), call)));
    }
    model
        .edges
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let (from, call) = specs
                .iter()
                .find(|(_, c)| c.edge == i || model.edges[c.edge].total == Some(i))?;
            let callee = &model.services[e.to];
            Some(EdgeCall {
                edge: e.name.clone(),
                from: from.clone(),
                to: callee.name.clone(),
                operation: e.total.map(|_| {
                    callee.operations[usize::from(call.operation) - 1]
                        .name
                        .clone()
                }),
                has_parts: e.total.is_none() && call.edge != i,
                call,
            })
        })
        .collect()
}

/// Each edge whose call has a rate limit: the bucket per caller instance, and what the caller's
/// instances admit together. Envoy's local limit is per process, so N sidecars admit N times
/// it: the classic pitfall of a per-instance limit meant as a fleet limit, stated plainly.
pub fn rate_limits(model: &Model) -> Vec<String> {
    (edge_calls(model).into_iter())
        .filter(|c| !c.has_parts)
        .filter_map(|c| {
            let b = c.call.policy.rate_limit()?;
            let n = (model.services.iter())
                .find(|s| s.name == c.from)
                .map_or(1, |s| s.instances);
            let r = b.per_second();
            Some(format!(
                "rate limit {} -> {}: {}/s, burst {}, per caller instance: {n} instance{} of {} admit up to {}/s fleet-wide",
                c.from,
                c.to,
                short(r),
                b.max_tokens(),
                if n == 1 { "" } else { "s" },
                c.from,
                short(r * f64::from(n)),
            ))
        })
        .chain(model.services.iter().filter_map(admission_rate_limit))
        .collect()
}

/// A service's admission rate limit (`model/rate_limit.rs`): its bucket, whose it is, and the
/// rate the service admits in all: per instance, the bucket's rate times the instances.
fn admission_rate_limit(s: &crate::model::Service) -> Option<String> {
    let limit = s.rate_limit.as_ref()?;
    let n = s.instances;
    // One instance admits, several admit.
    let (nouns, verb) = if n == 1 { ("", "s") } else { ("s", "") };
    let whose = match limit.scope {
        crate::model::RateLimitScope::Instance => format!(
            "per instance: {n} instance{nouns} of {} admit{verb} up to {}/s fleet-wide",
            s.name,
            short(limit.fleet_per_second(n)),
        ),
        crate::model::RateLimitScope::Fleet => format!(
            "one bucket for the fleet: {}'s {n} instance{nouns} admit{verb} up to {}/s together",
            s.name,
            short(limit.fleet_per_second(n)),
        ),
    };
    let keyed = match limit.key {
        crate::model::RateLimitKey::None => "",
        crate::model::RateLimitKey::Client => {
            "; keyed by client: each tenant has its own, the figures are per tenant"
        }
        crate::model::RateLimitKey::ClientOperation => {
            "; keyed by client operation: each has its own, the figures are per key"
        }
    };
    let retry_after = if limit.retry_after {
        ", refusals carry Retry-After"
    } else {
        ""
    };
    let status = match limit.status {
        429 => String::new(),
        code => format!(", refusals answered {code}"),
    };
    Some(format!(
        "rate limit at {}'s admission: {}, {whose}{keyed}{status}{retry_after}",
        s.name,
        limiter_words(&limit.limiter),
    ))
}

/// A limiter's rate, burst and what it does with a request over them.
fn limiter_words(limiter: &RateLimiterConfig) -> String {
    let rate = short(limiter.per_second());
    match limiter {
        RateLimiterConfig::TokenBucket { bucket, wait } => {
            let tick = match bucket.refill() {
                Refill::Continuous => "",
                Refill::Tick => " by ticks",
            };
            let wait = match wait {
                true => {
                    ", a request without a token waits for it up to its deadline (x/time/rate's Wait)"
                }
                false => "",
            };
            format!("{rate}/s{tick}, burst {}{wait}", bucket.max_tokens())
        }
        RateLimiterConfig::LimitReq(cfg) => {
            let held = match (cfg.delays(), cfg.undelayed()) {
                (false, _) => "none held (nodelay)".to_string(),
                (true, 0) => "every request over the rate held".to_string(),
                (true, k) => format!("the first {k} over the rate passed, the rest held"),
            };
            format!("nginx limit_req {rate}/s, burst {}, {held}", cfg.burst())
        }
        RateLimiterConfig::Resilience4j(cfg) => format!(
            "resilience4j RateLimiter {} per {} (limitForPeriod, limitRefreshPeriod), a request waits for its cycle up to {} (timeoutDuration), one refused is parked that long first",
            cfg.limit_for_period,
            dur(cfg.limit_refresh_period.0),
            dur(cfg.timeout.0),
        ),
        RateLimiterConfig::TowerRate(cfg) => format!(
            "tower RateLimit {} per {}, requests over it wait for the next window (nothing refused)",
            cfg.num,
            dur(cfg.per.0),
        ),
        RateLimiterConfig::SmoothBursty { timeout, .. } => match timeout {
            None => format!("Guava RateLimiter {rate}/s, acquire(): every request waits its turn"),
            Some(t) => format!(
                "Guava RateLimiter {rate}/s, tryAcquire({}): a request granted later is refused",
                dur(t.0)
            ),
        },
    }
}

fn kinds(set: OutcomeSet) -> String {
    let names: Vec<&str> = set.iter().map(Outcome::name).collect();
    names.join(", ")
}

/// A fraction in [0, 1] as a percentage (a policy's rates and shares are fractions).
fn pct(v: f64) -> String {
    units::ratio(v)
}

pub fn timeout(p: &Policy) -> String {
    let mut s = p.timeout().map_or("none".into(), |t| dur(t.0));
    if p.reserve() > Nanos::ZERO {
        s += &format!(" (reserve {})", dur(p.reserve().0));
    }
    s
}

pub fn retries(p: &Policy) -> String {
    let Some(r) = &p.retry() else {
        return "none".into();
    };
    if r.attempts() <= 1 {
        return "1 attempt".into();
    }
    let schedule = match r.backoff().schedule() {
        Schedule::Constant => "constant".to_string(),
        Schedule::Linear => "linear".to_string(),
        Schedule::Exponential { multiplier } => {
            format!("exponential ×{}", short(multiplier))
        }
    };
    let jitter = match r.backoff().jitter() {
        Jitter::None => String::new(),
        Jitter::Full => ", full jitter".into(),
        Jitter::Equal => ", equal jitter".into(),
        Jitter::Decorrelated => ", decorrelated jitter".into(),
        Jitter::Proportional { factor } => format!(", ±{} jitter", pct(factor)),
    };
    let mut s = format!(
        "{} attempts, {schedule} {}{jitter}",
        r.attempts(),
        dur(r.backoff().base().0)
    );
    if !r.on().is_empty() {
        s += &format!("; on {}", kinds(r.on()));
    }
    if r.retry_after() {
        s += "; honours Retry-After";
    }
    if let Some(k) = r.other_host() {
        let plural = if k == 1 { "" } else { "s" };
        s += &format!("; to another instance ({k} re-pick{plural})");
    }
    s
}

pub fn budget(p: &Policy) -> String {
    match &p.budget() {
        None => "none".into(),
        Some(BudgetConfig::Ratio { ratio, .. }) => format!("{} of calls", pct(*ratio)),
        Some(BudgetConfig::TokenBucket {
            max_tokens,
            token_ratio,
        }) => format!(
            "token bucket {} (ratio {})",
            short(*max_tokens),
            short(*token_ratio)
        ),
        Some(BudgetConfig::Concurrency { percent, min }) => {
            // The table's `percent` is held as a fraction: 25 is 0.25.
            format!("{} concurrent (min {min})", units::ratio(*percent))
        }
        Some(BudgetConfig::Adaptive {
            max_tokens,
            token_ratio,
            earn_on,
        }) => format!(
            "adaptive bucket {} (+{} a {})",
            short(*max_tokens),
            short(*token_ratio),
            match earn_on {
                cascade_policy::budget::EarnOn::Success => "success",
                cascade_policy::budget::EarnOn::Call => "call",
            }
        ),
    }
}

pub fn breaker(p: &Policy) -> String {
    let Some(BreakerPolicy {
        config: b,
        wraps,
        retries_only,
        ..
    }) = &p.breaker()
    else {
        return "none".into();
    };
    let window = match b.window() {
        Window::Calls(n) => format!("{n} calls"),
        Window::Time(ns) => dur(ns.0),
    };
    let mut s = if b.consecutive_failures() > 0 {
        format!("{} consecutive failures", b.consecutive_failures())
    } else {
        format!("{} failing over {window}", pct(b.failure_rate()))
    };
    s += &format!(", open {}", dur(b.open().0));
    if matches!(wraps, crate::model::Wraps::Call) {
        s += ", around the call";
    }
    if *retries_only {
        s += ", stops retries only";
    }
    s
}

/// A bulkhead's size and queue, the pool it shares by name with other calls of its service,
/// and when a permit comes back: a connection pool's (`release = "answer"`) is held until the
/// callee answers, which a reviewer of a database path asks first.
pub fn bulkhead(p: &Policy) -> String {
    let Some(b) = p.bulkhead() else {
        return "none".into();
    };
    let mut s = if b.queue() > 0 {
        format!(
            "{} concurrent, queue {} (wait {})",
            b.max_concurrent(),
            b.queue(),
            dur(b.max_wait().0)
        )
    } else {
        format!("{} concurrent", b.max_concurrent())
    };
    if let Some(pool) = b.pool() {
        s += &format!(", shared pool {pool}");
    }
    if p.bulkhead_releases_on_answer() {
        s += ", held until the callee answers";
    }
    s
}

pub fn hedge(p: &Policy) -> String {
    match &p.hedge() {
        None => "none".into(),
        Some(h) => {
            let after = match h.delay() {
                HedgeDelay::Fixed(ns) => dur(ns.0),
                HedgeDelay::Percentile(q) => format!("p{}", short(q * 100.0)),
            };
            let shared = if h.uses_retry_budget() {
                ", from the retry budget"
            } else {
                ""
            };
            format!("after {after}, up to {}{shared}", h.max())
        }
    }
}

pub fn fallback(model: &Model, p: &Policy) -> String {
    match &p.fallback() {
        None => "none".into(),
        Some(f) => {
            let to = match &f.to() {
                Some((s, _)) => format!("call {}", model.services[*s].name),
                None => "canned answer".into(),
            };
            format!("{to} on {}", kinds(f.on()))
        }
    }
}

/// Throttling, adaptive limit, rate limit, cancellation and an unpropagated deadline: the rest of the
/// stack, in one cell.
pub fn other(p: &Policy) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &p.throttle() {
        parts.push(format!("throttle k={}", short(t.k())));
    }
    if let Some(l) = &p.limit() {
        let name = match l.algorithm() {
            LimitAlgorithm::Aimd(_) => "AIMD",
            LimitAlgorithm::Gradient2(_) => "Gradient2",
            LimitAlgorithm::Vegas(_) => "Vegas",
        };
        let windowed = if l.window().is_some() {
            " (windowed)"
        } else {
            ""
        };
        parts.push(format!("limit {name}{windowed}"));
    }
    if let Some(b) = &p.rate_limit() {
        let tick = match b.refill() {
            Refill::Continuous => "",
            Refill::Tick => " by ticks",
        };
        parts.push(format!(
            "rate limit {}/s{tick}, burst {} per caller instance",
            short(b.per_second()),
            b.max_tokens()
        ));
    }
    if p.cancel() {
        parts.push("cancel on give-up".into());
    }
    if !p.propagate_deadline() {
        parts.push("deadline not propagated".into());
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join("; ")
    }
}

/// The few settings that matter most, for a diagram's edge label:
/// `timeout 150ms · 4× · breaker`.
pub fn highlights(p: &Policy) -> String {
    let mut parts = Vec::new();
    if let Some(t) = p.timeout() {
        parts.push(format!("timeout {}", dur(t.0)));
    }
    if let Some(r) = p.retry().filter(|r| r.attempts() > 1) {
        parts.push(format!("{}×", r.attempts()));
    }
    if p.budget().is_some() {
        parts.push("budget".into());
    }
    if p.breaker().is_some() {
        parts.push("breaker".into());
    }
    if p.bulkhead().is_some() {
        parts.push("bulkhead".into());
    }
    if p.hedge().is_some() {
        parts.push("hedge".into());
    }
    if p.limit().is_some() {
        parts.push("limit".into());
    }
    if p.fallback().is_some() {
        parts.push("fallback".into());
    }
    parts.join(" · ")
}

/// The name of what a fault hits: `api`, `api#1`, `web->api`.
pub fn fault_target(model: &Model, f: &Fault) -> String {
    match f.target {
        Target::Service(s) => model.services[s].name.clone(),
        Target::Instance(s, i) => format!("{}#{i}", model.services[s].name),
        Target::Edge(e) => model.edges[e].name.replacen('.', "->", 1),
        Target::Client(c) => model.clients[c].name.clone(),
    }
}

/// What a fault does while active: `work ×3`, `50% unavailable`, `refused`.
pub fn fault_effect(f: &Fault) -> String {
    match &f.effect {
        Effect::Latency(Slowdown::Factor(x)) => {
            format!("work ×{}", short(*x))
        }
        Effect::Latency(Slowdown::Add(ns)) => format!("work +{}", dur(*ns)),
        Effect::Latency(Slowdown::Replace(_)) => "work redrawn from a distribution".into(),
        Effect::Errors { rate, error, .. } => format!("{} {}", pct(*rate), error.name()),
        Effect::Outage { blackhole: true } => "every request swallowed".into(),
        Effect::Outage { blackhole: false } => "every request refused".into(),
        Effect::Stall => "no request gets a worker".into(),
        Effect::Crash { blackhole, .. } => {
            if *blackhole {
                "down, work lost unanswered".into()
            } else {
                "down, work lost (unavailable)".into()
            }
        }
        Effect::Capacity(Cut::Left(n)) => format!("{n} workers left per instance"),
        Effect::Capacity(Cut::Share(s)) => format!("{} of workers removed", pct(*s)),
        Effect::Overload { factor, users } => {
            if *users > 0 {
                format!("+{users} users")
            } else {
                format!("load ×{}", short(*factor))
            }
        }
        Effect::Branch { p, warm, .. } => {
            let back = match warm {
                Warm::Linear(0) => String::new(),
                Warm::Linear(w) => format!(", back over {}", dur(*w)),
                Warm::Exponential(tau) => format!(", back with time constant {}", dur(*tau)),
                Warm::Table(points) => format!(
                    ", back over {} along {} points",
                    dur(points.last().map_or(0, |&(t, _)| t)),
                    points.len()
                ),
            };
            format!("a step made {} of the time{back}", pct(*p))
        }
    }
}

/// `latency: work ×3 on api`, for a chart's fault label.
pub fn fault_label(model: &Model, f: &Fault) -> String {
    format!(
        "{}: {} on {}",
        f.kind(),
        fault_effect(f),
        fault_target(model, f)
    )
}

/// A service's overload physics for people (`contention`, `reject_work`, `after_work` of its
/// own plan and its operations'); empty when it has none.
pub fn overload(s: &crate::model::Service) -> String {
    use crate::model::overload::{ContentionCounts, ContentionLaw};
    let mut parts = Vec::new();
    if let Some(o) = &s.overload {
        if let Some(c) = &o.contention {
            let law = match &c.law {
                ContentionLaw::Linear { k, knee } => {
                    format!(
                        "work × (1 + {} × max(0, busy − {}))",
                        crate::number::sig3(*k),
                        knee
                    )
                }
                ContentionLaw::Table(points) => {
                    let (b, f) = points[points.len() - 1];
                    format!(
                        "work × a table of {} points, up to ×{} at {b} busy",
                        points.len(),
                        crate::number::sig3(f)
                    )
                }
            };
            let counts = match c.counts {
                ContentionCounts::Held => "held workers",
                ContentionCounts::Working => "working workers",
            };
            parts.push(format!("contention {law} ({counts})"));
        }
        if o.reject_work > 0 {
            parts.push(format!("a refusal takes a worker {}", dur(o.reject_work)));
        }
    }
    let plans = std::iter::once(("", &s.plan))
        .chain(s.operations.iter().map(|o| (o.name.as_str(), &o.plan)));
    for (name, plan) in plans {
        if let Some(a) = &plan.after {
            let on = if a.on_failure { ", failures too" } else { "" };
            let whose = if name.is_empty() {
                String::new()
            } else {
                format!(" ({name})")
            };
            parts.push(format!(
                "after the calls{whose}: mean {}{on}",
                dur(a.work.mean().round() as u64)
            ));
        }
    }
    parts.join("; ")
}
