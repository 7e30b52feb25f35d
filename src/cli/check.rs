//! `cascade check`: runs scenarios (the runs their `[[expect]]` name, base or variants, with the
//! replications asked of each, all on one pool: `check_runs.rs`) and checks them; a ✓/✗ table, JUnit XML, an optional baseline comparison, and exit code 1 when
//! an expectation fails or a gated metric regressed (2 on bad input).

use super::baseline::BaselineArgs;
use cascade::atomic::write_atomic;
use cascade::check::{Verdict, evaluate_runs};
use cascade::margin::search::Bounds;
use cascade::metrics::RunMetrics;
use cascade::number::sig3;
use cascade::output::text_table::Table;
use cascade::scenario::{BASE, Expect, Override, Scenario};
use cascade::{Error, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct CheckArgs {
    /// Scenario files, directories (every .toml file in them and their subdirectories) or globs
    /// (`scenarios/*.toml`).
    #[arg(required = true, value_name = "SCENARIO")]
    paths: Vec<PathBuf>,
    /// Override a field of every scenario before validation: `service.api.workers=40`.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// Also write the verdicts as JUnit XML (one testcase per expectation).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Threads for the runs, across scenarios, variants and replications [default: the
    /// machine's cores; at most 4 per core]. Verdicts and output do not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// No progress (the bar on a terminal, a line every 10 s otherwise); the verdicts are
    /// printed all the same.
    #[arg(long, short)]
    quiet: bool,
    /// Also judge the expectations on margins (`margin.fault.<i>.load`, `.trigger_s`): each
    /// runs `cascade margin`'s search (tens of runs), so a plain check leaves them out.
    #[arg(long)]
    margin: bool,
    #[command(flatten)]
    baseline: BaselineArgs,
    #[command(flatten)]
    lints: super::lints::LintArgs,
}

/// One scenario's verdicts, with what a JUnit reader needs to act on a failure.
pub struct Checked {
    pub name: String,
    pub seed: u64,
    pub verdicts: Vec<Verdict>,
    /// Beside `verdicts`, one each.
    pub cases: Vec<Case>,
    /// The wall seconds of all the scenario's runs.
    pub seconds: f64,
}

/// How one verdict was reached: what had to hold, over which runs, and how to see it again.
pub struct Case {
    /// What had to hold: `client.web.success_ratio >= 0.95`, `the whole 95% CI …`.
    pub threshold: String,
    /// The runs judged: `base, 1 replication`.
    pub judged: String,
    /// A shell command that gives the same verdict again (the runs are deterministic).
    pub reproduce: String,
    /// The wall seconds of the runs judged.
    pub seconds: f64,
}

/// A scenario file compiled: the base and the variants its expectations read.
type Compiled<'a> = &'a [(Option<String>, Scenario)];

pub fn check(args: CheckArgs) -> Result<ExitCode> {
    args.baseline.validate()?;
    if let Some(path) = &args.junit {
        cascade::atomic::check_destination(path)?;
    }
    let overrides = super::parse_overrides(&args.set)?;
    let jobs = super::jobs_or_cores(args.jobs);
    let files = expand(&args.paths)?;
    // Every scenario compiles before any runs: a typo in the last file fails fast.
    let scenarios = files
        .iter()
        .map(|f| load_runs(f, &overrides))
        .collect::<Result<Vec<_>>>()?;
    for s in &scenarios {
        expects_name_metrics(s)?;
    }
    args.lints.warn_files(&files, &overrides)?;
    let mut checked = Vec::new();
    let mut table = Table::new(&["", "scenario", "expectation", "measured"]);
    // A scenario without expectations is loaded and validated, not run (unless a baseline
    // compares it).
    let (to_run, run_files): (Vec<Compiled>, Vec<&PathBuf>) = scenarios
        .iter()
        .zip(&files)
        .filter(|(c, _)| {
            !c[0].1.expects.is_empty()
                || args.baseline.any()
                || (args.margin && !c[0].1.margin_expects.is_empty())
        })
        .map(|(c, f)| (c.as_slice(), f))
        .unzip();
    let all_ran = super::check_runs::run_all(&to_run, args.baseline.any(), jobs, args.quiet)?;
    for ((compiled, ran), file) in to_run.iter().zip(all_ran).zip(run_files) {
        let Scenario {
            model,
            expects,
            margin_expects,
            ..
        } = &compiled[0].1;
        let runs_of = |name: &str| ran.of(name);
        let mut verdicts = evaluate_runs(expects, &runs_of).map_err(Error::Scenario)?;
        let check_again = super::check_case::command(file, &args.set, None);
        let mut cases: Vec<Case> = expects
            .iter()
            .map(|e| super::check_case::of_expect(e, &ran, check_again.clone()))
            .collect();
        let expected: Vec<String> = expects
            .iter()
            .filter(|e| e.on_base_only())
            .map(|e| e.read_from.clone())
            .collect();
        let base: &[RunMetrics] = runs_of(BASE).unwrap_or_default();
        let gated = args
            .baseline
            .apply(&model.name, model.seed, base, &expected, false)?;
        let with_baseline = super::check_case::command(file, &args.set, Some(&args.baseline));
        cases.extend(gated.iter().map(|_| {
            super::check_case::of_baseline(&args.baseline, base.len(), &ran, with_baseline.clone())
        }));
        verdicts.extend(gated);
        let mut seconds = ran.total_seconds();
        if args.margin {
            let again = super::check_case::margin_command(file, &args.set);
            let mut runs = cascade::margin::runs::Runs::new(jobs);
            for e in margin_expects {
                let started = std::time::Instant::now();
                let (verdict, margin) =
                    cascade::margin::gate::judge(model, e, Bounds::STANDARD, &mut runs)?;
                let took = started.elapsed().as_secs_f64();
                seconds += took;
                cases.push(super::check_case::of_margin(
                    e,
                    &margin,
                    again.clone(),
                    took,
                ));
                verdicts.push(verdict);
            }
        }
        for v in &verdicts {
            let measured = match v.interval {
                Some((lo, hi)) => format!("{} [{}, {}]", sig3(v.measured), sig3(lo), sig3(hi)),
                None => sig3(v.measured),
            };
            table.row(vec![
                if v.passed { "✓" } else { "✗" }.into(),
                model.name.clone(),
                v.label.clone(),
                measured,
            ]);
        }
        checked.push(Checked {
            name: model.name.clone(),
            seed: model.seed,
            verdicts,
            cases,
            seconds,
        });
    }
    let total: usize = checked.iter().map(|c| c.verdicts.len()).sum();
    // Margin expectations left for `--margin`: said, never passed over in silence.
    let unjudged_margins: usize = match args.margin {
        true => 0,
        false => scenarios.iter().map(|c| c[0].1.margin_expects.len()).sum(),
    };
    if total == 0 && !args.baseline.any() {
        // A gate that checks nothing must not pass quietly.
        return Err(Error::Usage(match unjudged_margins {
            0 => format!(
                "nothing to check: none of the {} scenario files has an [[expect]]",
                files.len()
            ),
            n => format!(
                "nothing to check without --margin: the {n} [[expect]] of these files are on margins (margin.fault.<i>.load, .trigger_s), which only `cascade check --margin` judges"
            ),
        }));
    }
    let failed: usize = checked
        .iter()
        .map(|c| c.verdicts.iter().filter(|v| !v.passed).count())
        .sum();
    if let Some(path) = &args.junit {
        write_atomic(path, super::junit::junit(&checked).as_bytes())?;
    }
    if total > 0 {
        print!("\n{}", table.render());
    }
    // Not run for want of any [[expect]] (one on a margin alone is counted with the margins).
    let skipped = files.len()
        - checked.len()
        - scenarios
            .iter()
            .filter(|c| c[0].1.expects.is_empty() && !c[0].1.margin_expects.is_empty())
            .filter(|_| !args.margin && !args.baseline.any())
            .count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut left_out = Vec::new();
    if skipped > 0 {
        left_out.push(format!(
            "{} without [[expect]] not run",
            plural(skipped, "scenario")
        ));
    }
    if unjudged_margins > 0 {
        left_out.push(format!(
            "{} not checked: add --margin",
            plural(unjudged_margins, "margin expectation")
        ));
    }
    println!(
        "{} in {}: {} passed, {failed} failed{}",
        plural(total, "check"),
        plural(checked.len(), "scenario"),
        total - failed,
        match left_out.is_empty() {
            true => String::new(),
            false => format!(" ({})", left_out.join("; ")),
        },
    );
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A scenario file compiled, with each `[[variant]]` its expectations name (all of them when
/// one does): `(None, base)` first, as `scenario::load_with_variants` gives them.
fn load_runs(path: &Path, overrides: &[Override]) -> Result<Vec<(Option<String>, Scenario)>> {
    let base = cascade::scenario::load(path, overrides)?;
    if base.expects.iter().all(Expect::on_base_only) {
        return Ok(vec![(None, base)]);
    }
    cascade::scenario::load_with_variants(path, overrides)
}

/// Every `[[expect]]` of each compiled scenario in `runs` (the base and its variants, as
/// `load_with_variants` gives them) names a metric the run it reads will report: checked on the
/// names alone, before any run, with the error a run would give. An expectation on `base` is
/// checked against the model that carries it, one on a variant against that variant's.
pub fn expects_name_metrics(runs: &[(Option<String>, Scenario)]) -> Result<()> {
    let named: Vec<(String, Vec<RunMetrics>)> = runs
        .iter()
        .map(|(name, s)| {
            // One run stands for any number of replications: they report the same names.
            (
                name.clone().unwrap_or_else(|| BASE.to_string()),
                vec![cascade::sweep::named_metrics(&s.model)],
            )
        })
        .collect();
    // The expectations are the base file's, each read from the run its `variant` names (the
    // base when none), as `check` judges them: a variant's own copy of them is not judged, so
    // a metric only the base emits (a variant setting `reject_work = "0s"` has no
    // `refusal_work_s`) is no error.
    let lookup = |name: &str| {
        named
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.as_slice())
    };
    evaluate_runs(&runs[0].1.expects, &lookup).map_err(Error::Scenario)?;
    Ok(())
}

/// Files named, every `.toml` in a directory named and its subdirectories, and the files a `*`
/// pattern in the last component matches (in that directory alone); sorted, each once.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        let text = p.to_string_lossy();
        if p.is_dir() {
            files.extend(list_tree(p)?);
        } else if text.contains('*') {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            let pattern = p.file_name().map(|f| f.to_string_lossy().to_string());
            let matched = list(dir.unwrap_or(Path::new(".")), &pattern.unwrap_or_default())?;
            if matched.is_empty() {
                return Err(Error::Usage(format!("no scenario matches `{text}`")));
            }
            files.extend(matched);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            return Err(Error::Usage(format!(
                "no such scenario file or directory: `{text}`"
            )));
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// Every `.toml` file under `dir`, at any depth; dot-directories (`.git`) are skipped as
/// dot-files are, and a symlinked directory is not followed (a link to a parent would loop).
fn list_tree(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = list(dir, "*.toml")?;
    let mut subdirs: Vec<PathBuf> = read(dir)?
        .filter(|p| p.is_dir() && !p.is_symlink())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
        })
        .collect();
    subdirs.sort();
    for sub in subdirs {
        files.extend(list_tree(&sub)?);
    }
    Ok(files)
}

fn read(dir: &Path) -> Result<impl Iterator<Item = PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    Ok(entries.filter_map(|e| e.ok().map(|e| e.path())))
}

fn list(dir: &Path, pattern: &str) -> Result<Vec<PathBuf>> {
    Ok(read(dir)?
        .filter(|p| p.is_file())
        .filter(|p| {
            // Dot-files are editors' and tools' (`.#a.toml`, `._a.toml`), not scenarios.
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                !n.starts_with('.') && cascade::wildcard::matches(pattern, &n)
            })
        })
        .collect())
}
