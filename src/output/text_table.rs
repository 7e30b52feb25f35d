//! One table of text cells, rendered three ways: for the terminal (columns padded to their
//! widest cell), as Markdown and as HTML. The stdout tables, the sweep's `--export-markdown`
//! and the report all build this one type.

use std::fmt::Write as _;

#[derive(Debug, Clone, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Right-aligned (numeric) columns, in Markdown and HTML; a column past its end is text.
    numeric: Vec<bool>,
}

/// The rule under a Markdown table's header. Both forms are in files users keep (a sweep's
/// `--export-markdown`, the report's Markdown), so each keeps its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `|:--|--:|`: text columns marked left, numeric ones right (the sweep export).
    Tight,
    /// `| --- | ---: |`: numeric columns marked right (the report).
    Spaced,
}

impl Table {
    /// A table whose columns are all text, as far as Markdown and HTML go.
    pub fn new(header: &[&str]) -> Table {
        Table::with_numeric(header, &[])
    }

    /// A table whose columns flagged in `numeric` are right-aligned in Markdown and HTML.
    pub fn with_numeric(header: &[&str], numeric: &[bool]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            numeric: numeric.to_vec(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn is_numeric(&self, col: usize) -> bool {
        self.numeric.get(col).copied().unwrap_or(false)
    }

    /// For the terminal: every column padded to its widest cell and right-aligned, but the
    /// first (names) and the last (free text) left-aligned, whatever `numeric` says; a rule
    /// of dashes under the header; no trailing spaces.
    pub fn render(&self) -> String {
        let cols = self.header.len();
        let width: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                    .chain([self.header[c].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for (i, row) in std::iter::once(&self.header).chain(&self.rows).enumerate() {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                let pad = width[c] - cell.chars().count();
                if c == 0 || c + 1 == cols {
                    let _ = write!(line, "{cell}{}", " ".repeat(pad));
                } else {
                    let _ = write!(line, "{}{cell}", " ".repeat(pad));
                }
                if c + 1 < cols {
                    line.push_str("  ");
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
            if i == 0 {
                out.push_str(&"-".repeat(width.iter().sum::<usize>() + 2 * (cols - 1)));
                out.push('\n');
            }
        }
        out
    }

    /// As GitHub Markdown, `|` escaped and line breaks made spaces, with the given `rule`.
    pub fn markdown(&self, rule: Rule) -> String {
        let line = |cells: &[String]| {
            let inner: Vec<String> = cells
                .iter()
                .map(|c| c.replace('|', "\\|").replace('\n', " "))
                .collect();
            format!("| {} |\n", inner.join(" | "))
        };
        let mut out = line(&self.header);
        let marks = (0..self.header.len()).map(|c| match (rule, self.is_numeric(c)) {
            (Rule::Tight, false) => ":--",
            (Rule::Tight, true) => "--:",
            (Rule::Spaced, false) => "---",
            (Rule::Spaced, true) => "---:",
        });
        let marks: Vec<&str> = marks.collect();
        match rule {
            Rule::Tight => out.push_str(&format!("|{}|\n", marks.join("|"))),
            Rule::Spaced => out.push_str(&format!("| {} |\n", marks.join(" | "))),
        }
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }

    /// As an HTML `<table>`, escaped for XML too: numeric cells get `class="num"`, and a cell
    /// that starts with ✓ or ✗ is marked `pass` or `fail` instead.
    pub fn html(&self) -> String {
        let mut out = String::from("<table>\n<thead><tr>");
        for h in &self.header {
            let _ = write!(out, "<th>{}</th>", escape_xml(h));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let class = match (self.is_numeric(i), verdict_class(cell)) {
                    (_, c) if !c.is_empty() => c,
                    (true, _) => " class=\"num\"",
                    _ => "",
                };
                let _ = write!(out, "<td{class}>{}</td>", escape_xml(cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
        out
    }
}

/// ` class="pass"` for text starting with ✓, ` class="fail"` for ✗, else nothing.
pub fn verdict_class(text: &str) -> &'static str {
    if text.starts_with('✓') {
        " class=\"pass\""
    } else if text.starts_with('✗') {
        " class=\"fail\""
    } else {
        ""
    }
}

/// Escapes text for XML content and attribute values (HTML, SVG, JUnit).
pub fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::with_numeric(&["name", "n", "note"], &[false, true]);
        t.row(vec!["a".into(), "100".into(), "x|y".into()]);
        t.row(vec!["long".into(), "5".into(), "".into()]);
        t
    }

    #[test]
    fn the_terminal_pads_and_aligns_numbers_right_between_names_and_notes() {
        assert_eq!(
            sample().render(),
            "name    n  note\n---------------\na     100  x|y\nlong    5\n"
        );
    }

    #[test]
    fn markdown_in_both_rules() {
        assert_eq!(
            sample().markdown(Rule::Tight),
            "| name | n | note |\n|:--|--:|:--|\n| a | 100 | x\\|y |\n| long | 5 |  |\n"
        );
        assert_eq!(
            sample().markdown(Rule::Spaced),
            "| name | n | note |\n| --- | ---: | --- |\n| a | 100 | x\\|y |\n| long | 5 |  |\n"
        );
    }

    #[test]
    fn html_marks_numbers_and_verdicts_and_escapes() {
        let mut t = Table::with_numeric(&["", "a<b"], &[false, true]);
        t.row(vec!["✓ pass".into(), "1 & 2".into()]);
        t.row(vec!["✗ fail".into(), "✓".into()]);
        assert_eq!(
            t.html(),
            "<table>\n<thead><tr><th></th><th>a&lt;b</th></tr></thead>\n<tbody>\n\
             <tr><td class=\"pass\">✓ pass</td><td class=\"num\">1 &amp; 2</td></tr>\n\
             <tr><td class=\"fail\">✗ fail</td><td class=\"pass\">✓</td></tr>\n\
             </tbody>\n</table>\n"
        );
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(escape_xml("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}
