//! The quote machinery: a quote is a scenario's figures in one place of a document (running
//! text, a table found by its header row, or the README library row of its scenario); each
//! figure names its run and what of the run it is (`Of`, read through `Get`), and is found by
//! the words around it. The quotes themselves are listed in quotes/.

use super::reader::{Shown, first_number, rows};
use super::run::Run;
use super::tables::Names;

/// Figures quoted outside the tables of runs: in running text, in a table whose rows are not
/// runs, or in the README's library table; each figure is found by the words around it.
pub(super) struct Quote {
    pub(super) doc: &'static str,
    pub(super) at: At,
    pub(super) scenario: &'static str,
    /// 1: each figure is its run's; more: the mean over that many replications (a sweep's),
    /// where the document says its figures are such means.
    pub(super) reps: usize,
    pub(super) figures: &'static [Figure],
}

/// Where a quote's figures are.
#[derive(Clone, Copy)]
pub(super) enum At {
    /// The document's running text, its line breaks and indents read as single spaces.
    Text,
    /// The README's library table: the row of the quote's scenario, its "what cascade shows".
    Library,
    /// The table with this header row; each figure names its row and column.
    Table(&'static str),
}

/// One figure: the cell it is in (in a table), the run it quotes, the words around it, and
/// what of the run it is.
pub(super) struct Figure {
    /// In a table, the row whose first cell is (or else starts with) this, and the column.
    cell: (&'static str, usize),
    /// The run: "" the scenario as written, `--set a=b` (repeatable) the scenario with those
    /// sets, anything else a variant's name.
    pub(super) run: &'static str,
    /// The words around the figure, `{}` standing for it, found exactly once in its text; a
    /// leading `^` ties them to the start of the text, a trailing `$` to its end.
    pub(super) words: &'static str,
    pub(super) of: Of,
}

/// A figure in running text or the library table.
pub(super) const fn fig(run: &'static str, words: &'static str, of: Of) -> Figure {
    Figure {
        cell: ("", 0),
        run,
        words,
        of,
    }
}

/// A figure in the cell of a table's `row` (its first cell) and `column` (0-based).
pub(super) const fn cell(
    row: &'static str,
    column: usize,
    run: &'static str,
    words: &'static str,
    of: Of,
) -> Figure {
    Figure {
        cell: (row, column),
        run,
        words,
        of,
    }
}

/// What of its run a figure is.
#[derive(Clone, Copy)]
pub(super) enum Of {
    /// A summary metric.
    M(&'static str),
    /// A metric less one: an amplification's extra attempts (`1.0% more shard calls`).
    Extra(&'static str),
    /// One less a metric: the share a success ratio leaves out.
    Rest(&'static str),
    /// One metric over another, of the same variant.
    Ratio(&'static str, &'static str),
    /// Anything else, computed from the run: what it is, and how.
    F(&'static str, fn(&Get) -> f64),
}

impl Of {
    pub(super) fn name(&self) -> String {
        match self {
            Of::M(m) => m.to_string(),
            Of::Extra(m) => format!("{m} - 1"),
            Of::Rest(m) => format!("1 - {m}"),
            Of::Ratio(a, b) => format!("{a} / {b}"),
            Of::F(what, _) => what.to_string(),
        }
    }

    pub(super) fn value(&self, g: &Get) -> f64 {
        match *self {
            Of::M(m) => g.m(m),
            Of::Extra(m) => g.m(m) - 1.0,
            Of::Rest(m) => 1.0 - g.m(m),
            Of::Ratio(a, b) => g.m(a) / g.m(b),
            Of::F(_, f) => f(g),
        }
    }
}

/// What a figure's value is read from: its run and variant (and the scenario, for its text).
pub(super) struct Get<'a> {
    pub(super) run: &'a Run,
    pub(super) variant: Option<&'a str>,
    pub(super) scenario: &'a str,
}

impl Get<'_> {
    pub(super) fn m(&self, name: &str) -> f64 {
        self.run.metric(self.variant, name)
    }

    /// A metric of another variant of the same run ("" the base).
    pub(super) fn of(&self, variant: &str, name: &str) -> f64 {
        self.run
            .metric(Some(variant).filter(|v| !v.is_empty()), name)
    }

    /// A count per second of the measured span.
    pub(super) fn per_s(&self, name: &str) -> f64 {
        self.m(name)
            / self.run.summary(self.variant)["duration_s"]
                .as_f64()
                .unwrap()
    }

    /// A count of `[[window]]` `window` per second of it (its length read off a client's
    /// requests and offered rate over it).
    pub(super) fn window_per_s(&self, window: &str, name: &str) -> f64 {
        let summary = self.run.summary(self.variant);
        let metrics = summary["metrics"].as_object().unwrap();
        let prefix = format!("window.{window}.client.");
        let seconds = metrics
            .iter()
            .find_map(|(k, v)| {
                let client = k.strip_prefix(&prefix)?.strip_suffix(".requests")?;
                let rate = metrics[&format!("{prefix}{client}.offered_rps")].as_f64()?;
                (rate > 0.0).then(|| v.as_f64().unwrap() / rate)
            })
            .unwrap_or_else(|| panic!("no client's rate over window {window}"));
        self.m(name) / seconds
    }
}

/// The run a figure names: `--set`s on the scenario, or a variant.
pub(super) fn named(run: &str) -> Names {
    if run.starts_with("--set ") {
        let sets = run.split("--set ").skip(1).map(|s| s.trim().to_string());
        return Names {
            sets: sets.collect(),
            variant: None,
        };
    }
    Names {
        sets: Vec::new(),
        variant: Some(run.to_string()).filter(|v| !v.is_empty()),
    }
}

/// The figure `words` (with `{}` for it) stand for in `text`, and the words as they read there.
pub(super) fn figure_in(text: &str, words: &str) -> Result<(Shown, String), String> {
    let (start, bare) = words
        .strip_prefix('^')
        .map_or((false, words), |w| (true, w));
    let (end, bare) = bare.strip_suffix('$').map_or((false, bare), |w| (true, w));
    let (before, after) = bare
        .split_once("{}")
        .expect("words with a {} for the figure");
    let mut found: Vec<(Shown, String)> = text
        .match_indices(before)
        .filter(|&(i, _)| !start || i == 0)
        .filter_map(|(i, _)| {
            let at = i + before.len();
            let rest = &text[at..];
            let inside = text[..at].ends_with(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
            if inside || !rest.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            let shown = first_number(rest)?;
            let tail = &rest[shown.text.len()..];
            let fits = tail.starts_with(after) && (!end || tail.len() == after.len());
            let read = format!("{before}{}{after}", shown.text);
            fits.then_some((shown, read))
        })
        .collect();
    match found.len() {
        1 => Ok(found.pop().unwrap()),
        0 => Err(format!("the words `{words}` find no figure")),
        n => Err(format!("the words `{words}` find {n} figures, not one")),
    }
}

/// The header of the README's library table.
pub(super) const LIBRARY: &str = "| file | source | claim | what cascade shows |";

/// The text a quote's figure is in, and where that is, for the messages.
pub(super) fn quoted_text<'a>(
    quote: &Quote,
    figure: &Figure,
    text: &'a str,
) -> Result<(&'a str, String), String> {
    let (header, row, column) = match quote.at {
        At::Text => return Ok((text, "running text".to_string())),
        At::Library => {
            let row = format!("`{}`", quote.scenario);
            let cells = rows(quote.doc, text, LIBRARY)
                .into_iter()
                .find(|r| r[0] == row);
            let place = format!("the library table, row {row}");
            return cells
                .map(|r| (r[3], place))
                .ok_or_else(|| format!("the library table has no row {row}"));
        }
        At::Table(header) => (header, figure.cell.0.to_string(), figure.cell.1),
    };
    let rows = rows(quote.doc, text, header);
    let exact: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == row).collect();
    let chosen = if exact.is_empty() {
        rows.iter().filter(|r| r[0].starts_with(&row)).collect()
    } else {
        exact
    };
    match chosen[..] {
        [cells] => cells
            .get(column)
            .map(|c| (*c, format!("`{header}`, row `{row}`, column {column}")))
            .ok_or_else(|| format!("`{header}`, row `{row}`: no column {column}")),
        _ => Err(format!(
            "`{header}`: {} rows start with `{row}`, not one",
            chosen.len()
        )),
    }
}
