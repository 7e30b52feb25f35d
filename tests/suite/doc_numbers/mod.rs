//! Figures typed by hand into README.md and docs/ are results of runs, so they are held to the
//! runs as the marked output blocks are (docs.rs). A table of results (`TABLES`) is found in its
//! document by its header row, each row names its run (the `--set`s, or the variant, written in
//! its first cell), and each figure is read from the cell's text. A figure elsewhere, in a
//! table whose rows are not runs or in running text (`quotes::all()`, quotes/), is found by the
//! words around it. Editing a figure without the behaviour, or the behaviour without the figure,
//! fails here. A figure agrees when the run's value, rounded to the decimals the document shows,
//! prints as the document does.
//!
//! No expected number is written in these files: the documents are the expectations. What is
//! here is which metric each figure quotes and which run it comes from.
//!
//! The files: reader.rs reads a figure as a document prints it, and a table's rows; run.rs runs
//! a scenario and reads its results; checks.rs holds figures to them; tables.rs lists the tables
//! of runs; quote.rs is how a quote names its run and finds its figure; quotes/ lists the
//! quotes, a file per document or family. The tests are here, but for two families of figures
//! with files of their own: committed.rs holds the figures quoted from the sweeps committed
//! under docs/results/ to those files, and computed.rs is how a test that computes a table
//! (collapse.rs) holds the document's figures to its own runs.

mod checks;
mod committed;
pub(crate) mod computed;
mod quote;
mod quotes;
mod reader;
mod run;
mod tables;

use crate::support::golden::repo;
use crate::support::read;
use checks::Checks;
use quote::{At, Get, Of, figure_in, named, quoted_text};
use rayon::prelude::*;
use reader::{first_number, number_after, rows};
use run::{Run, run};
use std::collections::BTreeMap;
use tables::{Names, TABLES, Table, autoscale_sets, quoted_sets};

/// The definition the autoscaler table's two first columns are read with, as the document
/// states it: a change of it must change the test too.
#[test]
fn the_autoscaler_tables_definition_is_the_one_checked() {
    let doc = read(&repo().join("docs/scenario.md")).replace('\n', " ");
    let words = "*Recovered after* is the end of the last second, counted from the step, in which \
                 fewer than 99 % of requests succeeded; *seconds hurt* counts those seconds; \
                 *success* is over the two minutes from the step";
    assert!(
        doc.contains(words),
        "docs/scenario.md no longer says {words:?}"
    );
}

