//! Figures typed by hand into tables of README.md and docs/ are results of runs, so they are held
//! to the runs as the marked output blocks are (docs.rs): each table below is found in its
//! document by its header row, each row names its run (the `--set`s, or the variant, written in
//! its first cell), and each figure is read from the cell's text, so editing a figure without
//! the behaviour, or the behaviour without the figure, fails here. A figure agrees when the run's
//! value, rounded to the decimals the document shows, prints as the document does.
//!
//! No expected number is written in this file: the documents are the expectations. What is
//! here is which metric each column quotes and how a row names its run.

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

/// A completed run: its output directory (the base's files, and a directory per variant).
struct Run {
    dir: Scratch,
}

impl Run {
    fn summary(&self, variant: Option<&str>) -> serde_json::Value {
        let file = self.at(variant).join("summary.json");
        serde_json::from_str(&read(&file)).unwrap()
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

/// Runs `scenario` with `sets` into a fresh directory.
fn run(scenario: &str, sets: &[String]) -> Run {
    let dir = scratch("doc-numbers");
    let file = repo().join(scenario);
    let mut args = vec!["run", file.to_str().unwrap(), "--quiet", "--out"];
    args.push(dir.to_str().unwrap());
    for s in sets {
        args.extend(["--set", s.as_str()]);
    }
    cascade(&args, 0);
    Run { dir }
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
fn hand_typed_tables_of_results_agree_with_their_runs() {
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
    // Rows that differ only in the variant they read share one run.
    let keys: Vec<(&str, &[String])> = {
        let mut keys: Vec<_> = all
            .iter()
            .map(|r| (r.table.scenario, r.names.sets.as_slice()))
            .collect();
        keys.sort();
        keys.dedup();
        keys
    };
    let runs: BTreeMap<(&str, &[String]), Run> = keys
        .par_iter()
        .map(|&(scenario, sets)| ((scenario, sets), run(scenario, sets)))
        .collect();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in &all {
        let run = &runs[&(row.table.scenario, row.names.sets.as_slice())];
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
    assert_eq!(
        autoscale_sets("`period = \"60s\"`, `window = \"60s\"`").sets,
        [
            "service.api.autoscale.period=60s",
            "service.api.autoscale.window=60s"
        ]
    );
}
