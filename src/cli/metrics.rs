//! `cascade metrics`: the metric catalogue.

use cascade::Result;
use cascade::metrics::catalogue::CATALOGUE;
use cascade::model::Outcome;
use std::process::ExitCode;

pub fn metrics() -> Result<ExitCode> {
    let width = CATALOGUE.iter().map(|d| d.pattern.len()).max().unwrap_or(0);
    let unit_width = CATALOGUE.iter().map(|d| d.unit.len()).max().unwrap_or(0);
    for d in CATALOGUE {
        println!(
            "{:width$}  {:unit_width$}  {}",
            d.pattern, d.unit, d.meaning
        );
    }
    let kinds: Vec<&str> = Outcome::failures().iter().map(|o| o.name()).collect();
    println!("\n<kind> is one of: {}", kinds.join(", "));
    println!(
        "Counts are per window: the measured run in summary.json, one bucket in timeseries.csv."
    );
    Ok(ExitCode::SUCCESS)
}
