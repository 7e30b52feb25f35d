//! A sweep's directory: `sweep.json` (the manifest: what the sweep is), `scenario.toml` (its
//! base scenario), and one record per finished run in `runs/`. Every file is written to a
//! temporary name and renamed, so a record that exists is whole: a killed sweep loses only the
//! runs that were in flight, and re-running into the same directory skips the rest.

use super::{Plan, RunKey};
use crate::atomic::{io_error, write_atomic};
use crate::error::{Error, Result};
use crate::json::{self, Entries};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "sweep.json";
pub const RECORDS: &str = "runs";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestParam {
    pub path: String,
    /// As shown in the tables: `100ms`, not the TOML string `"100ms"`.
    pub values: Vec<String>,
}

/// What a sweep is. Two directories hold parts of the same sweep exactly when their manifests
/// are equal, so shards can be merged and a resumed sweep cannot mix in another one's runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The version of cascade that ran it: another engine may give other numbers.
    pub cascade: String,
    pub scenario: String,
    pub seed: u64,
    /// FNV-1a of the base scenario text (after `--set`), in hex.
    pub scenario_hash: String,
    pub params: Vec<ManifestParam>,
    /// The variants run: `base` and the scenario's `[[variant]]`s, or those `--variant` named.
    pub variants: Vec<String>,
    /// The scenario's variants `--variant` left out (absent when every variant runs, so a
    /// manifest without it reads as before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    pub reps: u32,
    pub points: usize,
    pub runs: usize,
    /// The metric patterns `runs.csv` and `runs.json` are narrowed to (`--runs-metric`;
    /// absent when they hold every metric, so a manifest without it reads as before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs_metrics: Vec<String>,
}

impl Manifest {
    pub fn of(plan: &Plan) -> Manifest {
        Manifest {
            cascade: env!("CARGO_PKG_VERSION").into(),
            scenario: plan.scenario.clone(),
            seed: plan.seed,
            scenario_hash: format!("{:016x}", fnv1a(plan.source.as_bytes())),
            params: plan
                .params
                .iter()
                .map(|p| ManifestParam {
                    path: p.path.clone(),
                    values: p
                        .values
                        .iter()
                        .map(|v| v.trim_matches('"').to_string())
                        .collect(),
                })
                .collect(),
            variants: plan.variants.clone(),
            left_out: plan.left_out.clone(),
            reps: plan.reps,
            points: plan.points(),
            runs: plan.runs(),
            runs_metrics: plan.runs_metrics.clone(),
        }
    }

    pub fn text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain JSON values");
        s.push('\n');
        s
    }

    /// Per point, the value of each parameter: every combination, the first parameter slowest.
    pub fn point_values(&self) -> Vec<Vec<String>> {
        let lists: Vec<Vec<String>> = self.params.iter().map(|p| p.values.clone()).collect();
        crate::scenario::grid::product(&lists)
    }

    pub fn key(&self, index: usize) -> RunKey {
        RunKey::of(index, self.variants.len(), self.reps)
    }
}

/// The base scenario `dir` holds, checked against the manifest's hash of it: a truncated or
/// edited `scenario.toml` would otherwise be copied into the merged sweep.
pub fn read_scenario(dir: &Path, manifest: &Manifest) -> Result<String> {
    let path = dir.join("scenario.toml");
    let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
    if format!("{:016x}", fnv1a(text.as_bytes())) != manifest.scenario_hash {
        return Err(Error::Usage(format!(
            "{}: not the scenario this sweep ran (its hash differs from {}'s): the file is \
             truncated or was edited",
            path.display(),
            MANIFEST
        )));
    }
    Ok(text)
}

/// FNV-1a, 64 bits: a stable hash of the scenario text, so a store can tell
/// whether it was written for the same scenario (std's hasher is not stable).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub index: usize,
    pub point: usize,
    pub variant: String,
    pub rep: u32,
    pub seed: u64,
    /// Summary metrics in the run's own order.
    pub metrics: Vec<(String, f64)>,
}

impl Record {
    /// Compact, one metric a line; numbers in `number::exact`'s form, the shortest that reads
    /// back to the same value, so tables built from records equal tables built from the runs.
    pub fn text(&self) -> String {
        json::to_text(self, record_layout)
    }
}

/// A record is read by programs only: compact, but its metrics one a line, so a diff of two
/// records shows which metric moved.
pub fn record_layout(depth: usize, key: Option<&str>) -> Entries {
    match (depth, key) {
        (2, Some("metrics")) => Entries::Lines {
            indent: 0,
            close: None,
        },
        _ => Entries::Compact,
    }
}

