//! Running a sweep's runs on a thread pool, each record written as soon as its run ends.

use super::Plan;
use super::shard::Shard;
use super::store::{self, Record};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::path::Path;

/// What one sitting of a sweep found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Runs of the whole sweep.
    pub total: usize,
    /// Runs of this shard that already had a record (an earlier, interrupted sitting).
    pub skipped: usize,
    /// Runs done now.
    pub ran: usize,
    /// Runs of the whole sweep with a record in the directory afterwards.
    pub recorded: usize,
}

impl Progress {
    pub fn complete(&self) -> bool {
        self.recorded == self.total
    }
}

/// The plan indices this sitting must run: the shard's, minus those already recorded.
pub fn pending(plan: &Plan, dir: &Path, shard: Shard) -> Result<(Vec<usize>, Progress)> {
    let done = store::completed(dir, plan.runs())?;
    let in_shard: Vec<usize> = (0..plan.runs()).filter(|&i| shard.contains(i)).collect();
    let todo: Vec<usize> = in_shard.iter().copied().filter(|&i| !done[i]).collect();
    let progress = Progress {
        total: plan.runs(),
        skipped: in_shard.len() - todo.len(),
        ran: 0,
        recorded: done.iter().filter(|d| **d).count(),
    };
    Ok((todo, progress))
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
                let metrics = crate::simulate(&model).metrics;
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
    Ok(pool(jobs)?.install(|| {
        (0..reps)
            .into_par_iter()
            .map(|rep| {
                let mut m = model.clone();
                m.seed = super::replication_seed(model.seed, rep);
                crate::simulate(&m)
            })
            .collect()
    }))
}
