//! Reading a run's directory: summary.json, timeseries.csv and scenario.toml (the effective
//! scenario), plus each variant's subdirectory. Charts and the report read these files, never
//! the engine; run.json (wall-clock facts) is never read.

use super::csv_text::{csv_error, read_text, reader};
use super::run_files::{ALERTS_FILE, ALERTS_HEADER, AlertRow, SERIES_HEADER, SeriesRow};
use crate::atomic::io_error;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::scenario::Expect;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One run as its files describe it.
#[derive(Debug, Clone)]
pub struct RunData {
    pub dir: PathBuf,
    /// `base` for the scenario itself, else the variant's name.
    pub label: String,
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Summary metrics, by name.
    pub metrics: BTreeMap<String, f64>,
    /// Bucket start times, s (warm-up included).
    pub times: Vec<f64>,
    /// Per-bucket values by metric name, aligned with `times`.
    pub series: BTreeMap<String, Vec<f64>>,
    /// Bucket width, s.
    pub bucket_s: f64,
    /// The effective scenario, compiled again; absent for directories written before runs
    /// carried scenario.toml.
    pub model: Option<Model>,
    /// Its `[[expect]]`s (none without scenario.toml).
    pub expects: Vec<Expect>,
    /// Its `[[variant]]`s as the scenario loader read them, in file order (none without
    /// scenario.toml).
    pub variants: Vec<crate::scenario::Variant>,
    /// Its alerts' firing intervals as alerts.csv lists them, [start_s, end_s) s from t = 0,
    /// each alert's in time order (none without alerts.csv, a run without `[[alert]]`s).
    pub alert_firings: Vec<AlertRow<f64, String>>,
}

impl RunData {
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics.get(name).copied()
    }

    pub fn series(&self, name: &str) -> Option<&[f64]> {
        self.series.get(name).map(Vec::as_slice)
    }

    /// The end of the run, s.
    pub fn end_s(&self) -> f64 {
        let from_series = self.times.last().map_or(0.0, |t| t + self.bucket_s);
        from_series.max(self.warmup_s + self.duration_s)
    }

    /// Names of the clients, services or edges (`kind` = `client`, `service`, `edge`): from
    /// the model when there is one, else from the metric names. Wholes only: an operation's
    /// edge (or metrics) are parts of its pair's, which charts and reports show.
    pub fn entities(&self, kind: &str) -> Vec<String> {
        if let Some(m) = &self.model {
            return match kind {
                "client" => m.clients.iter().map(|c| c.name.clone()).collect(),
                "service" => m.services.iter().map(|s| s.name.clone()).collect(),
                // The pairs: an operation's edge is a part of its pair's.
                _ => (m.edges.iter().filter(|e| e.total.is_none()))
                    .map(|e| e.name.clone())
                    .collect(),
            };
        }
        let parts = if kind == "edge" { 2 } else { 1 };
        let mut names: Vec<String> = Vec::new();
        for name in self.metrics.keys() {
            let Some(rest) = name.strip_prefix(kind).and_then(|r| r.strip_prefix('.')) else {
                continue;
            };
            let fields: Vec<&str> = rest.split('.').collect();
            if fields.len() > parts {
                let entity = fields[..parts].join(".");
                if !names.contains(&entity) {
                    names.push(entity);
                }
            }
        }
        names
    }

    /// The operations of a client's mix, in mix order (none for a client without a mix): from
    /// the model when there is one, else from the `client.<c>.op.<o>.requests` names.
    pub fn client_operations(&self, client: &str) -> Vec<String> {
        if let Some(m) = &self.model {
            return (m
                .clients
                .iter()
                .filter(|c| c.name == client && c.mix.is_some()))
            .flat_map(|c| c.calls())
            .map(|call| {
                m.services[call.to].operations[usize::from(call.operation) - 1]
                    .name
                    .clone()
            })
            .collect();
        }
        let prefix = format!("client.{client}.op.");
        (self.metrics.keys())
            .filter_map(|k| k.strip_prefix(&prefix)?.strip_suffix(".requests"))
            .filter(|o| !o.contains('.'))
            .map(str::to_string)
            .collect()
    }

    /// The share of the requests finished in `[from_s, to_s)` (bucket starts) that
    /// succeeded, for a client or one of its operations (`prefix`, `client.<c>` or
    /// `client.<c>.op.<o>`), from the time series; none when none finished.
    pub fn success_between(&self, prefix: &str, from_s: f64, to_s: f64) -> Option<f64> {
        let in_span: Vec<usize> = (0..self.times.len())
            .filter(|&i| self.times[i] >= from_s && self.times[i] < to_s)
            .collect();
        let sum = |name: &str| -> f64 {
            self.series(name)
                .map_or(0.0, |v| in_span.iter().map(|&i| v[i]).sum())
        };
        let success = sum(&format!("{prefix}.success"));
        let errors_prefix = format!("{prefix}.errors.");
        let errors: f64 = (self.series.keys())
            .filter(|k| {
                k.strip_prefix(&errors_prefix)
                    .is_some_and(|r| !r.contains('.'))
            })
            .map(|k| sum(k))
            .sum();
        (success + errors > 0.0).then(|| success / (success + errors))
    }
}

