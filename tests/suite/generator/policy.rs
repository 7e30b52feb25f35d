//! Random caller-side policies: every key of docs/policies.md §0, each drawn inside its valid
//! range and only in the combinations the compiler accepts.

use crate::support::pick::Pick;

/// Outcome kinds `retry.on` and `breaker.count` may hold: the callee's failures but `invalid`.
const RETRYABLE: &[&str] = &[
    "timeout",
    "deadline_exceeded",
    "unavailable",
    "overloaded",
    "internal",
    "refused",
    "shed",
];
/// Every failure kind (`fallback.on`, a `fail_as`, an `errors` fault's `error`).
pub const FAILURES: &[&str] = &[
    "timeout",
    "deadline_exceeded",
    "unavailable",
    "overloaded",
    "internal",
    "invalid",
    "refused",
    "breaker_open",
    "bulkhead_full",
    "throttled",
    "shed",
    "limited",
];

/// Where a fallback call may go: services that keep the call graph acyclic.
pub struct Fallbacks<'a> {
    pub services: &'a [String],
}

/// One `[policy.NAME]` table. `fallback_to` lists the services a fallback call may name
/// (empty: only canned answers); a fallback call's own policy goes into `extra`. Keys added
/// since the generator was first written draw from `later`, a pick of their own, so the
/// policies' other keys are those they were before.
pub fn policy(
    p: &mut Pick,
    later: &mut Pick,
    name: &str,
    fallback_to: &Fallbacks,
    extra: &mut Vec<String>,
) -> String {
    let mut keys = Vec::new();
    if p.chance(0.6) {
        keys.push(format!("timeout = {}", p.dur(500, 100_000)));
    }
    if p.chance(0.2) {
        keys.push(format!("reserve = {}", p.dur(0, 20_000)));
    }
    if p.chance(0.2) {
        keys.push(format!("min_attempt = {}", p.dur(0, 20_000)));
    }
    if p.chance(0.6) {
        keys.push(format!("cancel = {}", p.chance(0.5)));
    }
    // Whether the retry has a budget a hedge may draw on (any kind but concurrency).
    let mut shareable_budget = false;
    if p.chance(0.5) {
        let (retry, shareable) = retry(p, later);
        shareable_budget = shareable;
        keys.push(format!("retry = {retry}"));
    }
    if p.chance(0.3) {
        keys.push(format!("breaker = {}", breaker(p, later)));
    }
    if p.chance(0.2) {
        keys.push(format!(
            "throttle = {{ k = {}, window = {} }}",
            p.real(0.5, 4.0),
            p.dur(10_000, 2_000_000)
        ));
    }
    if p.chance(0.25) {
        keys.push(format!("limit = {}", limit(p)));
    }
    if p.chance(0.25) {
        keys.push(format!("bulkhead = {}", bulkhead(p, later, name)));
    }
    if p.chance(0.25) {
        keys.push(format!("hedge = {}", hedge(p, later, shareable_budget)));
    }
    if p.chance(0.3) {
        let fb = fallback(p, later, name, fallback_to, extra);
        keys.push(format!("fallback = {fb}"));
    }
    if later.chance(0.2) {
        keys.push(format!("failure_accrual = {}", accrual(later)));
    }
    if later.chance(0.2) {
        keys.push(format!("rate_limit = {}", rate_limit(later)));
    }
    if later.chance(0.15) {
        keys.push(format!("total_timeout = {}", later.dur(1_000, 300_000)));
    }
    format!("[policy.{name}]\n{}\n", keys.join("\n"))
}

