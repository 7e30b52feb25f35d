//! Reading what `cascade tune` found from its directory's `tune.json` (docs/tune.md,
//! "tune.json"): the parts the frontier chart and the report show. The directory is a sweep's
//! too (`read_sweep`), which gives the expectations and their thresholds.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

pub const TUNE_FILE: &str = "tune.json";

#[derive(Debug, Clone, Deserialize)]
pub struct Objective {
    pub metric: String,
    pub goal: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Stats {
    pub n: usize,
    pub mean: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Setting {
    pub params: BTreeMap<String, String>,
    pub objective: Option<Stats>,
    /// Welch's p against the best, for a runner-up within noise.
    #[serde(default)]
    pub p: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Slice {
    pub path: String,
    pub values: Vec<String>,
}

/// The candidates that broke one expectation (or were pruned by one reason).
#[derive(Debug, Clone, Deserialize)]
pub struct Region {
    pub expectation: String,
    pub candidates: Vec<usize>,
    pub slices: Vec<Slice>,
    pub others: Vec<usize>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Pruned {
    pub by: String,
    pub candidates: Vec<usize>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FrontierPoint {
    pub point: usize,
    pub params: BTreeMap<String, String>,
    /// Per expectation, in the scenario's order.
    pub values: Vec<f64>,
    pub passed: Vec<bool>,
    pub objective: Option<f64>,
    pub same: Vec<usize>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Reached {
    pub expectation: String,
    pub best: Option<f64>,
    pub params: Option<BTreeMap<String, String>>,
    pub met_by: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Tradeoff {
    pub candidates: usize,
    pub reached: Vec<Reached>,
    pub met_by_none: Vec<String>,
    pub never_together: Vec<[String; 2]>,
    pub frontier: Vec<FrontierPoint>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct NoEffect {
    pub path: String,
    pub values: Vec<String>,
    pub pairs: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Export {
    pub command: String,
    pub unexpressed: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Ready {
    pub set: Vec<String>,
    pub run: String,
    pub export: Vec<Export>,
    pub not_exportable: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Candidate {
    pub point: usize,
    pub params: BTreeMap<String, String>,
}

/// A parameter of the grid, in the grid's order.
#[derive(Debug, Clone, Deserialize)]
pub struct Param {
    pub path: String,
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TuneData {
    pub objective: Objective,
    pub params: Vec<Param>,
    pub runs: usize,
    pub grid_runs: usize,
    #[serde(default)]
    pub pruned: Vec<Pruned>,
    pub best: Option<Setting>,
    pub within_noise: Vec<Setting>,
    pub rejected: Vec<Region>,
    pub tradeoff: Option<Tradeoff>,
    pub no_effect: Vec<NoEffect>,
    pub ready: Option<Ready>,
    pub candidates: Vec<Candidate>,
}

impl TuneData {
    /// `path=value path=value` of a candidate, in the grid's order.
    pub fn setting_text(&self, params: &BTreeMap<String, String>) -> String {
        let pairs: Vec<String> = (self.params.iter())
            .filter_map(|p| params.get(&p.path).map(|v| format!("{}={v}", p.path)))
            .collect();
        pairs.join(" ")
    }
}

/// Whether `dir` holds a search's `tune.json`.
pub fn is_tune_dir(dir: &Path) -> bool {
    dir.join(TUNE_FILE).is_file()
}

pub fn read_tune(dir: &Path) -> Result<TuneData> {
    let path = dir.join(TUNE_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{}: not the tune.json `cascade tune` writes: {e}",
            path.display()
        ))
    })
}
