//! A sweep's files: `runs.csv` (one row per run, every metric a column) and `points.csv` (per
//! point and metric: replications, mean, standard deviation, 95% confidence interval).

use super::files::{number, write_atomic};
use crate::error::Result;
use crate::sweep::{Sweep, stats::summarize};
use std::path::Path;

pub fn write_sweep(dir: &Path, sweep: &Sweep) -> Result<()> {
    write_atomic(&dir.join("runs.csv"), runs_csv(sweep).as_bytes())?;
    write_atomic(&dir.join("points.csv"), points_csv(sweep).as_bytes())
}

/// Every metric name the runs produced, in order of first appearance.
fn metric_names(sweep: &Sweep) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for run in &sweep.runs {
        for (n, _) in &run.metrics.summary {
            if seen.insert(n.as_str()) {
                names.push(n);
            }
        }
    }
    names
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn runs_csv(sweep: &Sweep) -> String {
    let names = metric_names(sweep);
    let mut out = String::from("point,rep,seed");
    for p in &sweep.params {
        out.push(',');
        out.push_str(&csv_field(&p.path));
    }
    for n in &names {
        out.push(',');
        out.push_str(n);
    }
    out.push('\n');
    for run in &sweep.runs {
        out.push_str(&format!("{},{},{}", run.point, run.rep, run.seed));
        for v in &sweep.points[run.point] {
            out.push(',');
            out.push_str(&csv_field(v));
        }
        for n in &names {
            out.push(',');
            if let Some(v) = run.metrics.get(n) {
                out.push_str(&number(v));
            }
        }
        out.push('\n');
    }
    out
}

pub fn points_csv(sweep: &Sweep) -> String {
    let names = metric_names(sweep);
    let mut out = String::from("point");
    for p in &sweep.params {
        out.push(',');
        out.push_str(&csv_field(&p.path));
    }
    out.push_str(",metric,n,mean,sd,ci95_low,ci95_high\n");
    for (point, values) in sweep.points.iter().enumerate() {
        let runs: Vec<_> = sweep.runs.iter().filter(|r| r.point == point).collect();
        let prefix: String = values
            .iter()
            .map(|v| format!(",{}", csv_field(v)))
            .collect();
        for n in &names {
            let samples: Vec<f64> = runs.iter().filter_map(|r| r.metrics.get(n)).collect();
            if samples.is_empty() {
                continue;
            }
            let s = summarize(&samples);
            out.push_str(&format!(
                "{point}{prefix},{n},{},{},{},{},{}\n",
                s.n,
                number(s.mean),
                number(s.sd),
                number(s.ci95.0),
                number(s.ci95.1)
            ));
        }
    }
    out
}
