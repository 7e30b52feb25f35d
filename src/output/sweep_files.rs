//! A finished sweep's tables: `runs.csv` / `runs.json` (one row per run: point, variant,
//! replication, seed, parameters, every metric) and `points.csv` / `points.json` (per point,
//! variant and metric: replications, mean, standard deviation, 95% confidence interval).

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

pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn param_header(r: &Results) -> String {
    r.manifest
        .params
        .iter()
        .map(|p| format!(",{}", csv_field(&p.path)))
        .collect()
}

fn param_fields(r: &Results, point: usize) -> String {
    r.points[point]
        .iter()
        .map(|v| format!(",{}", csv_field(v)))
        .collect()
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

pub fn runs_csv(r: &Results) -> String {
    let mut out = format!("point,variant,rep,seed{}", param_header(r));
    for n in &r.names {
        out.push(',');
        out.push_str(&csv_field(n));
    }
    out.push('\n');
    for run in &r.runs {
        let k = run.key;
        let _ = write!(
            out,
            "{},{},{},{}{}",
            k.point,
            csv_field(&r.manifest.variants[k.variant]),
            k.rep,
            run.seed,
            param_fields(r, k.point)
        );
        for v in &run.values {
            out.push(',');
            if let Some(v) = v {
                out.push_str(&number(*v));
            }
        }
        out.push('\n');
    }
    out
}

pub fn points_csv(r: &Results) -> String {
    let mut out = format!(
        "point,variant{},metric,n,mean,sd,ci95_low,ci95_high\n",
        param_header(r)
    );
    for point in 0..r.points.len() {
        for (variant, vname) in r.manifest.variants.iter().enumerate() {
            let prefix = format!("{point},{}{}", csv_field(vname), param_fields(r, point));
            for (name, s) in r.names.iter().zip(r.stats(point, variant)) {
                let Some(s) = s else { continue };
                let _ = writeln!(
                    out,
                    "{prefix},{},{},{},{},{},{}",
                    csv_field(name),
                    s.n,
                    number(s.mean),
                    number(s.sd),
                    number(s.ci95.0),
                    number(s.ci95.1)
                );
            }
        }
    }
    out
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
