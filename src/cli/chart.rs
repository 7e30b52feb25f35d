//! `cascade chart DIR`: SVG (and PNG) charts of a run's or a sweep's directory, in DIR/charts/.

use cascade::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ChartArgs {
    /// A directory `cascade run` or `cascade sweep` wrote.
    dir: PathBuf,
    /// Also write each chart as PNG.
    #[arg(long)]
    png: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

pub fn chart(args: ChartArgs) -> Result<ExitCode> {
    let written = cascade::chart::chart_dir(&args.dir, args.png)?;
    if !args.quiet {
        print_written(&written);
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per file written.
pub fn print_written(paths: &[PathBuf]) {
    for p in paths {
        println!("wrote {}", p.display());
    }
}
