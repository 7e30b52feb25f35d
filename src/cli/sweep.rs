//! `cascade sweep`: a grid of parameters × replications, in parallel; `runs.csv` and
//! `points.csv` in a directory.

use super::ScenarioArgs;
use cascade::output::sweep_files::write_sweep;
use cascade::sweep::grid::Param;
use cascade::{Error, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// A parameter and its values: `PATH=V1,V2,...` or `PATH=A..B:STEP` (integers, decimals,
    /// durations). Repeatable: the grid is every combination.
    /// Added to the file's `[sweep]` grid; a path both give takes these values.
    #[arg(long = "param", value_name = "PATH=VALUES")]
    params: Vec<String>,
    /// Replications per point [default: the file's `[sweep] reps`, else 1]; replication r runs
    /// on a seed derived from the scenario's seed and r only (the same at every point).
    #[arg(long)]
    reps: Option<u32>,
    /// Threads [default: the machine's cores]. The output does not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Directory for runs.csv and points.csv [default: results/<scenario name>-sweep].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

pub fn sweep(args: SweepArgs) -> Result<ExitCode> {
    let overrides = args.scenario.overrides()?;
    let base = cascade::scenario::load(&args.scenario.scenario, &overrides)?;
    let (mut params, file_reps) = base.sweep.clone().unwrap_or_default();
    for text in &args.params {
        let p = Param::parse(text).map_err(Error::Usage)?;
        match params.iter_mut().find(|q| q.path == p.path) {
            Some(q) => *q = p,
            None => params.push(p),
        }
    }
    if params.is_empty() {
        return Err(Error::Usage(
            "nothing to sweep: give --param PATH=VALUES or a [sweep] table".into(),
        ));
    }
    let reps = args.reps.or(file_reps).unwrap_or(1);
    if reps == 0 {
        return Err(Error::Usage("--reps must be at least 1".into()));
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let started = Instant::now();
    let sweep = cascade::sweep::run(&args.scenario.scenario, &overrides, params, reps, jobs)?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-sweep", base.name)));
    write_sweep(&out, &sweep)?;
    if !args.quiet {
        println!(
            "{} points x {} replications = {} runs on {jobs} threads in {:.2}s; results in {}",
            sweep.points.len(),
            reps,
            sweep.runs.len(),
            started.elapsed().as_secs_f64(),
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
