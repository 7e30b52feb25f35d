//! The topology's SVG, drawn from its layout: edges first, then their labels, then the boxes
//! with their text; services a fault hits are outlined in vermillion and name their faults.

use super::diagram::Diagram;
use super::geometry::Layout;
use super::measure::{LABEL_PAD, LINE, NAME_SIZE, TEXT_SIZE};
use crate::chart::palette::{self, hex};
use crate::output::text_table::escape_xml as esc;
use std::fmt::Write as _;

/// On every text element: some renderers do not inherit it from the root.
const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";

/// A coordinate with at most one decimal, `12` rather than `12.0`.
fn n(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// `min_width`: the narrowest the page may scale the drawing to (px), so its smallest text
/// stays readable; a wider drawing scrolls inside the report's diagram block instead.
pub fn svg(title: &str, d: &Diagram, l: &Layout, min_width: f64) -> String {
    let (w, h) = (n(l.width), n(l.height));
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"topology of {}\" style=\"max-width: 100%; height: auto; min-width: {}px\">\n",
        esc(title),
        n(min_width.min(l.width))
    );
    out.push_str("<defs><marker id=\"topology-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#555555\"/></marker></defs>\n");
    for e in &l.edges {
        let path: Vec<String> = e
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{} {} {}", if i == 0 { "M" } else { "L" }, n(p.0), n(p.1)))
            .collect();
        let _ = writeln!(
            out,
            "<path d=\"{}\" fill=\"none\" stroke=\"#555555\" stroke-width=\"1.5\" stroke-linejoin=\"round\" marker-end=\"url(#topology-arrow)\"/>",
            path.join(" ")
        );
    }
    for (e, path) in d.edges.iter().zip(&l.edges) {
        let Some(r) = path.label else { continue };
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"#ffffff\" stroke=\"#cccccc\"/>",
            n(r.x),
            n(r.y),
            n(r.w),
            n(r.h)
        );
        for (k, line) in e.label.iter().enumerate() {
            let _ = write!(
                out,
                "<text font-family=\"{FONT}\" x=\"{}\" y=\"{}\" font-size=\"{TEXT_SIZE}\" fill=\"#333333\">{}</text>",
                n(r.x + LABEL_PAD),
                n(r.y + LABEL_PAD + 11.0 + k as f64 * LINE),
                esc(line)
            );
        }
        out.push('\n');
    }
    for (node, r) in d.nodes.iter().zip(&l.boxes) {
        let fill = if node.client { "#eaf3fa" } else { "#f4f4f4" };
        let stroke = if !node.faults.is_empty() {
            hex(palette::FAULT)
        } else if node.client {
            hex(palette::series(0))
        } else {
            "#777777".into()
        };
        let width = if node.faults.is_empty() { 1.5 } else { 3.0 };
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>",
            n(r.x),
            n(r.y),
            n(r.w),
            n(r.h),
            if node.client { 18 } else { 6 }
        );
        let mid = n(r.x + r.w / 2.0);
        let _ = writeln!(
            out,
            "<text font-family=\"{FONT}\" x=\"{mid}\" y=\"{}\" font-size=\"{NAME_SIZE}\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#111111\">{}</text>",
            n(r.y + 19.0),
            esc(&node.name)
        );
        let mut y = r.y + 19.0 + LINE + 2.0;
        for line in &node.lines {
            let _ = writeln!(
                out,
                "<text font-family=\"{FONT}\" x=\"{mid}\" y=\"{}\" font-size=\"{TEXT_SIZE}\" text-anchor=\"middle\" fill=\"#555555\">{}</text>",
                n(y),
                esc(line)
            );
            y += LINE;
        }
        if !node.faults.is_empty() {
            let _ = writeln!(
                out,
                "<text font-family=\"{FONT}\" x=\"{mid}\" y=\"{}\" font-size=\"{TEXT_SIZE}\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"{}\">{}</text>",
                n(y),
                hex(palette::FAULT),
                esc(&node.faults)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}
