//! Reading a sweep's directory: points.csv (per point, variant and metric: n, mean, sd and the
//! 95% interval), sweep.json when present, and scenario.toml (the base scenario) when present.
//! Columns are found by name: the parameter columns are those between `variant` (or `point`,
//! in files without a `variant` column, whose rows are all `base`) and `metric`.

use super::csv_text::{csv_error, read_text, reader};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::scenario::Expect;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One swept parameter: its path and its values in grid order.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub path: String,
    pub values: Vec<String>,
}

/// One row of points.csv.
#[derive(Debug, Clone, PartialEq)]
pub struct PointStat {
    pub point: usize,
    pub variant: String,
    /// The parameters' values, in `SweepData::params` order.
    pub values: Vec<String>,
    pub metric: String,
    pub n: f64,
    pub mean: f64,
    pub sd: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone)]
pub struct SweepData {
    pub dir: PathBuf,
    pub scenario: String,
    pub seed: Option<u64>,
    pub reps: Option<u64>,
    pub params: Vec<Param>,
    pub variants: Vec<String>,
    pub rows: Vec<PointStat>,
    pub model: Option<Model>,
    /// Its `[[expect]]`s (none without scenario.toml).
    pub expects: Vec<Expect>,
}

impl SweepData {
    /// Metric names in order of first appearance.
    pub fn metrics(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for r in &self.rows {
            if !names.contains(&r.metric.as_str()) {
                names.push(&r.metric);
            }
        }
        names
    }

    /// Whether every point holds as many replications as every other (a sweep's); a search's
    /// (`cascade tune`) points hold as many as the round each reached.
    pub fn uniform_reps(&self) -> bool {
        self.rows.windows(2).all(|w| w[0].n == w[1].n)
    }

    /// The row for `metric` and `variant` at the given parameter values.
    pub fn find(&self, metric: &str, variant: &str, values: &[&str]) -> Option<&PointStat> {
        self.rows.iter().find(|r| {
            r.metric == metric
                && r.variant == variant
                && r.values.len() == values.len()
                && r.values.iter().zip(values).all(|(a, b)| a == b)
        })
    }
}

pub fn is_sweep_dir(dir: &Path) -> bool {
    dir.join("points.csv").is_file()
}

fn bad(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {what}", path.display()))
}

pub fn read_sweep(dir: &Path) -> Result<SweepData> {
    let path = dir.join("points.csv");
    let text = read_text(&path)?;
    let mut csv = reader(&text);
    let header: Vec<String> = csv
        .headers()
        .map_err(csv_error(&path))?
        .iter()
        .map(String::from)
        .collect();
    if header.is_empty() {
        return Err(bad(&path, "empty file"));
    }
    let col = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| bad(&path, format!("no `{name}` column in the header")))
    };
    let (point, metric) = (need("point")?, need("metric")?);
    let (n, mean, sd) = (need("n")?, need("mean")?, need("sd")?);
    let (low, high) = (need("ci95_low")?, need("ci95_high")?);
    let variant = col("variant");
    let first_param = variant.unwrap_or(point) + 1;
    if first_param > metric {
        return Err(bad(
            &path,
            "the parameter columns must come before `metric`",
        ));
    }
    let paths: Vec<String> = header[first_param..metric].to_vec();
    let mut params: Vec<Param> = paths
        .iter()
        .map(|p| Param {
            path: p.clone(),
            values: Vec::new(),
        })
        .collect();
    let mut variants: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for record in csv.records() {
        let f = record.map_err(csv_error(&path))?;
        let line = f.position().map_or(0, |p| p.line());
        let num = |c: usize| {
            if f[c].is_empty() {
                return Ok(f64::NAN);
            }
            f[c].parse::<f64>()
                .map_err(|_| bad(&path, format!("line {line}: `{}` is not a number", &f[c])))
        };
        let v = variant.map_or("base".to_string(), |c| f[c].to_string());
        if !variants.contains(&v) {
            variants.push(v.clone());
        }
        let values: Vec<String> = (first_param..metric).map(|c| f[c].to_string()).collect();
        for (p, value) in params.iter_mut().zip(&values) {
            if !p.values.contains(value) {
                p.values.push(value.clone());
            }
        }
        rows.push(PointStat {
            point: num(point)? as usize,
            variant: v,
            values,
            metric: f[metric].to_string(),
            n: num(n)?,
            mean: num(mean)?,
            sd: num(sd)?,
            low: num(low)?,
            high: num(high)?,
        });
    }
    let mut data = SweepData {
        dir: dir.to_path_buf(),
        scenario: String::new(),
        seed: None,
        reps: None,
        params,
        variants,
        rows,
        model: None,
        expects: Vec::new(),
    };
    let toml = dir.join("scenario.toml");
    if toml.is_file() {
        let text = read_text(&toml)?;
        let loaded = crate::scenario::load_str(&toml.display().to_string(), &text, &[])?;
        data.scenario = loaded.model.name.clone();
        data.seed = Some(loaded.model.seed);
        data.model = Some(loaded.model);
        data.expects = loaded.expects;
    }
    read_sweep_json(dir, &mut data)?;
    if data.scenario.is_empty() {
        data.scenario = dir
            .file_name()
            .map_or("sweep".into(), |n| n.to_string_lossy().to_string());
    }
    Ok(data)
}

