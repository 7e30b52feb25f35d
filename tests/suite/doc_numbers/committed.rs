//! Figures quoted from the sweeps committed under docs/results/, read from what is committed
//! rather than rerun (the metastability map alone is 576 runs): each sweep's `sweep.json` (its
//! replications) and its report's "Points" table, a row per point and variant with each
//! metric's mean over the replications. `points.csv` and `points.json` are not committed; the
//! report prints a mean to three significant figures, which is exact for a share of
//! recovered replications (k in 8 or in 2).
//!
//! Why that is still a run the suite checks: `committed_results.rs` runs the storm-guarded
//! sweep's commands on every test run and fails unless every committed file, the report
//! included, is byte for byte what the current binary writes. The metastability map's sweep is
//! too slow for that and is compared only when blessing (`CASCADE_BLESS=1`), so here its
//! committed `scenario.toml` must be the current `scenarios/metastability-map.toml`, with the
//! hash its `sweep.json` records: a scenario edited without regenerating the sweep fails. A
//! change of the engine that moves the map is caught only at the next bless, which rewrites the
//! report these figures are held to.

use super::checks::Checks;
use super::quote::{LIBRARY, figure_in};
use super::reader::{first_number, rows};
use crate::support::golden::repo;
use crate::support::read;

/// A committed sweep: its replications, and each point's row of its report's "Points" table.
pub(super) struct Sweep {
    reps: usize,
    /// The table's columns, then a row per point and variant.
    columns: Vec<String>,
    points: Vec<Vec<String>>,
}

impl Sweep {
    fn read(dir: &str) -> Sweep {
        let at = repo().join("docs/results").join(dir);
        let manifest: serde_json::Value = serde_json::from_str(&read(&at.join("sweep.json")))
            .unwrap_or_else(|e| panic!("{dir}/sweep.json: {e}"));
        let report = read(&at.join("report.md"));
        let table = report
            .split("\n## Points\n\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{dir}/report.md has no Points table"));
        let mut lines = table.lines().take_while(|l| l.starts_with('|'));
        let cells = |l: &str| -> Vec<String> {
            let l = l.trim().trim_matches('|');
            l.split(" | ").map(|c| c.trim().to_string()).collect()
        };
        let columns = cells(lines.next().unwrap());
        let points: Vec<Vec<String>> = lines.skip(1).map(cells).collect();
        assert_eq!(
            points.len() as u64,
            manifest["points"].as_u64().unwrap()
                * manifest["variants"].as_array().unwrap().len() as u64,
            "{dir}/report.md: a row per point and variant"
        );
        Sweep {
            reps: manifest["reps"].as_u64().unwrap() as usize,
            columns,
            points,
        }
    }

    fn column(&self, name: &str) -> usize {
        self.columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.columns))
    }

    /// The mean of `metric` at each point of `variant`: (its value of `param`, of `other`, the
    /// mean), a percentage read as a share.
    fn means(&self, variant: &str, (param, other): (&str, &str), metric: &str) -> Vec<Cell> {
        let (v, p, o, m) = (
            self.column("variant"),
            self.column(param),
            self.column(other),
            self.column(metric),
        );
        let number = |cell: &str| {
            let shown = first_number(cell).unwrap_or_else(|| panic!("no mean in `{cell}`"));
            shown.value / if shown.percent { 100.0 } else { 1.0 }
        };
        self.points
            .iter()
            .filter(|r| r[v] == variant)
            .map(|r| Cell {
                param: number(&r[p]),
                other: number(&r[o]),
                mean: number(&r[m]),
            })
            .collect()
    }
}

/// One point's mean of a metric, with its two parameters' values.
struct Cell {
    param: f64,
    other: f64,
    mean: f64,
}

