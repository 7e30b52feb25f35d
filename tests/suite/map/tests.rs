//! The checker itself, on a small tree: the parser finds each form of reference, and a name in
//! the wrong file, a missing or ambiguous file, a shape of no form and a file off the map are
//! errors.

use super::check::Checked;
use super::markdown::{blocks, tokens};
use super::references::{block_references, references};
use super::resolve::Tree;

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
