//! The report as one self-contained HTML file: inline CSS, inline SVG charts and diagram, no
//! script and no external reference, so it opens from disk and can be attached anywhere. It is
//! also well-formed XML (void elements closed, only XML's own entities), so it parses strictly.

use super::{Block, Doc};
use crate::chart::Chart;
use crate::output::text_table::{escape_xml as esc, verdict_class as class_of};
use std::fmt::Write as _;

const CSS: &str = "
:root { color-scheme: light; }
body { font-family: -apple-system, 'Segoe UI', 'DejaVu Sans', Helvetica, Arial, sans-serif;
  margin: 0 auto; max-width: 1180px; padding: 24px 28px 60px; color: #222; line-height: 1.45; }
h1 { font-size: 1.7em; margin: 0 0 4px; }
.subtitle { color: #555; margin: 0 0 18px; }
nav { background: #f5f7f9; border: 1px solid #e2e6ea; border-radius: 6px; padding: 8px 14px;
  margin-bottom: 8px; font-size: 0.92em; }
nav a { margin-right: 14px; color: #0072b2; text-decoration: none; white-space: nowrap; }
h2 { font-size: 1.3em; border-bottom: 2px solid #e2e6ea; padding-bottom: 4px; margin-top: 34px; }
table { border-collapse: collapse; margin: 10px 0 18px; font-size: 0.88em; }
th, td { border: 1px solid #dde1e5; padding: 4px 9px; vertical-align: top; }
th { background: #f0f3f6; text-align: left; }
tr:nth-child(even) td { background: #fafbfc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.pass { color: #005a8c; font-weight: 600; }
.fail { color: #b34700; font-weight: 600; }
ul.glance { padding-left: 0; list-style: none; }
ul.glance li { padding: 3px 0 3px 8px; border-left: 4px solid #dde1e5; margin: 4px 0; }
ul.glance li.pass { border-left-color: #0072b2; color: inherit; font-weight: normal; }
ul.glance li.fail { border-left-color: #d55e00; color: inherit; font-weight: normal; }
figure { margin: 10px 0 22px; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eceff2; border-radius: 4px; }
figcaption { color: #555; font-size: 0.85em; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(540px, 1fr)); gap: 12px; }
.diagram { overflow-x: auto; }
footer { margin-top: 40px; color: #777; font-size: 0.85em; }
";

/// A plotters SVG without any XML declaration, ready to sit inside the page.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

pub fn render(doc: &Doc, charts: &[Chart], svgs: &[String]) -> String {
    let mut out = String::with_capacity(svgs.iter().map(String::len).sum::<usize>() + 65_536);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(&doc.title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", esc(&doc.title));
    let _ = writeln!(out, "<p class=\"subtitle\">{}</p>", esc(&doc.subtitle));
    out.push_str("<nav>");
    for s in &doc.sections {
        let _ = write!(out, "<a href=\"#{}\">{}</a>", esc(&s.id), esc(&s.title));
    }
    out.push_str("</nav>\n");
    for s in &doc.sections {
        let _ = writeln!(
            out,
            "<section id=\"{}\">\n<h2>{}</h2>",
            esc(&s.id),
            esc(&s.title)
        );
        for b in &s.blocks {
            match b {
                Block::Text(t) => {
                    let _ = writeln!(out, "<p>{}</p>", esc(t));
                }
                Block::List(items) => {
                    out.push_str("<ul class=\"glance\">\n");
                    for i in items {
                        let _ = writeln!(out, "<li{}>{}</li>", class_of(i), esc(i));
                    }
                    out.push_str("</ul>\n");
                }
                Block::Table(t) => out.push_str(&t.html()),
                Block::Diagram { svg, .. } => {
                    let _ = writeln!(out, "<div class=\"diagram\">\n{}</div>", inline_svg(svg));
                }
                Block::Charts(ids) => {
                    if ids.is_empty() {
                        out.push_str("<p>No chart.</p>\n");
                        continue;
                    }
                    let grid = ids.len() > 1
                        && ids
                            .iter()
                            .all(|i| !matches!(charts[*i].kind, crate::chart::Kind::Timeline(_)));
                    if grid {
                        out.push_str("<div class=\"grid\">\n");
                    }
                    for i in ids {
                        let _ = writeln!(
                            out,
                            "<figure>\n{}<figcaption>{}</figcaption>\n</figure>",
                            inline_svg(&svgs[*i]),
                            esc(&charts[*i].caption)
                        );
                    }
                    if grid {
                        out.push_str("</div>\n");
                    }
                }
            }
        }
        out.push_str("</section>\n");
    }
    out.push_str(
        "<footer>Written by <code>cascade report</code> from the result files; the same files always give this same page.</footer>\n</body>\n</html>\n",
    );
    out
}
