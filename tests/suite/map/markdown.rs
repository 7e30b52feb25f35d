//! Markdown as the checker reads it: blocks of prose and table rows, fenced blocks aside, each
//! a run of text and code spans with the lines they start on, and the directory in scope.

use super::spans::{Kind, kind};

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Text(String),
    Code(String),
}

/// A run of text split at its backticks: text, code, text, …, text (always odd in length),
/// each with the line it starts on. Line breaks in text read as spaces.
pub(super) fn tokens(text: &str, first_line: usize) -> Vec<(Tok, usize)> {
    let mut out = Vec::new();
    let mut line = first_line;
    let parts: Vec<&str> = text.split('`').collect();
    let balanced = parts.len() % 2 == 1;
    let mut pending_text = String::new();
    for (i, part) in parts.iter().enumerate() {
        let is_code = i % 2 == 1 && (balanced || i + 1 < parts.len());
        if is_code {
            out.push((Tok::Text(std::mem::take(&mut pending_text)), line));
            out.push((Tok::Code(part.replace('\n', " ")), line));
        } else {
            if i % 2 == 1 {
                pending_text.push('`');
            }
            pending_text.push_str(&part.replace('\n', " "));
        }
        line += part.matches('\n').count();
    }
    out.push((Tok::Text(pending_text), line));
    out
}

/// One unit of a document: a paragraph (its lines joined) or a table row.
#[derive(Debug)]
pub(super) struct Block {
    /// The directory span in scope, if any.
    pub(super) scope: Option<String>,
    pub(super) body: Body,
}

#[derive(Debug)]
pub(super) enum Body {
    Prose(Vec<(Tok, usize)>),
    Row {
        /// The header's cells as plain text.
        header: Vec<String>,
        cells: Vec<Vec<(Tok, usize)>>,
    },
}

impl Block {
    /// The line the block starts on (0 for a row without cells).
    pub(super) fn line(&self) -> usize {
        match &self.body {
            Body::Prose(t) => t[0].1,
            Body::Row { cells, .. } => cells.first().map_or(0, |c| c[0].1),
        }
    }
}

/// Splits a table line into its cells, at the `|`s outside code spans.
pub(crate) fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut code = false;
    for c in line.trim().chars() {
        match c {
            '`' => {
                code = !code;
                cell.push(c);
            }
            '|' if !code => out.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    out.push(cell);
    // The text before the first `|` and after the last one.
    out.remove(0);
    out.pop();
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The code spans of a run of tokens.
pub(super) fn codes(toks: &[(Tok, usize)]) -> impl Iterator<Item = &str> {
    toks.iter().filter_map(|(t, _)| match t {
        Tok::Code(c) => Some(c.as_str()),
        Tok::Text(_) => None,
    })
}

/// The one span of `spans`, if there is exactly one.
fn only<'a>(mut spans: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let one = spans.next()?;
    spans.next().is_none().then_some(one)
}

/// The one directory span of a text, if it has exactly one and nothing else is code.
fn lone_dir(toks: &[(Tok, usize)]) -> Option<String> {
    only(codes(toks))
        .filter(|c| kind(c) == Kind::Dir)
        .map(str::to_string)
}

pub(super) fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut section: Option<String> = None;
    let mut fenced = false;
    let mut paragraph: Vec<String> = Vec::new();
    let mut paragraph_line = 0;
    let mut header: Option<Vec<String>> = None;
    let flush =
        |paragraph: &mut Vec<String>, at: usize, scope: &Option<String>, out: &mut Vec<Block>| {
            if !paragraph.is_empty() {
                out.push(Block {
                    scope: scope.clone(),
                    body: Body::Prose(tokens(&paragraph.join("\n"), at)),
                });
                paragraph.clear();
            }
        };
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            flush(&mut paragraph, paragraph_line, &section, &mut out);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if !trimmed.starts_with('|') {
            header = None;
        }
        if trimmed.starts_with('#') {
            flush(&mut paragraph, paragraph_line, &section, &mut out);
            section = lone_dir_in(&tokens(trimmed, n));
        } else if trimmed.starts_with('|') {
            flush(&mut paragraph, paragraph_line, &section, &mut out);
            let row = cells(trimmed);
            if row
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|c| "-: ".contains(c)))
            {
                continue;
            }
            match &header {
                None => header = Some(row),
                Some(head) => {
                    let cells: Vec<Vec<(Tok, usize)>> = row.iter().map(|c| tokens(c, n)).collect();
                    let scope = cells.first().and_then(|c| lone_dir(c)).or(section.clone());
                    out.push(Block {
                        scope,
                        body: Body::Row {
                            header: head.clone(),
                            cells,
                        },
                    });
                }
            }
        } else if trimmed.is_empty() {
            flush(&mut paragraph, paragraph_line, &section, &mut out);
        } else {
            if paragraph.is_empty() {
                paragraph_line = n;
            }
            paragraph.push(trimmed.to_string());
        }
    }
    flush(&mut paragraph, paragraph_line, &section, &mut out);
    out
}

/// The one directory a heading names, if it names exactly one among its code spans.
fn lone_dir_in(toks: &[(Tok, usize)]) -> Option<String> {
    only(codes(toks).filter(|c| kind(c) == Kind::Dir)).map(str::to_string)
}
