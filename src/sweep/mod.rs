//! Sweeps: a grid of parameter points × replications, run in parallel and written in a fixed
//! order, so the output is byte-identical whatever the number of threads.

pub mod grid;
pub mod stats;

use crate::error::Result;
use crate::metrics::RunMetrics;
use crate::scenario::Override;
use grid::Param;
use rayon::prelude::*;
use std::path::Path;

/// One run of a sweep: the point's parameter values, the replication and its seed.
pub struct Run {
    pub point: usize,
    pub rep: u32,
    pub seed: u64,
    pub metrics: RunMetrics,
}

pub struct Sweep {
    pub params: Vec<Param>,
    /// Per point, the value of each parameter, as shown (strings unquoted).
    pub points: Vec<Vec<String>>,
    /// Point-major, then replication.
    pub runs: Vec<Run>,
}

/// The seed of replication `rep` of a sweep with base seed `seed`: the same at every point,
/// and replication 0 runs on the scenario's own seed.
pub fn replication_seed(seed: u64, rep: u32) -> u64 {
    if rep == 0 {
        return seed;
    }
    let mut z = seed ^ u64::from(rep).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Compiles every point (bad input stops the sweep before anything runs), then runs points ×
/// `reps` on `jobs` threads.
pub fn run(
    scenario: &Path,
    overrides: &[Override],
    params: Vec<Param>,
    reps: u32,
    jobs: usize,
) -> Result<Sweep> {
    let grid = grid::points(&params);
    let models = grid
        .iter()
        .map(|point| {
            let mut all = overrides.to_vec();
            all.extend(point.iter().cloned());
            crate::scenario::load(scenario, &all)
        })
        .collect::<Result<Vec<_>>>()?;
    let work: Vec<(usize, u32)> = (0..models.len())
        .flat_map(|p| (0..reps).map(move |r| (p, r)))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| crate::Error::Usage(format!("cannot start {jobs} threads: {e}")))?;
    // `collect` on an indexed parallel iterator keeps the input order.
    let runs: Vec<Run> = pool.install(|| {
        work.par_iter()
            .map(|&(point, rep)| {
                let mut model = models[point].clone();
                model.seed = replication_seed(model.seed, rep);
                let seed = model.seed;
                Run {
                    point,
                    rep,
                    seed,
                    metrics: crate::simulate(&model).metrics,
                }
            })
            .collect()
    });
    // As the reader wants them in a table: `100ms`, not the TOML string `"100ms"`.
    let points = grid
        .iter()
        .map(|p| {
            p.iter()
                .map(|o| o.value.trim_matches('"').to_string())
                .collect()
        })
        .collect();
    Ok(Sweep {
        params,
        points,
        runs,
    })
}
