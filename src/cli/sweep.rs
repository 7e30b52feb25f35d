//! `cascade sweep`: a grid of parameters × variants × replications, in parallel, resumable and
//! shardable; records in `runs/`, then `runs.csv`, `points.csv` and their JSON twins.

use super::ScenarioArgs;
use super::sweep_out::{ExportArgs, default_dir, finish};
use cascade::scenario::{Param, SweepTable};
use cascade::sweep::shard::Shard;
use cascade::sweep::store::{self, Manifest};
use cascade::sweep::{Plan, exec};
use cascade::{Error, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    #[command(flatten)]
    lints: super::lints::LintArgs,
    /// A parameter and its values: `PATH=V1,V2,...` or `PATH=A..B:STEP` (integers, decimals,
    /// durations). Repeatable: the grid is every combination.
    /// Added to the file's `[sweep]` grid; a path both give takes these values.
    #[arg(long = "param", value_name = "PATH=VALUES")]
    params: Vec<String>,
    /// hyperfine's spelling of `--param PATH=V1,V2`: `--parameter-list PATH V1,V2`. Repeatable.
    #[arg(long, num_args = 2, value_names = ["PATH", "VALUES"])]
    parameter_list: Vec<String>,
    /// hyperfine's spelling of `--param PATH=MIN..MAX:STEP`, with the step from
    /// `--parameter-step-size` (default 1). Repeatable.
    #[arg(long, num_args = 3, value_names = ["PATH", "MIN", "MAX"])]
    parameter_scan: Vec<String>,
    /// The step of every `--parameter-scan`: a number or a duration.
    #[arg(long, short = 'D', value_name = "STEP", default_value = "1")]
    parameter_step_size: String,
    /// Run only this variant (`base` for the base run); repeatable [default: the base and every
    /// [[variant]]]. A sweep resumes or merges only with the same set.
    #[arg(long = "variant", value_name = "NAME")]
    variants: Vec<String>,
    /// Narrow runs.csv and runs.json to these metrics (`*` matches any run of characters;
    /// the expectations' metrics are kept too); repeatable [default: every metric]. The
    /// records in runs/ and points.csv keep every metric; resume and merge keep the choice.
    #[arg(long = "runs-metric", value_name = "PATTERN")]
    runs_metrics: Vec<String>,
    /// Replications per point [default: the file's `[sweep] reps`, else 1]; replication r runs
    /// on a seed derived from the scenario's seed and r only (the same at every point).
    #[arg(long)]
    reps: Option<u32>,
    /// Threads [default: the machine's cores; at most 4 per core]. The output does not
    /// depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only slice K of N (1-based; runs dealt round-robin). Join the slices' directories
    /// with `cascade merge`, or point every slice at one shared directory.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Directory of the sweep [default: results/<scenario name>-sweep]. A directory that holds
    /// part of the same sweep is resumed: finished runs are kept and skipped.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    export: ExportArgs,
    #[command(flatten)]
    chart: super::chart::ChartFlags,
    /// Print nothing but errors (and no progress bar).
    #[arg(long, short)]
    quiet: bool,
}

/// A sweep stopped by a run's error: the error, and what the directory holds (the other runs'
/// records, no tables), so that it is not taken for a finished sweep.
fn unfinished(error: Error, dir: &std::path::Path, total: usize) -> Error {
    let Ok(recorded) = exec::recorded(dir, total) else {
        return error;
    };
    Error::Usage(format!(
        "{error}\n{} holds {recorded} of the sweep's {total} runs and no tables: an unfinished \
         sweep. The same command resumes it and runs only what is missing; a changed scenario \
         or grid is another sweep (docs/sweeps.md, \"A run that fails\")",
        dir.display()
    ))
}

