//! Lints on the tail of an attempt (`sampled.rs`): a per-try timeout that cuts into the callee's
//! healthy latency, and a breaker whose half-open probes that tail makes unlikely to all pass.

use cascade_policy::bulkhead::Wraps;
use cascade_policy::outcome::Outcome;

use super::facts::{Facts, Site};
use super::sampled::{DRAWS, Sampled, quantile, share_above};
use super::{Finding, HALF_OPEN_PROBES, TIMEOUT_BELOW_MEDIAN, TIMEOUT_BELOW_P90, dur, dur_f};
use crate::model::CallSpec;

/// Above this share of healthy attempts timing out (a timeout below the attempt's 90th
/// percentile), a per-try timeout is part of the normal latency, not a guard against the
/// abnormal: each of those attempts is wasted work and, retried, extra load.
const TAIL_SHARE: f64 = 0.10;

/// Below this chance that a round of probes all pass, a half-open breaker re-opens more often
/// than it closes.
const CLOSE_CHANCE: f64 = 0.5;

/// A per-try timeout (`timeout`, `retry.timeout`) below the 90th percentile of an attempt,
/// with the share of attempts it cuts. One already below the median is left to
/// `timeout-below-median` (which runs first), as that says more.
pub fn timeout_below_p90(facts: &Facts, sampled: &mut Sampled, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let spec = site.spec;
        let Some(name) = spec.policy.name.as_deref() else {
            continue;
        };
        let mut timeouts = vec![(spec.policy.timeout(), format!("policy.{name}.timeout"))];
        if let Some(r) = spec.policy.retry().filter(|r| r.attempts() > 1) {
            timeouts.push((r.timeout(), format!("policy.{name}.retry.timeout")));
        }
        for (t, field) in timeouts {
            let Some(t) = t.map(|t| t.0) else { continue };
            if (out.iter()).any(|f| f.id == TIMEOUT_BELOW_MEDIAN && f.field == field) {
                continue;
            }
            let draws = sampled.attempts(spec);
            let share = share_above(draws, t as f64);
            if share <= TAIL_SHARE {
                continue;
            }
            out.push(Finding {
                id: TIMEOUT_BELOW_P90,
                field,
                message: format!(
                    "{}: the {} timeout is below the 90th percentile of an attempt, about {} \
                     ({}, no queueing): about {} of attempts time out on a healthy day",
                    facts.call_name(site),
                    dur(t),
                    dur_f(quantile(draws, 0.9)),
                    what_is_drawn(facts, spec),
                    percent(share)
                ),
            });
        }
    }
}

/// A breaker that closes from half-open only when all `half_open_calls` probes pass, where the
/// healthy tail (timeouts it counts, slow calls it watches) fails so many probes that a round
/// more likely re-opens it: the breaker flaps after every outage.
pub fn half_open_probes(facts: &Facts, sampled: &mut Sampled, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let policy = &site.spec.policy;
        let (Some(b), Some(name)) = (policy.breaker(), policy.name.as_deref()) else {
            continue;
        };
        let probe = Probe::of(site);
        if !probe.can_fail() {
            continue;
        }
        let fails = probe.draw(sampled, site.spec);
        let failed = fails.share();
        let n = b.config().half_open_calls();
        let close = (1.0 - failed).powi(n as i32);
        if failed == 0.0 || close >= CLOSE_CHANCE {
            continue;
        }
        out.push(Finding {
            id: HALF_OPEN_PROBES,
            field: format!("policy.{name}.breaker.half_open_calls"),
            message: format!(
                "{}: half-open, the breaker closes only if all {n} probes pass, but about {} \
                 of {} fail on a healthy day ({}; {}, no queueing): a round of probes closes \
                 it with probability about {:.2}^{n} = {}, so after an outage it re-opens more \
                 often than it closes",
                facts.call_name(site),
                percent(failed),
                probe.unit(),
                probe.why(&fails),
                what_is_drawn(facts, site.spec),
                1.0 - failed,
                percent(close)
            ),
        });
    }
}

