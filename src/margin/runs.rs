//! The runs a margin makes, each once: every search and map asks for a point's replications
//! here, which hands back those already made in this sitting (the load axis's points are the
//! same for every fault) or recorded in the margin's directory (`store.rs`), and runs only the
//! rest, recording them. A run is a pure function of its model and seed, so where a run came
//! from never changes a margin.

use super::store::{self, Point, Record};
use crate::error::Result;
use crate::model::Model;
use crate::sweep::exec::replicate_some;
use crate::sweep::replication_seed;
use std::collections::HashMap;
use std::path::PathBuf;

/// A run's summary metrics, in the run's own order.
pub type Summary = Vec<(String, f64)>;

pub struct Runs {
    jobs: usize,
    /// The margin's directory, when it has one (`--store`).
    store: Option<PathBuf>,
    made: HashMap<(String, u32), Summary>,
    /// Runs simulated in this sitting.
    pub simulated: usize,
    /// Runs read from the store.
    pub read: usize,
}

impl Runs {
    /// Runs on `jobs` threads, kept in memory only.
    pub fn new(jobs: usize) -> Runs {
        Runs {
            jobs,
            store: None,
            made: HashMap::new(),
            simulated: 0,
            read: 0,
        }
    }

    /// Runs on `jobs` threads, recorded in (and read back from) `dir`, which `store::prepare`
    /// has made this margin's.
    pub fn stored(jobs: usize, dir: PathBuf) -> Runs {
        Runs {
            store: Some(dir),
            ..Runs::new(jobs)
        }
    }

    /// The summaries of replications 0..`reps` at `point`, whose model is `scaled`, in
    /// replication order.
    pub fn replicate(&mut self, point: Point, scaled: &Model, reps: u32) -> Result<Vec<Summary>> {
        let key = point.key();
        let mut missing = Vec::new();
        for rep in 0..reps {
            if self.made.contains_key(&(key.clone(), rep)) {
                continue;
            }
            let seed = replication_seed(scaled.seed, rep);
            let recorded = match &self.store {
                Some(dir) => store::read_record(dir, &key, rep, seed)?,
                None => None,
            };
            match recorded {
                Some(record) => {
                    self.read += 1;
                    self.made.insert((key.clone(), rep), record.metrics);
                }
                None => missing.push(rep),
            }
        }
        let ran = replicate_some(scaled, &missing, self.jobs)?;
        for (&rep, run) in missing.iter().zip(ran) {
            let summary = run.metrics.summary;
            if let Some(dir) = &self.store {
                let seed = replication_seed(scaled.seed, rep);
                store::write_record(dir, &Record::of(&point, rep, seed, summary.clone()))?;
            }
            self.simulated += 1;
            self.made.insert((key.clone(), rep), summary);
        }
        Ok((0..reps)
            .map(|rep| self.made[&(key.clone(), rep)].clone())
            .collect())
    }
}
