//! Lints on what a scenario gates (`[[expect]]`), not on its settings: a gate that can pass
//! while the failure it watches for happens.

use super::facts::{Caller, Facts};
use super::{AMPLIFICATION_BEHIND_BREAKER, Finding};

/// An expectation as the lints see it: the metric as written, whether it is an upper bound
/// (`<` or `<=`, the gates a falling number passes), and the field that names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate<'a> {
    pub metric: &'a str,
    pub upper_bound: bool,
    pub field: String,
}

/// An upper bound on `edge.<a>.<b>.amplification` (or one of its operations') where a call
/// from a to b goes through a breaker: a call the open breaker refuses counts as a call with no
/// attempt, so an outage behind the breaker lowers the number (0.31 in the issue that found
/// it) however hard the calls that do go out retry. `amplification_sent` answers that. A
/// retry-only breaker (Brooker's) refuses no first try, so it does not lower the number.
pub fn amplification_behind_breaker(facts: &Facts, gates: &[Gate], out: &mut Vec<Finding>) {
    for gate in gates.iter().filter(|g| g.upper_bound) {
        let Some(edge) = gate
            .metric
            .strip_prefix("edge.")
            .and_then(|m| m.strip_suffix(".amplification"))
        else {
            continue;
        };
        let behind = facts.sites.iter().find_map(|site| {
            let policy = &site.spec.policy;
            // A retry-only breaker lets every first try through: no call goes without one.
            policy.breaker().filter(|b| !b.retries_only())?;
            let from = match site.caller {
                Caller::Client(c) => &facts.model.clients[c].name,
                Caller::Service { service, .. } => &facts.model.services[service].name,
            };
            let to = &facts.model.services[site.spec.to].name;
            let name = format!("{from}.{to}");
            let ours = edge == name || edge.starts_with(&format!("{name}.op."));
            ours.then(|| (name, policy.name.clone()))
        });
        let Some((name, policy)) = behind else {
            continue;
        };
        let breaker = match policy {
            Some(p) => format!("the breaker of `policy.{p}`"),
            None => "a breaker".to_string(),
        };
        out.push(Finding {
            id: AMPLIFICATION_BEHIND_BREAKER,
            field: gate.field.clone(),
            message: format!(
                "`{}` is bounded above, but calls from {} go through {breaker}: a call it \
                 refuses while open counts with no attempt, so an outage lowers amplification \
                 and the gate passes however hard the calls sent retry; bound \
                 `edge.{name}.amplification_sent` (attempts per call that sent one) for the \
                 load sent",
                gate.metric,
                name.replace('.', " to ")
            ),
        });
    }
}
