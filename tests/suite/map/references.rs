//! References in a run of tokens: forms 1 to 3 of the module doc in prose and in each cell,
//! form 4 in a table row, and the shapes that are errors.

use super::markdown::{Block, Body, Tok};
use super::spans::{Kind, kind, name_of};
use std::collections::BTreeSet;

/// What joins the names of a list.
const SEPARATORS: [&str; 6] = [", ", " and ", " or ", ", and ", ", or ", "/"];

/// A reference: names that one of `files` defines, at a line.
#[derive(Debug, PartialEq)]
pub(super) struct Reference {
    pub(super) names: Vec<String>,
    pub(super) files: Vec<String>,
    pub(super) line: usize,
}

#[derive(Debug, Default)]
pub(super) struct Found {
    pub(super) references: Vec<Reference>,
    /// Every file span, for resolution and the map: (span, line).
    pub(super) files: Vec<(String, usize)>,
    /// Shapes that are no reference of the grammar: (line, message).
    pub(super) errors: Vec<(usize, String)>,
    /// The indices of the name spans that a reference took.
    taken: BTreeSet<usize>,
}

impl Found {
    /// A reference of the names at `list` (indices into `toks`) to `file`; the names are
    /// taken.
    fn take(&mut self, toks: &[(Tok, usize)], list: Vec<usize>, file: &str, line: usize) {
        self.references.push(Reference {
            names: list
                .iter()
                .map(|&k| name_of(code_at(toks, k)).to_string())
                .collect(),
            files: vec![file.to_string()],
            line,
        });
        self.taken.extend(list);
    }
}

fn text_at(toks: &[(Tok, usize)], i: usize) -> &str {
    match &toks[i].0 {
        Tok::Text(t) => t,
        Tok::Code(_) => "",
    }
}

fn code_at(toks: &[(Tok, usize)], i: usize) -> &str {
    match &toks[i].0 {
        Tok::Code(c) => c,
        Tok::Text(_) => "",
    }
}

/// The list that ends with the name at `end`, as indices, first to last.
fn list_ending_at(toks: &[(Tok, usize)], end: usize) -> Vec<usize> {
    let mut list = vec![end];
    let mut k = end;
    while k >= 3
        && SEPARATORS.contains(&text_at(toks, k - 1))
        && matches!(kind(code_at(toks, k - 2)), Kind::Name | Kind::Pattern)
    {
        k -= 2;
        list.push(k);
    }
    list.reverse();
    list
}

/// The innermost parentheses around each code span (0 outside any), over the text spans.
fn groups(toks: &[(Tok, usize)]) -> Vec<usize> {
    let mut out = vec![0; toks.len()];
    let mut stack = vec![0];
    let mut next = 1;
    for (i, (t, _)) in toks.iter().enumerate() {
        match t {
            Tok::Text(s) => {
                for c in s.chars() {
                    if c == '(' {
                        stack.push(next);
                        next += 1;
                    } else if c == ')' && stack.len() > 1 {
                        stack.pop();
                    }
                }
            }
            Tok::Code(_) => out[i] = *stack.last().unwrap(),
        }
    }
    out
}

