//! The scenario's topology as a hand-made SVG: clients on the left, then services by their depth
//! in the call graph, each call an arrow labelled with its policy's highlights (timeout,
//! attempts, breaker…); services a fault hits are outlined in vermillion with their fault tags.

use crate::chart::palette::{self, hex};
use crate::model::fault::Target;
use crate::model::{Load, Model};
use crate::number::short;
use crate::output::describe;
use crate::output::text_table::escape_xml as esc;
use std::fmt::Write as _;

const BOX_W: i32 = 180;
const BOX_H: i32 = 48;
/// Column pitch: a box and the room its incoming arrows' labels need.
const COL: i32 = BOX_W + 260;
const ROW: i32 = 84;
const PAD: i32 = 24;
/// On every text element: some renderers do not inherit it from the root.
const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";

struct Node {
    name: String,
    detail: String,
    column: usize,
    row: usize,
    faults: Vec<usize>,
}

/// Each service's column: one more than the deepest caller's (clients are column 0).
fn columns(model: &Model, calls: &[(usize, usize)]) -> Vec<usize> {
    let n = model.clients.len() + model.services.len();
    let mut col = vec![0usize; n];
    for s in 0..model.services.len() {
        col[model.clients.len() + s] = 1;
    }
    // Longest path by relaxation; the graph is acyclic, so n rounds are enough.
    for _ in 0..n {
        let mut changed = false;
        for &(from, to) in calls {
            if col[to] < col[from] + 1 {
                col[to] = col[from] + 1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    col
}

pub fn svg(model: &Model) -> String {
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
    let calls_by_edge = describe::edge_calls(model);
    // (from node, to node, label) for every edge.
    let edges: Vec<(usize, usize, String)> = model
        .edges
        .iter()
        .filter_map(|e| {
            let from_name = e
                .name
                .strip_suffix(&format!(".{}", model.services[e.to].name))?;
            let from = index(from_name)?;
            let label = calls_by_edge
                .iter()
                .find(|c| c.edge == e.name)
                .map(|c| describe::highlights(&c.call.policy))
                .unwrap_or_default();
            Some((from, nc + e.to, label))
        })
        .collect();
    let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.0, e.1)).collect();
    let col = columns(model, &pairs);
    let mut nodes: Vec<Node> = Vec::new();
    let mut rows_in: Vec<usize> = vec![0; col.iter().max().map_or(1, |m| m + 1)];
    for (i, c) in model.clients.iter().enumerate() {
        let detail = match &c.load {
            Load::Open { poisson, rate } => format!(
                "{} {}/s",
                if *poisson { "poisson" } else { "constant" },
                short(rate.rate_at(0))
            ),
            Load::Closed { users, .. } => format!("{users} users"),
        };
        nodes.push(Node {
            name: c.name.clone(),
            detail,
            column: col[i],
            row: 0,
            faults: Vec::new(),
        });
    }
    for s in &model.services {
        // In words: a browser without the glyph drew "queue ∞" as "queue =".
        let queue = if s.queue == u64::MAX {
            "unbounded queue".to_string()
        } else {
            format!("queue {}", short(s.queue as f64))
        };
        nodes.push(Node {
            name: s.name.clone(),
            detail: format!("{}×{} workers, {queue}", s.instances, s.workers),
            column: 0,
            row: 0,
            faults: Vec::new(),
        });
    }
    for (i, node) in nodes.iter_mut().enumerate() {
        node.column = col[i];
        node.row = rows_in[node.column];
        rows_in[node.column] += 1;
    }
    for (k, f) in model.faults.iter().enumerate() {
        let hit = match f.target {
            Target::Service(s) | Target::Instance(s, _) => Some(nc + s),
            Target::Edge(e) => Some(nc + model.edges[e].to),
            Target::Client(c) => Some(c),
        };
        if let Some(n) = hit {
            nodes[n].faults.push(k);
        }
    }
    let tallest = rows_in.iter().copied().max().unwrap_or(1).max(1) as i32;
    let width = PAD * 2 + (rows_in.len() as i32 - 1) * COL + BOX_W;
    let height = PAD * 2 + (tallest - 1) * ROW + BOX_H + 10;
    // Columns are centred vertically.
    let pos = |n: &Node| -> (i32, i32) {
        let in_col = rows_in[n.column] as i32;
        let offset = (tallest - in_col) * ROW / 2;
        (
            PAD + n.column as i32 * COL,
            PAD + offset + n.row as i32 * ROW,
        )
    };
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"topology of {}\">\n",
        esc(&model.name)
    );
    let _ = writeln!(
        out,
        "<defs><marker id=\"topology-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#555555\"/></marker></defs>"
    );
    for (from, to, _) in &edges {
        let (x0, y0) = pos(&nodes[*from]);
        let (x1, y1) = pos(&nodes[*to]);
        let (ax, ay, bx, by) = (x0 + BOX_W, y0 + BOX_H / 2, x1, y1 + BOX_H / 2);
        let mid = (ax + bx) / 2;
        let _ = writeln!(
            out,
            "<path d=\"M {ax} {ay} C {mid} {ay}, {mid} {by}, {bx} {by}\" fill=\"none\" stroke=\"#555555\" stroke-width=\"1.5\" marker-end=\"url(#topology-arrow)\"/>"
        );
    }
    // Labels after every arrow, so no arrow crosses a label: each just before its arrow's
    // head, right-aligned, stacked upwards when several arrows come into one box.
    let mut incoming = vec![0i32; nodes.len()];
    let fan_in = |to: usize| edges.iter().filter(|e| e.1 == to).count();
    for (from, to, label) in &edges {
        if label.is_empty() {
            continue;
        }
        // Arrows converge on a box: say whose call the label is.
        let label = if fan_in(*to) > 1 {
            format!("{}: {label}", nodes[*from].name)
        } else {
            label.clone()
        };
        let (x1, y1) = pos(&nodes[*to]);
        let k = incoming[*to];
        incoming[*to] += 1;
        let right = x1 - 12;
        let base = y1 + BOX_H / 2 - 7 - k * 18;
        let w = (label.chars().count() as i32) * 6 + 10;
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"16\" rx=\"3\" fill=\"#ffffff\" fill-opacity=\"0.92\" stroke=\"#cccccc\"/><text font-family=\"{FONT}\" x=\"{}\" y=\"{base}\" font-size=\"10.5\" text-anchor=\"end\" fill=\"#333333\">{}</text>",
            right - w + 4,
            base - 12,
            right,
            esc(&label)
        );
    }
    for (i, n) in nodes.iter().enumerate() {
        let (x, y) = pos(n);
        let client = i < nc;
        let fill = if client { "#eaf3fa" } else { "#f4f4f4" };
        let stroke = if n.faults.is_empty() {
            if client {
                hex(palette::series(0))
            } else {
                "#777777".into()
            }
        } else {
            hex(palette::FAULT)
        };
        let width = if n.faults.is_empty() { 1.5 } else { 3.0 };
        let _ = writeln!(
            out,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>",
            if client { 22 } else { 6 }
        );
        let _ = writeln!(
            out,
            "<text font-family=\"{FONT}\" x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#111111\">{}</text>",
            x + BOX_W / 2,
            y + 20,
            esc(&n.name)
        );
        let _ = writeln!(
            out,
            "<text font-family=\"{FONT}\" x=\"{}\" y=\"{}\" font-size=\"10.5\" text-anchor=\"middle\" fill=\"#555555\">{}</text>",
            x + BOX_W / 2,
            y + 37,
            esc(&n.detail)
        );
        if !n.faults.is_empty() {
            let tags: Vec<String> = n.faults.iter().map(|k| format!("F{k}")).collect();
            let _ = writeln!(
                out,
                "<text font-family=\"{FONT}\" x=\"{}\" y=\"{}\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"end\" fill=\"{}\">⚡ {}</text>",
                x + BOX_W - 4,
                y - 4,
                hex(palette::FAULT),
                tags.join(" ")
            );
        }
    }
    out.push_str("</svg>\n");
    out
}