/// The share of replications that recovered (`fault.0.recovered`) at `variant`, the rate
/// `rate` and the other parameter `other`.
fn recovered(s: &Sweep, variant: &str, other_param: &str, (rate, other): (f64, f64)) -> f64 {
    let cells = s.means(
        variant,
        ("client.app.rate", other_param),
        "fault.0.recovered",
    );
    let cell = cells.iter().find(|c| c.param == rate && c.other == other);
    cell.unwrap_or_else(|| panic!("no point at {rate}/s, {other}"))
        .mean
}

/// The highest rate up to which every point of `variant` (at the other parameter's `other`,
/// or at all of its values) recovered in every replication.
fn absorbed_to(s: &Sweep, variant: &str, other_param: &str, other: Option<f64>) -> f64 {
    let cells = s.means(
        variant,
        ("client.app.rate", other_param),
        "fault.0.recovered",
    );
    let cells: Vec<&Cell> = cells
        .iter()
        .filter(|c| other.is_none_or(|o| c.other == o))
        .collect();
    let mut rates: Vec<f64> = cells.iter().map(|c| c.param).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let all = |r: f64| cells.iter().filter(|c| c.param == r).all(|c| c.mean == 1.0);
    rates
        .into_iter()
        .take_while(|&r| all(r))
        .last()
        .unwrap_or(0.0)
}

/// What a quoted figure (or claim) is, of its sweep.
enum Is {
    /// A figure at `{}` in the words.
    Figure(fn(&Sweep) -> f64),
    /// Words without a figure, true of the sweep.
    Holds(fn(&Sweep) -> bool),
}

/// A committed sweep's figures in a document: running text, or a scenario's README library row.
struct SweepQuote {
    doc: &'static str,
    /// The scenario whose library row holds the figures; None for running text.
    row: Option<&'static str>,
    dir: &'static str,
    figures: &'static [(&'static str, &'static str, Is)],
}

const MAP: &str = "metastability-map-sweep";
const STORM: &str = "storm-guarded-sweep";
const END: &str = "fault.0.end_ms";
const BUDGET: &str = "policy.app-api.retry.budget";

fn reps(s: &Sweep) -> f64 {
    s.reps as f64
}

/// The map's replications (of 8) that did not recover, without a budget, at 500/s after 0.3 s.
fn tips_500(s: &Sweep) -> f64 {
    s.reps as f64 * (1.0 - recovered(s, "no-budget", END, (500.0, 30300.0)))
}

fn budget_absorbs_map(s: &Sweep) -> f64 {
    absorbed_to(s, "base", END, None)
}

const SWEEP_QUOTES: &[SweepQuote] = &[
    SweepQuote {
        doc: "README.md",
        row: Some("scenarios/metastability-map.toml"),
        dir: MAP,
        figures: &[
            (
                "with {} replications a cell",
                "replications",
                Is::Figure(reps),
            ),
            (
                "tips 500/s {} times in",
                "no-budget at 500/s, 0.3 s: not recovered",
                Is::Figure(tips_500),
            ),
            ("times in {} and", "replications", Is::Figure(reps)),
            (
                "0.1 s tips 800/s a quarter of the time",
                "no-budget at 800/s, 0.1 s: recovered 3 in 4",
                Is::Holds(|s| recovered(s, "no-budget", END, (800.0, 30100.0)) == 0.75),
            ),
            (
                "every cell to {}/s recovers",
                "base: all recovered up to",
                Is::Figure(budget_absorbs_map),
            ),
        ],
    },
    SweepQuote {
        doc: "docs/guide.md",
        row: None,
        dir: MAP,
        figures: &[
            (
                "trigger's length, {} replications a cell",
                "replications",
                Is::Figure(reps),
            ),
            (
                "everything up to {} requests/s recovers",
                "base: all recovered up to",
                Is::Figure(budget_absorbs_map),
            ),
        ],
    },
    SweepQuote {
        doc: "README.md",
        row: None,
        dir: STORM,
        figures: &[
            (
                "a 10% budget absorbs it up to {} requests/s",
                "budget 0.1: all recovered up to",
                Is::Figure(|s| absorbed_to(s, "base", BUDGET, Some(0.1))),
            ),
            (
                "30% only up to {}, a budget",
                "budget 0.3: all recovered up to",
                Is::Figure(|s| absorbed_to(s, "base", BUDGET, Some(0.3))),
            ),
            (
                "a budget of 100% never:",
                "budget 1: never recovered",
                Is::Holds(never_at_full_budget),
            ),
        ],
    },
    SweepQuote {
        doc: "docs/guide.md",
        row: None,
        dir: STORM,
        figures: &[
            (
                "(mean of two replications per cell)",
                "2 replications",
                Is::Holds(|s| s.reps == 2),
            ),
            (
                "absorbs the slowdown up to {} requests/s",
                "budget 0.1: all recovered up to",
                Is::Figure(|s| absorbed_to(s, "base", BUDGET, Some(0.1))),
            ),
            (
                "30% only up to {}, and a budget",
                "budget 0.3: all recovered up to",
                Is::Figure(|s| absorbed_to(s, "base", BUDGET, Some(0.3))),
            ),
            (
                "a budget of 100% of calls never:",
                "budget 1: never recovered",
                Is::Holds(never_at_full_budget),
            ),
        ],
    },
];

