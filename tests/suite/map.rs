//! ARCHITECTURE.md and CONTRIBUTING.md as a map that cannot drift: every reference from a name
//! to a file holds, every file they name exists, and every source file is on ARCHITECTURE.md.
//!
//! **Spans.** The backticked texts of the prose and tables (fenced blocks aside). A *name* is
//! `a`, `a::b` or `a::b::c`, with call arguments allowed (`Source::error_at(path, message)` is
//! `Source::error_at`); a *pattern* is a name with a `<placeholder>` (`compile_<name>`), never
//! checked; a *file* ends in `.rs` (a file with a `<placeholder>` is a pattern too); a
//! *directory* ends in `/`. A *list* is names joined by `, `, ` and `, ` or `, `/`, `, and ` or
//! `, or `.
//!
//! **References.** Exactly these forms:
//! 1. `` `a`, `b` and `c` (`f.rs`) ``: a list, ` (`, and a file opening the parentheses (what
//!    follows it in them is prose): each name of the list is defined in the file.
//! 2. `` `a` or `b` in `f.rs` ``: a list, ` in `, a file (after a span that is no name, ` in `
//!    is prose).
//! 3. `` (`f.rs`: `a`, then `b`) ``: a file opening the parentheses, then `:`; every name after
//!    the colon, to the parentheses' end or a `;`, is defined in the file.
//! 4. Table rows: a row whose first cell is only files holds the names of its second cell (the
//!    engine's table, `check.rs` in the layers table); in a table whose header's last cell is
//!    `file`, the last cell holds the names of the cell before it (the events). The names held
//!    are those outside parentheses (a parenthesis is the row's prose) and without a reference
//!    of their own (forms 1 to 3, checked against their own file). With several files, each
//!    name is defined in one of them.
//!
//! Shapes that look like a reference but are none of these are errors: a file inside
//! parentheses after a name of the same parentheses (`` (`a`, `f.rs`) ``), a second file in
//! the parentheses of form 1 (`` `a` (`f.rs`, `g.rs`) ``), `` `a` (…) in `f.rs` ``, and form 1
//! after a span that is no name (`` `a.b()` (`f.rs`) ``). Any other file is a mention: it must
//! exist, and names nothing. A name without a file is prose, not a reference.
//!
//! **Files.** `src/…`, `crates/…`, `tests/…`, `benches/…`, `docs/…`, `scenarios/…` and
//! `results/…` are the repository's paths, `cascade-policy/…` is under `crates/`. Any other
//! path is relative: in a *scope* (a table row whose first cell is one directory, as the layers
//! table's `model/`; else the section under a heading that names one directory, as "The
//! engine's files (`engine/`)") a bare file name is the scope's, and a path with a `/` is the
//! scope's or under `src/`; outside a scope it is under `src/`, `src/engine/` or
//! `crates/cascade-policy/src/`. Exactly one of the candidates must exist: none is a missing
//! file, two are an ambiguity, never a guess.
//!
//! **Defined** in a file: an item (fn, struct, enum, union, trait, const, static, type, mod,
//! `macro_rules!`) at any depth, a field, an enum variant (and its fields), a method or
//! associated item of an `impl` or `trait` there, as `name` or `Type::name` (an `impl` alone
//! does not define its type); `m::name` where `m` ends the file's module path
//! (`limit::sample_of` in `cascade-policy/src/limit/mod.rs`).
//!
//! **On the map**, for every `.rs` file under `src/` and `crates/cascade-policy/src/`: some file
//! span of ARCHITECTURE.md resolves to it, or it is the root of a module that a first cell of
//! the layers table (the table whose header starts `module`) names: `error` is `src/error.rs`,
//! `model/` is `src/model/mod.rs`.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The documents whose references are checked.
const DOCS: [&str; 2] = ["ARCHITECTURE.md", "CONTRIBUTING.md"];

/// The document whose file spans make the map.
const MAP: &str = "ARCHITECTURE.md";

/// The trees every source file of which must be on the map.
const SOURCE_TREES: [&str; 2] = ["src", "crates/cascade-policy/src"];

