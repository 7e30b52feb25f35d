//! Sweeps: a grid of parameter points × the scenario's variants × replications. A sweep is
//! planned whole (every point compiled, so bad input stops it before anything runs), then run
//! in any order, in slices (`--shard`), or in several sittings (resume): each run is a pure
//! function of its place in the plan, stored as its own record, and the tables are built from
//! the records in plan order, so the output is byte-identical however it was produced.

pub mod aggregate;
pub mod columns;
pub mod exec;

pub mod shard;
pub mod store;

use crate::error::Result;
use crate::model::Model;
use crate::scenario::grid::{self, Param};
use crate::scenario::{Origin, Override};
use std::path::Path;

/// Where a run sits in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunKey {
    pub point: usize,
    pub variant: usize,
    pub rep: u32,
}

impl RunKey {
    /// The plan index of this run: the inverse of `RunKey::of`.
    pub fn index(self, variants: usize, reps: u32) -> usize {
        (self.point * variants + self.variant) * reps as usize + self.rep as usize
    }

    /// Run `index` in plan order: point-major, then variant, then replication.
    pub fn of(index: usize, variants: usize, reps: u32) -> RunKey {
        let reps = reps as usize;
        RunKey {
            point: index / (variants * reps),
            variant: (index / reps) % variants,
            rep: (index % reps) as u32,
        }
    }
}

/// Everything a sweep will run, compiled.
pub struct Plan {
    /// The scenario's name and base seed.
    pub scenario: String,
    pub seed: u64,
    /// The base scenario after `--set`, before any point's values.
    pub source: String,
    pub params: Vec<Param>,
    /// `base`, then the scenario's `[[variant]]` names; only those `keep_variants` kept.
    pub variants: Vec<String>,
    /// The scenario's variants that `keep_variants` (`sweep --variant`) left out, in file order.
    pub left_out: Vec<String>,
    pub reps: u32,
    /// The metrics `runs.csv` and `runs.json` keep (`sweep --runs-metric` patterns, `*`
    /// wildcards); none: every metric. The records keep every metric whatever it is.
    pub runs_metrics: Vec<String>,
    /// Point-major, then variant.
    models: Vec<Model>,
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

/// Every summary metric a run of `model` can report, named without running it, so that a
/// misspelt `--metric` or `[[expect]]` stops a command before its first run: the recorder's
/// names (a recorder that saw no event names the same metrics, over a run cut to one bucket
/// so that naming costs nothing), each entity's `in_flight_end`, each fault's recovery
/// verdict, and each alert's metrics (`first_fire_s` and `detect_s` among them, which a run
/// reports only when the alert fired). A superset of what a run reports, never less (tested against a run).
pub fn metric_names(model: &Model) -> Vec<String> {
    use crate::metrics::names::{
        IN_FLIGHT_END, JUDGED_METRICS, POOL_METRICS, RUN_METRICS, VERDICT_METRICS, client,
        client_op, fault, fault_part, metric, named_pools,
    };
    let mut short = model.clone();
    short.warmup = 0;
    short.duration = model.bucket.max(1);
    let mut names: Vec<String> = crate::metrics::recorder::Recorder::new(&short)
        .finish(short.end())
        .summary
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let order = crate::metrics::slots::MetricSlots::of(model).order(model);
    names.extend(order.prefixes().map(|p| metric(p, IN_FLIGHT_END)));
    for pool in named_pools(model) {
        names.extend(POOL_METRICS.iter().map(|m| metric(&pool, m)));
    }
    names.extend(RUN_METRICS.iter().map(|n| n.to_string()));
    for i in 0..model.faults.len() {
        let p = fault(i);
        names.extend(JUDGED_METRICS.iter().map(|m| metric(&p, m)));
        let mut parts = vec![p];
        for c in &model.clients {
            parts.push(fault_part(i, &client(&c.name)));
            if c.mix.is_some() {
                for call in c.calls() {
                    let op = &model.services[call.to].operations[usize::from(call.operation) - 1];
                    parts.push(fault_part(i, &client_op(&c.name, &op.name)));
                }
            }
        }
        for p in parts {
            names.extend(VERDICT_METRICS.iter().map(|v| metric(&p, v)));
        }
        for a in &model.alerts {
            names.push(crate::metrics::names::fault_alert_detect(i, &a.name));
        }
    }
    for a in &model.alerts {
        names.extend(
            (crate::metrics::names::ALERT_METRICS.iter())
                .map(|m| crate::metrics::names::alert_metric(&a.name, m)),
        );
    }
    names
}

/// Metrics named for a model that has not run: every name `metric_names` gives, valued 0, for
/// checks that need only the names (an `[[expect]]`'s metric exists).
pub fn named_metrics(model: &Model) -> crate::metrics::RunMetrics {
    crate::metrics::RunMetrics {
        summary: metric_names(model).into_iter().map(|n| (n, 0.0)).collect(),
        names: Vec::new(),
        series: Vec::new(),
        bucket_ns: model.bucket,
    }
}

impl Plan {
    /// Compiles every point and variant of the grid.
    pub fn new(
        scenario: &Path,
        overrides: &[Override],
        params: Vec<Param>,
        reps: u32,
    ) -> Result<Plan> {
        let base = crate::scenario::load(scenario, overrides)?;
        grid::check_size(&params).map_err(crate::Error::Usage)?;
        let grid = grid::points(&params);
        let mut models = Vec::new();
        let mut variants = Vec::new();
        for point in &grid {
            let mut all: Vec<(Override, Origin)> = overrides
                .iter()
                .map(|o| (o.clone(), Origin::CommandLine))
                .collect();
            all.extend(point.iter().map(|o| (o.clone(), Origin::Sweep)));
            let compiled = crate::scenario::load_with_variants_tagged(scenario, &all)?;
            if variants.is_empty() {
                variants = compiled
                    .iter()
                    .map(|(n, _)| n.clone().unwrap_or_else(|| "base".into()))
                    .collect();
            }
            models.extend(compiled.into_iter().map(|(_, s)| s.model));
        }
        Ok(Plan {
            scenario: base.model.name,
            seed: base.model.seed,
            source: base.source.text.clone(),
            params,
            variants,
            left_out: Vec::new(),
            reps,
            runs_metrics: Vec::new(),
            models,
        })
    }

