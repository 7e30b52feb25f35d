//! The report as Markdown for a pull request: the same sections and tables as the HTML, with the
//! charts and the topology diagram as SVG files beside it, linked by relative path.

use super::{Block, Doc};
use crate::chart::Chart;
use crate::output::text_table::Rule;
use std::fmt::Write as _;

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
                Block::Table(t) => {
                    out.push_str(&t.markdown(Rule::Spaced));
                    out.push('\n');
                }
                Block::Diagram { file, .. } => {
                    let _ = writeln!(out, "![{}]({dir}/{file}.svg)\n", s.title);
                }
                Block::Charts(ids) => {
                    for i in ids {
                        let c = &charts[*i];
                        let _ = writeln!(out, "![{}]({dir}/{}.svg)\n", c.caption, c.file);
                    }
                }
            }
        }
    }
    out.push_str("---\nWritten by `cascade report --markdown` from the result files.\n");
    out
}