/// The prefixes of paths from the repository's root.
const REPOSITORY_PATHS: [&str; 7] = [
    "src/",
    "crates/",
    "tests/",
    "benches/",
    "docs/",
    "scenarios/",
    "results/",
];

/// What joins the names of a list.
const SEPARATORS: [&str; 6] = [", ", " and ", " or ", ", and ", ", or ", "/"];

// ---------------------------------------------------------------------------------------------
// Markdown: blocks of prose and table rows, as text and code spans.

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Text(String),
    Code(String),
}

/// A run of text split at its backticks: text, code, text, …, text (always odd in length),
/// each with the line it starts on. Line breaks in text read as spaces.
fn tokens(text: &str, first_line: usize) -> Vec<(Tok, usize)> {
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

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Name,
    Pattern,
    File,
    Dir,
    Other,
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A name span without its call arguments: `Source::error_at(path, message)` is
/// `Source::error_at`.
fn name_of(span: &str) -> &str {
    match span.find('(') {
        Some(at) if span.ends_with(')') => &span[..at],
        _ => span,
    }
}

fn kind(span: &str) -> Kind {
    let path_char = |c: char| c.is_ascii_alphanumeric() || "_-./<>".contains(c);
    if span.ends_with(".rs") && span.chars().all(path_char) {
        return if span.contains('<') {
            Kind::Pattern
        } else {
            Kind::File
        };
    }
    if span.len() > 1 && span.ends_with('/') && span.chars().all(path_char) {
        return Kind::Dir;
    }
    if name_of(span).split("::").all(is_ident) {
        return Kind::Name;
    }
    let pattern_char = |c: char| c.is_ascii_alphanumeric() || "_:<>".contains(c);
    if span.contains('<') && span.contains('>') && span.chars().all(pattern_char) {
        return Kind::Pattern;
    }
    Kind::Other
}

/// One unit of a document: a paragraph (its lines joined) or a table row.
#[derive(Debug)]
struct Block {
    /// The directory span in scope, if any.
    scope: Option<String>,
    body: Body,
}

#[derive(Debug)]
enum Body {
    Prose(Vec<(Tok, usize)>),
    Row {
        /// The header's cells as plain text.
        header: Vec<String>,
        cells: Vec<Vec<(Tok, usize)>>,
    },
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

/// The one directory span of a text, if it has exactly one and nothing else is code.
fn lone_dir(toks: &[(Tok, usize)]) -> Option<String> {
    let codes: Vec<&str> = toks
        .iter()
        .filter_map(|(t, _)| match t {
            Tok::Code(c) => Some(c.as_str()),
            Tok::Text(_) => None,
        })
        .collect();
    match codes[..] {
        [one] if kind(one) == Kind::Dir => Some(one.to_string()),
        _ => None,
    }
}

fn blocks(text: &str) -> Vec<Block> {
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
    let dirs: Vec<&str> = toks
        .iter()
        .filter_map(|(t, _)| match t {
            Tok::Code(c) if kind(c) == Kind::Dir => Some(c.as_str()),
            _ => None,
        })
        .collect();
    match dirs[..] {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// References in a run of tokens.

/// A reference: names that one of `files` defines, at a line.
#[derive(Debug, PartialEq)]
struct Reference {
    names: Vec<String>,
    files: Vec<String>,
    line: usize,
}

#[derive(Debug, Default)]
struct Found {
    references: Vec<Reference>,
    /// Every file span, for resolution and the map: (span, line).
    files: Vec<(String, usize)>,
    /// Shapes that are no reference of the grammar: (line, message).
    errors: Vec<(usize, String)>,
    /// The indices of the name spans that a reference took.
    taken: BTreeSet<usize>,
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

fn references(toks: &[(Tok, usize)]) -> Found {
    let mut found = Found::default();
    let group = groups(toks);
    let names = |list: &[usize]| -> Vec<String> {
        list.iter()
            .map(|&k| name_of(code_at(toks, k)).to_string())
            .collect()
    };
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
                    let list = list_ending_at(toks, i - 2);
                    found.references.push(Reference {
                        names: names(&list),
                        files: vec![span.to_string()],
                        line,
                    });
                    found.taken.extend(list);
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
            let list = list_ending_at(toks, i - 2);
            found.references.push(Reference {
                names: names(&list),
                files: vec![span.to_string()],
                line,
            });
            found.taken.extend(list);
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
            found.references.push(Reference {
                names: names(&list),
                files: vec![code_at(toks, i).to_string()],
                line: toks[i].1,
            });
            found.taken.extend(list);
        }
    }
    found
}

/// The references, file spans and errors of one block, row forms included.
fn block_references(block: &Block) -> Found {
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

// ---------------------------------------------------------------------------------------------
// What a Rust file defines.

#[derive(Debug, Default)]
struct Defs {
    /// Items, fields, variants, methods and associated items, by their own name.
    names: BTreeSet<String>,
    /// `Type::member` for fields, variants, methods and associated items.
    qualified: BTreeSet<String>,
    /// The file's module path, its crate first (`cascade_policy::limit`).
    module: Vec<String>,
}

impl Defs {
    fn defines(&self, name: &str) -> bool {
        let segments: Vec<&str> = name.split("::").collect();
        let n = segments.len();
        if n == 1 {
            return self.names.contains(name);
        }
        let module_ends_with = |path: &[&str]| {
            path.len() <= self.module.len()
                && self.module[self.module.len() - path.len()..]
                    .iter()
                    .zip(path)
                    .all(|(a, b)| a == b)
        };
        let member = segments[n - 2..].join("::");
        (self.qualified.contains(&member) && module_ends_with(&segments[..n - 2]))
            || (module_ends_with(&segments[..n - 1]) && self.names.contains(segments[n - 1]))
    }
}

/// Rust source as identifiers and punctuation (`::` one token), without comments, strings,
/// characters, lifetimes or numbers.
fn rust_tokens(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && at(i + 1) == 'r'))
            && matches!(at(i + 1 + usize::from(c == 'b')), '"' | '#')
            && {
                let mut k = i + 1 + usize::from(c == 'b');
                while at(k) == '#' {
                    k += 1;
                }
                at(k) == '"'
            }
        {
            // A raw string: r"…", r#"…"#, br"…".
            let mut k = i + 1 + usize::from(c == 'b');
            let mut hashes = 0;
            while at(k) == '#' {
                hashes += 1;
                k += 1;
            }
            k += 1;
            loop {
                if k >= chars.len() {
                    break;
                }
                if chars[k] == '"' && (1..=hashes).all(|h| at(k + h) == '#') {
                    k += 1 + hashes;
                    break;
                }
                k += 1;
            }
            i = k;
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            let mut k = i + if c == 'b' { 2 } else { 1 };
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            i = k + 1;
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let k = i + if c == 'b' { 1 } else { 0 };
            if at(k + 1) == '\\' {
                // An escaped character: to the closing quote.
                let mut e = k + 2;
                while e < chars.len() && chars[e] != '\'' {
                    e += 1;
                }
                i = e + 1;
            } else if at(k + 2) == '\'' {
                i = k + 3;
            } else {
                // A lifetime or a label: its name is no identifier of the file's.
                let mut e = k + 1;
                while e < chars.len() && (chars[e].is_alphanumeric() || chars[e] == '_') {
                    e += 1;
                }
                i = e;
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && at(i + 1) == ':' {
            out.push("::".to_string());
            i += 2;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

#[derive(Clone, Debug)]
enum Scope {
    Struct(String),
    Enum(String),
    Impl(String),
    Trait(String),
    Other,
}

/// The type an `impl` header (the tokens between `impl` and its `{`) is for.
fn impl_type(header: &[String]) -> Option<String> {
    let mut angle = 0i32;
    let mut after_for = None;
    let mut start = 0;
    let mut k = 0;
    // Skip the generics right after `impl`.
    if header.first().is_some_and(|t| t == "<") {
        while k < header.len() {
            match header[k].as_str() {
                "<" => angle += 1,
                ">" if k > 0 && header[k - 1] == "-" => {}
                ">" => {
                    angle -= 1;
                    if angle == 0 {
                        start = k + 1;
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
    }
    angle = 0;
    for (k, t) in header.iter().enumerate().skip(start) {
        match t.as_str() {
            "<" => angle += 1,
            ">" if k > 0 && header[k - 1] == "-" => {}
            ">" => angle -= 1,
            "for" if angle == 0 => after_for = Some(k + 1),
            "where" if angle == 0 => break,
            _ => {}
        }
    }
    let from = after_for.unwrap_or(start);
    let mut name = None;
    for t in &header[from..] {
        match t.as_str() {
            "<" | "where" => break,
            "&" | "::" | "mut" | "dyn" => {}
            t if is_ident(t) => name = Some(t.to_string()),
            _ => break,
        }
    }
    name
}

fn definitions(source: &str, module: Vec<String>) -> Defs {
    let toks = rust_tokens(source);
    let mut defs = Defs {
        module,
        ..Defs::default()
    };
    let t = |k: usize| toks.get(k).map(String::as_str).unwrap_or("");
    // Each open brace: what it opened, the bracket depth inside it, whether an item may start.
    let mut stack: Vec<(Scope, i32, bool)> = vec![(Scope::Other, 0, true)];
    let mut depth = 0i32;
    let mut pending: Option<Scope> = None;
    let mut i = 0;
    while i < toks.len() {
        let word = t(i);
        let (scope, scope_depth, item_start) = stack.last().cloned().unwrap();
        let direct = depth == scope_depth;
        let mut starts_item = false;
        match word {
            "#" if t(i + 1) == "[" || (t(i + 1) == "!" && t(i + 2) == "[") => {
                // An attribute: skipped whole, an item may still start after it.
                let mut k = i + if t(i + 1) == "!" { 2 } else { 1 };
                let mut d = 0;
                while k < toks.len() {
                    match t(k) {
                        "[" => d += 1,
                        "]" => {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    k += 1;
                }
                i = k + 1;
                continue;
            }
            "pub" => {
                // Visibility, `pub(crate)` too: an item may still start after it.
                i += 1;
                if t(i) == "(" {
                    while i < toks.len() && t(i) != ")" {
                        i += 1;
                    }
                    i += 1;
                }
                continue;
            }
            "{" => {
                stack.push((pending.take().unwrap_or(Scope::Other), depth, true));
                i += 1;
                continue;
            }
            "}" => {
                if stack.len() > 1 {
                    stack.pop();
                }
                pending = None;
                i += 1;
                continue;
            }
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            ";" if direct => pending = None,
            "," if direct => starts_item = true,
            "fn" | "mod" | "static" | "type" | "const" if is_ident(t(i + 1)) => {
                let mut name = t(i + 1);
                if word == "static" && name == "mut" {
                    name = t(i + 2);
                }
                if !(word == "const" && matches!(name, "fn" | "unsafe" | "async" | "_")) {
                    defs.names.insert(name.to_string());
                    if let Scope::Impl(ty) | Scope::Trait(ty) = &scope {
                        defs.qualified.insert(format!("{ty}::{name}"));
                    }
                }
            }
            "struct" | "enum" | "union" | "trait" if is_ident(t(i + 1)) => {
                let name = t(i + 1).to_string();
                defs.names.insert(name.clone());
                pending = Some(match word {
                    "enum" => Scope::Enum(name),
                    "trait" => Scope::Trait(name),
                    _ => Scope::Struct(name),
                });
                i += 2;
                continue;
            }
            "macro_rules" if t(i + 1) == "!" => {
                defs.names.insert(t(i + 2).to_string());
            }
            "impl"
                if i == 0 || matches!(t(i - 1), "}" | ";" | "{" | "]" | "unsafe" | "default") =>
            {
                let mut k = i + 1;
                let mut d = 0;
                while k < toks.len() && !(d == 0 && matches!(t(k), "{" | ";")) {
                    match t(k) {
                        "(" | "[" => d += 1,
                        ")" | "]" => d -= 1,
                        _ => {}
                    }
                    k += 1;
                }
                if let Some(ty) = impl_type(&toks[i + 1..k]) {
                    pending = Some(Scope::Impl(ty));
                }
            }
            w if is_ident(w) && direct && item_start => match &scope {
                Scope::Struct(ty) if t(i + 1) == ":" => {
                    defs.names.insert(w.to_string());
                    defs.qualified.insert(format!("{ty}::{w}"));
                }
                Scope::Enum(ty) => {
                    defs.names.insert(w.to_string());
                    defs.qualified.insert(format!("{ty}::{w}"));
                    if t(i + 1) == "{" {
                        pending = Some(Scope::Struct(w.to_string()));
                    }
                }
                _ => {}
            },
            _ => {}
        }
        if let (true, Some(top)) = (direct, stack.last_mut()) {
            top.2 = starts_item;
        }
        i += 1;
    }
    defs
}

// ---------------------------------------------------------------------------------------------
// Checking documents against a tree.

/// A repository (the real one, or a small one a unit test builds) and what its files define.
struct Tree {
    root: PathBuf,
    defs: RefCell<BTreeMap<PathBuf, std::rc::Rc<Defs>>>,
}

/// What checking the documents found.
#[derive(Debug, Default)]
struct Checked {
    errors: Vec<String>,
    /// The files ARCHITECTURE.md puts on the map.
    mapped: BTreeSet<PathBuf>,
}

impl Tree {
    fn new(root: &Path) -> Tree {
        Tree {
            root: root.to_path_buf(),
            defs: RefCell::new(BTreeMap::new()),
        }
    }

    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// The candidates for a span, in the order the module doc gives them.
    fn candidates(&self, span: &str, scope: Option<&Path>) -> Vec<PathBuf> {
        let r = &self.root;
        for prefix in REPOSITORY_PATHS {
            if span.starts_with(prefix) {
                return vec![r.join(span)];
            }
        }
        if span.starts_with("cascade-policy/") {
            return vec![r.join("crates").join(span)];
        }
        match scope {
            Some(dir) if span.trim_end_matches('/').contains('/') => {
                vec![dir.join(span), r.join("src").join(span)]
            }
            Some(dir) => vec![dir.join(span)],
            None => vec![
                r.join("src").join(span),
                r.join("src/engine").join(span),
                r.join("crates/cascade-policy/src").join(span),
            ],
        }
    }

    fn resolve(&self, span: &str, scope: Option<&Path>, dir: bool) -> Result<PathBuf, String> {
        let mut found: Vec<PathBuf> = self
            .candidates(span, scope)
            .into_iter()
            .filter(|p| if dir { p.is_dir() } else { p.is_file() })
            .collect();
        found.dedup();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(format!(
                "`{span}`: no such {} (looked for {})",
                if dir { "directory" } else { "file" },
                self.candidates(span, scope)
                    .iter()
                    .map(|p| self.relative(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            _ => Err(format!(
                "`{span}` is ambiguous: {}",
                found
                    .iter()
                    .map(|p| self.relative(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The module path of a file: `cascade::engine::rng` for src/engine/rng.rs.
    fn module_of(&self, path: &Path) -> Vec<String> {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        let (krate, rest) = match parts.first().map(String::as_str) {
            Some("src") => ("cascade", &parts[1..]),
            Some("crates") if parts.len() > 2 => {
                (parts[1].as_str(), parts.get(3..).unwrap_or_default())
            }
            _ => ("", parts.get(1..).unwrap_or_default()),
        };
        let mut module = vec![krate.replace('-', "_")];
        module.extend(
            rest.iter()
                .filter(|p| !matches!(p.as_str(), "mod" | "lib" | "main"))
                .cloned(),
        );
        module
    }

    fn defs(&self, path: &Path) -> std::rc::Rc<Defs> {
        if let Some(d) = self.defs.borrow().get(path) {
            return d.clone();
        }
        let source = std::fs::read_to_string(path).unwrap_or_default();
        let d = std::rc::Rc::new(definitions(&source, self.module_of(path)));
        self.defs.borrow_mut().insert(path.to_path_buf(), d.clone());
        d
    }

    /// Every `.rs` file under the given trees.
    fn sources(&self, trees: &[&str]) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        for tree in trees {
            walk(&self.root.join(tree), &mut out);
        }
        out.sort();
        out
    }

    /// Where a name is defined, for a message: the files under src/ and crates/ defining it.
    fn defined_where(&self, name: &str) -> Vec<String> {
        self.sources(&["src", "crates"])
            .into_iter()
            .filter(|p| self.defs(p).defines(name))
            .map(|p| self.relative(&p))
            .collect()
    }

    /// Checks one document; with `map`, its file spans (and the layers table's modules) are
    /// the map.
    fn check(&self, doc: &str, text: &str, map: bool, checked: &mut Checked) {
        let mut err = |line: usize, message: String| {
            checked.errors.push(format!("{doc}:{line}: {message}"));
        };
        let mut mapped = BTreeSet::new();
        for block in blocks(text) {
            let found = block_references(&block);
            let line = match &block.body {
                Body::Prose(t) => t[0].1,
                Body::Row { cells, .. } => cells.first().map_or(0, |c| c[0].1),
            };
            // The scope, resolved only for a block that has a relative file to resolve in it.
            let relative = found
                .files
                .iter()
                .any(|(f, _)| !REPOSITORY_PATHS.iter().any(|p| f.starts_with(p)));
            let scope = match &block.scope {
                Some(dir) if relative => match self.resolve(dir, None, true) {
                    Ok(path) => Some(path),
                    Err(e) => {
                        err(line, format!("scope {e}"));
                        continue;
                    }
                },
                _ => None,
            };
            for (line, message) in found.errors {
                err(line, message);
            }
            let mut resolved = BTreeMap::new();
            for (span, line) in &found.files {
                match self.resolve(span, scope.as_deref(), false) {
                    Ok(path) => {
                        mapped.insert(path.clone());
                        resolved.insert(span.clone(), path);
                    }
                    Err(e) => err(*line, e),
                }
            }
            for reference in &found.references {
                let Some(files) = reference
                    .files
                    .iter()
                    .map(|f| resolved.get(f).cloned())
                    .collect::<Option<Vec<PathBuf>>>()
                else {
                    continue; // the unresolved file is reported already
                };
                for name in &reference.names {
                    if kind(name) == Kind::Pattern
                        || files.iter().any(|f| self.defs(f).defines(name))
                    {
                        continue;
                    }
                    let held = files
                        .iter()
                        .map(|f| self.relative(f))
                        .collect::<Vec<_>>()
                        .join(" or ");
                    let elsewhere = self.defined_where(name);
                    let hint = if elsewhere.is_empty() {
                        "defined nowhere in src/ or crates/".to_string()
                    } else {
                        format!("defined in {}", elsewhere.join(", "))
                    };
                    err(
                        reference.line,
                        format!("`{name}` is not defined in {held} ({hint})"),
                    );
                }
            }
            // The layers table: its first cells name modules, each its root file.
            if let Body::Row { header, cells } = &block.body
                && header.first().is_some_and(|h| h == "module")
            {
                for (t, _) in cells.first().into_iter().flatten() {
                    let Tok::Code(c) = t else { continue };
                    let m = c.trim_end_matches('/');
                    if !is_ident(m) {
                        continue;
                    }
                    for root in [format!("src/{m}.rs"), format!("src/{m}/mod.rs")] {
                        let path = self.root.join(root);
                        if path.is_file() {
                            mapped.insert(path);
                        }
                    }
                }
            }
        }
        if map {
            checked.mapped.extend(mapped);
        }
    }

    /// Checks the documents and the map; every error, one a line.
    fn check_all(&self, docs: &[(&str, &str)], map: &str, trees: &[&str]) -> Vec<String> {
        let mut checked = Checked::default();
        for (doc, text) in docs {
            self.check(doc, text, *doc == map, &mut checked);
        }
        for file in self.sources(trees) {
            if !checked.mapped.contains(&file) {
                checked.errors.push(format!(
                    "{map}: {} is not on the map (name it in its module's row or table)",
                    self.relative(&file)
                ));
            }
        }
        checked.errors
    }
}

#[test]
fn every_reference_of_the_docs_holds_and_every_source_file_is_on_the_map() {
    let root = crate::support::golden::repo();
    let texts: Vec<(&str, String)> = DOCS
        .iter()
        .map(|d| (*d, std::fs::read_to_string(root.join(d)).unwrap()))
        .collect();
    let docs: Vec<(&str, &str)> = texts.iter().map(|(d, t)| (*d, t.as_str())).collect();
    let errors = Tree::new(root).check_all(&docs, MAP, &SOURCE_TREES);
    assert!(
        errors.is_empty(),
        "{} wrong in the map (the grammar is tests/suite/map.rs's module doc; mend the docs, \
         not the code):\n{}",
        errors.len(),
        errors.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The checker itself, on a small tree.

/// A tree of a few files: an engine with calls.rs and hedges.rs, a dedup.rs in both the
/// engine and the policy crate, a scenario module.
fn small_tree() -> crate::support::Scratch {
    let dir = crate::support::scratch("map");
    let files = [
        (
            "src/engine/calls.rs",
            "pub(crate) fn start_call() {}\n\
             impl Simulation {\n    #[inline(never)]\n    fn try_attempt(&mut self) { let s = \"{\"; }\n}\n",
        ),
        (
            "src/engine/hedges.rs",
            "impl<'a> Simulation<'a> {\n    pub fn send_hedge(&self) -> char { '}' }\n}\n",
        ),
        (
            "src/engine/state.rs",
            "pub enum Event {\n    /// A timer.\n    AttemptTimer { call: u32 },\n    Resume(u32),\n}\n\
             pub struct Job {\n    pub(crate) op: u32,\n    deadline: Vec<(u8, u8)>,\n}\n\
             pub const NO_SLOT: u32 = u32::MAX;\nconst fn helper() {}\n",
        ),
        ("src/engine/dedup.rs", "fn deduplicated() {}\n"),
        ("src/engine/mod.rs", "mod calls;\n"),
        ("crates/cascade-policy/src/dedup.rs", "pub struct Record;\n"),
        (
            "crates/cascade-policy/src/limit/mod.rs",
            "pub fn sample_of() {}\n",
        ),
        ("src/scenario/mod.rs", "pub fn load() {}\n"),
        ("src/scenario/policy.rs", "fn compile_policy() {}\n"),
        ("src/lib.rs", "pub mod engine;\n"),
    ];
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn errors_of(doc: &str) -> Vec<String> {
    let dir = small_tree();
    let tree = Tree::new(&dir);
    let mut checked = Checked::default();
    tree.check("DOC.md", doc, false, &mut checked);
    checked.errors
}

#[test]
fn the_parser_finds_each_form_of_reference() {
    let toks = tokens(
        "`start_call`, `try_attempt` and `Simulation::send_hedge` (`calls.rs`; prose `x`); \
         `compile_<name>` or `compile_policy` in `scenario/policy.rs`, (`state.rs`: `Event`, \
         `Job::op`; `NotHeld`) and `send_hedge` is sent later",
        7,
    );
    let found = references(&toks);
    let got: Vec<(Vec<&str>, &str)> = found
        .references
        .iter()
        .map(|r| {
            (
                r.names.iter().map(String::as_str).collect(),
                r.files[0].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                vec!["start_call", "try_attempt", "Simulation::send_hedge"],
                "calls.rs"
            ),
            (
                vec!["compile_<name>", "compile_policy"],
                "scenario/policy.rs"
            ),
            (vec!["Event", "Job::op"], "state.rs"),
        ]
    );
    assert!(found.errors.is_empty(), "{:?}", found.errors);
    // A table row: the first cell's file holds the second cell's names, except one with a
    // reference of its own.
    let doc = "| file | holds |\n|---|---|\n| `hedges.rs` | `send_hedge`, from `start_call` (`calls.rs`) |\n";
    let block = &blocks(doc)[0];
    let found = block_references(block);
    assert_eq!(found.references.len(), 2);
    assert_eq!(found.references[0].names, ["send_hedge"]);
    assert_eq!(found.references[0].files, ["hedges.rs"]);
    assert_eq!(found.references[1].names, ["start_call"]);
}

#[test]
fn a_name_in_the_wrong_file_and_a_missing_or_ambiguous_file_are_errors() {
    // All hold: the names where the references put them, prose names unchecked.
    let good = "`start_call` and `Simulation::try_attempt` (`calls.rs`), then `send_hedge` \
                (`hedges.rs`); `limit::sample_of` in `cascade-policy/src/limit/mod.rs`; \
                (`engine/state.rs`: `Event::AttemptTimer`, `Resume`, `call`, `Job::deadline`, \
                `NO_SLOT`, `helper`); `nowhere_at_all` is prose.\n\n\
                | event | handler | file |\n|---|---|---|\n| `AttemptTimer` | `start_call` | `calls.rs` |\n";
    assert_eq!(errors_of(good), Vec::<String>::new());
    // `send_hedge` in calls.rs: the drift the test is for.
    let drift = "DOC.md:1: `send_hedge` is not defined in src/engine/calls.rs (defined in \
                 src/engine/hedges.rs)";
    assert_eq!(
        errors_of("Hedges go out in `send_hedge` (`calls.rs`).\n"),
        [drift]
    );
    let errors = errors_of(
        "## The engine's files (`engine/`)\n\n| file | holds |\n|---|---|\n\
         | `hedges.rs` | `send_hedge`, `start_call` |\n| `gone.rs` | `x` |\n\n\
         ## Elsewhere\n\n`deduplicated` (`dedup.rs`), and (`send_hedge`, `hedges.rs`); \
         `x.y()` (`calls.rs`); `a` (`calls.rs`, `hedges.rs`); `load` (prose) in `scenario/mod.rs`.\n",
    );
    assert_eq!(
        errors,
        [
            "DOC.md:5: `start_call` is not defined in src/engine/hedges.rs (defined in \
             src/engine/calls.rs)",
            "DOC.md:6: `gone.rs`: no such file (looked for src/engine/gone.rs)",
            "DOC.md:10: `send_hedge` … `hedges.rs` in one parenthesis: no form of the grammar \
             (write `send_hedge` (`hedges.rs`))",
            "DOC.md:10: `x.y()` (`calls.rs`): a file after a span that is no name",
            "DOC.md:10: `calls.rs` and `hedges.rs` in one reference's parentheses: say which \
             file holds which name",
            "DOC.md:10: `load` (…) in `scenario/mod.rs`: write the names right before `in` or `(`",
            "DOC.md:10: `dedup.rs` is ambiguous: src/engine/dedup.rs, \
             crates/cascade-policy/src/dedup.rs",
            "DOC.md:10: `a` is not defined in src/engine/calls.rs (defined nowhere in src/ or \
             crates/)",
        ]
    );
}

#[test]
fn a_source_file_off_the_map_is_an_error() {
    let dir = small_tree();
    let tree = Tree::new(&dir);
    // The layers table's first cells map src/scenario/mod.rs and src/engine/mod.rs; its rows'
    // bare names are their modules'; hedges.rs is named nowhere.
    let doc = "| module | what it is | may use |\n|---|---|---|\n| `scenario/` | `policy.rs` | x |\n\
               | `engine/` | `calls.rs`, `state.rs` and `engine/dedup.rs` | x |\n\n\
               The crate root (`src/lib.rs`).\n";
    assert_eq!(
        tree.check_all(&[("MAP.md", doc)], "MAP.md", &["src"]),
        ["MAP.md: src/engine/hedges.rs is not on the map (name it in its module's row or table)"]
    );
    let doc = doc.replace("`state.rs` and", "`state.rs`, `hedges.rs` and");
    assert!(
        tree.check_all(&[("MAP.md", &doc)], "MAP.md", &["src"])
            .is_empty()
    );
}