    /// Keeps only the variants named in `names` (`base` is the base run), in the scenario's
    /// order whatever the order of `names`, so that the same set always makes the same sweep.
    /// A name the scenario has no variant of is refused with the closest one.
    pub fn keep_variants(&mut self, names: &[String]) -> Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        for n in names {
            if !self.variants.contains(n) {
                let hint = crate::error::did_you_mean(n, self.variants.iter().map(String::as_str));
                return Err(crate::Error::Usage(format!(
                    "--variant {n}: the scenario has no such variant{hint}; its variants are {}",
                    self.variants.join(", ")
                )));
            }
        }
        let keep: Vec<bool> = self.variants.iter().map(|v| names.contains(v)).collect();
        let width = self.variants.len();
        let models = std::mem::take(&mut self.models);
        self.models = models
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep[i % width])
            .map(|(_, m)| m)
            .collect();
        let (kept, left): (Vec<_>, Vec<_>) = std::mem::take(&mut self.variants)
            .into_iter()
            .zip(keep)
            .partition(|(_, k)| *k);
        self.variants = kept.into_iter().map(|(v, _)| v).collect();
        self.left_out = left.into_iter().map(|(v, _)| v).collect();
        Ok(())
    }

    /// Every metric some run of the plan can report (`metric_names` of each model, once each).
    pub fn metric_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.models.iter().flat_map(metric_names).collect();
        names.sort();
        names.dedup();
        names
    }

    pub fn points(&self) -> usize {
        self.models.len() / self.variants.len()
    }

    pub fn runs(&self) -> usize {
        self.models.len() * self.reps as usize
    }

    pub fn key(&self, index: usize) -> RunKey {
        RunKey::of(index, self.variants.len(), self.reps)
    }

    /// Where run `index` sits, for an error of that run: its variant (unless the base), its
    /// point (from 1, with its values as written) and its replication.
    pub fn place(&self, index: usize, place: &mut crate::error::RunPlace) {
        let k = self.key(index);
        let variant = &self.variants[k.variant];
        place.variant = (variant != crate::scenario::BASE).then(|| variant.clone());
        let values: Vec<String> = grid::points(&self.params)[k.point]
            .iter()
            .map(|o| format!("{} = {}", o.path, o.value))
            .collect();
        place.point = Some((k.point + 1, values.join(", ")));
        place.replication = Some(k.rep);
    }

    /// The model of run `index`, seeded for its replication.
    pub fn model(&self, index: usize) -> Model {
        let k = self.key(index);
        let mut model = self.models[k.point * self.variants.len() + k.variant].clone();
        model.seed = replication_seed(model.seed, k.rep);
        model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metrics_named_without_a_run_hold_every_metric_a_run_reports() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/all-features.toml");
        let text = std::fs::read_to_string(path).unwrap()
            + "\n[[window]]\nname = \"w\"\nfault = 0\nphase = \"during\"\n";
        let model = crate::scenario::load_str("all-features.toml", &text, &[])
            .unwrap()
            .model;
        assert!(!model.faults.is_empty() && !model.windows.is_empty());
        let named = metric_names(&model);
        let ran = crate::simulate(&model).unwrap().metrics;
        for (name, _) in &ran.summary {
            assert!(named.contains(name), "{name} is reported but not named");
        }
        assert!(named.len() >= ran.summary.len());
    }

    #[test]
    fn a_keys_index_is_the_inverse_of_of() {
        for index in 0..60 {
            assert_eq!(RunKey::of(index, 3, 4).index(3, 4), index);
        }
        let k = RunKey {
            point: 2,
            variant: 1,
            rep: 3,
        };
        // (2 × 3 + 1) × 4 + 3.
        assert_eq!(k.index(3, 4), 31);
    }

    #[test]
    fn replication_zero_is_the_scenarios_seed_and_the_others_differ() {
        assert_eq!(replication_seed(7, 0), 7);
        let seeds: std::collections::BTreeSet<u64> =
            (0..100).map(|r| replication_seed(7, r)).collect();
        assert_eq!(seeds.len(), 100);
        assert_ne!(replication_seed(7, 1), replication_seed(8, 1));
    }
}
