//! `cascade run`: one scenario, one seed; a table on stdout and the run's files in a directory.

use super::ScenarioArgs;
use cascade::Result;
use cascade::engine::trace::Filter as TraceFilter;
use cascade::output::alert_table::render_alerts;
use cascade::output::run_files::{RunFacts, RunOutput, write_runs};
use cascade::output::run_tables::{
    default_variant_metrics, render_faults, render_summary, render_variants,
    selected_variant_metrics,
};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    #[command(flatten)]
    lints: super::lints::LintArgs,
    /// Seed for every random stream (overrides scenario.seed): any integer from 0 to
    /// 18446744073709551615, such as a replication's seed from a sweep's runs.csv.
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
    /// Most rows a trace may have, counted after its filters; a run with more is refused and
    /// writes nothing.
    #[arg(long, value_name = "ROWS", default_value_t = cascade::engine::trace::DEFAULT_LIMIT)]
    trace_limit: u64,
    /// Trace only the rows of this entity: a client, a service (every instance), an instance
    /// `api#1` or an edge `web->api`. Repeatable: a row of any of them is kept.
    #[arg(long, value_name = "NAME", requires = "trace")]
    trace_entity: Vec<String>,
    /// Trace only this request and what it caused (its attempts' jobs, their calls, its
    /// fallbacks, down the tree): an id of the trace's request column (`c0.1`, `j3.2`), or N
    /// for the N-th request a client started.
    #[arg(long, value_name = "ID|N", requires = "trace")]
    trace_request: Option<String>,
    /// Trace only the rows at or after this time of the run (warm-up included): `10s`.
    #[arg(long, value_name = "TIME", requires = "trace")]
    trace_from: Option<String>,
    /// Trace only the rows before this time of the run (warm-up included): `10.5s`.
    #[arg(long, value_name = "TIME", requires = "trace")]
    trace_to: Option<String>,
    /// What `--trace` writes: `csv`, every row; `otlp`, OpenTelemetry spans as OTLP/JSON (an
    /// ExportTraceServiceRequest) for a trace viewer, which needs --trace-epoch.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = TraceFormat::Csv, requires = "trace")]
    trace_format: TraceFormat,
    /// The wall time of simulated t = 0 in an `otlp` trace: unix seconds (`1796547600`) or
    /// RFC 3339 (`2026-12-06T09:00:00Z`); `$(date +%s)` puts the spans in a viewer's last hour.
    #[arg(long, value_name = "TIME", requires = "trace")]
    trace_epoch: Option<String>,
    /// Trace only this fraction of the client requests (0 < F <= 1), each kept whole with all
    /// it caused; which ones is decided by the seed and the request's id alone.
    #[arg(long, value_name = "F", requires = "trace")]
    trace_sample: Option<String>,
    /// The variant comparison's rows: the metrics matching PATTERN (`*` matches any run of
    /// characters); repeatable [default: each client's goodput, success ratio and p99, each
    /// edge's amplification, each service's utilization and wasted work, each fault's recovery].
    #[arg(long = "metric", value_name = "PATTERN")]
    metrics: Vec<String>,
    #[command(flatten)]
    chart: super::chart::ChartFlags,
    #[command(flatten)]
    baseline: super::baseline::BaselineArgs,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    args.baseline.validate()?;
    if let Some(path) = &args.trace {
        cascade::atomic::check_destination(path)?;
    }
    let mut overrides = args.scenario.overrides()?;
    if let Some(seed) = args.seed {
        overrides.push(cascade::scenario::Override {
            path: "scenario.seed".into(),
            value: seed.to_string(),
        });
    }
    let mut models = cascade::scenario::load_with_variants(&args.scenario.scenario, &overrides)?;
    check_metric_patterns(&args.metrics, &models)?;
    args.lints.warn(&models)?;
    let (
        _,
        cascade::scenario::Scenario {
            model,
            expects,
            source,
            ..
        },
    ) = models.remove(0);
    let started = Instant::now();
    // Progress in simulated seconds over the base run and its variants, one after another.
    let end_s = (model.warmup + model.duration) / 1_000_000_000;
    let progress = std::sync::Arc::new(super::progress::Progress::new(
        "run",
        end_s * (1 + models.len() as u64),
        "s simulated",
        args.quiet,
    ));
    let observe = |k: u64| -> Box<dyn FnMut(u64) + Send> {
        let progress = progress.clone();
        Box::new(move |now_ns| progress.set(k * end_s + now_ns / 1_000_000_000))
    };
    let mut sim = cascade::Simulation::new(model.clone()).with_observer(observe(0));
    let epoch = trace_epoch(&args)?;
    if args.trace.is_some() {
        sim = sim.with_trace(args.trace_limit);
        let (filter, trees) = trace_selection(&args, &model)?;
        if let Some(filter) = filter {
            sim = sim.with_trace_filter(filter);
        }
        if let Some(trees) = trees {
            sim = sim.with_trace_trees(trees);
        }
    }
    let mut result = cascade::judge(&model, sim.run()?);
    // A trace too long is refused before anything is written.
    let trace = match result.trace.take() {
        Some(Err(rows)) => {
            return Err(cascade::Error::Usage(format!(
                "the trace has {rows} rows, over the limit of {}: shorten the run (a trace is for small runs) or raise --trace-limit",
                args.trace_limit
            )));
        }
        Some(Ok(csv)) => match epoch {
            Some(epoch) => Some(
                cascade::trace_export::otlp_json(&csv, &model, epoch)
                    .map_err(cascade::Error::Usage)?,
            ),
            None => Some(csv),
        },
        None => None,
    };
    let wall_s = started.elapsed().as_secs_f64();
    let facts = facts_of(&model, &result, wall_s);
    // Variants: the same seed, so the same arrivals and draws; only their `set` differs.
    let variants = models
        .into_iter()
        .enumerate()
        .map(|(k, (name, scenario))| {
            let m = scenario.model;
            let text = scenario.source.text.clone();
            let started = Instant::now();
            let measured = cascade::Simulation::new(m.clone())
                .with_observer(observe(k as u64 + 1))
                .run()
                .map_err(|e| e.in_run(|p| p.variant = name.clone()))?;
            let r = cascade::judge(&m, measured);
            let facts = facts_of(&m, &r, started.elapsed().as_secs_f64());
            Ok(VariantRun {
                name: name.expect("variants are named"),
                model: m,
                scenario_text: text,
                result: r,
                facts,
            })
        })
        .collect::<cascade::Result<Vec<VariantRun>>>()?;
    progress.finish();
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&model.name));
    // The trace first: when it cannot be written, the run's files are not either.
    if let (Some(path), Some(csv)) = (&args.trace, &trace) {
        cascade::atomic::write_atomic(path, csv.as_bytes())?;
    }
    let mut runs: Vec<RunOutput> = vec![RunOutput {
        sub: None,
        model: &model,
        scenario_text: &source.text,
        metrics: &result.metrics,
        alerts: &result.alerts,
        facts: &facts,
    }];
    for v in &variants {
        runs.push(RunOutput {
            sub: Some(v.name.as_str()),
            model: &v.model,
            scenario_text: &v.scenario_text,
            metrics: &v.result.metrics,
            alerts: &v.result.alerts,
            facts: &v.facts,
        });
    }
    write_runs(&out, &runs)?;
    for (run, r) in std::iter::once(("base", &result))
        .chain(variants.iter().map(|v| (v.name.as_str(), &v.result)))
    {
        for a in &r.alerts {
            if let Some(series) = &a.missing {
                eprintln!(
                    "warning: alert `{}` watches {series}, which run `{run}` did not record: it never fired",
                    a.name
                );
            }
        }
    }
    if !args.quiet {
        print!("{}", render_summary(&model, &result.metrics));
        print!("{}", render_faults(&model, &result.faults));
        print!("{}", render_alerts(&model, |name| result.metrics.get(name)));
        if !variants.is_empty() {
            let named: Vec<(&str, &cascade::metrics::RunMetrics)> = variants
                .iter()
                .map(|v| (v.name.as_str(), &v.result.metrics))
                .collect();
            let names = if args.metrics.is_empty() {
                default_variant_metrics(&model, &result.metrics)
            } else {
                selected_variant_metrics(&args.metrics, &result.metrics, &named)
            };
            print!("{}", render_variants(&names, &result.metrics, &named));
        }
        println!(
            "\n{} events in {:.3}s wall ({:.2}M events/s, {:.0}x real time); results in {}",
            facts.events,
            wall_s,
            facts.events as f64 / wall_s.max(1e-9) / 1e6,
            model.end() as f64 / 1e9 / wall_s.max(1e-9),
            out.display()
        );
    }
    args.chart.after(&out, args.quiet, &[])?;
    let expected: Vec<String> = expects.iter().map(|e| e.read_from.clone()).collect();
    let gates = args.baseline.apply(
        &model.name,
        model.seed,
        std::slice::from_ref(&result.metrics),
        &expected,
        args.quiet,
    )?;
    Ok(if gates.iter().all(|v| v.passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A variant's run, done: what its directory and the comparison table need.
struct VariantRun {
    name: String,
    model: cascade::Model,
    scenario_text: String,
    result: cascade::RunResult,
    facts: RunFacts,
}

/// What `--trace` writes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TraceFormat {
    /// Every row, as CSV.
    Csv,
    /// OpenTelemetry spans, as OTLP/JSON.
    Otlp,
}

/// `--trace-epoch` as unix ns for an `otlp` trace (`None` for a CSV trace), checked before the
/// run starts. An `otlp` trace must be given one: any default (1970, or a fixed date) would put
/// the spans where a viewer's "last hour" finds nothing, and the wall clock would make two runs
/// differ.
fn trace_epoch(args: &RunArgs) -> Result<Option<u64>> {
    let usage = |m: String| cascade::Error::Usage(m);
    match (args.trace_format, &args.trace_epoch) {
        (TraceFormat::Otlp, Some(text)) => Ok(Some(
            cascade::trace_export::epoch::parse(text).map_err(usage)?,
        )),
        (TraceFormat::Otlp, None) if args.trace.is_some() => Err(usage(
            "--trace-format otlp needs --trace-epoch, the wall time of simulated t = 0: unix \
             seconds or RFC 3339 (`--trace-epoch 2026-12-06T09:00:00Z`; `--trace-epoch \
             $(date +%s)` puts the spans in a viewer's last hour)"
                .into(),
        )),
        (TraceFormat::Csv, Some(text)) => Err(usage(format!(
            "--trace-epoch {text}: a CSV trace's times are ns from the run's start; the epoch is \
             for --trace-format otlp"
        ))),
        _ => Ok(None),
    }
}

/// The `--trace-*` filters and `--trace-sample`, checked against the model before the run
/// starts. A trace of spans keeps whole request trees: its `--trace-from`/`--trace-to` pick the
/// client requests that start in the window (with all they cause), and `--trace-entity`, which
/// would cut trees into pieces, is refused.
fn trace_selection(
    args: &RunArgs,
    model: &cascade::Model,
) -> Result<(
    Option<TraceFilter>,
    Option<cascade::engine::trace_trees::Trees>,
)> {
    let usage = |m: String| cascade::Error::Usage(m);
    let time = |flag: &str, text: &Option<String>| {
        text.as_deref()
            .map(|t| {
                cascade::time::parse_duration(t).map_err(|e| usage(format!("{flag} {t}: {e}")))
            })
            .transpose()
    };
    let from = time("--trace-from", &args.trace_from)?;
    let to = time("--trace-to", &args.trace_to)?;
    let fraction = match &args.trace_sample {
        None => 1.0,
        Some(text) => match text.trim().parse::<f64>() {
            Ok(f) if f > 0.0 && f <= 1.0 => f,
            _ => {
                return Err(usage(format!(
                    "--trace-sample {text}: expected the fraction of client requests to keep, \
                     above 0 and at most 1 (`0.01` keeps one in a hundred)"
                )));
            }
        },
    };
    let spans = args.trace_format == TraceFormat::Otlp;
    if spans && !args.trace_entity.is_empty() {
        return Err(usage(format!(
            "--trace-entity {}: a trace of spans keeps whole request trees, which an entity's \
             rows would cut; pick trees with --trace-request, --trace-sample or \
             --trace-from/--trace-to",
            args.trace_entity[0]
        )));
    }
    let window = (from, to);
    let (filter_window, tree_window) = if spans {
        ((None, None), window)
    } else {
        (window, (None, None))
    };
    let filter = TraceFilter::new(
        model,
        &args.trace_entity,
        args.trace_request.as_deref(),
        filter_window.0,
        filter_window.1,
    )
    .map_err(usage)?;
    let (from, to) = (
        tree_window.0.unwrap_or(0),
        tree_window.1.unwrap_or(u64::MAX),
    );
    if to <= from {
        return Err(usage(format!(
            "--trace-to must be after --trace-from ({} is not after {})",
            cascade::time::format_duration(to),
            cascade::time::format_duration(from)
        )));
    }
    let trees = (fraction < 1.0 || tree_window != (None, None))
        .then(|| cascade::engine::trace_trees::Trees::new(model.seed, fraction, from, to));
    Ok((filter, trees))
}

/// `--metric` picks rows of the variant comparison, so it needs variants, and each pattern
/// must name a metric some run will report: both refused before anything runs.
fn check_metric_patterns(
    patterns: &[String],
    models: &[(Option<String>, cascade::scenario::Scenario)],
) -> Result<()> {
    if patterns.is_empty() {
        return Ok(());
    }
    if models.len() < 2 {
        return Err(cascade::Error::Usage(format!(
            "--metric picks the rows of the variant comparison, and scenario `{}` has no \
             [[variant]]: its metrics are all in summary.json (`cascade metrics` names them)",
            models[0].1.model.name
        )));
    }
    let mut names: Vec<String> = models
        .iter()
        .flat_map(|(_, s)| cascade::sweep::metric_names(&s.model))
        .collect();
    names.sort();
    names.dedup();
    super::sweep_out::check_metrics(patterns, &names, "the scenario's runs have")
}

fn facts_of(model: &cascade::Model, result: &cascade::RunResult, wall_s: f64) -> RunFacts {
    let requests: u64 = model
        .clients
        .iter()
        .map(|c| {
            result
                .metrics
                .get(&cascade::metrics::names::client_metric(&c.name, "requests"))
                .unwrap_or(0.0) as u64
        })
        .sum();
    RunFacts {
        events: result.events,
        wall_s,
        requests,
        peak_in_flight: result.peak_in_flight,
    }
}