/// The `retry` table, and whether its budget may be shared with hedges.
fn retry(p: &mut Pick, later: &mut Pick) -> (String, bool) {
    let mut k = Vec::new();
    if p.chance(0.5) {
        k.push(format!("attempts = {}", p.int(1, 4)));
    } else if p.chance(0.5) {
        k.push(format!("retries = {}", p.int(0, 3)));
    }
    if p.chance(0.3) {
        k.push(format!("on = {}", p.subset(RETRYABLE)));
    }
    if p.chance(0.2) {
        k.push(format!("timeout = {}", p.dur(500, 50_000)));
    }
    let backoff = *p.one(&["constant", "linear", "exponential"]);
    let jitter = *p.one(&["none", "full", "equal", "decorrelated", "proportional"]);
    k.push(format!("backoff = \"{backoff}\""));
    k.push(format!("jitter = \"{jitter}\""));
    let base = p.int(0, 20_000);
    k.push(format!("base = \"{base}us\""));
    if p.chance(0.5) {
        k.push(format!("max = {}", p.dur(base, base + 100_000)));
    }
    if backoff == "exponential" && jitter != "decorrelated" && p.chance(0.5) {
        k.push(format!("multiplier = {}", p.real(1.0, 3.0)));
    }
    if jitter == "proportional" && p.chance(0.5) {
        k.push(format!("jitter_factor = {}", p.real(0.0, 1.0)));
    }
    let written = p.chance(0.3).then(|| p.chance(0.5));
    if let Some(on) = written {
        k.push(format!("retry_after = {on}"));
    }
    if written != Some(false) && later.chance(0.5) {
        // Written or left to its default, and only where a Retry-After is honoured.
        k.push(format!(
            "retry_after_wait = \"{}\"",
            later.one(&["replace", "max"])
        ));
    }
    let mut shareable = false;
    if p.chance(0.4) {
        let mut b = budget(p);
        if later.chance(0.25) {
            b = adaptive_budget(later);
        }
        shareable = !b.contains("concurrency");
        k.push(format!("budget = {b}"));
    }
    (format!("{{ {} }}", k.join(", ")), shareable)
}

/// A retry to another instance, sometimes: `other_host` written (on or off) and, when on,
/// `host_reselections` in its whole range or left to its default; each ending in ", " to go
/// first in a retry table. Drawn whether or not the policy has a retry, so every case draws
/// alike.
pub fn other_host(p: &mut Pick) -> Option<String> {
    let written = p.chance(0.3);
    let on = p.chance(0.8);
    let reselections = p.chance(0.5).then(|| *p.one(&[1, 2, 3, 100]));
    match (written, on, reselections) {
        (false, ..) => None,
        (true, false, _) => Some("other_host = false, ".to_string()),
        (true, true, None) => Some("other_host = true, ".to_string()),
        (true, true, Some(n)) => Some(format!("other_host = true, host_reselections = {n}, ")),
    }
}

/// Brooker's adaptive bucket, its keys each written or left to their defaults.
fn adaptive_budget(p: &mut Pick) -> String {
    let mut k = vec!["kind = \"adaptive\"".to_string()];
    let max = p.real(0.5, 20.0).max(0.5);
    if p.chance(0.7) {
        k.push(format!("max_tokens = {max}"));
    }
    let max = if k.len() > 1 { max } else { 10.0 };
    if p.chance(0.7) {
        k.push(format!(
            "token_ratio = {}",
            p.real(0.001, 1.0).clamp(0.001, max)
        ));
    }
    if p.chance(0.5) {
        k.push(format!("earn_on = \"{}\"", p.one(&["success", "call"])));
    }
    format!("{{ {} }}", k.join(", "))
}

fn budget(p: &mut Pick) -> String {
    match p.int(0, 3) {
        0 => format!("{}", p.real(0.0, 1.0)),
        1 => format!(
            "{{ kind = \"ratio\", ratio = {}, min_per_s = {}, window = {} }}",
            p.real(0.0, 1.0),
            p.real(0.0, 20.0),
            p.dur(10_000, 5_000_000)
        ),
        2 => format!(
            "{{ kind = \"token_bucket\", max_tokens = {}, token_ratio = {} }}",
            p.real(0.5, 20.0),
            p.real(0.01, 1.0)
        ),
        _ => format!(
            "{{ kind = \"concurrency\", percent = {}, min = {} }}",
            p.real(0.0, 100.0),
            p.int(0, 5)
        ),
    }
}

