//! `cascade run`: one scenario, one seed; a table on stdout and the run's files in a directory.

use super::ScenarioArgs;
use cascade::Result;
use cascade::output::run_files::{RunFacts, write_run};
use cascade::output::table::{render_faults, render_summary};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// Seed for every random stream (overrides scenario.seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Directory for the output files [default: results/<scenario name>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// Write every event of the run to this CSV file (time_ns, request, parent, entity,
    /// event, outcome), for debugging small runs.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Most rows a trace may have; a run with more is refused and writes nothing.
    #[arg(long, value_name = "ROWS", default_value_t = cascade::engine::trace::DEFAULT_LIMIT)]
    trace_limit: u64,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let mut overrides = args.scenario.overrides()?;
    if let Some(seed) = args.seed {
        overrides.push(cascade::scenario::Override {
            path: "scenario.seed".into(),
            value: seed.to_string(),
        });
    }
    let model = cascade::scenario::load(&args.scenario.scenario, &overrides)?;
    let started = Instant::now();
    let mut sim = cascade::Simulation::new(model.clone());
    if args.trace.is_some() {
        sim = sim.with_trace(args.trace_limit);
    }
    let mut result = sim.run();
    // A trace too long is refused before anything is written.
    let trace = match result.trace.take() {
        Some(Err(rows)) => {
            return Err(cascade::Error::Usage(format!(
                "the trace has {rows} rows, over the limit of {}: shorten the run (a trace is for small runs) or raise --trace-limit",
                args.trace_limit
            )));
        }
        Some(Ok(csv)) => Some(csv),
        None => None,
    };
    let wall_s = started.elapsed().as_secs_f64();
    let requests: u64 = model
        .clients
        .iter()
        .map(|c| {
            result
                .metrics
                .get(&format!("client.{}.requests", c.name))
                .unwrap_or(0.0) as u64
        })
        .sum();
    let facts = RunFacts {
        events: result.events,
        wall_s,
        requests,
        peak_in_flight: result.peak_in_flight,
    };
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&model.name));
    write_run(&out, &model, &result.metrics, &facts)?;
    if let (Some(path), Some(csv)) = (&args.trace, &trace) {
        cascade::output::files::write_atomic(path, csv.as_bytes())?;
    }
    if !args.quiet {
        print!("{}", render_summary(&model, &result.metrics));
        print!("{}", render_faults(&model, &result.faults));
        println!(
            "\n{} events in {:.3}s wall ({:.2}M events/s, {:.0}x real time); results in {}",
            facts.events,
            wall_s,
            facts.events as f64 / wall_s.max(1e-9) / 1e6,
            model.end() as f64 / 1e9 / wall_s.max(1e-9),
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
