//! `cascade metrics`: the metric catalogue, as a table for people or (`--json`) as JSON for
//! tools.

use cascade::Result;
use cascade::json::{self, Entries};
use cascade::metrics::catalogue::CATALOGUE;
use cascade::model::Outcome;
use clap::Args;
use serde::Serialize;
use std::process::ExitCode;

#[derive(Args)]
pub struct MetricsArgs {
    /// Print the catalogue as JSON: {"metrics": [{"pattern", "unit", "meaning"}...], "kinds": [...]}.
    #[arg(long)]
    pub json: bool,
}

pub fn metrics(a: MetricsArgs) -> Result<ExitCode> {
    if a.json {
        print!("{}", catalogue_json());
        return Ok(ExitCode::SUCCESS);
    }
    let width = CATALOGUE.iter().map(|d| d.pattern.len()).max().unwrap_or(0);
    let unit_width = CATALOGUE.iter().map(|d| d.unit.len()).max().unwrap_or(0);
    for d in CATALOGUE {
        println!(
            "{:width$}  {:unit_width$}  {}",
            d.pattern, d.unit, d.meaning
        );
    }
    println!("\n<kind> is one of: {}", failure_kinds().join(", "));
    println!(
        "Counts are per window: the measured run in summary.json, one bucket in timeseries.csv."
    );
    Ok(ExitCode::SUCCESS)
}

/// The outcome kinds a `<kind>` placeholder stands for.
fn failure_kinds() -> Vec<&'static str> {
    Outcome::failures().iter().map(|o| o.name()).collect()
}

#[derive(Serialize)]
struct Entry {
    pattern: &'static str,
    unit: &'static str,
    meaning: &'static str,
}

#[derive(Serialize)]
struct Catalogue {
    metrics: Vec<Entry>,
    kinds: Vec<&'static str>,
}

/// One metric per line, so the file diffs and greps as the table does.
fn layout(depth: usize, key: Option<&str>) -> Entries {
    match (depth, key) {
        (1, _) | (2, Some("metrics")) => Entries::pretty(depth),
        _ => Entries::Inline,
    }
}

fn catalogue_json() -> String {
    let catalogue = Catalogue {
        metrics: CATALOGUE
            .iter()
            .map(|d| Entry {
                pattern: d.pattern,
                unit: d.unit,
                meaning: d.meaning,
            })
            .collect(),
        kinds: failure_kinds(),
    };
    json::to_text(&catalogue, layout)
}
