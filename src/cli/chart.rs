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
    /// PNG pixels per SVG pixel in each direction, 1 to 8 (2 for slides) [default: 1: 960 px
    /// wide, a timeline 1,100, sized for a laptop screen]
    #[arg(long, value_name = "N", requires = "png", value_parser = parse_scale)]
    scale: Option<u32>,
    /// A sweep's metrics to chart (`*` matches any run of characters), window metrics
    /// included; repeatable [default: the expectations' metrics, then each client's goodput,
    /// success and p99, each fault's recovery, and amplification]
    #[arg(long = "metric", value_name = "NAME")]
    metrics: Vec<String>,
    /// A fixed colour scale for heatmaps, `LOW..HIGH` [default: the data's range]
    #[arg(long, value_name = "LOW..HIGH", value_parser = parse_range)]
    range: Option<(f64, f64)>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// `0..1`, `0.9..1`, `-5..5`: two finite numbers, the first below the second.
fn parse_range(s: &str) -> std::result::Result<(f64, f64), String> {
    let (lo, hi) = s
        .split_once("..")
        .ok_or_else(|| format!("`{s}` is not LOW..HIGH (for example 0..1)"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("`{v}` is not a number"))
    };
    let (lo, hi) = (num(lo)?, num(hi)?);
    if lo < hi {
        Ok((lo, hi))
    } else {
        Err(format!("`{s}`: LOW must be below HIGH"))
    }
}

/// A whole number from 1 to `MAX_SCALE`.
fn parse_scale(s: &str) -> std::result::Result<u32, String> {
    let max = cascade::chart::MAX_SCALE;
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("`{s}` is not a whole number from 1 to {max}"))
}

pub fn chart(args: ChartArgs) -> Result<ExitCode> {
    let options = cascade::chart::ChartOptions {
        png: args.png,
        scale: args.scale.unwrap_or(cascade::chart::DEFAULT_SCALE),
        metrics: args.metrics,
        range: args.range,
    };
    let written = cascade::chart::chart_dir(&args.dir, &options)?;
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
    /// With --png, PNG pixels per SVG pixel in each direction, 1 to 8 [default: 1: 960 px
    /// wide, a timeline 1,100]
    #[arg(long, value_name = "N", requires = "png", value_parser = parse_scale)]
    scale: Option<u32>,
}

impl ChartFlags {
    /// Charts `dir` when --chart was given. A sweep's shard that has not written its tables yet
    /// has nothing to chart: it says so and goes on.
    pub fn after(&self, dir: &Path, quiet: bool, metrics: &[String]) -> Result<()> {
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
        let options = cascade::chart::ChartOptions {
            png: self.png,
            scale: self.scale.unwrap_or(cascade::chart::DEFAULT_SCALE),
            metrics: metrics.to_vec(),
            range: None,
        };
        let written = cascade::chart::chart_dir(dir, &options)?;
        if !quiet {
            print_written(&written);
        }
        Ok(())
    }
}
