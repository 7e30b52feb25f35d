//! `cascade margin`: how far the load, or each fault's trigger or size, can grow before the
//! system no longer recovers from the fault (`cascade::margin`); words and numbers, or `--json`.

use super::ScenarioArgs;
use cascade::margin::estimate::How;
use cascade::margin::runs::Runs;
use cascade::margin::search::{Bounds, Found};
use cascade::margin::store;
use cascade::margin::{Axis, Margin};
use cascade::sweep::shard::Shard;
use cascade::{Error, Result};
use clap::{Args, ValueEnum};
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AxisArg {
    Load,
    Trigger,
    Magnitude,
}

#[derive(Args)]
pub struct MarginArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// A fault to find the margin of, by its index (0 for the first [[fault]]). Repeatable
    /// [default: every fault].
    #[arg(long = "fault", value_name = "I")]
    faults: Vec<usize>,
    /// What to scale: every client's load, the fault's duration, or its size (a slowdown, an
    /// error rate, workers removed, an overload). Repeatable [default: load and trigger].
    #[arg(long = "axis", value_enum)]
    axes: Vec<AxisArg>,
    /// Runs at each multiplier tried; the boundary is where half of them recover.
    #[arg(long, default_value_t = Bounds::STANDARD.reps)]
    reps: u32,
    /// The most runs each search (one fault, one axis) may spend.
    #[arg(long, value_name = "N", default_value_t = Bounds::STANDARD.max_runs)]
    max_runs: u32,
    /// Stop bisecting once the bracket's ends are within this ratio of each other.
    #[arg(long, default_value_t = Bounds::STANDARD.tolerance)]
    tolerance: f64,
    /// The largest multiplier tried (and 1 / it the smallest).
    #[arg(long, value_name = "X", default_value_t = Bounds::STANDARD.max_x)]
    max_multiplier: f64,
    /// Threads [default: the machine's cores]. The output does not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Print the margins as JSON instead of words.
    #[arg(long)]
    json: bool,
    /// Also map each fault's share of recovered runs over load × trigger along its boundary:
    /// `DIR/margin-map-fault-<i>.csv` and `DIR/charts/margin-map-fault-<i>.svg`.
    #[arg(long, value_name = "DIR")]
    map: Option<std::path::PathBuf>,
    /// Record every run in DIR (`margin.json`, `scenario.toml`, `runs/`), and take the runs it
    /// already holds instead of making them again: a margin killed part way resumes, one asked
    /// for more `--max-runs` or a finer `--tolerance` adds only the runs it lacks, and the
    /// directories of its shards, joined by `cascade merge`, give the whole margin.
    #[arg(long, value_name = "DIR")]
    store: Option<std::path::PathBuf>,
    /// Find only slice K of N of the margin's searches (each fault and axis is one, then each
    /// fault's map), dealt round-robin; needs --store. Join the shards' directories with
    /// `cascade merge`, then run the margin once more with `--store` on the joined directory:
    /// it makes no run and prints every margin.
    #[arg(long, value_name = "K/N", requires = "store")]
    shard: Option<String>,
}

