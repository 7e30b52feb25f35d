//! A finished sweep's tables: `runs.csv` / `runs.json` (one row per run: point, variant,
//! replication, seed, parameters, every metric) and `points.csv` / `points.json` (per point,
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
    write_atomic(&dir.join("runs.csv"), runs_csv(r).as_bytes())?;
    write_atomic(&dir.join("points.csv"), points_csv(r).as_bytes())?;
    write_atomic(&dir.join("runs.json"), runs_json(r).as_bytes())?;
    write_atomic(&dir.join("points.json"), points_json(r).as_bytes())
}

/// The parameters' paths, for a header.
fn param_paths(r: &Results) -> impl Iterator<Item = &str> {
    r.manifest.params.iter().map(|p| p.path.as_str())
}

pub fn runs_csv(r: &Results) -> String {
    let mut w = CsvText::default();
    let fixed = ["point", "variant", "rep", "seed"];
    w.record(
        fixed
            .into_iter()
            .chain(param_paths(r))
            .chain(r.names.iter().map(String::as_str)),
    );
    for run in &r.runs {
        let k = run.key;
        let mut row = vec![
            k.point.to_string(),
            r.manifest.variants[k.variant].clone(),
            k.rep.to_string(),
            run.seed.to_string(),
        ];
        row.extend(r.points[k.point].iter().cloned());
        // A metric this run does not have is an empty field.
        row.extend(run.values.iter().map(|v| v.map(number).unwrap_or_default()));
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
                row.extend(r.points[point].iter().cloned());
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

/// The parameters of a point, as `{"path": "value", ...}`.
fn params(r: &Results, point: usize) -> Pairs<&str, &str> {
    Pairs(
        r.manifest
            .params
            .iter()
            .zip(&r.points[point])
            .map(|(p, v)| (p.path.as_str(), v.as_str()))
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
    params: Pairs<&'a str, &'a str>,
    /// The metrics this run has, in the tables' order.
    metrics: Pairs<&'a str, f64>,
}

/// One row of points.json.
#[derive(Serialize)]
struct PointRow<'a> {
    point: usize,
    variant: &'a str,
    params: Pairs<&'a str, &'a str>,
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

pub fn runs_json(r: &Results) -> String {
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
                r.names
                    .iter()
                    .zip(&run.values)
                    .filter_map(|(n, v)| Some((n.as_str(), (*v)?)))
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