pub(super) fn references(toks: &[(Tok, usize)]) -> Found {
    let mut found = Found::default();
    let group = groups(toks);
    let mut in_form_2 = BTreeSet::new();
    let mut opens_colon = Vec::new();
    // Forms 1 and 2 first: the names they take are theirs, not a colon list's.
    for i in (1..toks.len()).step_by(2) {
        let span = code_at(toks, i);
        if kind(span) != Kind::File {
            continue;
        }
        let line = toks[i].1;
        found.files.push((span.to_string(), line));
        let before = text_at(toks, i - 1);
        let after = text_at(toks, i + 1);
        let previous = (i >= 3).then(|| kind(code_at(toks, i - 2)));
        if before == " (" {
            match previous {
                Some(Kind::Name | Kind::Pattern) => {
                    found.take(toks, list_ending_at(toks, i - 2), span, line);
                    if (after == ", " || after == " and ")
                        && i + 2 < toks.len()
                        && kind(code_at(toks, i + 2)) == Kind::File
                    {
                        found.errors.push((
                            line,
                            format!(
                                "`{span}` and `{}` in one reference's parentheses: say which \
                                 file holds which name",
                                code_at(toks, i + 2)
                            ),
                        ));
                    }
                }
                Some(Kind::Other) => found.errors.push((
                    line,
                    format!(
                        "`{}` (`{span}`): a file after a span that is no name",
                        code_at(toks, i - 2)
                    ),
                )),
                _ => {}
            }
        } else if before == " in " && matches!(previous, Some(Kind::Name | Kind::Pattern)) {
            found.take(toks, list_ending_at(toks, i - 2), span, line);
            in_form_2.insert(i);
        } else if before.ends_with(") in ") && previous.is_some() {
            found.errors.push((
                line,
                format!(
                    "`{}` (…) in `{span}`: write the names right before `in` or `(`",
                    code_at(toks, i - 2)
                ),
            ));
        }
        if before.ends_with('(') && after.starts_with(':') {
            opens_colon.push(i);
        }
        // A file in parentheses after a name of the same parentheses.
        if group[i] != 0 && !in_form_2.contains(&i) {
            let named = (1..i)
                .step_by(2)
                .find(|&j| group[j] == group[i] && kind(code_at(toks, j)) == Kind::Name);
            if let Some(j) = named {
                found.errors.push((
                    line,
                    format!(
                        "`{}` … `{span}` in one parenthesis: no form of the grammar (write \
                         `{}` (`{span}`))",
                        code_at(toks, j),
                        code_at(toks, j)
                    ),
                ));
            }
        }
    }
    // Form 3: the names after the colon, to the parentheses' end or a `;`.
    for i in opens_colon {
        let mut list = Vec::new();
        let mut depth = 0usize;
        'walk: for (j, (t, _)) in toks.iter().enumerate().skip(i + 1) {
            match t {
                Tok::Text(s) => {
                    for c in s.chars() {
                        match c {
                            '(' => depth += 1,
                            ')' if depth == 0 => break 'walk,
                            ')' => depth -= 1,
                            ';' if depth == 0 => break 'walk,
                            _ => {}
                        }
                    }
                }
                Tok::Code(c) => {
                    if depth == 0 && kind(c) == Kind::Name && !found.taken.contains(&j) {
                        list.push(j);
                    }
                }
            }
        }
        if !list.is_empty() {
            found.take(toks, list, code_at(toks, i), toks[i].1);
        }
    }
    found
}

/// The references, file spans and errors of one block, row forms included.
pub(super) fn block_references(block: &Block) -> Found {
    match &block.body {
        Body::Prose(toks) => references(toks),
        Body::Row { header, cells } => {
            let mut all = Found::default();
            let found: Vec<Found> = cells.iter().map(|c| references(c)).collect();
            let only_files = |cell: &[(Tok, usize)]| -> Option<Vec<String>> {
                let mut files = Vec::new();
                for (i, (t, _)) in cell.iter().enumerate() {
                    match t {
                        Tok::Code(c) if kind(c) == Kind::File => files.push(c.clone()),
                        Tok::Code(_) => return None,
                        Tok::Text(s) if i == 0 || i + 1 == cell.len() => {
                            if !s.trim().is_empty() {
                                return None;
                            }
                        }
                        Tok::Text(s) => {
                            if s != ", " {
                                return None;
                            }
                        }
                    }
                }
                (!files.is_empty()).then_some(files)
            };
            let n = cells.len();
            let holder = if n >= 2 && only_files(&cells[0]).is_some() {
                Some((0, 1))
            } else if n >= 2 && header.last().is_some_and(|h| h == "file") {
                Some((n - 1, n - 2))
            } else {
                None
            };
            if let Some((file_cell, name_cell)) = holder {
                match only_files(&cells[file_cell]) {
                    Some(files) => {
                        let cell = &cells[name_cell];
                        let outside = groups(cell);
                        let names: Vec<String> = (1..cell.len())
                            .step_by(2)
                            .filter(|&j| outside[j] == 0 && !found[name_cell].taken.contains(&j))
                            .map(|j| code_at(cell, j))
                            .filter(|c| kind(c) == Kind::Name)
                            .map(|c| name_of(c).to_string())
                            .collect();
                        all.references.push(Reference {
                            names,
                            files,
                            line: cell[0].1,
                        });
                    }
                    None => all.errors.push((
                        cells[file_cell][0].1,
                        "a `file` column's cell holds something other than files".to_string(),
                    )),
                }
            }
            for f in found {
                all.references.extend(f.references);
                all.files.extend(f.files);
                all.errors.extend(f.errors);
            }
            all
        }
    }
}
