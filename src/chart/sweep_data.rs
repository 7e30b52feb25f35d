//! Reading a sweep's directory: points.csv (per point, variant and metric: n, mean, sd and the
//! 95% interval), sweep.json when present, and scenario.toml (the base scenario) when present.
//! Columns are found by name: the parameter columns are those between `variant` (or `point`,
//! in files without a `variant` column, whose rows are all `base`) and `metric`.

use crate::atomic::io_error;
use crate::error::{Error, Result};
use crate::model::Model;
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

/// Splits one CSV line, honouring double quotes (`"a,b"` and `""` inside them).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

fn bad(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {what}", path.display()))
}

pub fn read_sweep(dir: &Path) -> Result<SweepData> {
    let path = dir.join("points.csv");
    let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
    let mut lines = text.lines().filter(|l| !l.is_empty());
    let header = csv_fields(lines.next().ok_or_else(|| bad(&path, "empty file"))?);
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
    for (i, line) in lines.enumerate() {
        let f = csv_fields(line);
        if f.len() != header.len() {
            return Err(bad(
                &path,
                format!(
                    "line {}: {} fields, the header has {}",
                    i + 2,
                    f.len(),
                    header.len()
                ),
            ));
        }
        let num = |c: usize| {
            if f[c].is_empty() {
                return Ok(f64::NAN);
            }
            f[c].parse::<f64>()
                .map_err(|_| bad(&path, format!("line {}: `{}` is not a number", i + 2, f[c])))
        };
        let v = variant.map_or("base".to_string(), |c| f[c].clone());
        if !variants.contains(&v) {
            variants.push(v.clone());
        }
        let values: Vec<String> = f[first_param..metric].to_vec();
        for (p, value) in params.iter_mut().zip(&values) {
            if !p.values.contains(value) {
                p.values.push(value.clone());
            }
        }
        rows.push(PointStat {
            point: num(point)? as usize,
            variant: v,
            values,
            metric: f[metric].clone(),
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
    };
    let toml = dir.join("scenario.toml");
    if toml.is_file() {
        let text = std::fs::read_to_string(&toml).map_err(io_error(&toml))?;
        let model = crate::scenario::load_str(&toml.display().to_string(), &text, &[])?;
        data.scenario = model.name.clone();
        data.seed = Some(model.seed);
        data.model = Some(model);
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
    let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
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
        if let Some(param) = data.params.iter_mut().find(|q| q.path == name) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_honour_quotes() {
        assert_eq!(csv_fields("a,b,,c"), ["a", "b", "", "c"]);
        assert_eq!(
            csv_fields("\"x,y\",\"say \"\"hi\"\"\""),
            ["x,y", "say \"hi\""]
        );
    }
}