pub fn margin(args: MarginArgs) -> Result<ExitCode> {
    let usage = |m: String| Error::Usage(m);
    if args.reps == 0 {
        return Err(usage("--reps must be at least 1".into()));
    }
    if !(args.tolerance > 0.0 && args.tolerance.is_finite()) {
        return Err(usage(
            "--tolerance must be a positive ratio, like 0.02".into(),
        ));
    }
    if !(args.max_multiplier > 1.0 && args.max_multiplier.is_finite()) {
        return Err(usage("--max-multiplier must be above 1".into()));
    }
    if args.max_runs < args.reps {
        return Err(usage(format!(
            "--max-runs {}: fewer than the {} runs of one probe (--reps)",
            args.max_runs, args.reps
        )));
    }
    let path = &args.scenario.scenario;
    let scenario = cascade::scenario::load(path, &args.scenario.overrides()?)?;
    let model = &scenario.model;
    if model.faults.is_empty() {
        return Err(usage(format!(
            "{}: no [[fault]], so no margin to find",
            path.display()
        )));
    }
    let faults: Vec<usize> = if args.faults.is_empty() {
        (0..model.faults.len()).collect()
    } else {
        args.faults.clone()
    };
    if let Some(f) = faults.iter().find(|&&f| f >= model.faults.len()) {
        return Err(usage(format!(
            "--fault {f}: {} has {} fault(s), numbered from 0",
            path.display(),
            model.faults.len()
        )));
    }
    let axes: Vec<Axis> = match args.axes.is_empty() {
        true => vec![Axis::Load, Axis::Trigger],
        false => (args.axes.iter())
            .map(|a| match a {
                AxisArg::Load => Axis::Load,
                AxisArg::Trigger => Axis::Trigger,
                AxisArg::Magnitude => Axis::Magnitude,
            })
            .collect(),
    };
    let bounds = Bounds {
        reps: args.reps,
        max_runs: args.max_runs,
        tolerance: args.tolerance,
        min_x: 1.0 / args.max_multiplier,
        max_x: args.max_multiplier,
    };
    let shard = match &args.shard {
        Some(text) => Shard::parse(text).map_err(usage)?,
        None => Shard::ALL,
    };
    let jobs = super::jobs_or_cores(args.jobs);
    let mut runs = match &args.store {
        Some(dir) => {
            let manifest = store::Manifest::of(&model.name, model.seed, &scenario.source.text);
            store::prepare(dir, &manifest, &scenario.source.text)?;
            Runs::stored(jobs, dir.clone())
        }
        None => Runs::new(jobs),
    };
    // The searches, then the maps, are the shards' units of work, numbered in that order.
    let searches: Vec<(usize, Axis)> = (faults.iter())
        .flat_map(|&f| axes.iter().map(move |&a| (f, a)))
        .collect();
    let mut margins = Vec::new();
    for (unit, &(f, axis)) in searches.iter().enumerate() {
        if shard.contains(unit) {
            margins.push(cascade::margin::find(model, f, axis, bounds, &mut runs)?);
        }
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json(&margins)).map_err(|e| usage(e.to_string()))?
        );
    } else {
        print!("{}", cascade::margin::text::summary(model, &margins));
    }
    if let Some(dir) = &args.map {
        for (unit, &f) in faults.iter().enumerate() {
            if !shard.contains(searches.len() + unit) {
                continue;
            }
            let map = cascade::margin::map::map(model, f, args.reps, &mut runs)?;
            for path in super::margin_map::write(model, &map, dir)? {
                eprintln!("wrote {}", path.display());
            }
        }
    }
    if let Some(dir) = &args.store {
        eprintln!(
            "runs: {} made, {} read from {}",
            runs.simulated,
            runs.read,
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn json(margins: &[Margin]) -> serde_json::Value {
    let one = |m: &Margin| {
        let probes: Vec<serde_json::Value> = (m.found.probes().iter())
            .map(|p| serde_json::json!({"multiplier": p.x, "recovered": p.recovered, "runs": p.runs}))
            .collect();
        let found = match m.found {
            Found::Bracketed { .. } => "bracketed",
            Found::RecoversThroughout { .. } => "recovers_throughout",
            Found::FailsThroughout { .. } => "fails_throughout",
            Found::OutOfRuns { .. } => "out_of_runs",
        };
        let estimate = m.estimate.as_ref().map(|e| {
            let (method, confidence) = match e.how {
                How::Fitted => ("logistic_fit", 0.95),
                How::Bracket { confidence } => ("bracket", confidence),
            };
            serde_json::json!({
                "multiplier": e.x, "low": e.low, "high": e.high,
                "method": method, "confidence": confidence,
            })
        });
        serde_json::json!({
            "fault": m.fault, "axis": m.axis.name(), "found": found,
            "estimate": estimate, "probes": probes,
        })
    };
    serde_json::Value::Array(margins.iter().map(one).collect())
}
