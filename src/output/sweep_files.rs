//! A finished sweep's tables: `runs.csv` / `runs.json` (one row per run: point, variant,
//! replication, seed, parameters, every metric) and `points.csv` / `points.json` (per point,
//! variant and metric: replications, mean, standard deviation, 95% confidence interval).

use super::csv_text::CsvText;
use crate::atomic::write_atomic;
use crate::error::Result;
use crate::number::exact as number;
use crate::sweep::aggregate::Results;
use std::fmt::Write as _;
use std::path::Path;

pub fn write_sweep(dir: &Path, r: &Results) -> Result<()> {
    write_atomic(&dir.join("runs.csv"), runs_csv(r).as_bytes())?;
    write_atomic(&dir.join("points.csv"), points_csv(r).as_bytes())?;
    write_atomic(&dir.join("runs.json"), runs_json(r).as_bytes())?;
    write_atomic(&dir.join("points.json"), points_json(r).as_bytes())
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// `{"path": "value", ...}` for a point.
fn param_object(r: &Results, point: usize) -> String {
    let fields: Vec<String> = r
        .manifest
        .params
        .iter()
        .zip(&r.points[point])
        .map(|(p, v)| format!("{}: {}", json_str(&p.path), json_str(v)))
        .collect();
    format!("{{{}}}", fields.join(", "))
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

pub fn runs_json(r: &Results) -> String {
    let mut out = String::from("[");
    for (i, run) in r.runs.iter().enumerate() {
        let k = run.key;
        let _ = write!(
            out,
            "{}\n  {{\"point\": {}, \"variant\": {}, \"rep\": {}, \"seed\": {}, \"params\": {}, \"metrics\": {{",
            if i == 0 { "" } else { "," },
            k.point,
            json_str(&r.manifest.variants[k.variant]),
            k.rep,
            run.seed,
            param_object(r, k.point)
        );
        let fields: Vec<String> = r
            .names
            .iter()
            .zip(&run.values)
            .filter_map(|(n, v)| v.map(|v| format!("{}: {}", json_str(n), number(v))))
            .collect();
        out.push_str(&fields.join(", "));
        out.push_str("}}");
    }
    out.push_str("\n]\n");
    out
}

pub fn points_json(r: &Results) -> String {
    let mut out = String::from("[");
    let mut first = true;
    for point in 0..r.points.len() {
        for (variant, vname) in r.manifest.variants.iter().enumerate() {
            let _ = write!(
                out,
                "{}\n  {{\"point\": {point}, \"variant\": {}, \"params\": {}, \"metrics\": {{",
                if first { "" } else { "," },
                json_str(vname),
                param_object(r, point)
            );
            first = false;
            let fields: Vec<String> = r
                .names
                .iter()
                .zip(r.stats(point, variant))
                .filter_map(|(n, s)| {
                    s.map(|s| {
                        format!(
                            "\n    {}: {{\"n\": {}, \"mean\": {}, \"sd\": {}, \"ci95_low\": {}, \"ci95_high\": {}}}",
                            json_str(n),
                            s.n,
                            number(s.mean),
                            number(s.sd),
                            number(s.ci95.0),
                            number(s.ci95.1)
                        )
                    })
                })
                .collect();
            out.push_str(&fields.join(","));
            out.push_str("}}");
        }
    }
    out.push_str("\n]\n");
    out
}
