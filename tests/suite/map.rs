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
//! **On the map**, for every `.rs` file under `src/`, `crates/cascade-policy/src/` and
//! `crates/cascade-tower/src/` and `crates/cascade-mesh/src/`: some file
//! span of ARCHITECTURE.md resolves to it, or it is the root of a module that a first cell of
//! the layers table (the table whose header starts `module`) names: `error` is `src/error.rs`,
//! `model/` is `src/model/mod.rs`.

// Its parts, in the order a check goes: `markdown` (blocks of text and code spans), `spans`
// (what a span is), `references` (the forms), `resolve` (the tree, its files and what each
// defines, by `lexer` and `definitions`), `check` (the documents against the tree); `tests`
// runs them on a small tree.
mod check;
mod definitions;
mod lexer;
mod markdown;
mod references;
mod resolve;
mod spans;
mod tests;

pub(crate) use markdown::cells;
use resolve::Tree;

/// The documents whose references are checked.
const DOCS: [&str; 2] = ["ARCHITECTURE.md", "CONTRIBUTING.md"];

/// The document whose file spans make the map.
const MAP: &str = "ARCHITECTURE.md";

/// The trees every source file of which must be on the map.
const SOURCE_TREES: [&str; 4] = [
    "src",
    "crates/cascade-policy/src",
    "crates/cascade-tower/src",
    "crates/cascade-mesh/src",
];

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
