//! The report as Markdown for a pull request: the same sections and tables as the HTML, with the
//! charts and the topology diagram as SVG files beside it, linked by relative path.

use super::tables::Table;
use super::{Block, Doc};
use crate::chart::Chart;
use std::fmt::Write as _;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn table(out: &mut String, t: &Table) {
    let _ = writeln!(
        out,
        "| {} |",
        t.header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let rule: Vec<&str> = (0..t.header.len())
        .map(|i| if t.is_numeric(i) { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "| {} |", rule.join(" | "));
    for row in &t.rows {
        let _ = writeln!(
            out,
            "| {} |",
            row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        );
    }
    out.push('\n');
}

/// `dir` is where the chart files are, relative to the report.
pub fn render(doc: &Doc, charts: &[Chart], dir: &str) -> String {
    let mut out = format!("# {}\n\n_{}_\n\n", doc.title, doc.subtitle);
    for s in &doc.sections {
        let _ = writeln!(out, "## {}\n", s.title);
        for b in &s.blocks {
            match b {
                Block::Text(t) => {
                    let _ = writeln!(out, "{t}\n");
                }
                Block::List(items) => {
                    for i in items {
                        let _ = writeln!(out, "- {i}");
                    }
                    out.push('\n');
                }
                Block::Table(t) => table(&mut out, t),
                Block::Diagram { file, .. } => {
                    let _ = writeln!(out, "![{}]({dir}/{file}.svg)\n", s.title);
                }
                Block::Charts(ids) => {
                    for i in ids {
                        let c = &charts[*i];
                        let _ = writeln!(out, "![{}]({dir}/{}.svg)\n", c.title(), c.file);
                    }
                }
            }
        }
    }
    out.push_str("---\nWritten by `cascade report --markdown` from the result files.\n");
    out
}
