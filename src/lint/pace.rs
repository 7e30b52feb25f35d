//! A lint on closed loops: a think time or pace above zero but under a microsecond. No real
//! user or poller asks again within a microsecond, and when the answers come at once (a
//! refusal, an outage) such a loop asks a million times a second per user or more: the run
//! crawls, or stops at the work bound (`engine::work_bound`).

use super::facts::Facts;
use super::{Finding, SUB_MICROSECOND_THINK, dur, dur_f};
use crate::model::{Latency, Load};

/// Below this (ns), a think time's mean or a pace is not a user's.
pub const LEAST_GAP: u64 = 1_000;

/// Each closed-loop client whose `pace`, or whose think time's mean, is above zero and below
/// `LEAST_GAP`. A think of zero is the default (no think time) and is not judged.
pub fn sub_microsecond_think(facts: &Facts, out: &mut Vec<Finding>) {
    for client in &facts.model.clients {
        let Load::Closed { think, pace, .. } = &client.load else {
            continue;
        };
        let (key, what, ns) = match pace {
            Some(p) => ("pace", dur(*p), *p as f64),
            None => match think {
                Latency::Constant(t) => ("think", dur(*t), *t as f64),
                _ => {
                    let mean = think.mean();
                    ("think", format!("a mean of {}", dur_f(mean)), mean)
                }
            },
        };
        if ns <= 0.0 || ns >= LEAST_GAP as f64 {
            continue;
        }
        out.push(Finding {
            id: SUB_MICROSECOND_THINK,
            field: format!("client.{}.{key}", client.name),
            message: format!(
                "client {}: `{key}` of {what}, under {}: each user asks again that soon after \
                 an answer given at once (a refusal, an outage), over a million requests a \
                 second per user",
                client.name,
                dur(LEAST_GAP)
            ),
        });
    }
}