/// Whether `dir` holds a run's files.
pub fn is_run_dir(dir: &Path) -> bool {
    dir.join("summary.json").is_file()
}

fn bad(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {what}", path.display()))
}

/// Reads one run's directory (not its variants).
pub fn read_run(dir: &Path, label: &str) -> Result<RunData> {
    let path = dir.join("summary.json");
    let json: serde_json::Value = serde_json::from_str(&read_text(&path)?)
        .map_err(|e| bad(&path, format!("not JSON: {e}")))?;
    let metrics: BTreeMap<String, f64> = json
        .get("metrics")
        .and_then(|m| m.as_object())
        .ok_or_else(|| bad(&path, "no \"metrics\" object"))?
        .iter()
        .map(|(k, v)| {
            // A null is how serde_json writes a NaN or an infinity: a bug at its source, never
            // a value to draw.
            let v = v
                .as_f64()
                .ok_or_else(|| bad(&path, format!("metric `{k}` is {v}, not a number")))?;
            Ok((k.clone(), v))
        })
        .collect::<Result<_>>()?;
    let num = |k: &str| json.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
    let scenario = json
        .get("scenario")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string();
    // Without its time series a run's charts would be empty panels drawn over good ones.
    let ts = dir.join("timeseries.csv");
    if !ts.is_file() {
        return Err(bad(
            &ts,
            "missing: the run's directory is incomplete (was the run stopped?); run it again",
        ));
    }
    let (times, series) = read_timeseries(&ts)?;
    let toml = dir.join("scenario.toml");
    let (model, expects, variants) = if toml.is_file() {
        let s = crate::scenario::load_str(&toml.display().to_string(), &read_text(&toml)?, &[])?;
        (Some(s.model), s.expects, s.variants)
    } else {
        (None, Vec::new(), Vec::new())
    };
    let alerts = dir.join(ALERTS_FILE);
    let alert_firings = if alerts.is_file() {
        read_alerts(&alerts)?
    } else {
        Vec::new()
    };
    let bucket_s = match (&model, times.as_slice()) {
        (Some(m), _) => m.bucket as f64 / 1e9,
        (None, [a, b, ..]) => b - a,
        _ => 1.0,
    };
    Ok(RunData {
        dir: dir.to_path_buf(),
        label: label.to_string(),
        scenario,
        // Read as an integer: seeds run to 2^64 - 1, past what a float holds exactly.
        seed: json.get("seed").and_then(|v| v.as_u64()).unwrap_or(0),
        duration_s: num("duration_s"),
        warmup_s: num("warmup_s"),
        metrics,
        times,
        series,
        bucket_s,
        model,
        expects,
        variants,
        alert_firings,
    })
}

/// alerts.csv (`alert,start_s,end_s`), its rows in file order.
fn read_alerts(path: &Path) -> Result<Vec<AlertRow<f64, String>>> {
    let text = read_text(path)?;
    let mut rows = reader(&text);
    if rows.headers().map_err(csv_error(path))? != ALERTS_HEADER[..] {
        return Err(bad(path, "expected the header `alert,start_s,end_s`"));
    }
    (rows.deserialize())
        .map(|row| row.map_err(|e| csv_error(path)(e)))
        .collect()
}

type Series = (Vec<f64>, BTreeMap<String, Vec<f64>>);

/// Long form `time_s,metric,value`, buckets in time order, into one vector per metric.
fn read_timeseries(path: &Path) -> Result<Series> {
    let text = read_text(path)?;
    let mut rows = reader(&text);
    if rows.headers().map_err(csv_error(path))? != SERIES_HEADER[..] {
        return Err(bad(path, "expected the header `time_s,metric,value`"));
    }
    let mut times: Vec<f64> = Vec::new();
    let mut series: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for row in rows.deserialize() {
        let row: SeriesRow<f64, String> = row.map_err(csv_error(path))?;
        if times.last() != Some(&row.time_s) {
            times.push(row.time_s);
        }
        let column = series.entry(row.metric).or_default();
        // A metric missing from some bucket reads as 0 there.
        column.resize(times.len() - 1, 0.0);
        column.push(row.value);
    }
    for column in series.values_mut() {
        column.resize(times.len(), 0.0);
    }
    Ok((times, series))
}

