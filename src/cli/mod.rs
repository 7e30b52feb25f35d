//! Command-line interface: clap types here, one file per subcommand.

mod baseline;
mod chart;
mod check;
mod junit;
mod merge;
mod metrics;
mod report;
mod run;
mod sweep;
mod sweep_out;
mod validate;

use cascade::scenario::Override;
use cascade::{Error, Result};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cascade",
    version,
    about = "Deterministic discrete-event simulator for cascading failures"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one scenario and write summary.json, timeseries.csv and run.json.
    Run(run::RunArgs),
    /// Check a scenario for errors without running it.
    Validate(validate::ValidateArgs),
    /// Run scenarios and check their [[expect]]: exit 1 when one fails.
    Check(check::CheckArgs),
    /// Run a grid of parameters x variants x replications; write runs.csv and points.csv.
    Sweep(sweep::SweepArgs),
    /// Join the directories of a sweep's shards into the files of the whole sweep.
    Merge(merge::MergeArgs),
    /// List every metric name with its unit and meaning.
    Metrics,
    /// Draw SVG (and PNG) charts of a run's or a sweep's directory into DIR/charts/.
    Chart(chart::ChartArgs),
    /// Write a self-contained HTML (or Markdown) design-review report of a run or a sweep.
    Report(report::ReportArgs),
}

/// Options shared by every command that loads a scenario.
#[derive(Args)]
pub struct ScenarioArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Override a field before validation, by path: `service.api.workers=40`. Repeatable.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
}

impl ScenarioArgs {
    pub fn overrides(&self) -> Result<Vec<Override>> {
        parse_overrides(&self.set)
    }
}

/// `--set PATH=VALUE` arguments, parsed.
pub fn parse_overrides(set: &[String]) -> Result<Vec<Override>> {
    set.iter()
        .map(|s| Override::parse(s).map_err(Error::Usage))
        .collect()
}

/// `--jobs`, or the machine's cores.
pub fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    })
}

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::Validate(a) => validate::validate(a),
        Command::Check(a) => check::check(a),
        Command::Sweep(a) => sweep::sweep(a),
        Command::Merge(a) => merge::merge(a),
        Command::Metrics => metrics::metrics(),
        Command::Chart(a) => chart::chart(a),
        Command::Report(a) => report::report(a),
    }
}
