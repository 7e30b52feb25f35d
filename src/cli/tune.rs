//! `cascade tune`: the best setting of a grid that satisfies every `[[expect]]`, by successive
//! halving over replications (`cascade::tune`); a sweep's files of the runs spent, `tune.json`,
//! and exit 1 when no candidate satisfies the expectations.

use super::ScenarioArgs;
use cascade::check::runs_needed;
use cascade::scenario::{BASE, grid};
use cascade::sweep::Plan;
use cascade::tune::halving::Goal;
use cascade::tune::schedule::Schedule;
use cascade::tune::search::Search;
use cascade::{Error, Result};
use clap::{ArgGroup, Args};
use std::path::PathBuf;
use std::process::ExitCode;

/// Replications of each finalist without `--reps` (unless an expectation asks for more):
/// three rounds of three times as many replications, from one.
const DEFAULT_REPS: u32 = 9;

#[derive(Args)]
#[command(group(ArgGroup::new("goal").required(true).args(["maximize", "minimize"])))]
pub struct TuneArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// A parameter and its values, as `sweep --param` takes it: `PATH=V1,V2,...` or
    /// `PATH=A..B:STEP`. Repeatable: the candidates are every combination (with the file's
    /// `[sweep]` parameters; a path both give takes these values).
    #[arg(long = "param", value_name = "PATH=VALUES")]
    params: Vec<String>,
    /// A constraint between parameters, `attempts * timeout <= 900ms`: candidates that break
    /// it are pruned before anything runs. Repeatable, with the file's `[sweep] constraint`
    /// (docs/tune.md, "Constraints").
    #[arg(long = "constraint", value_name = "EXPR")]
    constraints: Vec<String>,
    /// The summary metric to optimise, read from the base run: its mean over a candidate's
    /// replications.
    #[arg(long, value_name = "METRIC", required = true)]
    objective: String,
    /// The larger the objective the better.
    #[arg(long)]
    maximize: bool,
    /// The smaller the objective the better.
    #[arg(long)]
    minimize: bool,
    /// Replications of each finalist [default: 9, or the most any [[expect]] asks for];
    /// earlier rounds run a third as many per round, at least 1.
    #[arg(long)]
    reps: Option<u32>,
    /// The most runs to spend: the replications are lowered until the rounds fit
    /// [default: no limit].
    #[arg(long, value_name = "N")]
    max_runs: Option<u64>,
    /// Threads [default: the machine's cores; at most 4 per core]. The output does not
    /// depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Directory of the search [default: results/<scenario name>-tune]: a sweep's files of the
    /// runs spent, and tune.json. A directory holding part of the same search is resumed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print nothing but errors (and no progress bar).
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    lints: super::lints::LintArgs,
}

