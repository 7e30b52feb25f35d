//! The emission of every entity's metrics, in a fixed order, under the prefixes `names.rs`
//! composes (`client.web`, `service.api.op.login`, `edge.api.db`, a plan's branch steps).

use super::acc::{ClientAcc, EdgeAcc, Emit, ServiceAcc};
use super::names;
use crate::model::{Model, Rule};

/// What metrics are emitted under, in emission order: each slot's prefix (`client.web`,
/// `service.api`, `service.api.op.login`, `edge.api.db`) with its slot, and per service slot
/// its steps with a `p`: the step's index and the suffixes of its two metrics
/// (`step.<label>.taken`, `step.<label>.skipped`).
pub(super) struct EmissionOrder {
    pub(super) clients: Vec<(String, usize)>,
    pub(super) services: Vec<(String, usize)>,
    pub(super) edges: Vec<(String, usize)>,
    pub(super) steps: Vec<Vec<StepMetric>>,
    /// Per service slot, the suffixes of its keyed rate limit's passed and refused counts per
    /// key (`rate_keys.rs`): empty but for a keyed limit's own slot.
    pub(super) rate_keys: Vec<Vec<Option<[String; 2]>>>,
}

/// A metric of a plan's branches: a step with a `p` (its index, and the names of its taken and
/// skipped counts) or one option of a `choose` step (its entry in `ServiceAcc::options`).
pub(super) enum StepMetric {
    Maybe(usize, String, String),
    Option(usize, String),
}

/// The branch metrics of `plan`, in step order: `step.<label>.taken` and `.skipped` for a step
/// with a `p`, `step.<label>.option.<k>` for each option of a `choose`.
pub(super) fn step_metrics(plan: &crate::model::Plan) -> Vec<StepMetric> {
    let mut out = Vec::new();
    let mut options = 0;
    for (i, b) in plan.branches.iter().enumerate() {
        let Some(b) = b else { continue };
        match &b.rule {
            Rule::Maybe(_) => out.push(StepMetric::Maybe(
                i,
                names::step_taken(&b.label),
                names::step_skipped(&b.label),
            )),
            Rule::Choose { until, .. } => {
                for k in 0..until.len() {
                    out.push(StepMetric::Option(options, names::step_option(&b.label, k)));
                    options += 1;
                }
            }
            Rule::Always => {}
        }
    }
    out
}

pub(super) fn emit_entities(
    order: &EmissionOrder,
    reach: &[Vec<usize>],
    clients: &[ClientAcc],
    services: &[ServiceAcc],
    edges: &[EdgeAcc],
    span: u64,
    out: &mut dyn FnMut(&str, f64),
) {
    let mut name = String::new();
    let mut with_prefix = |prefix: &str, emit_fn: &mut dyn FnMut(Emit)| {
        emit_fn(&mut |suffix: &str, v: f64| {
            names::write_metric(&mut name, prefix, suffix);
            out(&name, v);
        });
    };
    for (p, slot) in &order.clients {
        let a = &clients[*slot];
        with_prefix(p, &mut |e| a.emit(span, e));
    }
    // End-to-end amplification: attempts reaching each service per request of the clients
    // whose calls can reach it (so an unrelated client changes nothing).
    for (p, slot) in &order.services {
        let (a, reaching, steps) = (&services[*slot], &reach[*slot], &order.steps[*slot]);
        let requests: u64 = reaching.iter().map(|&c| clients[c].requests).sum();
        let per_request = if requests > 0 {
            a.arrivals as f64 / requests as f64
        } else {
            0.0
        };
        with_prefix(p, &mut |e| {
            a.emit(span, e);
            e("attempts_per_request", per_request);
            for m in steps {
                match m {
                    StepMetric::Maybe(i, taken, skipped) => {
                        e(taken, a.steps[*i].taken as f64);
                        e(skipped, a.steps[*i].skipped as f64);
                    }
                    StepMetric::Option(k, name) => e(name, a.options[*k] as f64),
                }
            }
            for (names, counts) in order.rate_keys[*slot].iter().zip(&a.rate_keys) {
                if let Some([passed, refused]) = names {
                    e(passed, counts[0] as f64);
                    e(refused, counts[1] as f64);
                }
            }
        });
    }
    for (p, slot) in &order.edges {
        let a = &edges[*slot];
        with_prefix(p, &mut |e| a.emit(span, e));
    }
}

/// For each service, the clients from which a chain of calls (or fallbacks) leads to it.
pub(super) fn reaching_clients(model: &Model) -> Vec<Vec<usize>> {
    let mut reach = vec![Vec::new(); model.services.len()];
    for (c, client) in model.clients.iter().enumerate() {
        let mut seen = vec![false; model.services.len()];
        let mut stack = vec![client.call.to];
        stack.extend(
            client
                .calls()
                .filter_map(|c| c.fallback.map(|f| model.fallbacks[f].to)),
        );
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut seen[s], true) {
                continue;
            }
            reach[s].push(c);
            for call in model.services[s].calls() {
                stack.push(call.to);
                stack.extend(call.fallback.map(|f| model.fallbacks[f].to));
            }
        }
    }
    reach
}
