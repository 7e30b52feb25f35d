//! What `cascade margin` prints: one paragraph per fault, a line per axis, in words and
//! numbers ("recovers up to 1.7× today's load (95% CI 1.6–1.8)"), then the probes each search
//! ran, so the figure can be checked against its runs.

use super::estimate::How;
use super::mechanism::Mechanism;
use super::search::Found;
use super::{Axis, Margin};
use crate::model::Model;
use crate::number::sig3;
use std::fmt::Write;

/// The margins of `model`'s faults, in order.
pub fn summary(model: &Model, margins: &[Margin]) -> String {
    let mut out = String::new();
    let mut last_fault = None;
    for m in margins {
        if last_fault != Some(m.fault) {
            let f = &model.faults[m.fault];
            let _ = writeln!(
                out,
                "fault {} ({}, {}s–{}s):",
                m.fault,
                crate::output::describe::fault_label(model, f),
                sig3(f.start as f64 / 1e9),
                sig3(f.end as f64 / 1e9),
            );
            last_fault = Some(m.fault);
        }
        let _ = writeln!(out, "  {}: {}", m.axis.name(), line(model, m));
        let probes: Vec<String> = (m.found.probes().iter())
            .map(|p| format!("{}× {}/{}", sig3(p.x), p.recovered, p.runs))
            .collect();
        let _ = writeln!(
            out,
            "    probes (multiplier, runs recovered): {}",
            probes.join(", ")
        );
    }
    out
}

/// What a multiplier of the axis means, for people.
fn amount(model: &Model, m: &Margin, x: f64) -> String {
    match m.axis {
        Axis::Load => format!("{}× today's load", sig3(x)),
        Axis::Trigger => format!(
            "{}× its duration ({} s)",
            sig3(x),
            sig3(super::scale::trigger_s(model, m.fault) * x)
        ),
        Axis::Magnitude => format!(
            "{}× its size ({})",
            sig3(x),
            crate::output::describe::fault_effect(
                &super::scale::magnitude(model, m.fault, x).faults[m.fault]
            )
        ),
    }
}

fn line(model: &Model, m: &Margin) -> String {
    let runs = m.found.runs();
    match (&m.found, &m.estimate) {
        (Found::Bracketed { .. }, Some(e)) => {
            let interval = match e.how {
                How::Fitted => format!(
                    "95% CI {}–{}, a logistic fit over {runs} runs",
                    sig3(e.low),
                    sig3(e.high)
                ),
                How::Bracket { confidence } => format!(
                    "the 50% point lies between {} and {}, where most runs did and did not recover, with {}% confidence; no logistic fit exists over these {runs} runs",
                    sig3(e.low),
                    sig3(e.high),
                    sig3(100.0 * confidence)
                ),
            };
            let beyond = match &m.mechanism {
                Some(Mechanism::RetryStorm {
                    service,
                    below,
                    above,
                }) => format!(
                    "; beyond, a retry storm sustains itself: attempts per request at {service} {}× → {}×",
                    sig3(*below),
                    sig3(*above)
                ),
                Some(Mechanism::Backlog {
                    service,
                    below,
                    above,
                }) => format!(
                    "; beyond, the queue at {service} does not drain: {} → {} requests left at the end",
                    sig3(*below),
                    sig3(*above)
                ),
                Some(Mechanism::OverloadedBefore) => {
                    "; beyond, the load alone overloads it before the fault".to_string()
                }
                _ => String::new(),
            };
            format!(
                "recovers up to {} ({interval}){beyond}",
                amount(model, m, e.x)
            )
        }
        (Found::RecoversThroughout { probes }, _) => format!(
            "recovers at every multiplier tried, up to {} ({runs} runs)",
            amount(model, m, probes.iter().map(|p| p.x).fold(0.0, f64::max))
        ),
        (Found::FailsThroughout { probes }, _) => format!(
            "does not recover even at {} ({runs} runs)",
            amount(
                model,
                m,
                probes.iter().map(|p| p.x).fold(f64::INFINITY, f64::min)
            )
        ),
        _ => format!(
            "the {runs} runs allowed (--max-runs) ran out before the boundary was bracketed"
        ),
    }
}