pub fn record_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(RECORDS).join(format!("run-{index:06}.json"))
}

/// Makes `dir` the home of this sweep: a new directory gets the manifest and the base scenario;
/// one that already has a manifest must hold the same sweep.
pub fn prepare(dir: &Path, manifest: &Manifest, source: &str) -> Result<()> {
    let path = dir.join(MANIFEST);
    if path.exists() {
        let found = read_manifest(dir)?;
        if &found != manifest {
            return Err(Error::Usage(format!(
                "{} holds another sweep ({}); give another --out, or delete the directory to start over",
                dir.display(),
                difference(&found, manifest)
            )));
        }
        return Ok(());
    }
    write_atomic(&dir.join("scenario.toml"), source.as_bytes())?;
    write_atomic(&path, manifest.text().as_bytes())
}

/// The first field in which two manifests differ, for the error that refuses to mix them.
pub fn difference(a: &Manifest, b: &Manifest) -> String {
    let fields = [
        ("cascade version", a.cascade != b.cascade),
        ("scenario", a.scenario != b.scenario),
        ("seed", a.seed != b.seed),
        ("scenario text", a.scenario_hash != b.scenario_hash),
        ("parameters", a.params != b.params),
        ("variants", a.variants != b.variants),
        ("replications", a.reps != b.reps),
        ("runs.csv metrics", a.runs_metrics != b.runs_metrics),
    ];
    fields
        .iter()
        .find(|(_, differs)| *differs)
        .map_or("the same sweep".into(), |(what, _)| {
            if *what == "variants" {
                // Run indices count the variants, so another set is another sweep; say which.
                format!(
                    "its variants differ: one runs {}, the other {}; --variant picks them, and \
                     a sweep resumes or merges only with the same set",
                    a.variants.join(", "),
                    b.variants.join(", ")
                )
            } else if *what == "runs.csv metrics" {
                let list = |m: &Manifest| match m.runs_metrics.is_empty() {
                    true => "every metric".to_string(),
                    false => m.runs_metrics.join(", "),
                };
                format!(
                    "its runs.csv metrics differ: one keeps {}, the other {}; --runs-metric \
                     picks them, and a sweep resumes or merges only with the same patterns",
                    list(a),
                    list(b)
                )
            } else {
                format!("its {what} differ")
            }
        })
}

pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{}: not a cascade sweep manifest: {e}",
            path.display()
        ))
    })
}

/// Which runs of `total` already have a record in `dir`.
pub fn completed(dir: &Path, total: usize) -> Result<Vec<bool>> {
    let mut done = vec![false; total];
    let records = dir.join(RECORDS);
    if !records.exists() {
        return Ok(done);
    }
    let entries = std::fs::read_dir(&records).map_err(io_error(&records))?;
    for entry in entries {
        let name = entry.map_err(io_error(&records))?.file_name();
        let index = name
            .to_str()
            .and_then(|n| n.strip_prefix("run-")?.strip_suffix(".json")?.parse().ok());
        if let Some(i) = index.filter(|&i: &usize| i < total) {
            done[i] = true;
        }
    }
    Ok(done)
}

pub fn write_record(dir: &Path, record: &Record) -> Result<()> {
    write_atomic(&record_path(dir, record.index), record.text().as_bytes())
}

pub fn read_record_text(dir: &Path, index: usize) -> Result<String> {
    let path = record_path(dir, index);
    std::fs::read_to_string(&path).map_err(io_error(&path))
}

pub fn read_record(dir: &Path, index: usize) -> Result<Record> {
    let text = read_record_text(dir, index)?;
    let record: Record = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{}: not a cascade run record: {e}",
            record_path(dir, index).display()
        ))
    })?;
    if record.index != index {
        return Err(Error::Usage(format!(
            "{}: holds run {}, not run {index}",
            record_path(dir, index).display(),
            record.index
        )));
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_equal() {
        let r = Record {
            index: 3,
            point: 1,
            variant: "base".into(),
            rep: 2,
            seed: u64::MAX,
            metrics: vec![
                ("a.b".into(), 0.1 + 0.2),
                ("c".into(), 21477.0),
                ("d".into(), 1e-300),
            ],
        };
        let text = r.text();
        assert_eq!(
            text,
            format!(
                "{{\"index\":3,\"point\":1,\"variant\":\"base\",\"rep\":2,\"seed\":18446744073709551615,\"metrics\":[\n[\"a.b\",0.30000000000000004],\n[\"c\",21477],\n[\"d\",{}]]}}\n",
                1e-300
            )
        );
        let back: Record = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
