//! A finished sweep read back from its records, in plan order: what every table and export of
//! a sweep is built from, whether the runs were made in one sitting, resumed or sharded.

use super::RunKey;
use super::columns::{self, Column};
use super::store::{self, Manifest};
use crate::error::{Error, Result};
use crate::stats::summary::{Summary, summarize};
use std::collections::HashMap;
use std::path::Path;

pub struct RunRow {
    pub key: RunKey,
    pub seed: u64,
    /// Aligned with `Results::names`; `None` where this run has no such metric (a variant
    /// with another topology).
    pub values: Vec<Option<f64>>,
}

pub struct Results {
    pub manifest: Manifest,
    /// Per point, each parameter's value as shown (`100ms`): the headline table's.
    pub points: Vec<Vec<String>>,
    /// Each parameter as the data tables write it (`columns`): header and kind.
    pub columns: Vec<Column>,
    /// Per point, each parameter's cell in the data tables (`100` under `…_ms`).
    pub cells: Vec<Vec<String>>,
    /// Every metric name, in order of first appearance in plan order.
    pub names: Vec<String>,
    /// Plan order.
    pub runs: Vec<RunRow>,
    /// Per point and variant (point-major), where its replications sit in `runs`: contiguous,
    /// since `runs` is in plan order; empty for one that did not run.
    spans: Vec<std::ops::Range<usize>>,
}

/// Reads every record of the sweep in `dir`; an error names how many runs are missing.
pub fn load(dir: &Path) -> Result<Results> {
    let manifest = store::read_manifest(dir)?;
    let done = store::completed(dir, manifest.runs)?;
    let missing = done.iter().filter(|d| !**d).count();
    if missing > 0 {
        return Err(Error::Usage(format!(
            "{} has {} of the sweep's {} runs ({missing} missing): finish it (run the sweep again into it) or merge the other shards' directories",
            dir.display(),
            manifest.runs - missing,
            manifest.runs
        )));
    }
    let all: Vec<usize> = (0..manifest.runs).collect();
    load_runs(dir, manifest, &all)
}

/// Reads the records of the plan indices `indices` (ascending) of the sweep whose manifest is
/// `manifest`: the whole sweep, or the runs a search chose (`cascade tune`), where points may
/// hold different numbers of replications or none.
pub fn load_runs(dir: &Path, manifest: Manifest, indices: &[usize]) -> Result<Results> {
    let mut names: Vec<String> = Vec::new();
    let mut column: HashMap<String, usize> = HashMap::new();
    let mut runs = Vec::with_capacity(indices.len());
    let cells = manifest.points * manifest.variants.len();
    let mut spans = vec![0..0; cells];
    for &index in indices {
        let record = store::read_record(dir, index)?;
        let key = manifest.key(index);
        if record.point != key.point
            || record.rep != key.rep
            || record.variant != manifest.variants[key.variant]
        {
            return Err(Error::Usage(format!(
                "{}: does not belong to this sweep's run {index}",
                store::record_path(dir, index).display()
            )));
        }
        let mut values = vec![None; names.len()];
        for (name, value) in record.metrics {
            let at = *column.entry(name.clone()).or_insert_with(|| {
                names.push(name);
                names.len() - 1
            });
            if at >= values.len() {
                values.resize(at + 1, None);
            }
            values[at] = Some(value);
        }
        let cell = key.point * manifest.variants.len() + key.variant;
        if spans[cell].is_empty() {
            spans[cell] = runs.len()..runs.len();
        }
        spans[cell].end = runs.len() + 1;
        runs.push(RunRow {
            key,
            seed: record.seed,
            values,
        });
    }
    for run in &mut runs {
        run.values.resize(names.len(), None);
    }
    let columns: Vec<Column> = manifest
        .params
        .iter()
        .map(|p| columns::column(&p.path, &p.values))
        .collect();
    let lists: Vec<Vec<String>> = columns.iter().map(|c| c.values.clone()).collect();
    Ok(Results {
        points: manifest.point_values(),
        cells: crate::scenario::grid::product(&lists),
        columns,
        manifest,
        names,
        runs,
        spans,
    })
}

impl Results {
    /// The runs of one point and variant (its replications), contiguous in plan order.
    pub fn replications(&self, point: usize, variant: usize) -> &[RunRow] {
        let span = &self.spans[point * self.manifest.variants.len() + variant];
        &self.runs[span.clone()]
    }

    /// Statistics of every metric over one point's and variant's replications; `None` where
    /// no replication has the metric.
    pub fn stats(&self, point: usize, variant: usize) -> Vec<Option<Summary>> {
        let reps = self.replications(point, variant);
        (0..self.names.len())
            .map(|m| {
                let samples: Vec<f64> = reps.iter().filter_map(|r| r.values[m]).collect();
                (!samples.is_empty()).then(|| summarize(&samples))
            })
            .collect()
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}