fn breaker(p: &mut Pick, later: &mut Pick) -> String {
    let mut k = Vec::new();
    if p.chance(0.5) {
        k.push(format!("window = {}", p.int(1, 50)));
    } else {
        k.push(format!("window = {}", p.dur(10_000, 1_000_000)));
    }
    k.push(format!("min_calls = {}", p.int(1, 30)));
    k.push(format!("failure_rate = {}", p.real(0.05, 1.0)));
    if p.chance(0.4) {
        k.push(format!("slow_call_rate = {}", p.real(0.05, 1.0)));
        k.push(format!("slow_call_duration = {}", p.dur(100, 50_000)));
    }
    if p.chance(0.3) {
        k.push(format!("consecutive_failures = {}", p.int(0, 10)));
    }
    let open = p.int(1_000, 500_000);
    k.push(format!("open = \"{open}us\""));
    if p.chance(0.3) {
        k.push(format!("open_multiplier = {}", p.real(1.0, 3.0)));
    }
    if p.chance(0.3) {
        k.push(format!("open_max = {}", p.dur(open, open * 4)));
    }
    k.push(format!("half_open_calls = {}", p.int(1, 5)));
    if p.chance(0.3) {
        k.push(format!("count = {}", p.subset(RETRYABLE)));
    }
    let wraps = *p.one(&["attempt", "call"]);
    k.push(format!("wraps = \"{wraps}\""));
    if wraps == "attempt" && p.chance(0.5) {
        k.push(format!("scope = \"{}\"", p.one(&["edge", "instance"])));
    }
    if wraps == "attempt" && later.chance(0.3) {
        k.push(format!("retries_only = {}", later.chance(0.7)));
    }
    format!("{{ {} }}", k.join(", "))
}

fn limit(p: &mut Pick) -> String {
    let algorithm = *p.one(&["aimd", "vegas", "gradient2"]);
    let mut k = vec![format!("algorithm = \"{algorithm}\"")];
    let min = p.int(1, 10);
    let max = p.int(min, 60);
    k.push(format!("initial = {}", p.int(min, max)));
    k.push(format!("max = {max}"));
    match algorithm {
        "aimd" => {
            k.push(format!("min = {min}"));
            k.push(format!("backoff_ratio = {}", p.real(0.5, 0.99)));
            k.push(format!("timeout = {}", p.dur(100, 50_000)));
        }
        "vegas" => {
            k.push(format!("smoothing = {}", p.real(0.05, 1.0)));
            k.push(format!("probe_multiplier = {}", p.int(1, 40)));
        }
        _ => {
            k.push(format!("min = {min}"));
            k.push(format!("smoothing = {}", p.real(0.05, 1.0)));
            k.push(format!("queue_size = {}", p.int(0, 8)));
            k.push(format!("long_window = {}", p.int(1, 100)));
            k.push(format!("rtt_tolerance = {}", p.real(1.0, 3.0)));
        }
    }
    if p.chance(0.4) {
        let wmin = p.int(1_000, 200_000);
        k.push(format!(
            "window = {{ min = \"{wmin}us\", max = {}, size = {}, min_rtt = {} }}",
            p.dur(wmin, wmin * 3),
            p.int(1, 20),
            p.dur(0, 500)
        ));
    }
    format!("{{ {} }}", k.join(", "))
}

/// A bulkhead; `release` (a connection pool's), `wraps` and `pool` draw from `later`. A pool
/// is named after its policy, so every path sharing it has the same settings: a caller's
/// paths that use this policy share one pool.
fn bulkhead(p: &mut Pick, later: &mut Pick, policy: &str) -> String {
    let max = p.int(1, 20);
    let mut release = if later.chance(0.3) {
        ", release = \"answer\"".to_string()
    } else {
        String::new()
    };
    if later.chance(0.3) {
        release.push_str(", wraps = \"call\"");
    }
    if later.chance(0.3) {
        release.push_str(&format!(", pool = \"{policy}\""));
    }
    if p.chance(0.5) {
        format!(
            "{{ max_concurrent = {max}, queue = {}, max_wait = {}{release} }}",
            p.int(1, 20),
            p.dur(1, 20_000)
        )
    } else {
        format!("{{ max_concurrent = {max}{release} }}")
    }
}

