//! The figures quoted outside the tables of runs, each with the words that find it and the
//! metric it is. Not here: closed forms and hand arithmetic (`1 − f⁴ = 0.9375`, `Erlang B(10,
//! 7.5) = 10.0%`), a scenario's own settings (`a 150 ms timeout`), bounds rather than figures
//! (`under 1%`, `at most 20`), the figures of the sweeps committed under docs/results/ (read
//! from what is committed: committed.rs) and of a table another test computes (computed.rs).
//!
//! A file per document or family, each its `QUOTES`: validation.rs (docs/validation.md),
//! other_docs.rs (docs/policies.md, docs/gates.md, docs/guide.md), readme.rs (the README's
//! prose) and the README's library table in three, in the table's order: library_seeds.rs (the
//! seeds' rows, product-page-deadline to timeout-too-short), library_papers.rs (published
//! results, the Tail at Scale to the AWS SDKs' Retry-After) and library_later.rs (the rows after
//! them, the quick start to the retry-loop bulkhead). `all` chains them, in that order.

mod library_later;
mod library_papers;
mod library_seeds;
mod other_docs;
mod readme;
mod validation;

use crate::doc_numbers::quote::{At, Figure, Get, Quote};

/// Every file's quotes, in the order they are checked (and their failures reported).
const QUOTES: &[&[Quote]] = &[
    validation::QUOTES,
    other_docs::QUOTES,
    readme::QUOTES,
    // README.md, the scenario library: each row's "what cascade shows".
    library_seeds::QUOTES,
    library_papers::QUOTES,
    library_later::QUOTES,
];

/// Every quote, file by file.
pub(super) fn all() -> impl Iterator<Item = &'static Quote> {
    QUOTES.iter().flat_map(|quotes| quotes.iter())
}

/// One metric over a variant's, as a ratio.
fn ratio(g: &Get, (a, b): (&str, &str), name: &str) -> f64 {
    g.of(a, name) / g.of(b, name)
}

/// A library row of the README: the figures of one scenario's "what cascade shows".
const fn library(scenario: &'static str, figures: &'static [Figure]) -> Quote {
    Quote {
        doc: "README.md",
        at: At::Library,
        scenario,
        reps: 1,
        figures,
    }
}
