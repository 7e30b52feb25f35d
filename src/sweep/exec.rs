//! Running a sweep's runs on a thread pool, each record written as soon as its run ends.

use super::Plan;
use super::shard::Shard;
use super::store::{self, Record};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::path::Path;

/// The plan indices this sitting must run (the shard's, minus those already recorded), and
/// how many of the shard's were recorded already (an earlier, interrupted sitting).
pub fn pending(plan: &Plan, dir: &Path, shard: Shard) -> Result<(Vec<usize>, usize)> {
    let done = store::completed(dir, plan.runs())?;
    let in_shard: Vec<usize> = (0..plan.runs()).filter(|&i| shard.contains(i)).collect();
    let todo: Vec<usize> = in_shard.iter().copied().filter(|&i| !done[i]).collect();
    let skipped = in_shard.len() - todo.len();
    Ok((todo, skipped))
}

/// How many of a sweep's `total` runs have a record in `dir`.
pub fn recorded(dir: &Path, total: usize) -> Result<usize> {
    Ok(store::completed(dir, total)?.iter().filter(|d| **d).count())
}

/// Runs `todo` on `jobs` threads, writing each run's record as it ends; `tick` is called after
/// each (for a progress bar). On a write error the other runs still finish and are kept; the
/// error of the lowest index is returned.
pub fn run(
    plan: &Plan,
    dir: &Path,
    todo: &[usize],
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<usize> {
    let results: Vec<Result<()>> = pool(jobs)?.install(|| {
        todo.par_iter()
            .map(|&index| {
                let model = plan.model(index);
                let key = plan.key(index);
                let ran = crate::simulate(&model).map_err(|e| e.in_run(|p| plan.place(index, p)));
                let metrics = ran?.metrics;
                let record = Record {
                    index,
                    point: key.point,
                    variant: plan.variants[key.variant].clone(),
                    rep: key.rep,
                    seed: model.seed,
                    metrics: metrics.summary,
                };
                let written = store::write_record(dir, &record);
                tick();
                written
            })
            .collect()
    });
    results.into_iter().collect::<Result<Vec<()>>>()?;
    Ok(todo.len())
}

fn pool(jobs: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| Error::Usage(format!("cannot start {jobs} threads: {e}")))
}

/// `reps` replications of one model on `jobs` threads, in replication order (replication 0
/// on the model's own seed), as a sweep would run them at one point.
pub fn replicate(model: &crate::Model, reps: u32, jobs: usize) -> Result<Vec<crate::RunResult>> {
    let all: Vec<u32> = (0..reps).collect();
    replicate_some(model, &all, jobs)
}

/// Replications `reps` (by index) of one model on `jobs` threads, in the order given: what a
/// margin runs when its store already holds the others.
pub fn replicate_some(
    model: &crate::Model,
    reps: &[u32],
    jobs: usize,
) -> Result<Vec<crate::RunResult>> {
    pool(jobs)?.install(|| {
        reps.par_iter()
            .map(|&rep| {
                let mut m = model.clone();
                m.seed = super::replication_seed(model.seed, rep);
                crate::simulate(&m).map_err(|e| e.in_run(|p| p.replication = Some(rep)))
            })
            .collect()
    })
}
