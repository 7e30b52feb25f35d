//! The files of one run: summary.json (deterministic), timeseries.csv (deterministic),
//! scenario.toml (the effective scenario) and run.json (wall-clock facts, kept apart because
//! they are not).

use super::csv_text::{CsvText, writer};
use crate::alert::AlertRun;
use crate::atomic::{io_error, write_atomic, write_atomic_with};
use crate::error::Result;
use crate::json::{self, Pairs};
use crate::metrics::RunMetrics;
use crate::model::Model;
use crate::number::exact as number;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Facts about how the run went on this machine: not deterministic.
pub struct RunFacts {
    pub events: u64,
    pub wall_s: f64,
    pub requests: u64,
    pub peak_in_flight: usize,
}

/// summary.json: the run's name, seed and length, and every summary metric in the run's order.
#[derive(Serialize)]
struct Summary<'a> {
    scenario: &'a str,
    seed: u64,
    duration_s: f64,
    warmup_s: f64,
    metrics: Pairs<&'a str, f64>,
}

pub fn summary_json(model: &Model, metrics: &RunMetrics) -> String {
    let summary = Summary {
        scenario: &model.name,
        seed: model.seed,
        duration_s: model.duration as f64 / 1e9,
        warmup_s: model.warmup as f64 / 1e9,
        metrics: Pairs(
            metrics
                .summary
                .iter()
                .map(|(k, v)| (k.as_str(), *v))
                .collect(),
        ),
    };
    json::to_text(&summary, json::pretty)
}

/// The columns of timeseries.csv.
pub const SERIES_HEADER: [&str; 3] = ["time_s", "metric", "value"];

/// One row of timeseries.csv, both ways: written with its numbers as text (`&str`, already in
/// `number::exact`'s form), read back as `f64`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesRow<N, S> {
    pub time_s: N,
    pub metric: S,
    pub value: N,
}

/// Long form: `time_s,metric,value`, one row per bucket per metric, buckets in time order.
pub fn timeseries_csv(metrics: &RunMetrics) -> String {
    let mut text = Vec::new();
    write_timeseries(&mut text, metrics).expect("writing to memory");
    String::from_utf8(text).expect("UTF-8 fields give UTF-8 text")
}

/// timeseries.csv written to `sink` as it is made: a one-hour run of a few hundred metrics is
/// some 60 MB of text, which a run should not hold in memory beside its series.
pub fn write_timeseries(sink: &mut dyn Write, metrics: &RunMetrics) -> std::io::Result<()> {
    let mut w = writer(sink);
    w.write_record(SERIES_HEADER)?;
    let m = metrics.names.len();
    for b in 0..metrics.buckets() {
        let t = number(b as f64 * metrics.bucket_ns as f64 / 1e9);
        for (k, name) in metrics.names.iter().enumerate() {
            w.serialize(SeriesRow {
                time_s: t.as_str(),
                metric: name.as_str(),
                value: number(metrics.series[b * m + k]).as_str(),
            })?;
        }
    }
    w.flush()
}

pub fn run_json(model: &Model, facts: &RunFacts) -> String {
    let sim_s = model.end() as f64 / 1e9;
    let per_s = |n: f64| {
        if facts.wall_s > 0.0 {
            n / facts.wall_s
        } else {
            0.0
        }
    };
    let v = serde_json::json!({
        "scenario": model.name,
        "seed": model.seed,
        "events": facts.events,
        "requests": facts.requests,
        "wall_s": facts.wall_s,
        "events_per_s": per_s(facts.events as f64),
        "requests_per_s": per_s(facts.requests as f64),
        "simulated_s": sim_s,
        "speedup": per_s(sim_s),
        "peak_in_flight": facts.peak_in_flight,
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&v).expect("plain JSON values")
    )
}

/// The files of one run, in the order they are written: `summary.json` last, so a directory
/// that has it has the rest (charts and reports look for it).
pub const RUN_FILES: [&str; 4] = [
    "scenario.toml",
    "timeseries.csv",
    "run.json",
    "summary.json",
];

/// Each `[[alert]]`'s firing intervals, written beside the other files only when the scenario
/// has alerts.
pub const ALERTS_FILE: &str = "alerts.csv";

/// alerts.csv's header.
pub const ALERTS_HEADER: [&str; 3] = ["alert", "start_s", "end_s"];

/// One row of alerts.csv: a firing interval [start_s, end_s) of an alert, s from t = 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertRow<N, S> {
    pub alert: S,
    pub start_s: N,
    pub end_s: N,
}

/// alerts.csv: `alert,start_s,end_s`, the alerts in file order, each one's firings in time
/// order; a header alone when none fired.
pub fn alerts_csv(alerts: &[AlertRun]) -> String {
    let mut w = CsvText::default();
    w.record(ALERTS_HEADER);
    for a in alerts {
        for (start, end) in &a.firings {
            w.row(&AlertRow {
                alert: a.name.as_str(),
                start_s: number(*start as f64 / 1e9).as_str(),
                end_s: number(*end as f64 / 1e9).as_str(),
            });
        }
    }
    w.finish()
}

/// One run to write.
pub struct RunOutput<'a> {
    /// The subdirectory of the output: `None` for the base run, a variant's name otherwise.
    pub sub: Option<&'a str>,
    pub model: &'a Model,
    /// The scenario text the model was compiled from, overrides applied
    /// (`Scenario::source`'s text): written as `scenario.toml`.
    pub scenario_text: &'a str,
    pub metrics: &'a RunMetrics,
    /// Its alerts' firings (`RunResult::alerts`): alerts.csv when the model has alerts.
    pub alerts: &'a [AlertRun],
    pub facts: &'a RunFacts,
}

/// Writes a run and its variants under `out`. The files of the previous run in each of these
/// directories are removed first, all of them before any new one is written: a run killed
/// half-way leaves some of the new files, never new ones beside old ones. Nothing else in the
/// directory is touched (a variant's directory from an older run stays, as do charts).
pub fn write_runs(out: &Path, runs: &[RunOutput]) -> Result<()> {
    let dirs: Vec<PathBuf> = runs
        .iter()
        .map(|r| r.sub.map_or_else(|| out.to_path_buf(), |s| out.join(s)))
        .collect();
    for dir in &dirs {
        for f in RUN_FILES.iter().chain([&ALERTS_FILE]) {
            let path = dir.join(f);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_error(&path)(e));
                }
                _ => {}
            }
        }
    }
    for (dir, run) in dirs.iter().zip(runs) {
        write_run(dir, run)?;
    }
    Ok(())
}

/// Writes the files of a run into `dir`: the three above and `scenario.toml`, the effective
/// scenario (overrides applied), from which `cascade report` redraws topology and faults; and
/// first, when the scenario has alerts, alerts.csv.
pub fn write_run(dir: &Path, run: &RunOutput) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    if !run.model.alerts.is_empty() {
        write_atomic(&dir.join(ALERTS_FILE), alerts_csv(run.alerts).as_bytes())?;
    }
    for f in RUN_FILES {
        let path = dir.join(f);
        match f {
            "timeseries.csv" => write_atomic_with(&path, |w| write_timeseries(w, run.metrics))?,
            "scenario.toml" => write_atomic(&path, run.scenario_text.as_bytes())?,
            "run.json" => write_atomic(&path, run_json(run.model, run.facts).as_bytes())?,
            _ => write_atomic(&path, summary_json(run.model, run.metrics).as_bytes())?,
        }
    }
    Ok(())
}
