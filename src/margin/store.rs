//! A margin's directory (`cascade margin --store DIR`): `margin.json` (what scenario the runs
//! are of), `scenario.toml` (its text after `--set`), and one record per run in `runs/`, named
//! by the point it probed and its replication. A run is a pure function of its model and seed,
//! so a recorded run stands for a fresh one: a margin run again into the same directory
//! (resumed after a kill, refined with more `--max-runs` or a finer `--tolerance`, or fed by
//! the directories of its shards through `cascade merge`) makes only the runs it lacks, and
//! finds the same margins. Records are written to a temporary name and renamed, as a sweep's
//! are, so a record that exists is whole.

use crate::atomic::{io_error, write_atomic};
use crate::error::{Error, Result};
use crate::json;
// Laid out as a sweep's records are: compact, one metric a line.
use crate::sweep::store::{fnv1a, record_layout};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "margin.json";
pub const RECORDS: &str = "runs";

/// What the runs of a margin's directory are runs of. Two directories hold runs of the same
/// margin exactly when their manifests are equal; the search's settings (`--reps`,
/// `--max-runs`, `--tolerance`, the faults and axes) are not in it, since a run at a point
/// does not depend on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The version of cascade that ran them: another engine may give other numbers.
    pub cascade: String,
    pub scenario: String,
    pub seed: u64,
    /// FNV-1a of the scenario text after `--set`, in hex.
    pub scenario_hash: String,
}

impl Manifest {
    pub fn of(scenario: &str, seed: u64, source: &str) -> Manifest {
        Manifest {
            cascade: env!("CARGO_PKG_VERSION").into(),
            scenario: scenario.into(),
            seed,
            scenario_hash: format!("{:016x}", fnv1a(source.as_bytes())),
        }
    }

    fn text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain JSON values");
        s.push('\n');
        s
    }

    /// The first field in which two manifests differ.
    fn difference(&self, other: &Manifest) -> &'static str {
        if self.cascade != other.cascade {
            "cascade version"
        } else if self.scenario != other.scenario {
            "scenario"
        } else if self.seed != other.seed {
            "seed"
        } else {
            "scenario text (after --set)"
        }
    }
}

/// A point a margin probes: its model is the scenario scaled as the point says. The load axis
/// does not depend on the fault (every fault's load search runs the same models), so its
/// points are shared by all of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Point {
    /// The scenario as written, unscaled (the map's reference runs).
    Written,
    Load(f64),
    Trigger {
        fault: usize,
        x: f64,
    },
    Magnitude {
        fault: usize,
        x: f64,
    },
    /// A cell of fault `fault`'s probability map: its duration times `trigger`, the load times
    /// `load`.
    Map {
        fault: usize,
        trigger: f64,
        load: f64,
    },
}

impl Point {
    /// The point's name in a record's file name: multipliers as the bits of their f64, so two
    /// points share a name only when they are the same point.
    pub fn key(&self) -> String {
        let bits = |x: f64| format!("{:016x}", x.to_bits());
        match *self {
            Point::Written => "written".into(),
            Point::Load(x) => format!("load-{}", bits(x)),
            Point::Trigger { fault, x } => format!("fault{fault}-trigger-{}", bits(x)),
            Point::Magnitude { fault, x } => format!("fault{fault}-magnitude-{}", bits(x)),
            Point::Map {
                fault,
                trigger,
                load,
            } => format!("fault{fault}-map-{}-{}", bits(trigger), bits(load)),
        }
    }

    /// The point in words, written into its records for whoever reads them.
    fn label(&self) -> String {
        match *self {
            Point::Written => "as written".into(),
            Point::Load(x) => format!("load ×{x}"),
            Point::Trigger { fault, x } => format!("fault {fault}, duration ×{x}"),
            Point::Magnitude { fault, x } => format!("fault {fault}, size ×{x}"),
            Point::Map {
                fault,
                trigger,
                load,
            } => format!("fault {fault}, duration ×{trigger}, load ×{load}"),
        }
    }
}

/// One finished run at a point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub key: String,
    pub point: String,
    pub rep: u32,
    pub seed: u64,
    /// Summary metrics in the run's own order, each number the shortest that reads back to
    /// the same value, so a margin found from records equals one found from fresh runs.
    pub metrics: Vec<(String, f64)>,
}

impl Record {
    pub fn of(point: &Point, rep: u32, seed: u64, metrics: Vec<(String, f64)>) -> Record {
        Record {
            key: point.key(),
            point: point.label(),
            rep,
            seed,
            metrics,
        }
    }
}

pub fn record_path(dir: &Path, key: &str, rep: u32) -> PathBuf {
    dir.join(RECORDS).join(format!("{key}-r{rep}.json"))
}

/// Makes `dir` the home of this margin's runs: a new directory gets the manifest and the
/// scenario; one that has a manifest must hold runs of the same scenario.
pub fn prepare(dir: &Path, manifest: &Manifest, source: &str) -> Result<()> {
    let path = dir.join(MANIFEST);
    if path.exists() {
        let found = read_manifest(dir)?;
        if &found != manifest {
            return Err(Error::Usage(format!(
                "{} holds the runs of another margin (its {} differs); give another --store, or delete the directory to start over",
                dir.display(),
                found.difference(manifest)
            )));
        }
        return Ok(());
    }
    write_atomic(&dir.join("scenario.toml"), source.as_bytes())?;
    write_atomic(&path, manifest.text().as_bytes())
}

