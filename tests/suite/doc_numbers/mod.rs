//! Figures typed by hand into README.md and docs/ are results of runs, so they are held to the
//! runs as the marked output blocks are (docs.rs). A table of results (`TABLES`) is found in its
//! document by its header row, each row names its run (the `--set`s, or the variant, written in
//! its first cell), and each figure is read from the cell's text. A figure elsewhere, in a
//! table whose rows are not runs or in running text (`QUOTES`, quotes.rs), is found by the words
//! around it. Editing a figure without the behaviour, or the behaviour without the figure, fails
//! here. A figure agrees when the run's value, rounded to the decimals the document shows,
//! prints as the document does.
//!
//! No expected number is written in these files: the documents are the expectations. What is
//! here is which metric each figure quotes and which run it comes from.

mod quotes;

use crate::support::golden::repo;
use crate::support::{Scratch, cascade, read, scratch};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// A figure as a document prints it: its value, its decimals, and whether it is a percentage.
#[derive(Debug)]
struct Shown {
    text: String,
    value: f64,
    decimals: usize,
    percent: bool,
}

/// The first number in `text` (digits with `,` thousands separators and a `.` fraction), with a
/// `%` or ` %` after it read as a percentage; None when there is none.
fn first_number(text: &str) -> Option<Shown> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let rest = &text[start..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || ((c == '.' || c == ',')
                    && rest[i + 1..].starts_with(|d: char| d.is_ascii_digit())))
        })
        .map_or(rest.len(), |(i, _)| i);
    let number = &rest[..end];
    let after = rest[end..].trim_start_matches(' ');
    Some(Shown {
        text: number.to_string(),
        value: number.replace(',', "").parse().unwrap(),
        decimals: number.split_once('.').map_or(0, |(_, f)| f.len()),
        percent: after.starts_with('%'),
    })
}

/// The number right after `label` in `text`.
fn number_after(text: &str, label: &str) -> Option<Shown> {
    let at = text.find(label)? + label.len();
    first_number(&text[at..]).filter(|_| text[at..].starts_with(|c: char| c.is_ascii_digit()))
}

/// A completed run: its output directory (the base's files, and a directory per variant), or
/// a sweep's, whose metrics are the means over its replications.
struct Run {
    dir: Scratch,
    sweep: bool,
}

impl Run {
    /// The run's `summary.json`; of a sweep, its point's entry in `points.json` with each
    /// metric's mean for its value, in the same shape.
    fn summary(&self, variant: Option<&str>) -> serde_json::Value {
        if !self.sweep {
            let file = self.at(variant).join("summary.json");
            return serde_json::from_str(&read(&file)).unwrap();
        }
        let points: serde_json::Value =
            serde_json::from_str(&read(&self.dir.join("points.json"))).unwrap();
        let name = variant.unwrap_or("base");
        let point = points
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["variant"] == name)
            .unwrap_or_else(|| panic!("no variant {name} in {}", self.dir.display()));
        let means: serde_json::Map<String, serde_json::Value> = point["metrics"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v["mean"].clone()))
            .collect();
        serde_json::json!({ "metrics": means })
    }

    fn at(&self, variant: Option<&str>) -> std::path::PathBuf {
        variant.map_or(self.dir.to_path_buf(), |v| self.dir.join(v))
    }

    fn metric(&self, variant: Option<&str>, name: &str) -> f64 {
        self.summary(variant)["metrics"][name]
            .as_f64()
            .unwrap_or_else(|| panic!("no metric {name} in {}", self.at(variant).display()))
    }

    /// One metric's buckets, (start, value), in time order.
    fn series(&self, variant: Option<&str>, name: &str) -> Vec<(f64, f64)> {
        let text = read(&self.at(variant).join("timeseries.csv"));
        let mut rows: Vec<(f64, f64)> = text
            .lines()
            .skip(1)
            .filter_map(|l| {
                let mut fields = l.split(',');
                let (t, m, v) = (fields.next()?, fields.next()?, fields.next()?);
                (m == name).then(|| (t.parse().unwrap(), v.parse().unwrap()))
            })
            .collect();
        assert!(!rows.is_empty(), "no series {name}");
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        rows
    }

    /// The seconds from `from_s` on in which fewer than `floor` of `client`'s requests
    /// succeeded: the end of the last one counted from `from_s` (None if there is none), how
    /// many there are, and whether the last bucket of the run is one of them.
    fn hurt(&self, variant: Option<&str>, client: &str, from_s: f64, floor: f64) -> Hurt {
        let series = self.series(variant, &format!("client.{client}.success_ratio"));
        let width = series[1].0 - series[0].0;
        let bad: Vec<f64> = series
            .iter()
            .filter(|&&(t, v)| t >= from_s && v < floor)
            .map(|&(t, _)| t)
            .collect();
        Hurt {
            last_end: bad.last().map(|t| t + width - from_s),
            seconds: bad.len() as f64 * width,
            to_the_end: bad.last() == series.last().map(|(t, _)| t),
        }
    }
}