pub fn tune(args: TuneArgs) -> Result<ExitCode> {
    let usage = |m: String| Error::Usage(m);
    let path = &args.scenario.scenario;
    let overrides = args.scenario.overrides()?;
    let base = cascade::scenario::load(path, &overrides)?;
    let table = base.sweep.clone().unwrap_or_default();
    let file_params = table.params;
    let (params, from_cli) = grid::with_command_line(file_params, &args.params).map_err(usage)?;
    if params.is_empty() {
        return Err(usage(
            "nothing to tune: give --param PATH=VALUES or a [sweep] table".into(),
        ));
    }
    if let Some(p) = params.iter().find(|p| grid::overlaps(&p.path, "expect")) {
        return Err(usage(format!(
            "--param {}: every candidate is judged against the scenario's own [[expect]]s, which a parameter cannot change",
            p.path
        )));
    }
    let candidates = grid::check_size(&params).map_err(usage)? as usize;
    // The runs each replication of a candidate takes: the base, and each variant an
    // expectation reads.
    let mut names = vec![BASE.to_string()];
    names.extend(
        runs_needed(&base.expects)
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n != BASE),
    );
    let running: Vec<_> = base
        .variants
        .iter()
        .filter(|v| names.contains(&v.name))
        .cloned()
        .collect();
    super::refuse_variant_overlap(&params, &from_cli, &running)?;
    let needed = base.expects.iter().map(|e| e.reps).max().unwrap_or(1);
    let reps = match args.reps {
        Some(0) => return Err(usage("--reps must be at least 1".into())),
        Some(r) if r < needed => {
            return Err(usage(format!(
                "--reps {r}: an [[expect]] is judged on {needed} replications, so the finalists need at least {needed}"
            )));
        }
        Some(r) => r,
        None => DEFAULT_REPS.max(needed),
    };
    let mut constraints = Vec::new();
    for (i, c) in table.constraints.iter().enumerate() {
        let field = cascade::scenario::grid::constraint_field(i);
        let located = |m: String| -> Error {
            base.source
                .error_at(&field, format!("`{}`: {m}", c.text))
                .into()
        };
        constraints.push(c.resolve(&params).map_err(located)?);
    }
    for text in &args.constraints {
        let resolved = cascade::scenario::Constraint::parse(text)
            .and_then(|c| c.resolve(&params))
            .map_err(|m| usage(format!("--constraint `{text}`: {m}")))?;
        constraints.push(resolved);
    }
    let mut plan = Plan::new(path, &overrides, params, reps)?;
    plan.keep_variants(&names)?;
    let lint_allowed = base
        .allow
        .iter()
        .any(|a| a == cascade::lint::RETRY_CANNOT_FIT);
    let pruning = cascade::tune::prune::prune(&plan, &constraints, lint_allowed);
    let searched = pruning.kept();
    if searched == 0 {
        let reasons: Vec<String> = pruning
            .reasons
            .iter()
            .enumerate()
            .map(|(i, r)| format!("by {}: {}", r.label(), pruning.points_of(i).len()))
            .collect();
        return Err(usage(format!(
            "every one of the {candidates} candidates is pruned before running ({}): loosen a constraint or widen the grid",
            reasons.join("; ")
        )));
    }
    let candidates = searched;
    let schedule = match args.max_runs {
        None => Schedule::new(candidates, reps),
        Some(max) => {
            let s = Schedule::within(candidates, reps, names.len(), max).ok_or_else(|| {
                usage(format!(
                    "--max-runs {max}: the first round alone takes {} runs (each of the {candidates} candidates once{})",
                    candidates * names.len(),
                    if names.len() > 1 {
                        format!(", {} runs each", names.len())
                    } else {
                        String::new()
                    }
                ))
            })?;
            if s.reps() < needed {
                return Err(usage(format!(
                    "--max-runs {max}: the finalists would have {} replications, fewer than the {needed} an [[expect]] is judged on",
                    s.reps()
                )));
            }
            s
        }
    };
    // The grid is compiled at the requested replications to prune it; the search runs at the
    // schedule's (a `--max-runs` can lower them), which number the plan's runs.
    plan.reps = schedule.reps();
    // Once per variant as written, not per candidate, as `sweep` warns.
    args.lints
        .warn_files(std::slice::from_ref(path), &overrides)?;
    if !plan.metric_names().contains(&args.objective) {
        let names = plan.metric_names();
        let hint = cascade::error::did_you_mean(&args.objective, names.iter().map(String::as_str));
        return Err(usage(format!(
            "--objective {}: the runs report no such metric{hint}",
            args.objective
        )));
    }
    super::check::expects_name_metrics(&cascade::scenario::load_with_variants(path, &overrides)?)?;
    let goal = if args.maximize {
        Goal::Maximize
    } else {
        Goal::Minimize
    };
    let search = Search {
        scenario: path,
        overrides: &overrides,
        plan: &plan,
        expects: &base.expects,
        schedule: &schedule,
        objective: &args.objective,
        goal,
        pruning: &pruning,
    };
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-tune", base.model.name)));
    let jobs = super::jobs_or_cores(args.jobs);
    let planned = schedule.planned_runs(names.len());
    let progress = super::progress::Progress::new("tune", planned, "runs", args.quiet);
    let tick = || progress.inc();
    let tuned = cascade::tune::tune(&search, &out, jobs, &tick)?;
    progress.finish();
    // The trade-off as charts beside tune.json, when nothing satisfied every expectation.
    let frontier = if tuned.tradeoff.is_some() {
        cascade::chart::frontier_dir(&out)?
    } else {
        Vec::new()
    };
    if !base.margin_expects.is_empty() {
        // A margin is a search of its own per candidate: tune leaves it out, and says so.
        eprintln!(
            "note: tune judged the runs' [[expect]]s, not the {} on margins (margin.fault.<i>.*): judge the winner with `cascade check --margin`",
            base.margin_expects.len()
        );
    }
    if !args.quiet {
        print!("{}", cascade::tune::text::summary(&tuned));
        for path in &frontier {
            println!("the trade-off charted in {}", path.display());
        }
        println!("\nresults in {}", out.display());
    }
    Ok(if tuned.outcome.best.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