fn never_at_full_budget(s: &Sweep) -> bool {
    let cells = s.means("base", ("client.app.rate", BUDGET), "fault.0.recovered");
    cells
        .iter()
        .filter(|c| c.other == 1.0)
        .all(|c| c.mean == 0.0)
}

/// The committed sweeps' scenarios are the current ones (see the module's docs).
#[test]
fn the_committed_sweeps_ran_the_current_scenarios() {
    for (dir, scenario) in [
        (MAP, "scenarios/metastability-map.toml"),
        (STORM, "scenarios/storm-guarded.toml"),
    ] {
        let committed = read(&repo().join("docs/results").join(dir).join("scenario.toml"));
        assert!(
            committed == read(&repo().join(scenario)),
            "docs/results/{dir} is not a sweep of the current {scenario}: regenerate it with `CASCADE_BLESS=1 cargo test --profile test-release committed_results`"
        );
        let manifest = read(&repo().join("docs/results").join(dir).join("sweep.json"));
        let hash = committed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        assert!(
            manifest.contains(&format!("\"scenario_hash\": \"{hash:016x}\"")),
            "docs/results/{dir}/sweep.json does not record the hash of its scenario.toml"
        );
    }
}

#[test]
fn figures_of_the_committed_sweeps_agree_with_them() {
    let mut failures = Vec::new();
    let mut checks = Checks::default();
    for quote in SWEEP_QUOTES {
        let sweep = Sweep::read(quote.dir);
        let doc = read(&repo().join(quote.doc));
        let text = match quote.row {
            Some(scenario) => {
                let row = format!("`{scenario}`");
                let found = rows(quote.doc, &doc, LIBRARY)
                    .into_iter()
                    .find(|r| r[0] == row);
                found.unwrap_or_else(|| panic!("the library table has no row {row}"))[3].to_string()
            }
            None => doc.split_whitespace().collect::<Vec<_>>().join(" "),
        };
        for (words, what, is) in quote.figures {
            let what = format!("{}, {what}", quote.dir);
            match is {
                Is::Figure(value) => match figure_in(&text, words) {
                    Ok((shown, read)) => checks.figure(&what, &read, Some(shown), value(&sweep)),
                    Err(why) => failures.push(format!("{}: {what}: {why}", quote.doc)),
                },
                Is::Holds(holds) => {
                    let found = text.matches(words).count();
                    if found != 1 {
                        failures.push(format!(
                            "{}: `{words}` found {found} times, not once",
                            quote.doc
                        ));
                    } else {
                        checks.holds(&what, words, holds(&sweep));
                    }
                }
            }
        }
    }
    assert!(checks.checked > 0);
    failures.extend(checks.failures);
    assert!(
        failures.is_empty(),
        "{} of the figures quoted from docs/results/ disagree with the committed sweeps:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
