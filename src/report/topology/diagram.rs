//! What the topology shows, before any geometry: a node per client and service with the lines
//! of text its box holds (load or workers, its operations, the faults that hit it), and an
//! edge per caller→callee pair with its label's lines (the policy's highlights; on a client's
//! arrow, its deadline and its mix).

use crate::model::fault::Target;
use crate::model::{CallSpec, Load, Model};
use crate::number::short;
use crate::output::describe;
use crate::time::format_duration as dur;

pub struct Node {
    pub name: String,
    pub lines: Vec<String>,
    /// `F0 latency · F2 errors`, empty when no fault hits it.
    pub faults: String,
    pub client: bool,
}

pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: Vec<String>,
}

pub struct Diagram {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

/// A label line longer than this many characters is wrapped at its ` · ` separators.
const LINE_CHARS: usize = 30;

fn wrap(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in text.split(" · ") {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 3 + part.chars().count() <= LINE_CHARS => {
                l.push_str(" · ");
                l.push_str(part);
            }
            _ => lines.push(part.to_string()),
        }
    }
    lines.retain(|l| !l.is_empty());
    lines
}

/// The operation a call asks for, by name; `None` for a service without operations.
fn operation_name(model: &Model, call: &CallSpec) -> Option<String> {
    let service = &model.services[call.to];
    (call.operation as usize)
        .checked_sub(1)
        .and_then(|i| service.operations.get(i))
        .map(|o| o.name.clone())
}

/// A client's arrow: its deadline and, with a mix, each operation's share and deadline.
fn client_lines(model: &Model, c: &crate::model::Client) -> Vec<String> {
    let deadline = |d: Option<u64>| d.map(|d| format!(" · deadline {}", dur(d)));
    let Some(mix) = &c.mix else {
        return c
            .deadline
            .map(|d| format!("deadline {}", dur(d)))
            .into_iter()
            .collect();
    };
    let mut lines = Vec::new();
    let mut entry = |call: &CallSpec, share: f64, d: Option<u64>| {
        let name =
            operation_name(model, call).unwrap_or_else(|| model.services[call.to].name.clone());
        lines.push(format!(
            "{name} {}{}",
            crate::output::units::ratio(share),
            deadline(d.or(c.deadline)).unwrap_or_default()
        ));
    };
    entry(&c.call, mix.first, c.deadline);
    let mut below = mix.first;
    for e in &mix.others {
        entry(&e.call, e.until - below, e.deadline);
        below = e.until;
    }
    lines
}

pub fn diagram(model: &Model) -> Diagram {
    let nc = model.clients.len();
    let index = |name: &str| -> Option<usize> {
        model
            .clients
            .iter()
            .position(|c| c.name == name)
            .or_else(|| {
                model
                    .services
                    .iter()
                    .position(|s| s.name == name)
                    .map(|s| nc + s)
            })
    };
    let mut nodes: Vec<Node> = Vec::new();
    for c in &model.clients {
        let load = match &c.load {
            Load::Open { poisson, rate } => format!(
                "{} {}/s",
                if *poisson { "poisson" } else { "constant" },
                short(rate.rate_at(0))
            ),
            Load::Closed { users, .. } => format!("{users} users"),
        };
        nodes.push(Node {
            name: c.name.clone(),
            lines: vec![load],
            faults: String::new(),
            client: true,
        });
    }
    for s in &model.services {
        // In words: a browser without the glyph drew "queue ∞" as "queue =".
        let queue = if s.queue == u64::MAX {
            "unbounded queue".to_string()
        } else {
            format!("queue {}", short(s.queue as f64))
        };
        let mut lines = vec![format!(
            "{}×{} workers, {queue}",
            s.instances,
            s.workers_text()
        )];
        for o in &s.operations {
            lines.push(match &o.label {
                Some(l) => format!("· {} ({l})", o.name),
                None => format!("· {}", o.name),
            });
        }
        nodes.push(Node {
            name: s.name.clone(),
            lines,
            faults: String::new(),
            client: false,
        });
    }
    for (k, f) in model.faults.iter().enumerate() {
        let hit = match f.target {
            Target::Service(s) | Target::Instance(s, _) => nc + s,
            Target::Edge(e) => nc + model.edges[e].to,
            Target::Client(c) => c,
        };
        let faults = &mut nodes[hit].faults;
        if !faults.is_empty() {
            faults.push_str(" · ");
        }
        faults.push_str(&format!("F{k} {}", f.kind()));
    }
    let calls_by_edge = describe::edge_calls(model);
    let edges = model
        .edges
        .iter()
        .filter_map(|e| {
            let from_name = e
                .name
                .strip_suffix(&format!(".{}", model.services[e.to].name))?;
            let from = index(from_name)?;
            let mut label = calls_by_edge
                .iter()
                .find(|c| c.edge == e.name)
                .map(|c| wrap(&describe::highlights(&c.call.policy)))
                .unwrap_or_default();
            if from < nc {
                label.extend(client_lines(model, &model.clients[from]));
            }
            Some(Edge {
                from,
                to: nc + e.to,
                label,
            })
        })
        .collect();
    Diagram { nodes, edges }
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wraps_long_highlights_at_their_separators() {
        assert_eq!(wrap("timeout 250ms · 3×"), ["timeout 250ms · 3×"]);
        assert_eq!(
            wrap("timeout 250ms · 3× · budget · breaker · bulkhead"),
            ["timeout 250ms · 3× · budget", "breaker · bulkhead"]
        );
        assert!(wrap("").is_empty());
    }
}
