//! Lints on time: retries that cannot fit in the time their call has, and calls that outlive
//! their caller's wait because they do not take its deadline.

use super::facts::{Caller, Facts, attempt_timeout, longest_timeout, possessive};
use super::{Finding, INVERTED_TIMEOUT, RETRY_CANNOT_FIT, dur};
use crate::model::Outcome;

/// A retry that can never start: even when every attempt fails at once, or after attempts
/// that time out, the backoff (at the bottom of its jitter) and the attempts before it leave
/// less than `min_attempt` (at least 1 ns) of the time the call has.
pub fn retry_cannot_fit(facts: &Facts, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let spec = site.spec;
        let Some(retry) = spec.policy.retry().filter(|r| r.attempts() > 1) else {
            continue;
        };
        let deadline = facts.deadline(site);
        let (Some(d), Some(name)) = (deadline.ns, spec.policy.name.as_deref()) else {
            continue;
        };
        if !spec.retry_allowed() {
            continue;
        }
        let need = spec.policy.min_attempt().0.max(1);
        let fits = |start: u64| start < d && d - start >= need;
        let least = |k: u32| retry.backoff().least(k).0;
        let attempts = retry.attempts();
        let field = format!("policy.{name}.retry");
        let call = facts.call_name(site);
        let left = if need > 1 {
            format!("under its {} `min_attempt`", dur(need))
        } else {
            "nothing".to_string()
        };
        // Attempts failing at once: attempt k starts after the k - 1 backoffs alone.
        let mut start = 0u64;
        let never = (2..=attempts).find(|&k| {
            start = start.saturating_add(least(k - 1));
            !fits(start)
        });
        if let Some(k) = never {
            out.push(Finding {
                id: RETRY_CANNOT_FIT,
                field,
                message: format!(
                    "{call}: attempt {k} of {attempts} can never start: even if every attempt \
                     failed at once, the backoffs before it (at least {} in all) leave {left} of \
                     the {} the call has ({}){}",
                    dur(start),
                    dur(d),
                    deadline.why,
                    later(k, attempts)
                ),
            });
            continue;
        }
        if !retry.retries(Outcome::Timeout) {
            continue;
        }
        // Attempts that time out: attempt k starts after k - 1 timeouts and their backoffs.
        let mut start = 0u64;
        for k in 1..attempts {
            let Some(t) = attempt_timeout(spec, k) else {
                break;
            };
            let end = start.saturating_add(t);
            let next = end.saturating_add(least(k));
            if end >= d || !fits(next) {
                let why = if end >= d && k == 1 {
                    format!(
                        "the first attempt's {} timeout reaches the {} the call has ({})",
                        dur(t),
                        dur(d),
                        deadline.why
                    )
                } else if end >= d {
                    format!(
                        "after timeouts, attempt {k} starts at {} at the earliest and its {} \
                         timeout would end at {}, past the {} the call has ({})",
                        dur(start),
                        dur(t),
                        dur(end),
                        dur(d),
                        deadline.why
                    )
                } else {
                    format!(
                        "{} of timed-out attempts and backoffs (at least) leave {left} of the {} \
                         the call has ({})",
                        dur(next),
                        dur(d),
                        deadline.why
                    )
                };
                out.push(Finding {
                    id: RETRY_CANNOT_FIT,
                    field: field.clone(),
                    message: format!(
                        "{call}: attempt {} of {attempts} never follows a timed-out attempt: \
                         {why}{}",
                        k + 1,
                        later(k + 1, attempts)
                    ),
                });
                break;
            }
            start = next;
        }
    }
}

/// `; attempts 3 to 4 neither` after attempt `k`'s message, when there are later ones.
fn later(k: u32, attempts: u32) -> String {
    if k < attempts {
        match k + 1 {
            last if last == attempts => format!(" (nor can attempt {attempts})"),
            next => format!(" (nor can attempts {next} to {attempts})"),
        }
    } else {
        String::new()
    }
}

/// A call made by a service without its caller's deadline (`propagate_deadline = false`)
/// whose attempt may last at least as long as the service's callers wait for it: when the
/// callee is slow, the caller has given up while the call still waits (and a retry upstream
/// starts a second copy).
pub fn inverted_timeout(facts: &Facts, out: &mut Vec<Finding>) {
    for site in &facts.sites {
        let spec = site.spec;
        let Caller::Service { service, plan } = site.caller else {
            continue;
        };
        if spec.policy.propagate_deadline() {
            continue;
        }
        let Some(name) = spec.policy.name.as_deref() else {
            continue;
        };
        let Some(wait) = facts.wait(service, plan).filter(|w| w.ns.is_some()) else {
            continue;
        };
        let upstream = wait.ns.expect("bounded");
        let callee_waits = longest_timeout(spec);
        if callee_waits.is_some_and(|t| t < upstream) {
            continue;
        }
        let (field, waits) = match callee_waits {
            Some(t) => (
                format!("policy.{name}.timeout"),
                format!("waits up to {} an attempt", dur(t)),
            ),
            None => (
                format!("policy.{name}.propagate_deadline"),
                "has no timeout".to_string(),
            ),
        };
        out.push(Finding {
            id: INVERTED_TIMEOUT,
            field,
            message: format!(
                "{} {waits} and does not take its caller's deadline (`propagate_deadline = \
                 false`), but {} callers wait at most {} ({}): the caller gives up first and \
                 {} work after that is wasted; make it shorter or propagate the deadline",
                facts.call_name(site),
                possessive(&facts.model.services[service].name),
                dur(upstream),
                wait.why,
                possessive(&facts.callee_name(spec)),
            ),
        });
    }
}