/// sweep.json, when the sweep wrote one: its name, seed, reps, and the values of each
/// parameter in grid order (which points.csv alone gives only in order of appearance).
fn read_sweep_json(dir: &Path, data: &mut SweepData) -> Result<()> {
    let path = dir.join("sweep.json");
    if !path.is_file() {
        return Ok(());
    }
    let text = read_text(&path)?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(&path, format!("not JSON: {e}")))?;
    if let Some(s) = json.get("scenario").and_then(|v| v.as_str()) {
        data.scenario = s.to_string();
    }
    if let Some(s) = json.get("seed").and_then(|v| v.as_u64()) {
        data.seed = Some(s);
    }
    data.reps = json.get("reps").and_then(|v| v.as_u64());
    for p in json
        .get("params")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let Some(name) = p.get("path").and_then(|v| v.as_str()) else {
            continue;
        };
        let values: Vec<String> = p
            .get("values")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .map(|v| match v.as_str() {
                Some(s) => s.to_string(),
                None => v.to_string(),
            })
            .collect();
        // The manifest holds the values as written; the columns hold them as the tables
        // write them (durations in ms under `<path>_ms`), through the same mapping.
        // (A directory written before keeps the path and the values as written.)
        let column = crate::sweep::columns::column(name, &values);
        let (header, values) = match data.params.iter().any(|q| q.path == column.header) {
            true => (column.header, column.values),
            false => (name.to_string(), values),
        };
        if let Some(param) = data.params.iter_mut().find(|q| q.path == header) {
            // Keep the grid order, and any value the rows hold that the list lacks.
            let mut ordered: Vec<String> = values
                .iter()
                .filter(|v| param.values.contains(v))
                .cloned()
                .collect();
            for v in &param.values {
                if !ordered.contains(v) {
                    ordered.push(v.clone());
                }
            }
            param.values = ordered;
        }
    }
    if let Some(vs) = json.get("variants").and_then(|v| v.as_array()) {
        let mut ordered: Vec<String> = vs
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .filter(|v| data.variants.contains(v))
            .collect();
        for v in &data.variants {
            if !ordered.contains(v) {
                ordered.push(v.clone());
            }
        }
        data.variants = ordered;
    }
    Ok(())
}

/// runs.csv by (point, variant): each replication's metrics, in replication order.
pub type Replications = BTreeMap<(usize, String), BTreeMap<u64, BTreeMap<String, f64>>>;

/// Reads the sweep's runs.csv: `point,variant,rep,seed`, the `params` parameter columns, then
/// one column per metric; a metric a run lacks (an empty field) is left out of its map.
pub fn read_replications(dir: &Path, params: usize) -> Result<Replications> {
    let path = dir.join("runs.csv");
    let text = read_text(&path)?;
    let mut csv = reader(&text);
    let header = csv.headers().map_err(csv_error(&path))?.clone();
    let first_metric = 4 + params;
    if header.len() < first_metric || header.iter().take(3).ne(["point", "variant", "rep"]) {
        return Err(bad(&path, "not a sweep's runs.csv"));
    }
    let mut out = Replications::new();
    for record in csv.records() {
        let f = record.map_err(csv_error(&path))?;
        let line = f.position().map_or(0, |p| p.line());
        let malformed = || bad(&path, format!("line {line}: malformed row"));
        let point: usize = f[0].parse().map_err(|_| malformed())?;
        let rep: u64 = f[2].parse().map_err(|_| malformed())?;
        let metrics = header
            .iter()
            .zip(f.iter())
            .skip(first_metric)
            .filter_map(|(n, v)| Some((n.to_string(), v.parse::<f64>().ok()?)))
            .collect();
        out.entry((point, f[1].to_string()))
            .or_default()
            .insert(rep, metrics);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str, files: &[(&str, &str)]) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("cascade-read-sweep-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for (name, text) in files {
            std::fs::write(d.join(name), text).unwrap();
        }
        d
    }

    #[test]
    fn points_are_read_by_column_name_with_quoted_fields() {
        let d = scratch(
            "points",
            &[(
                "points.csv",
                "point,variant,a.b,metric,n,mean,sd,ci95_low,ci95_high\n\
                 0,\"with,comma\",\"1,2\",m,2,1.5,0.5,0.25,2.75\n\
                 1,base,3,m,1,2,0,,\n",
            )],
        );
        let s = read_sweep(&d).unwrap();
        assert_eq!(s.variants, ["with,comma", "base"]);
        assert_eq!(s.params[0].path, "a.b");
        assert_eq!(s.params[0].values, ["1,2", "3"]);
        let r = &s.rows[0];
        assert_eq!(
            (r.point, r.n, r.mean, r.sd, r.low, r.high),
            (0, 2.0, 1.5, 0.5, 0.25, 2.75)
        );
        assert!(s.rows[1].low.is_nan() && s.rows[1].high.is_nan());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_row_that_is_not_a_number_names_its_line() {
        let d = scratch(
            "bad",
            &[(
                "points.csv",
                "point,variant,metric,n,mean,sd,ci95_low,ci95_high\n0,base,m,2,x,0,0,0\n",
            )],
        );
        let e = read_sweep(&d).unwrap_err().to_string();
        assert!(
            e.ends_with("points.csv: line 2: `x` is not a number"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn replications_skip_the_metrics_a_run_lacks() {
        let d = scratch(
            "runs",
            &[(
                "runs.csv",
                "point,variant,rep,seed,p,m1,m2\n0,base,0,7,1,0.5,\n0,base,1,8,1,0.25,3\n",
            )],
        );
        let r = read_replications(&d, 1).unwrap();
        let reps = &r[&(0, "base".to_string())];
        assert_eq!(reps[&0].len(), 1);
        assert_eq!(reps[&0]["m1"], 0.5);
        assert_eq!(reps[&1]["m2"], 3.0);
        assert!(read_replications(&d, 5).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