/// A hedge; with `shareable_budget` (the retry's budget may be shared) and no budget of its
/// own it may draw on the retry budget.
fn hedge(p: &mut Pick, later: &mut Pick, shareable_budget: bool) -> String {
    let mut k = Vec::new();
    let learned = p.chance(0.5);
    if learned {
        k.push(format!("delay = \"p{}\"", p.int(1, 99)));
        k.push(format!("min_samples = {}", p.int(1, 30)));
        k.push(format!("period = {}", p.dur(10_000, 1_000_000)));
    } else {
        k.push(format!("delay = {}", p.dur(0, 20_000)));
    }
    k.push(format!("max = {}", p.int(1, 3)));
    if p.chance(0.4) {
        k.push(format!("budget = {}", p.real(0.01, 1.0).max(0.01)));
    } else if shareable_budget && later.chance(0.5) {
        k.push("uses_retry_budget = true".to_string());
    }
    format!("{{ {} }}", k.join(", "))
}

fn fallback(
    p: &mut Pick,
    later: &mut Pick,
    name: &str,
    to: &Fallbacks,
    extra: &mut Vec<String>,
) -> String {
    let on = if p.chance(0.3) {
        format!(", on = {}", p.subset(FAILURES))
    } else {
        String::new()
    };
    if to.services.is_empty() || p.chance(0.5) {
        return format!("{{ latency = {}{on} }}", p.dur(0, 5_000));
    }
    let service = p.one(to.services).clone();
    if p.chance(0.5) {
        // The fallback call's own policy: anything but a fallback of its own.
        let own = format!("{name}-fb");
        let none = Fallbacks { services: &[] };
        let mut text = policy(p, later, &own, &none, extra);
        text = text
            .lines()
            .filter(|l| !l.starts_with("fallback ="))
            .collect::<Vec<_>>()
            .join("\n");
        extra.push(text + "\n");
        format!("{{ to = \"{service}\", policy = \"{own}\"{on} }}")
    } else {
        format!("{{ to = \"{service}\"{on} }}")
    }
}

/// A call's token bucket: from one token a second to thousands, continuous or by ticks.
fn rate_limit(p: &mut Pick) -> String {
    format!("{{ {} }}", bucket_keys(p).join(", "))
}

/// The keys of a token bucket, a call's or a service's (`scenario.rs`, which adds its own).
pub(super) fn bucket_keys(p: &mut Pick) -> Vec<String> {
    let mut k = vec![
        format!("max_tokens = {}", p.int(1, 50)),
        format!("fill_interval = {}", p.dur(100, 2_000_000)),
    ];
    if p.chance(0.5) {
        k.push(format!("tokens_per_fill = {}", p.int(1, 20)));
    }
    if p.chance(0.5) {
        k.push(format!("refill = \"{}\"", p.one(&["continuous", "tick"])));
    }
    k
}

/// The `failure_accrual` table: Finagle's per-host accrual, short marks so they end in a run.
fn accrual(p: &mut Pick) -> String {
    let mut k = Vec::new();
    if p.chance(0.7) {
        k.push(format!("consecutive_failures = {}", p.int(1, 8)));
    }
    let first = p.int(1_000, 2_000_000);
    if p.chance(0.7) {
        k.push(format!("mark_dead_for = \"{first}us\""));
        if p.chance(0.5) {
            k.push(format!(
                "mark_dead_max = {}",
                p.dur(first, first + 10_000_000)
            ));
        }
    }
    format!("{{ {} }}", k.join(", "))
}