pub fn sweep(args: SweepArgs) -> Result<ExitCode> {
    args.export.check_destinations()?;
    let overrides = args.scenario.overrides()?;
    let base = cascade::scenario::load(&args.scenario.scenario, &overrides)?;
    let SweepTable {
        mut params,
        reps: file_reps,
        constraints,
    } = base.sweep.clone().unwrap_or_default();
    if !constraints.is_empty() {
        // A sweep's directory is the whole grid (its charts and tables read every point), so a
        // pruned point has no place in it: the constraints are tune's.
        return Err(base
            .source
            .error_at(
                &cascade::scenario::grid::constraint_field(0),
                "constraints prune the grid of `cascade tune`; `cascade sweep` runs every point: run `cascade tune`, or sweep a copy of the file without them",
            )
            .into());
    }
    let lists = args
        .parameter_list
        .chunks(2)
        .map(|pv| format!("{}={}", pv[0], pv[1]));
    let scans = args.parameter_scan.chunks(3).map(|pab| {
        format!(
            "{}={}..{}:{}",
            pab[0], pab[1], pab[2], args.parameter_step_size
        )
    });
    let mut from_cli = Vec::new();
    for text in args.params.iter().cloned().chain(lists).chain(scans) {
        let p = Param::parse(&text).map_err(Error::Usage)?;
        from_cli.push(p.path.clone());
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
    let shard = match &args.shard {
        Some(s) => Shard::parse(s).map_err(Error::Usage)?,
        None => Shard::ALL,
    };
    let jobs = super::jobs_or_cores(args.jobs);
    let started = Instant::now();
    // A variant left out cannot overlap the grid: only those that will run are checked.
    let running: Vec<_> = base
        .variants
        .iter()
        .filter(|v| args.variants.is_empty() || args.variants.contains(&v.name))
        .cloned()
        .collect();
    super::refuse_variant_overlap(&params, &from_cli, &running)?;
    let mut plan = Plan::new(&args.scenario.scenario, &overrides, params, reps)?;
    // Once per variant as written, not per point of the grid.
    args.lints
        .warn_files(std::slice::from_ref(&args.scenario.scenario), &overrides)?;
    plan.keep_variants(&args.variants)?;
    // A misspelt --metric stops the sweep before its first run, not after its last.
    let names = plan.metric_names();
    super::sweep_out::check_metrics(&args.export.metrics, &names, "the sweep has")?;
    super::sweep_out::check_patterns("--runs-metric", &args.runs_metrics, &names)?;
    plan.runs_metrics = args.runs_metrics.clone();
    let out = args.out.unwrap_or_else(|| default_dir(&base.model.name));
    store::prepare(&out, &Manifest::of(&plan), &plan.source)?;
    let (todo, skipped) = exec::pending(&plan, &out, shard)?;
    let progress = super::progress::Progress::new("sweep", todo.len() as u64, "runs", args.quiet);
    let tick = || progress.inc();
    let ran = exec::run(&plan, &out, &todo, jobs, &tick);
    progress.finish();
    let ran = ran.map_err(|e| unfinished(e, &out, plan.runs()))?;
    // Counted again, not added up: other shards may have written into the same directory
    // meanwhile, and the last to finish then writes the tables.
    let recorded = exec::recorded(&out, plan.runs())?;
    if !args.quiet {
        let what = if shard == Shard::ALL {
            String::new()
        } else {
            format!("shard {}/{}: ", shard.k, shard.n)
        };
        let resumed = if skipped > 0 {
            format!(" ({skipped} already done, skipped)")
        } else {
            String::new()
        };
        println!(
            "{what}{} points x {} variants x {} replications: ran {} runs{resumed} on {jobs} threads in {:.2}s",
            plan.points(),
            plan.variants.len(),
            reps,
            ran,
            started.elapsed().as_secs_f64(),
        );
    }
    let code = finish(&out, recorded, plan.runs(), &args.export, args.quiet)?;
    args.chart.after(&out, args.quiet, &args.export.metrics)?;
    Ok(code)
}