/// What a probe of a breaker is on a healthy day, and what fails it.
struct Probe {
    /// The attempts a probe makes, each with its timeout (ns): one for a breaker around each
    /// attempt, all the retry loop's (while it retries timeouts) for one around the call.
    timeouts: Vec<f64>,
    /// A probe that timed out counts as a failure.
    timeout_fails: bool,
    /// A probe that took longer fails (`slow_call_rate` watched).
    slow: Option<f64>,
}

impl Probe {
    fn of(site: &Site) -> Probe {
        let policy = &site.spec.policy;
        let b = policy.breaker().expect("a breaker");
        let cfg = b.config();
        let first = policy.timeout().map_or(f64::INFINITY, |t| t.0 as f64);
        let mut timeouts = vec![first];
        if let (Wraps::Call, Some(r)) = (b.wraps(), policy.retry())
            && r.retries(Outcome::Timeout)
        {
            let later = r.timeout().map_or(first, |t| t.0 as f64);
            timeouts.extend((1..r.attempts()).map(|_| later));
        }
        let watched = cfg.slow_call_rate() <= 1.0 && cfg.slow_call_duration().0 < u64::MAX;
        Probe {
            timeouts,
            timeout_fails: cfg.count().contains(Outcome::Timeout),
            slow: watched.then(|| cfg.slow_call_duration().0 as f64),
        }
    }

    fn can_fail(&self) -> bool {
        let times_out = self.timeouts.iter().any(|t| t.is_finite());
        (times_out && self.timeout_fails) || self.slow.is_some()
    }

    /// Draws `DRAWS` probes: each its attempts until one ends in time (the first attempt is
    /// the call's shared draw), their time cut at each timeout (backoff left out, so slowness
    /// is judged on the least a probe takes).
    fn draw(&self, sampled: &mut Sampled, spec: &CallSpec) -> Fails {
        let firsts = sampled.attempts(spec).clone();
        let mut fails = Fails::default();
        for first in firsts {
            let mut took = 0.0;
            let mut timed_out = true;
            for (i, &t) in self.timeouts.iter().enumerate() {
                let a = if i == 0 { first } else { sampled.attempt(spec) };
                took += a.min(t);
                if a <= t {
                    timed_out = false;
                    break;
                }
            }
            let by_timeout = timed_out && self.timeout_fails;
            let by_slowness = self.slow.is_some_and(|s| took > s);
            fails.timeout += usize::from(by_timeout);
            fails.slow += usize::from(by_slowness);
            fails.any += usize::from(by_timeout || by_slowness);
        }
        fails
    }

    fn unit(&self) -> &'static str {
        if self.timeouts.len() > 1 {
            "probes (each a call with its retries)"
        } else {
            "probes"
        }
    }

    /// What failed the probes drawn, for the message.
    fn why(&self, fails: &Fails) -> String {
        let mut why = Vec::new();
        if fails.timeout > 0 {
            why.push(format!("timing out at {}", dur_f(self.timeouts[0])));
        }
        if let Some(s) = self.slow.filter(|_| fails.slow > 0) {
            why.push(format!("slower than {}", dur_f(s)));
        }
        why.join(" or ")
    }
}

/// How many of `DRAWS` probes failed, and by what (a probe can fail by both).
#[derive(Default)]
struct Fails {
    timeout: usize,
    slow: usize,
    any: usize,
}

impl Fails {
    fn share(&self) -> f64 {
        self.any as f64 / DRAWS as f64
    }
}

/// What an attempt's draw adds up, for a message: `sampled: network both ways and payments'
/// time`.
fn what_is_drawn(facts: &Facts, spec: &CallSpec) -> String {
    let callee = super::facts::possessive(&facts.callee_name(spec));
    match spec.latency {
        Some(_) => format!("sampled: the network both ways and {callee} time"),
        None => format!("sampled: {callee} time"),
    }
}

/// `24%`, or `0.4%` below 1%.
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p < 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}