struct Hurt {
    last_end: Option<f64>,
    seconds: f64,
    to_the_end: bool,
}

/// Runs `scenario` with `sets` into a fresh directory: once, or with `reps` > 1 as a sweep of
/// that many replications (its one point the scenario's own seed, so replication 0 is the run).
/// Without `variants`, the scenario's `[[variant]]`s are left out (and the `[[expect]]`s, which
/// may name them): the base's results are the same, at a fraction of the time.
fn run(scenario: &str, sets: &[String], reps: usize, variants: bool) -> Run {
    let dir = scratch("doc-numbers");
    let file = repo().join(scenario);
    let base_only = ["variant=[]".to_string(), "expect=[]".to_string()];
    let has_variants = read(&file).contains("\n[[variant]]");
    let extra = if has_variants && !variants {
        &base_only[..]
    } else {
        &[]
    };
    let (reps_arg, seed_param);
    let mut args = vec![if reps > 1 { "sweep" } else { "run" }];
    args.extend([
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    if reps > 1 {
        reps_arg = reps.to_string();
        seed_param = format!("scenario.seed={}", seed_of(&read(&file)));
        args.extend(["--reps", &reps_arg, "--param", &seed_param]);
    }
    for s in sets.iter().chain(extra) {
        args.extend(["--set", s.as_str()]);
    }
    cascade(&args, 0);
    Run {
        dir,
        sweep: reps > 1,
    }
}

/// The seed a scenario's `[scenario]` table gives, `seed = 23`.
fn seed_of(scenario: &str) -> &str {
    scenario
        .lines()
        .find_map(|l| l.strip_prefix("seed = "))
        .expect("a scenario with a seed")
        .trim()
}

/// What a table's row names as its run: `--set`s on the scenario, and a variant to read.
struct Names {
    sets: Vec<String>,
    variant: Option<String>,
}

/// One row's checks: the figures it shows beside the values its run gives, or a mismatch of
/// words (a row says "never recovers").
#[derive(Default)]
struct Checks {
    failures: Vec<String>,
    checked: usize,
}

impl Checks {
    /// The figure `shown` (from the cell `cell`) against `value`, to the shown precision.
    fn figure(&mut self, what: &str, cell: &str, shown: Option<Shown>, value: f64) {
        let Some(shown) = shown else {
            self.failures.push(format!(
                "{what}: no figure where one is expected in `{cell}`"
            ));
            return;
        };
        let value = if shown.percent { value * 100.0 } else { value };
        let d = shown.decimals;
        let printed = format!("{value:.d$}");
        self.checked += 1;
        if printed != format!("{:.d$}", shown.value) {
            self.failures.push(format!(
                "{what}: the document shows {}{} in `{cell}`, the run gives {printed} ({value})",
                shown.text,
                if shown.percent { "%" } else { "" }
            ));
        }
    }

    fn holds(&mut self, what: &str, cell: &str, ok: bool) {
        self.checked += 1;
        if !ok {
            self.failures
                .push(format!("{what}: `{cell}` is not what the run shows"));
        }
    }

    /// A cell that gives a run's verdict: it says `bad` and the run must show `is_bad`, or it
    /// does not and the run must not; then, where the cell has a figure after `label`, the
    /// figure must be the run's `value` (asked for only then: a run that did not recover has
    /// no recovery time).
    fn verdict(
        &mut self,
        cell: &str,
        (bad, is_bad): (&str, bool),
        (what, label): (&str, &str),
        value: impl FnOnce() -> f64,
    ) {
        if cell.contains(bad) {
            self.holds(bad, cell, is_bad);
            return;
        }
        self.holds(&format!("not {bad}"), cell, !is_bad);
        if let Some(shown) = cell.contains(label).then(|| number_after(cell, label)) {
            self.figure(what, cell, shown, value());
        }
    }
}

/// A hand-typed table of results.
struct Table {
    doc: &'static str,
    /// The table's header row, exactly: it finds the table.
    header: &'static str,
    scenario: &'static str,
    /// The run a row names, from its first cell.
    names: fn(&str) -> Names,
    /// Checks a row's figures (its cells after the first) against its run.
    check: fn(&[&str], &Run, Option<&str>, &mut Checks),
}

/// The `--set`s quoted in code spans: `` `--set a=b` `` gives `a=b`; "as written" none.
fn quoted_sets(cell: &str) -> Names {
    let sets = cell
        .split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|code| {
            code.split("--set ")
                .skip(1)
                .map(|s| s.trim().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    Names {
        sets,
        variant: None,
    }
}

/// The code spans of a cell.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// docs/scenario.md's late-autoscaler sweep: a row's first cell is the settings of
/// `service.api.autoscale` it changes, `` `period = "5s"`, `window = "60s"` ``.
fn autoscale_sets(cell: &str) -> Names {
    let sets = spans(cell)
        .iter()
        .map(|span| {
            let (key, value) = span.split_once(" = ").expect("`key = \"value\"`");
            format!("service.api.autoscale.{key}={}", value.trim_matches('"'))
        })
        .collect();
    Names {
        sets,
        variant: None,
    }
}

/// docs/validation.md's Brooker table: a row is the base's `f`, another `f` set on the base
/// (as the note under the table says), or a variant named in a code span.
fn brooker_sets(cell: &str) -> Names {
    if let Some(variant) = spans(cell).first() {
        return Names {
            sets: Vec::new(),
            variant: Some(variant.to_string()),
        };
    }
    let f = cell.split_whitespace().next().unwrap();
    Names {
        sets: if cell.contains("(base)") {
            Vec::new()
        } else {
            vec![format!("fault.0.rate={f}")]
        },
        variant: None,
    }
}

const TABLES: &[Table] = &[
    // README.md, "Then change one thing and compare".
    Table {
        doc: "README.md",
        header: "| change | success ratio |",
        scenario: "scenarios/quickstart.toml",
        names: quoted_sets,
        check: |cells, run, v, c| {
            let value = run.metric(v, "client.web.success_ratio");
            c.figure("success ratio", cells[0], first_number(cells[0]), value);
        },
    },
    // README.md, the retry storm and its three cures: the share over the scenario's last-20s
    // window, then how soon after the spike (its end, the client's phase back to its rate) the
    // last second under 99% ends, as docs/scenario.md's autoscaler table counts it.
    Table {
        doc: "README.md",
        header: "| change (success ratio over the last 20 s) | |",
        scenario: "scenarios/retry-storm.toml",
        names: quoted_sets,
        check: |cells, run, v, c| {
            let cell = cells[0];
            let value = run.metric(v, "window.last-20s.client.app.success_ratio");
            c.figure("success ratio", cell, first_number(cell), value);
            let spike_end = spike_end(&read(&repo().join("scenarios/retry-storm.toml")));
            let hurt = run.hurt(v, "app", spike_end, 0.99);
            c.verdict(
                cell,
                ("never recovers", hurt.to_the_end),
                ("recovered after", "recovers about "),
                || hurt.last_end.unwrap_or(0.0),
            );
        },
    },
    // docs/scenario.md, "Autoscaling": how late the autoscaler reacts.
    Table {
        doc: "docs/scenario.md",
        header: "| Setting | Recovered after | Seconds hurt | Success |",
        scenario: "scenarios/late-autoscaler.toml",
        names: autoscale_sets,
        check: |cells, run, v, c| {
            let step = step_at(&read(&repo().join("scenarios/late-autoscaler.toml")));
            let hurt = run.hurt(v, "web", step, 0.99);
            let end = hurt.last_end.unwrap_or(0.0);
            c.figure("recovered after", cells[0], first_number(cells[0]), end);
            c.figure(
                "seconds hurt",
                cells[1],
                first_number(cells[1]),
                hurt.seconds,
            );
            let success = run.metric(v, "window.step.client.web.success_ratio");
            c.figure("success", cells[2], first_number(cells[2]), success);
        },
    },
    // docs/scenario.md §7, the storm's recovery verdict under each single change.
    Table {
        doc: "docs/scenario.md",
        header: "| change | recovery |",
        scenario: "docs/examples/storm.toml",
        names: quoted_sets,
        check: |cells, run, v, c| {
            let cell = cells[0];
            let recovered = run.metric(v, "fault.0.recovered") == 1.0;
            c.verdict(
                cell,
                ("NOT RECOVERED", !recovered),
                ("recovery_s", "`"),
                || run.metric(v, "fault.0.recovery_s"),
            );
            for (label, metric) in [
                ("during ", "fault.0.goodput_during_rps"),
                ("after ", "fault.0.goodput_after_rps"),
            ] {
                if let Some(shown) = number_after(cell, label) {
                    c.figure(metric, cell, Some(shown), run.metric(v, metric));
                }
            }
        },
    },
    // docs/validation.md, Brooker's independent failures against his closed forms: the two
    // `cascade` columns.
    Table {
        doc: "docs/validation.md",
        header: "| f | success, closed form 1 − f⁴ | cascade | attempts per call, 1 + f + f² + f³ | cascade |",
        scenario: "scenarios/brooker-retries.toml",
        names: brooker_sets,
        check: |cells, run, v, c| {
            let success = run.metric(v, "client.app.success_ratio");
            c.figure("success", cells[1], first_number(cells[1]), success);
            let attempts = run.metric(v, "edge.app.backend.amplification");
            c.figure(
                "attempts per call",
                cells[3],
                first_number(cells[3]),
                attempts,
            );
        },
    },
];

/// The time of a client's first phase, `phases = [ { at = "60s", …`: the load step.
fn step_at(scenario: &str) -> f64 {
    phase_times(scenario)[0]
}

/// The time of a client's second phase: the end of a spike.
fn spike_end(scenario: &str) -> f64 {
    phase_times(scenario)[1]
}

fn phase_times(scenario: &str) -> Vec<f64> {
    let line = scenario
        .lines()
        .find(|l| l.starts_with("phases = "))
        .expect("a client with phases");
    line.split("at = \"")
        .skip(1)
        .map(|s| s.split("s\"").next().unwrap().parse().unwrap())
        .collect()
}

/// Figures quoted outside the tables of runs: in running text, in a table whose rows are not
/// runs, or in the README's library table; each figure is found by the words around it.
struct Quote {
    doc: &'static str,
    at: At,
    scenario: &'static str,
    /// 1: each figure is its run's; more: the mean over that many replications (a sweep's),
    /// where the document says its figures are such means.
    reps: usize,
    figures: &'static [Figure],
}

/// Where a quote's figures are.
#[derive(Clone, Copy)]
enum At {
    /// The document's running text, its line breaks and indents read as single spaces.
    Text,
    /// The README's library table: the row of the quote's scenario, its "what cascade shows".
    Library,
    /// The table with this header row; each figure names its row and column.
    Table(&'static str),
}

/// One figure: the cell it is in (in a table), the run it quotes, the words around it, and
/// what of the run it is.
struct Figure {
    /// In a table, the row whose first cell is (or else starts with) this, and the column.
    cell: (&'static str, usize),
    /// The run: "" the scenario as written, `--set a=b` (repeatable) the scenario with those
    /// sets, anything else a variant's name.
    run: &'static str,
    /// The words around the figure, `{}` standing for it, found exactly once in its text; a
    /// leading `^` ties them to the start of the text, a trailing `$` to its end.
    words: &'static str,
    of: Of,
}

/// A figure in running text or the library table.
const fn fig(run: &'static str, words: &'static str, of: Of) -> Figure {
    Figure {
        cell: ("", 0),
        run,
        words,
        of,
    }
}

/// A figure in the cell of a table's `row` (its first cell) and `column` (0-based).
const fn cell(
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
enum Of {
    /// A summary metric.
    M(&'static str),
    /// A metric less one: an amplification's extra attempts (`1.0% more shard calls`).
    Extra(&'static str),
    /// One less a metric: the share a success ratio leaves out.
    Rest(&'static str),
    /// Anything else, computed from the run: what it is, and how.
    F(&'static str, fn(&Get) -> f64),
}

impl Of {
    fn name(&self) -> String {
        match self {
            Of::M(m) => m.to_string(),
            Of::Extra(m) => format!("{m} - 1"),
            Of::Rest(m) => format!("1 - {m}"),
            Of::F(what, _) => what.to_string(),
        }
    }

    fn value(&self, g: &Get) -> f64 {
        match *self {
            Of::M(m) => g.m(m),
            Of::Extra(m) => g.m(m) - 1.0,
            Of::Rest(m) => 1.0 - g.m(m),
            Of::F(_, f) => f(g),
        }
    }
}

/// What a figure's value is read from: its run and variant (and the scenario, for its text).
struct Get<'a> {
    run: &'a Run,
    variant: Option<&'a str>,
    scenario: &'a str,
}

impl Get<'_> {
    fn m(&self, name: &str) -> f64 {
        self.run.metric(self.variant, name)
    }

    /// A metric of another variant of the same run ("" the base).
    fn of(&self, variant: &str, name: &str) -> f64 {
        self.run
            .metric(Some(variant).filter(|v| !v.is_empty()), name)
    }

    /// A count per second of the measured span.
    fn per_s(&self, name: &str) -> f64 {
        self.m(name)
            / self.run.summary(self.variant)["duration_s"]
                .as_f64()
                .unwrap()
    }

    /// A count of `[[window]]` `window` per second of it (its length read off a client's
    /// requests and offered rate over it).
    fn window_per_s(&self, window: &str, name: &str) -> f64 {
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
fn named(run: &str) -> Names {
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
fn figure_in(text: &str, words: &str) -> Result<(Shown, String), String> {
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
const LIBRARY: &str = "| file | source | claim | what cascade shows |";

/// The text a quote's figure is in, and where that is, for the messages.
fn quoted_text<'a>(
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

/// The rows of the table under `header` in `text`, each as its cells, trimmed.
fn rows<'a>(doc: &str, text: &'a str, header: &str) -> Vec<Vec<&'a str>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == header)
        .unwrap_or_else(|| panic!("{doc}: no table with the header `{header}`"));
    lines[at + 2..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .collect()
        })
        .collect()
}

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
    for q in quotes::QUOTES {
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
    for quote in quotes::QUOTES {
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