/// Whether `dir` is a margin's directory (it has a manifest).
pub fn is_margin(dir: &Path) -> bool {
    dir.join(MANIFEST).exists()
}

pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{}: not a cascade margin manifest: {e}",
            path.display()
        ))
    })
}

pub fn write_record(dir: &Path, record: &Record) -> Result<()> {
    let path = record_path(dir, &record.key, record.rep);
    write_atomic(&path, json::to_text(record, record_layout).as_bytes())
}

/// The record of replication `rep` at the point named `key`, if `dir` has it; checked to be
/// that run (its key, replication and seed), so a file copied in from elsewhere cannot stand
/// for it.
pub fn read_record(dir: &Path, key: &str, rep: u32, seed: u64) -> Result<Option<Record>> {
    let path = record_path(dir, key, rep);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&path)(e)),
    };
    let record: Record = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{}: not a cascade margin run record: {e}",
            path.display()
        ))
    })?;
    if (record.key.as_str(), record.rep, record.seed) != (key, rep, seed) {
        return Err(Error::Usage(format!(
            "{}: holds another run ({} replication {}, seed {}) than its name says",
            path.display(),
            record.key,
            record.rep,
            record.seed
        )));
    }
    Ok(Some(record))
}

/// Joins the runs of margin directories `dirs` (a margin's shards, or its sittings) into
/// `out`, which may be one of them: every record is read and checked before it is copied.
/// Returns how many records `out` gained.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<usize> {
    let manifest = read_manifest(&dirs[0])?;
    for dir in &dirs[1..] {
        let other = read_manifest(dir)?;
        if other != manifest {
            return Err(Error::Usage(format!(
                "{} and {} hold runs of different margins (their {} differs): only the shards of one margin can be merged",
                dirs[0].display(),
                dir.display(),
                other.difference(&manifest)
            )));
        }
    }
    let source_path = dirs[0].join("scenario.toml");
    let source = std::fs::read_to_string(&source_path).map_err(io_error(&source_path))?;
    if format!("{:016x}", fnv1a(source.as_bytes())) != manifest.scenario_hash {
        return Err(Error::Usage(format!(
            "{}: not the scenario these runs are of (its hash differs from {MANIFEST}'s): the file is truncated or was edited",
            source_path.display()
        )));
    }
    prepare(out, &manifest, &source)?;
    let mut gained = 0;
    for dir in dirs {
        for (key, rep) in record_names(dir)? {
            if record_path(out, &key, rep).exists() {
                continue;
            }
            let path = record_path(dir, &key, rep);
            let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
            let record: Record = serde_json::from_str(&text).map_err(|e| {
                Error::Usage(format!(
                    "{}: not a cascade margin run record: {e}",
                    path.display()
                ))
            })?;
            if (record.key.as_str(), record.rep) != (key.as_str(), rep) {
                return Err(Error::Usage(format!(
                    "{}: holds another run ({} replication {}) than its name says",
                    path.display(),
                    record.key,
                    record.rep
                )));
            }
            write_atomic(&record_path(out, &key, rep), text.as_bytes())?;
            gained += 1;
        }
    }
    Ok(gained)
}

/// The (point key, replication) of every record file in `dir`, in name order.
fn record_names(dir: &Path) -> Result<Vec<(String, u32)>> {
    let records = dir.join(RECORDS);
    if !records.exists() {
        return Ok(Vec::new());
    }
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&records).map_err(io_error(&records))? {
        let name = entry.map_err(io_error(&records))?.file_name();
        let parsed = name.to_str().and_then(|n| {
            let (key, rep) = n.strip_suffix(".json")?.rsplit_once("-r")?;
            Some((key.to_string(), rep.parse().ok()?))
        });
        // Anything else (a temporary file a killed run left) is not a record.
        names.extend(parsed);
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_named_by_their_exact_multipliers() {
        // The geometric midpoint of 1 and 2, computed twice, and its neighbour a bit away.
        let a = Point::Load((1.0f64 * 2.0).sqrt());
        let b = Point::Load(2f64.sqrt());
        let c = Point::Load(f64::from_bits(2f64.sqrt().to_bits() + 1));
        assert_eq!(a.key(), b.key());
        assert_ne!(a.key(), c.key());
        assert_eq!(Point::Load(1.0).key(), "load-3ff0000000000000");
        assert_ne!(
            Point::Trigger { fault: 0, x: 2.0 }.key(),
            Point::Magnitude { fault: 0, x: 2.0 }.key()
        );
        assert_ne!(
            Point::Trigger { fault: 0, x: 2.0 }.key(),
            Point::Trigger { fault: 1, x: 2.0 }.key()
        );
    }

    #[test]
    fn a_record_reads_back_equal_and_is_checked_against_its_name() {
        let dir = std::env::temp_dir().join(format!("cascade-margin-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let point = Point::Map {
            fault: 1,
            trigger: 0.5,
            load: 2f64.powf(0.25),
        };
        let r = Record::of(
            &point,
            2,
            77,
            vec![("a".into(), 0.1 + 0.2), ("b".into(), 1e-300)],
        );
        write_record(&dir, &r).unwrap();
        assert_eq!(read_record(&dir, &point.key(), 2, 77).unwrap(), Some(r));
        assert_eq!(read_record(&dir, &point.key(), 1, 77).unwrap(), None);
        let err = read_record(&dir, &point.key(), 2, 78)
            .unwrap_err()
            .to_string();
        assert!(err.contains("seed 77"), "{err}");
        assert_eq!(record_names(&dir).unwrap(), vec![(point.key(), 2)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