#[test]
fn hand_typed_figures_agree_with_their_runs() {
    struct Row<'a> {
        table: &'a Table,
        cells: Vec<String>,
        names: Names,
    }
    let texts: Vec<String> = TABLES.iter().map(|t| read(&repo().join(t.doc))).collect();
    let all: Vec<Row> = TABLES
        .iter()
        .zip(&texts)
        .flat_map(|(table, text)| {
            rows(table.doc, text, table.header)
                .into_iter()
                .map(move |cells| Row {
                    table,
                    names: (table.names)(cells[0]),
                    cells: cells.iter().map(|c| c.to_string()).collect(),
                })
        })
        .collect();
    // Figures that differ only in the variant they read share one run: a scenario, its sets,
    // its replications.
    type Key<'a> = (&'a str, Vec<String>, usize);
    // Each run, and whether a figure reads one of its variants (a figure computed by a
    // function may: it is counted as reading them).
    let mut keys: BTreeMap<Key, bool> = BTreeMap::new();
    for r in &all {
        let key = (r.table.scenario, r.names.sets.clone(), 1);
        *keys.entry(key).or_default() |= r.names.variant.is_some();
    }
    for q in quotes::all() {
        for f in q.figures {
            let names = named(f.run);
            let reads = names.variant.is_some() || matches!(f.of, Of::F(..));
            *keys.entry((q.scenario, names.sets, q.reps)).or_default() |= reads;
        }
    }
    let keys: Vec<(Key, bool)> = keys.into_iter().collect();
    let runs: BTreeMap<Key, Run> = keys
        .par_iter()
        .map(|((scenario, sets, reps), variants)| {
            let run = run(scenario, sets, *reps, *variants);
            ((*scenario, sets.clone(), *reps), run)
        })
        .collect();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in &all {
        let run = &runs[&(row.table.scenario, row.names.sets.clone(), 1)];
        let cells: Vec<&str> = row.cells.iter().map(String::as_str).collect();
        let mut checks = Checks::default();
        (row.table.check)(&cells[1..], run, row.names.variant.as_deref(), &mut checks);
        assert!(
            checks.checked > 0,
            "{}: the row `{}` checks no figure",
            row.table.doc,
            cells[0]
        );
        checked += checks.checked;
        failures.extend(checks.failures.into_iter().map(|f| {
            format!(
                "{}, `{}`, row `{}`: {f}",
                row.table.doc, row.table.header, cells[0]
            )
        }));
    }
    for quote in quotes::all() {
        let mut text = read(&repo().join(quote.doc));
        if let At::Text = quote.at {
            // Running text is read as one line: a figure's words may wrap.
            text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        for figure in quote.figures {
            let names = named(figure.run);
            let run = &runs[&(quote.scenario, names.sets.clone(), quote.reps)];
            let label = if figure.run.is_empty() {
                quote.scenario.to_string()
            } else {
                format!("{} `{}`", quote.scenario, figure.run)
            };
            let found = quoted_text(quote, figure, &text)
                .and_then(|(part, place)| Ok((figure_in(part, figure.words)?, place)));
            let ((shown, read), place) = match found {
                Ok(found) => found,
                Err(why) => {
                    failures.push(format!("{}, {label}: {why}", quote.doc));
                    continue;
                }
            };
            let get = Get {
                run,
                variant: names.variant.as_deref(),
                scenario: quote.scenario,
            };
            let mut checks = Checks::default();
            let what = format!("{label}, {}", figure.of.name());
            checks.figure(&what, &read, Some(shown), figure.of.value(&get));
            checked += checks.checked;
            failures.extend(
                checks
                    .failures
                    .into_iter()
                    .map(|f| format!("{}, {place}: {f}", quote.doc)),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} figures typed in the docs disagree with their runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn figures_read_as_printed() {
    let s = first_number("`12.0 s`: drains").unwrap();
    assert_eq!((s.value, s.decimals, s.percent), (12.0, 1, false));
    let s = first_number("| 64.3 % |").unwrap();
    assert_eq!((s.value, s.decimals, s.percent), (64.3, 1, true));
    let s = first_number("1,301 retries, 0.9999").unwrap();
    assert_eq!((s.value, s.decimals), (1301.0, 0));
    assert_eq!(first_number("`period = \"5s\"`").unwrap().value, 5.0);
    assert!(first_number("as written").is_none());
    let s = number_after("(goodput during 323/s, after 808/s)", "after ").unwrap();
    assert_eq!(s.value, 808.0);
    assert!(number_after("goodput after the fault", "after ").is_none());
    assert_eq!(
        quoted_sets("`--set service.db.queue=40` (a short queue)").sets,
        ["service.db.queue=40"]
    );
    let (s, read) = figure_in("a 53 ms p99 and 1,301 retries", "and {} retries").unwrap();
    assert_eq!((s.value, read.as_str()), (1301.0, "and 1,301 retries"));
    assert!(figure_in("0.401, 1.002", "{}").is_err(), "two figures");
    assert_eq!(figure_in("0.401, 1.002", "^{},").unwrap().0.value, 0.401);
    assert_eq!(figure_in("0.872 at 2.17", " at {}$").unwrap().0.value, 2.17);
    assert!(figure_in("at 2.17 s", " at {}$").is_err(), "not at the end");
    assert!(figure_in("1,027 and", "{} and").unwrap().0.value == 1027.0);
    assert_eq!(
        figure_in("falls to 97.0% at", "to {}% at")
            .unwrap()
            .0
            .decimals,
        1
    );
    assert_eq!(named("--set a=1 --set b=\"x\"").sets, ["a=1", "b=\"x\""]);
    assert_eq!(named("retry").variant.as_deref(), Some("retry"));
    assert!(named("").variant.is_none() && named("").sets.is_empty());
    assert_eq!(
        autoscale_sets("`period = \"60s\"`, `window = \"60s\"`").sets,
        [
            "service.api.autoscale.period=60s",
            "service.api.autoscale.window=60s"
        ]
    );
}
