//! The runs `cascade check` needs, across every scenario it checks: each run the expectations
//! name (the base, the variants), for the replications asked of it, all on one pool of
//! `--jobs` threads, so a library of scenarios checks in parallel rather than one scenario
//! after another. The results come back in the plan's order, each run on its own seed, so what
//! `check` prints does not depend on `--jobs`.

use cascade::check::runs_needed;
use cascade::metrics::RunMetrics;
use cascade::scenario::{BASE, Scenario};
use cascade::{Error, Model, Result};
use rayon::prelude::*;

/// One scenario's runs: each named run (`base` or a variant's name) and its replications'
/// metrics in replication order, replication 0 on the scenario's seed.
pub struct Ran {
    pub runs: Vec<(String, Vec<RunMetrics>)>,
    /// The wall seconds each replication took, beside `runs` (for JUnit's `time=`, never for a
    /// verdict).
    pub seconds: Vec<(String, Vec<f64>)>,
}

impl Ran {
    /// The metrics of run `name`'s replications.
    pub fn of(&self, name: &str) -> Option<&[RunMetrics]> {
        self.runs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.as_slice())
    }

    /// The wall seconds of run `name`'s first `reps` replications.
    pub fn seconds_of(&self, name: &str, reps: usize) -> f64 {
        self.seconds
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, s)| s.iter().take(reps).sum())
    }

    /// The wall seconds of every run of the scenario.
    pub fn total_seconds(&self) -> f64 {
        self.seconds.iter().flat_map(|(_, s)| s).sum()
    }
}

/// The runs of each scenario in `scenarios` (as `load_with_variants` gives them, the base
/// first): those its expectations name, with the most `reps` asked of each, and the base (one
/// replication at least) when `base_always` (a baseline compares it). The base comes first
/// when it runs. The first error in plan order is returned, after every run has ended.
pub fn run_all(
    scenarios: &[&[(Option<String>, Scenario)]],
    base_always: bool,
    jobs: usize,
    quiet: bool,
) -> Result<Vec<Ran>> {
    // The plan: per scenario, the runs and their replication counts; then one task per
    // replication, in scenario, run, replication order.
    let plans: Vec<Vec<(String, &Model, u32)>> = scenarios
        .iter()
        .map(|compiled| plan(compiled, base_always))
        .collect();
    let tasks: Vec<(&str, &Model, u32)> = plans
        .iter()
        .flat_map(|runs| {
            runs.iter().flat_map(|(name, model, reps)| {
                (0..*reps).map(move |rep| (name.as_str(), *model, rep))
            })
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| Error::Usage(format!("cannot start {jobs} threads: {e}")))?;
    let progress = super::progress::Progress::new("check", tasks.len() as u64, "runs", quiet);
    let results: Vec<(Result<RunMetrics>, f64)> = pool.install(|| {
        tasks
            .par_iter()
            .map(|(name, model, rep)| {
                let started = std::time::Instant::now();
                let mut m = (*model).clone();
                m.seed = cascade::sweep::replication_seed(model.seed, *rep);
                let metrics = cascade::simulate(&m).map(|r| r.metrics).map_err(|e| {
                    e.in_run(|p| {
                        p.variant = (*name != BASE).then(|| name.to_string());
                        p.replication = Some(*rep);
                    })
                });
                progress.inc();
                (metrics, started.elapsed().as_secs_f64())
            })
            .collect()
    });
    progress.finish();
    let mut results = results.into_iter();
    let mut out = Vec::with_capacity(plans.len());
    for runs in plans {
        let mut ran = Ran {
            runs: Vec::with_capacity(runs.len()),
            seconds: Vec::with_capacity(runs.len()),
        };
        for (name, _, reps) in runs {
            let (metrics, seconds): (Vec<_>, Vec<f64>) =
                results.by_ref().take(reps as usize).unzip();
            let metrics = metrics.into_iter().collect::<Result<Vec<_>>>()?;
            ran.runs.push((name.clone(), metrics));
            ran.seconds.push((name, seconds));
        }
        out.push(ran);
    }
    Ok(out)
}

/// One scenario's runs: the named run's model and its replications, the base first.
fn plan(compiled: &[(Option<String>, Scenario)], base_always: bool) -> Vec<(String, &Model, u32)> {
    let base = &compiled[0].1;
    let mut needed = runs_needed(&base.expects);
    if let Some(i) = needed.iter().position(|(n, _)| n == BASE) {
        let on_base = needed.remove(i);
        needed.insert(0, on_base);
    } else if base_always {
        needed.insert(0, (BASE.to_string(), 1));
    }
    needed
        .into_iter()
        .filter_map(|(name, reps)| {
            // The compiler checks the names an expectation gives, and `load_runs` compiles
            // every variant when one is named: each is found.
            let (_, s) = compiled
                .iter()
                .find(|(n, _)| n.as_deref().unwrap_or(BASE) == name)?;
            Some((name, &s.model, reps))
        })
        .collect()
}
