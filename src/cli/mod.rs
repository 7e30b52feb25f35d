//! Command-line interface: clap types here, one file per subcommand.

mod baseline;
mod chart;
mod check;
mod check_case;
mod check_runs;
mod completions;
mod diff;
mod export;
mod import;
mod init;
mod junit;
mod lints;
mod man;
mod margin;
mod margin_map;
mod merge;
mod metrics;
mod presets;
mod progress;
mod report;
mod run;
mod schema;
mod sweep;
mod sweep_out;
mod tune;
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
    /// Search a grid for the best setting that satisfies every [[expect]] (successive halving).
    Tune(tune::TuneArgs),
    /// How far the load, or each fault's trigger, can grow before the system no longer recovers.
    Margin(margin::MarginArgs),
    /// Join the directories of a sweep's shards into the files of the whole sweep.
    Merge(merge::MergeArgs),
    /// List every metric name with its unit and meaning (--json for tools).
    Metrics(metrics::MetricsArgs),
    /// Draw SVG (and PNG) charts of a run's or a sweep's directory into DIR/charts/.
    Chart(chart::ChartArgs),
    /// Write a self-contained HTML (or Markdown) design-review report of a run or a sweep.
    Report(report::ReportArgs),
    /// Compare two runs' or two sweeps' directories metric by metric (B against A).
    Diff(diff::DiffArgs),
    /// Write a scenario's policy as an Envoy, gRPC or resilience4j config.
    Export(export::ExportArgs),
    /// Translate an Envoy, gRPC or resilience4j config into [policy.NAME] tables, or Prometheus
    /// latency histograms into work and calibration expectations.
    Import(import::ImportArgs),
    /// Write a commented starter scenario from a template (--list shows them).
    Init(init::InitArgs),
    /// List every `preset = "LIBRARY"` with its version, source and the keys it fills.
    Presets,
    /// Print the JSON Schema (draft-07) of the scenario language, for editors and tools.
    Schema,
    /// Print the shell completion script for SHELL.
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff), subcommands included: `cascade man | man -l -`.
    Man,
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

/// Refuses a sweep parameter that a variant's `set` also sets (by path, or a table holding
/// it): the variant's value would win at every point, and the tables would label its rows with
/// values that did not run. `from_cli` are the paths `--param` gave (the others are the file's
/// `[sweep]`), so the error names each as the user wrote it.
pub fn refuse_variant_overlap(
    params: &[cascade::scenario::Param],
    from_cli: &[String],
    variants: &[cascade::scenario::Variant],
) -> Result<()> {
    let Some((param, variant, set)) = cascade::scenario::grid::variant_overlap(params, variants)
    else {
        return Ok(());
    };
    let swept = if from_cli.contains(&param.path) {
        format!("--param {}", param.path)
    } else {
        format!("[sweep] {}", param.path)
    };
    Err(Error::Usage(format!(
        "{swept} is swept, but variant `{variant}` sets `{set}` in its `set`: the variant's value \
         would replace the swept one at every point, so its rows would be labelled with values \
         that did not run. Sweep another field, or take `{set}` out of the variant"
    )))
}

/// Most threads per core `--jobs` may ask for: runs are CPU-bound, so more only adds stacks
/// and switching (and `--jobs 1000000` would try to start a million threads).
pub const JOBS_PER_CORE: usize = 4;

/// `--jobs`, or the machine's cores; at least 1 and at most `JOBS_PER_CORE` per core.
pub fn jobs_or_cores(jobs: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    jobs.unwrap_or(cores).clamp(1, JOBS_PER_CORE * cores)
}

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::Validate(a) => validate::validate(a),
        Command::Check(a) => check::check(a),
        Command::Sweep(a) => sweep::sweep(a),
        Command::Tune(a) => tune::tune(a),
        Command::Margin(a) => margin::margin(a),
        Command::Merge(a) => merge::merge(a),
        Command::Metrics(a) => metrics::metrics(a),
        Command::Chart(a) => chart::chart(a),
        Command::Report(a) => report::report(a),
        Command::Diff(a) => diff::diff(a),
        Command::Export(a) => export::export(a),
        Command::Import(a) => import::import(a),
        Command::Init(a) => init::init(a),
        Command::Presets => presets::presets(),
        Command::Schema => schema::schema(),
        Command::Completions(a) => completions::completions(a),
        Command::Man => man::man(),
    }
}
