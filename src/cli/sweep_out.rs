//! What `cascade sweep` and `cascade merge` do once the runs are recorded: the tables when the
//! sweep is complete, the headline on stdout, and the hyperfine-style exports.

use cascade::Result;
use cascade::atomic::write_atomic;
use cascade::output::sweep_files::write_sweep;
use cascade::output::sweep_table::{Headline, choose};
use cascade::sweep::aggregate;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ExportArgs {
    /// Metrics of the headline table and the exports (`*` matches any run of characters);
    /// repeatable [default: each client's success ratio, goodput and p99, and each service's
    /// attempts per request].
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,
    /// Write the headline table as Markdown (for a pull request).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Write the headline table as CSV: mean, sd and 95% interval of each metric per point.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write the headline table as JSON (hyperfine's shape: {"results": [...]}).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
}

impl ExportArgs {
    /// Refuses, before any run, an export whose directory does not exist.
    pub fn check_destinations(&self) -> Result<()> {
        for path in [&self.export_markdown, &self.export_csv, &self.export_json]
            .into_iter()
            .flatten()
        {
            cascade::atomic::check_destination(path)?;
        }
        Ok(())
    }

    pub fn any(&self) -> bool {
        self.export_markdown.is_some() || self.export_csv.is_some() || self.export_json.is_some()
    }
}

/// Every `--metric` pattern matches one of `names` (the metrics the runs will report), with
/// the error the tables would give after the runs; `who` says whose metrics they are.
pub fn check_metrics(patterns: &[String], names: &[String], who: &str) -> Result<()> {
    check_named("--metric", patterns, names, who)
}

/// `check_metrics` for another option's patterns (`--runs-metric`).
pub fn check_patterns(option: &str, patterns: &[String], names: &[String]) -> Result<()> {
    check_named(option, patterns, names, "the sweep has")
}

fn check_named(option: &str, patterns: &[String], names: &[String], who: &str) -> Result<()> {
    for p in patterns {
        if !names
            .iter()
            .any(|n| cascade::metrics::select::selects(p, n))
        {
            let hint = cascade::error::did_you_mean(p, names.iter().map(String::as_str));
            return Err(cascade::Error::Usage(format!(
                "{option} {p}: {who} no such metric{hint}"
            )));
        }
    }
    Ok(())
}

/// Where a sweep of `scenario` goes without `--out`.
pub fn default_dir(scenario: &str) -> PathBuf {
    PathBuf::from("results").join(format!("{scenario}-sweep"))
}

/// `recorded` of the sweep's `total` runs are in `dir`.
pub fn finish(
    dir: &Path,
    recorded: usize,
    total: usize,
    export: &ExportArgs,
    quiet: bool,
) -> Result<ExitCode> {
    if recorded < total {
        if export.any() {
            return Err(cascade::Error::Usage(format!(
                "{} has {} of {} runs: the exports need the whole sweep (merge the shards first)",
                dir.display(),
                recorded,
                total
            )));
        }
        if !quiet {
            println!(
                "{} has {} of the sweep's {} runs; the tables are written when all are there (`cascade merge` joins the shards' directories)",
                dir.display(),
                recorded,
                total
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let results = aggregate::load(dir)?;
    let headline = Headline::new(&results, choose(&results, &export.metrics)?);
    write_sweep(dir, &results)?;
    for (path, text) in [
        (&export.export_markdown, headline.markdown()),
        (&export.export_csv, headline.csv()),
        (&export.export_json, headline.json()),
    ] {
        if let Some(path) = path {
            write_atomic(path, text.as_bytes())?;
        }
    }
    if !quiet {
        print!("\n{}", headline.render());
        println!("\nresults in {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}