/// A run and its variants: the base first, then each variant subdirectory, in the order the
/// scenario declares them (directory order for any it does not name).
pub fn read_run_with_variants(dir: &Path) -> Result<Vec<RunData>> {
    let base = read_run(dir, "base")?;
    let declared: Vec<String> = base.variants.iter().map(|v| v.name.clone()).collect();
    let mut subdirs: Vec<(usize, String, PathBuf)> = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(io_error(dir))?;
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if !is_run_dir(&path) {
            continue;
        }
        let name = entry.file_name().to_string_lossy().to_string();
        let rank = declared
            .iter()
            .position(|d| *d == name)
            .unwrap_or(usize::MAX);
        subdirs.push((rank, name, path));
    }
    subdirs.sort();
    let mut runs = vec![base];
    for (_, name, path) in subdirs {
        runs.push(read_run(&path, &name)?);
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_that_is_not_a_number_is_refused() {
        let d = std::env::temp_dir().join(format!("cascade-read-run-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("summary.json"), "{\"metrics\": {\"a\": null}}").unwrap();
        std::fs::write(d.join("timeseries.csv"), "time_s,metric,value\n").unwrap();
        let e = read_run(&d, "base").unwrap_err().to_string();
        assert!(e.ends_with("metric `a` is null, not a number"), "{e}");
        std::fs::write(d.join("summary.json"), "{\"metrics\": {\"a\": 0.5}}").unwrap();
        let r = read_run(&d, "base").unwrap();
        assert_eq!(r.metric("a"), Some(0.5));
        assert!(r.times.is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn alerts_csv_reads_back_its_firings_and_a_wrong_header_is_refused() {
        let d = std::env::temp_dir().join(format!("cascade-read-alerts-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("summary.json"), "{\"metrics\": {}}").unwrap();
        std::fs::write(d.join("timeseries.csv"), "time_s,metric,value\n").unwrap();
        assert!(read_run(&d, "base").unwrap().alert_firings.is_empty());
        let alerts = [crate::alert::AlertRun {
            name: "down".into(),
            firings: vec![(110_000_000_000, 210_500_000_000)],
            missing: None,
        }];
        let path = d.join(ALERTS_FILE);
        std::fs::write(&path, crate::output::run_files::alerts_csv(&alerts)).unwrap();
        let firings = read_run(&d, "base").unwrap().alert_firings;
        let want = AlertRow {
            alert: "down".to_string(),
            start_s: 110.0,
            end_s: 210.5,
        };
        assert_eq!(firings, [want]);
        std::fs::write(&path, "name,start_s,end_s\n").unwrap();
        let e = read_run(&d, "base").unwrap_err().to_string();
        assert!(
            e.ends_with("expected the header `alert,start_s,end_s`"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_seed_past_two_to_the_53_reads_back_exactly() {
        // Read through a float it came back rounded (as 18446744073709551615): the charts'
        // and the report's subtitles named a seed that never ran.
        let d = std::env::temp_dir().join(format!("cascade-read-seed-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let seed = 18_446_744_073_709_551_557u64;
        std::fs::write(
            d.join("summary.json"),
            format!("{{\"seed\": {seed}, \"metrics\": {{}}}}"),
        )
        .unwrap();
        std::fs::write(d.join("timeseries.csv"), "time_s,metric,value\n").unwrap();
        assert_eq!(read_run(&d, "base").unwrap().seed, seed);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn timeseries_read_back_what_was_written() {
        let metrics = crate::metrics::RunMetrics {
            summary: Vec::new(),
            names: vec![
                "client.web.requests".into(),
                "client.web.success_ratio".into(),
            ],
            series: vec![120.0, 0.1 + 0.2, 5.0, 1e-7],
            bucket_ns: 500_000_000,
        };
        let text = crate::output::run_files::timeseries_csv(&metrics);
        assert_eq!(
            text,
            "time_s,metric,value\n\
             0,client.web.requests,120\n\
             0,client.web.success_ratio,0.30000000000000004\n\
             0.5,client.web.requests,5\n\
             0.5,client.web.success_ratio,0.0000001\n"
        );
        let d = std::env::temp_dir().join(format!("cascade-series-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("timeseries.csv");
        std::fs::write(&path, &text).unwrap();
        let (times, series) = read_timeseries(&path).unwrap();
        assert_eq!(times, [0.0, 0.5]);
        assert_eq!(series["client.web.requests"], [120.0, 5.0]);
        assert_eq!(series["client.web.success_ratio"], [0.1 + 0.2, 1e-7]);
        std::fs::write(&path, "time,metric,value\n").unwrap();
        assert!(read_timeseries(&path).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
