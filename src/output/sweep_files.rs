//! A finished sweep's tables: `runs.csv` / `runs.json` (one row per run: point, variant,
//! replication, seed, parameters, every metric or those `--runs-metric` chose) and `points.csv` / `points.json` (per point,
//! variant and metric: replications, mean, standard deviation, 95% confidence interval).

use super::csv_text::CsvText;
use crate::atomic::write_atomic;
use crate::error::Result;
use crate::json::{self, Entries, Pairs};
use crate::number::exact as number;
use crate::sweep::aggregate::Results;
use serde::Serialize;
use std::path::Path;

pub fn write_sweep(dir: &Path, r: &Results) -> Result<()> {
    let kept = runs_metrics(dir, r)?;
    write_atomic(&dir.join("runs.csv"), runs_csv(r, &kept).as_bytes())?;
    write_atomic(&dir.join("points.csv"), points_csv(r).as_bytes())?;
    write_atomic(&dir.join("runs.json"), runs_json(r, &kept).as_bytes())?;
    write_atomic(&dir.join("points.json"), points_json(r).as_bytes())
}

/// The metric columns (indices into `r.names`) of runs.csv and runs.json: every metric, or,
/// with the manifest's `--runs-metric` patterns, those they match and those the scenario's
/// `[[expect]]`s read (the report judges each point's expectations from runs.csv), in the
/// tables' order. points.csv and the records keep every metric either way.
pub fn runs_metrics(dir: &Path, r: &Results) -> Result<Vec<usize>> {
    let patterns = &r.manifest.runs_metrics;
    if patterns.is_empty() {
        return Ok((0..r.names.len()).collect());
    }
    let path = dir.join("scenario.toml");
    let text = super::csv_text::read_text(&path)?;
    let expected: Vec<String> = crate::scenario::load_str(&path.display().to_string(), &text, &[])?
        .expects
        .into_iter()
        .map(|e| e.read_from)
        .collect();
    Ok((0..r.names.len())
        .filter(|&i| {
            let name = &r.names[i];
            expected.contains(name)
                || patterns
                    .iter()
                    .any(|p| crate::metrics::select::selects(p, name))
        })
        .collect())
}

/// The parameters' headers: their paths, a duration's with the unit (`sweep::columns`).
fn param_paths(r: &Results) -> impl Iterator<Item = &str> {
    r.columns.iter().map(|c| c.header.as_str())
}

/// runs.csv with the metric columns `kept` (indices into `r.names`).
pub fn runs_csv(r: &Results, kept: &[usize]) -> String {
    let mut w = CsvText::default();
    let fixed = ["point", "variant", "rep", "seed"];
    w.record(
        fixed
            .into_iter()
            .chain(param_paths(r))
            .chain(kept.iter().map(|&m| r.names[m].as_str())),
    );
    for run in &r.runs {
        let k = run.key;
        let mut row = vec![
            k.point.to_string(),
            r.manifest.variants[k.variant].clone(),
            k.rep.to_string(),
            run.seed.to_string(),
        ];
        row.extend(r.cells[k.point].iter().cloned());
        // A metric this run does not have is an empty field.
        row.extend(
            kept.iter()
                .map(|&m| run.values[m].map(number).unwrap_or_default()),
        );
        w.record(&row);
    }
    w.finish()
}

pub fn points_csv(r: &Results) -> String {
    let mut w = CsvText::default();
    let stats = ["metric", "n", "mean", "sd", "ci95_low", "ci95_high"];
    w.record(
        ["point", "variant"]
            .into_iter()
            .chain(param_paths(r))
            .chain(stats),
    );
    for point in 0..r.points.len() {
        for (variant, vname) in r.manifest.variants.iter().enumerate() {
            for (name, s) in r.names.iter().zip(r.stats(point, variant)) {
                let Some(s) = s else { continue };
                let mut row = vec![point.to_string(), vname.clone()];
                row.extend(r.cells[point].iter().cloned());
                row.extend([
                    name.clone(),
                    s.n.to_string(),
                    number(s.mean),
                    number(s.sd),
                    number(s.ci95.0),
                    number(s.ci95.1),
                ]);
                w.record(&row);
            }
        }
    }
    w.finish()
}

/// The parameters of a point, as `{"header": value, ...}`: numbers, durations in ms, text.
fn params(r: &Results, point: usize) -> Pairs<&str, serde_json::Value> {
    Pairs(
        r.columns
            .iter()
            .zip(&r.cells[point])
            .map(|(c, v)| (c.header.as_str(), c.json(v)))
            .collect(),
    )
}

/// One row of runs.json.
#[derive(Serialize)]
struct RunRow<'a> {
    point: usize,
    variant: &'a str,
    rep: u32,
    seed: u64,
    params: Pairs<&'a str, serde_json::Value>,
    /// The metrics this run has, in the tables' order.
    metrics: Pairs<&'a str, f64>,
}

/// One row of points.json.
#[derive(Serialize)]
struct PointRow<'a> {
    point: usize,
    variant: &'a str,
    params: Pairs<&'a str, serde_json::Value>,
    metrics: Pairs<&'a str, StatRow>,
}

#[derive(Serialize)]
struct StatRow {
    n: usize,
    mean: f64,
    sd: f64,
    ci95_low: f64,
    ci95_high: f64,
}

/// runs.json: one run a line.
fn runs_layout(depth: usize, _key: Option<&str>) -> Entries {
    if depth == 1 {
        Entries::pretty(1)
    } else {
        Entries::Inline
    }
}

/// points.json: one point a line, and its metrics one a line beneath it, as a row of every
/// metric's statistics would be too long to read.
fn points_layout(depth: usize, key: Option<&str>) -> Entries {
    match (depth, key) {
        (1, _) => Entries::pretty(1),
        (3, Some("metrics")) => Entries::Lines {
            indent: 4,
            close: None,
        },
        _ => Entries::Inline,
    }
}

/// runs.json with the metrics `kept` (indices into `r.names`).
pub fn runs_json(r: &Results, kept: &[usize]) -> String {
    let rows: Vec<RunRow> = r
        .runs
        .iter()
        .map(|run| RunRow {
            point: run.key.point,
            variant: &r.manifest.variants[run.key.variant],
            rep: run.key.rep,
            seed: run.seed,
            params: params(r, run.key.point),
            metrics: Pairs(
                kept.iter()
                    .filter_map(|&m| Some((r.names[m].as_str(), run.values[m]?)))
                    .collect(),
            ),
        })
        .collect();
    json::to_text(&rows, runs_layout)
}

pub fn points_json(r: &Results) -> String {
    let mut rows = Vec::new();
    for point in 0..r.points.len() {
        for (variant, vname) in r.manifest.variants.iter().enumerate() {
            let metrics = r
                .names
                .iter()
                .zip(r.stats(point, variant))
                .filter_map(|(n, s)| {
                    let s = s?;
                    let stats = StatRow {
                        n: s.n,
                        mean: s.mean,
                        sd: s.sd,
                        ci95_low: s.ci95.0,
                        ci95_high: s.ci95.1,
                    };
                    Some((n.as_str(), stats))
                })
                .collect();
            rows.push(PointRow {
                point,
                variant: vname,
                params: params(r, point),
                metrics: Pairs(metrics),
            });
        }
    }
    json::to_text(&rows, points_layout)
}
