//! `cascade-mesh run SCENARIO --out DIR [--set KEY=VALUE]... [--seed N] [--traces
//! [--trace-sample F] [--trace-limit SPANS]]`: runs the scenario as real services on 127.0.0.1
//! and writes the measured run (and its OTLP traces). Exit 2 for bad input or a
//! scenario feature the mesh does not run (named), 1 when the run itself failed.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cascade-mesh",
    about = "Run a cascade scenario as real services on 127.0.0.1"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Runs SCENARIO once, in wall-clock time, and writes summary.json, timeseries.csv,
    /// scenario.toml and mesh.json into --out.
    Run {
        scenario: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// An override, as `cascade run --set`.
        #[arg(long = "set")]
        set: Vec<String>,
        /// The seed (the scenario's own by default).
        #[arg(long)]
        seed: Option<u64>,
        /// Also write the run's spans as OTLP/JSON into --out (traces.json), as `cascade run
        /// --trace-format otlp` writes them, for `cascade import traces` or a trace viewer.
        #[arg(long)]
        traces: bool,
        /// Trace only this fraction of the client requests (0 < F <= 1), each whole.
        #[arg(long, value_name = "F", requires = "traces")]
        trace_sample: Option<f64>,
        /// Most spans a trace may have; a run with more writes none (and exits 1).
        #[arg(long, value_name = "SPANS", requires = "traces")]
        trace_limit: Option<usize>,
    },
}

fn main() -> ExitCode {
    let Command::Run {
        scenario,
        out,
        set,
        seed,
        traces,
        trace_sample,
        trace_limit,
    } = Cli::parse().command;
    let mut trace_options = cascade_mesh::trace::Options::default();
    if let Some(f) = trace_sample {
        if !(f > 0.0 && f <= 1.0) {
            return usage(&format!(
                "--trace-sample {f}: expected the fraction of client requests to keep, above 0 and at most 1"
            ));
        }
        trace_options.sample = f;
    }
    if let Some(n) = trace_limit {
        trace_options.limit = n;
    }
    let mut overrides = Vec::new();
    for s in set
        .iter()
        .chain(seed.map(|n| format!("scenario.seed={n}")).iter())
    {
        match cascade::scenario::Override::parse(s) {
            Ok(o) => overrides.push(o),
            Err(e) => return usage(&format!("--set {s}: {e}")),
        }
    }
    let loaded = match cascade::scenario::load(&scenario, &overrides) {
        Ok(s) => s,
        Err(e) => return usage(&e.to_string()),
    };
    if let Some(what) = cascade_mesh::support::unsupported(&loaded.model) {
        return usage(&format!(
            "{}: the mesh does not run {what}; leave it out or run the simulator",
            scenario.display()
        ));
    }
    let text = loaded.source.text.clone();
    let model = loaded.model;
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return failed(&format!("starting the runtime: {e}")),
    };
    let measured = runtime.block_on(cascade_mesh::run(
        model.clone(),
        &text,
        traces.then_some(trace_options),
    ));
    // Whatever is still running (blackholed requests, accept loops) stops here.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    let measured = match measured {
        Ok(m) => m,
        Err(e) => return failed(&e),
    };
    if let Err(e) = cascade_mesh::output::write(&out, &model, &text, &measured) {
        return failed(&format!("{}: {e}", out.display()));
    }
    let (holds, _, p99, _) = measured.lateness.figures();
    println!(
        "{}: measured in {:.1}s wall; {holds} holds, lateness p99 {p99:.3} ms; results in {}",
        model.name,
        measured.wall_s,
        out.display()
    );
    ExitCode::SUCCESS
}

fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn failed(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(1)
}
