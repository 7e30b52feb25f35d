//! `cascade tune`: the best setting of a grid that satisfies every `[[expect]]`, found by
//! successive halving over replications instead of running the whole grid. A tune is a sweep
//! whose runs are chosen in rounds: the same plan (every point compiled first), the same runs
//! (each a pure function of its plan index, on the replication seeds every point shares), the
//! same records and the same tables, so its directory is a sweep's (`chart`, `report`), plus
//! `tune.json`. docs/tune.md describes the method and the files.

pub mod candidate;
pub mod deploy;
pub mod effect;
pub mod explain_json;
pub mod files;
pub mod halving;
pub mod judge;
pub mod noise;
pub mod outcome;
pub mod prune;
pub mod regions;
pub mod schedule;
pub mod search;
pub mod text;
pub mod tradeoff;

use crate::atomic::write_atomic;
use crate::error::Result;
use crate::output::sweep_files::write_sweep;
use crate::scenario::Expect;
use crate::sweep::aggregate;
use crate::sweep::store::{self, Manifest};
use halving::Goal;
use outcome::{Outcome, decide};
use search::Search;
use std::path::Path;

pub const TUNE_FILE: &str = "tune.json";

/// A finished search, with what its files and its summary are written from.
pub struct Tuned<'a> {
    pub manifest: Manifest,
    pub expects: &'a [Expect],
    pub objective: &'a str,
    pub goal: Goal,
    pub outcome: Outcome,
    /// What the grid offers when no candidate satisfies every expectation.
    pub tradeoff: Option<tradeoff::Tradeoff>,
    /// The parameters that changed nothing the search read.
    pub no_effect: Vec<effect::NoEffect>,
    /// The best setting ready to run and export.
    pub ready: Option<deploy::Ready>,
    /// The candidates pruned before the first run, and why.
    pub pruning: prune::Pruning,
}

impl Tuned<'_> {
    /// The runs the whole grid would take: every candidate at the finalists' replications.
    pub fn grid_runs(&self) -> usize {
        self.manifest.runs
    }

    pub fn runs(&self) -> usize {
        self.outcome.searched.spent.len()
    }

    /// Each parameter's path and its value at `point`.
    pub fn setting(&self, point: usize) -> Vec<(&str, String)> {
        let values = &self.manifest.point_values()[point];
        self.manifest
            .params
            .iter()
            .map(|p| p.path.as_str())
            .zip(values.iter().cloned())
            .collect()
    }

    /// `path=value path=value`.
    pub fn setting_text(&self, point: usize) -> String {
        let pairs: Vec<String> = self
            .setting(point)
            .into_iter()
            .map(|(p, v)| format!("{p}={v}"))
            .collect();
        pairs.join(" ")
    }
}

/// Runs the search into `dir` (a new directory, or one holding part of the same plan, whose
/// records are reused), writes the sweep's tables of the runs it spent and `tune.json`.
pub fn tune<'a>(
    search: &Search<'a>,
    dir: &Path,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Tuned<'a>> {
    let manifest = Manifest::of(search.plan);
    // A directory this sitting makes is taken away again on an error (an expectation naming
    // a metric the runs turn out not to report is bad input, found only once they ran): exit 2
    // leaves no half-written search. One that held part of the search keeps its records.
    let fresh = !dir.exists();
    store::prepare(dir, &manifest, &search.plan.source)?;
    let searched = match search.run(dir, jobs, tick) {
        Ok(s) => s,
        Err(e) => {
            if fresh {
                let _ = std::fs::remove_dir_all(dir);
            }
            return Err(e);
        }
    };
    let results = aggregate::load_runs(dir, manifest.clone(), &searched.spent)?;
    write_sweep(dir, &results)?;
    let sizes: Vec<usize> = manifest.params.iter().map(|p| p.values.len()).collect();
    let no_effect = effect::no_effect(&searched.candidates, &sizes);
    let outcome = decide(
        searched,
        search.objective,
        search.goal,
        search.expects.len(),
        &sizes,
    );
    let tradeoff = match outcome.best {
        Some(_) => None,
        None => Some(tradeoff::tradeoff(
            &outcome.searched.candidates,
            search.expects,
            &search.plan.variants,
            search.objective,
            search.goal,
        )?),
    };
    let mut tuned = Tuned {
        manifest,
        expects: search.expects,
        objective: search.objective,
        goal: search.goal,
        outcome,
        tradeoff,
        no_effect,
        ready: None,
        pruning: search.pruning.clone(),
    };
    if let Some(best) = tuned.outcome.best {
        tuned.ready = Some(deploy::ready(
            search.scenario,
            search.overrides,
            &tuned.setting(best),
        )?);
    }
    write_atomic(&dir.join(TUNE_FILE), files::tune_json(&tuned).as_bytes())?;
    Ok(tuned)
}
