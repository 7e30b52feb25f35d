//! The headline of a sweep: per point (and variant), a few chosen metrics as mean ± the 95%
//! confidence half-width. Printed after a sweep and exported hyperfine-style with
//! `--export-markdown`, `--export-csv` and `--export-json`.

use super::csv_text::CsvText;
use super::text_table::{Rule, Table};
use crate::error::{Error, Result};
use crate::metrics::names;
use crate::number::{exact as number, sig3};
use crate::stats::summary::Summary;
use crate::sweep::aggregate::Results;

/// Shown when no `--metric` is given: what a reader of a resilience sweep asks first, for each
/// client: success ratio, goodput, p99 latency, and the amplification of its first call.
fn default_patterns(results: &Results) -> Vec<String> {
    let clients = results
        .names
        .iter()
        .filter_map(|n| n.strip_prefix("client.")?.strip_suffix(".requests"));
    clients
        .flat_map(|c| {
            [
                names::client_metric(c, "success_ratio"),
                names::client_metric(c, "goodput_rps"),
                names::client_metric(c, "latency_p99_ms"),
                format!("edge.{c}.*.amplification"),
            ]
        })
        .collect()
}

pub struct Headline<'a> {
    results: &'a Results,
    /// Columns of `results.names`, in the order of the patterns that chose them.
    metrics: Vec<usize>,
    /// Per row: point, variant, and each chosen metric's statistics.
    rows: Vec<(usize, usize, Vec<Option<Summary>>)>,
}

/// The metrics the patterns name (`*` matches any run of characters). A pattern that matches
/// nothing is an error when it was given explicitly, so a typo does not vanish.
pub fn choose(results: &Results, patterns: &[String]) -> Result<Vec<usize>> {
    let explicit = !patterns.is_empty();
    let defaults = default_patterns(results);
    let mut chosen = Vec::new();
    for p in if explicit { patterns } else { &defaults } {
        let found: Vec<usize> = (0..results.names.len())
            .filter(|&i| crate::metrics::select::selects(p, &results.names[i]))
            .collect();
        if found.is_empty() && explicit {
            let hint = crate::error::did_you_mean(p, results.names.iter().map(String::as_str));
            return Err(Error::Usage(format!(
                "--metric {p}: the sweep has no such metric{hint}"
            )));
        }
        for i in found {
            if !chosen.contains(&i) {
                chosen.push(i);
            }
        }
    }
    Ok(chosen)
}

impl<'a> Headline<'a> {
    pub fn new(results: &'a Results, metrics: Vec<usize>) -> Headline<'a> {
        let mut rows = Vec::new();
        for point in 0..results.points.len() {
            for variant in 0..results.manifest.variants.len() {
                let stats = results.stats(point, variant);
                rows.push((point, variant, metrics.iter().map(|&m| stats[m]).collect()));
            }
        }
        Headline {
            results,
            metrics,
            rows,
        }
    }

    fn has_variants(&self) -> bool {
        // One variant gets its column too when it is not the base (`sweep --variant x`).
        let v = &self.results.manifest.variants;
        v.len() > 1 || v.first().is_some_and(|name| name != "base")
    }

    fn table(&self) -> Table {
        let r = self.results;
        let mut header: Vec<String> = r.manifest.params.iter().map(|p| p.path.clone()).collect();
        if self.has_variants() {
            header.push("variant".into());
        }
        header.extend(self.metrics.iter().map(|&m| r.names[m].clone()));
        let refs: Vec<&str> = header.iter().map(String::as_str).collect();
        // Markdown right-aligns all but the first column (the terminal, all but the last).
        let numeric: Vec<bool> = (0..refs.len()).map(|c| c > 0).collect();
        let mut table = Table::with_numeric(&refs, &numeric);
        for (point, variant, stats) in &self.rows {
            let mut cells = r.points[*point].clone();
            if self.has_variants() {
                cells.push(r.manifest.variants[*variant].clone());
            }
            cells.extend(stats.iter().map(|s| match s {
                None => "-".into(),
                Some(s) if s.n < 2 => sig3(s.mean),
                Some(s) => format!("{} ± {}", sig3(s.mean), sig3((s.ci95.1 - s.ci95.0) / 2.0)),
            }));
            table.row(cells);
        }
        table
    }

    pub fn render(&self) -> String {
        self.table().render()
    }

    pub fn markdown(&self) -> String {
        let r = &self.results.manifest;
        let mut out = format!(
            "Sweep of `{}` (seed {}), {} replication{} per point",
            r.scenario,
            r.seed,
            r.reps,
            if r.reps == 1 { "" } else { "s" }
        );
        if r.reps > 1 {
            out.push_str(": mean ± half-width of the 95% confidence interval");
        }
        out.push_str(".\n\n");
        out.push_str(&self.table().markdown(Rule::Tight));
        out
    }

    /// Wide CSV: parameters, variant, then mean, sd, ci95_low and ci95_high of each metric.
    pub fn csv(&self) -> String {
        let r = self.results;
        let mut w = CsvText::default();
        let mut header: Vec<String> = vec!["point".into(), "variant".into()];
        header.extend(r.columns.iter().map(|c| c.header.clone()));
        for &m in &self.metrics {
            for stat in ["mean", "sd", "ci95_low", "ci95_high"] {
                header.push(format!("{}_{stat}", r.names[m]));
            }
        }
        w.record(&header);
        for (point, variant, stats) in &self.rows {
            let mut row = vec![point.to_string(), r.manifest.variants[*variant].clone()];
            row.extend(r.cells[*point].iter().cloned());
            for s in stats {
                match s {
                    Some(s) => row.extend([s.mean, s.sd, s.ci95.0, s.ci95.1].map(number)),
                    // A metric the point does not have: four empty fields.
                    None => row.extend(std::iter::repeat_n(String::new(), 4)),
                }
            }
            w.record(&row);
        }
        w.finish()
    }

    /// hyperfine's shape: `{"results": [{..., "parameters": {...}}]}`.
    pub fn json(&self) -> String {
        let r = self.results;
        let results: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|(point, variant, stats)| {
                let parameters: serde_json::Map<String, serde_json::Value> = r
                    .columns
                    .iter()
                    .zip(&r.cells[*point])
                    .map(|(c, v)| (c.header.clone(), c.json(v)))
                    .collect();
                let metrics: serde_json::Map<String, serde_json::Value> = self
                    .metrics
                    .iter()
                    .zip(stats)
                    .filter_map(|(&m, s)| {
                        s.map(|s| {
                            (
                                r.names[m].clone(),
                                serde_json::json!({
                                    "n": s.n, "mean": s.mean, "sd": s.sd,
                                    "ci95_low": s.ci95.0, "ci95_high": s.ci95.1,
                                }),
                            )
                        })
                    })
                    .collect();
                serde_json::json!({
                    "point": point,
                    "variant": r.manifest.variants[*variant],
                    "parameters": parameters,
                    "metrics": metrics,
                })
            })
            .collect();
        let mut s = serde_json::to_string_pretty(&serde_json::json!({ "results": results }))
            .expect("plain JSON values");
        s.push('\n');
        s
    }
}
