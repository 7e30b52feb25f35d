//! `cascade chart DIR`: SVG (and PNG) charts of a run's or a sweep's directory, in DIR/charts/.

use cascade::Result;
use clap::Args;
use std::path::{Path, PathBuf};
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

/// `--chart` and `--png` for a command that writes a run's or a sweep's directory.
#[derive(Args)]
pub struct ChartFlags {
    /// Also draw the results' charts (SVG) into DIR/charts/.
    #[arg(long)]
    chart: bool,
    /// With --chart, also write each chart as PNG.
    #[arg(long, requires = "chart")]
    png: bool,
}

impl ChartFlags {
    /// Charts `dir` when --chart was given. A sweep's shard that has not written its tables yet
    /// has nothing to chart: it says so and goes on.
    pub fn after(&self, dir: &Path, quiet: bool) -> Result<()> {
        if !self.chart {
            return Ok(());
        }
        if !cascade::output::read_run::is_run_dir(dir)
            && !cascade::output::read_sweep::is_sweep_dir(dir)
        {
            if !quiet {
                println!("no charts yet: {} has no tables", dir.display());
            }
            return Ok(());
        }
        let written = cascade::chart::chart_dir(dir, self.png)?;
        if !quiet {
            print_written(&written);
        }
        Ok(())
    }
}
