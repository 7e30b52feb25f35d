//! Figures of a table another test computes: that test runs what the table shows, then hands
//! each figure's row, words and value here, so the runs are made once and the document is held
//! to the very numbers the test asserts on (collapse.rs, docs/validation.md's collapse model).

use super::checks::Checks;
use super::quote::figure_in;
use super::reader::rows;
use crate::support::golden::repo;
use crate::support::read;

/// What a test computed for one of a table's cells.
pub(crate) enum Quoted {
    /// The figure at `{}` in the words.
    Figure(f64),
    /// Words without a figure: whether the run shows them.
    Holds(bool),
}

/// Each `(row, words, value)`: in `doc`'s table under `header`, the row whose first cell is
/// `row` has, in `column`, the words (`{}` for a figure, as quotes/ writes them) once, and
/// the figure there agrees with the value (or the run shows the words). Panics with every
/// disagreement.
pub(crate) fn agree(doc: &str, header: &str, column: usize, cells: &[(&str, &str, Quoted)]) {
    let text = read(&repo().join(doc));
    let rows = rows(doc, &text, header);
    let mut checks = Checks::default();
    let mut failures = Vec::new();
    for (row, words, quoted) in cells {
        let Some(cell) = rows
            .iter()
            .find(|r| r[0] == *row)
            .and_then(|r| r.get(column))
        else {
            failures.push(format!("no row `{row}` with a column {column}"));
            continue;
        };
        let what = format!("row `{row}`");
        match *quoted {
            Quoted::Figure(value) => match figure_in(cell, words) {
                Ok((shown, read)) => checks.figure(&what, &read, Some(shown), value),
                Err(why) => failures.push(format!("{what}: {why}")),
            },
            Quoted::Holds(ok) => match cell.matches(words).count() {
                1 => checks.holds(&what, words, ok),
                n => failures.push(format!("{what}: `{words}` found {n} times, not once")),
            },
        }
    }
    failures.extend(checks.failures);
    assert!(
        failures.is_empty(),
        "{doc}, `{header}`: {} of {} figures disagree with the test's runs:\n{}",
        failures.len(),
        cells.len(),
        failures.join("\n")
    );
}
