//! Which charts a directory gets: for a run, a timeline per run (base and each variant) and a
//! latency chart per client comparing them; for a sweep, the key metrics against the swept
//! parameters, and a heatmap when two parameters are swept.

use super::axis::ParamAxis;
use super::format::{AxisUnit, unit_of};
use super::heatmap::Heatmap;
use super::latency::{Curve, LatencyChart, PERCENTILES};
use super::style::Dash;
use super::sweep_line::{SweepLine, SweepPoint, SweepSeries};
use super::timeline::Timeline;
use super::{Chart, ChartOptions, Kind, file_name, palette};
use crate::metrics::names;
use crate::number::short;
use crate::output::read_run::RunData;
use crate::output::read_sweep::SweepData;

pub mod frontier;
mod sweep;
pub use sweep::sweep_charts;

pub fn run_charts(runs: &[RunData]) -> Vec<Chart> {
    let mut charts: Vec<Chart> = runs
        .iter()
        .map(|r| Chart {
            file: if r.label == "base" {
                "timeline".into()
            } else {
                file_name(&format!("timeline-{}", r.label))
            },
            kind: Kind::Timeline(Timeline::from_run(r)),
            caption: format!(
                "Timeline of {} of {}, seed {}",
                run_name(&r.label),
                r.scenario,
                r.seed
            ),
        })
        .collect();
    let Some(base) = runs.first() else {
        return charts;
    };
    let mut clients = base.entities("client");
    if clients.is_empty() {
        clients.push(String::new());
    }
    for c in clients {
        let curves: Vec<Curve> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| Curve {
                label: r.label.clone(),
                color: palette::series(i),
                dash: Dash::Solid,
                points: percentiles(r, &names::client(&c)),
            })
            .collect();
        let compared = if runs.len() > 1 {
            let n = runs.len() - 1;
            let plural = if n == 1 { "" } else { "s" };
            format!(" · base and {n} variant{plural}, same seed")
        } else {
            String::new()
        };
        let runs_named: Vec<String> = runs.iter().map(|r| run_name(&r.label)).collect();
        charts.push(Chart {
            caption: format!(
                "Latency percentiles of {}: {}, seed {}",
                if c.is_empty() { "the client" } else { &c },
                runs_named.join(", "),
                base.seed
            ),
            file: file_name(&format!("latency-{c}"))
                .trim_end_matches('-')
                .to_string(),
            kind: Kind::Latency(LatencyChart {
                title: format!("{}: latency distribution of {c}", base.scenario),
                subtitle: format!(
                    "seed {} · over the {} s measured{compared}",
                    base.seed,
                    short(base.duration_s)
                ),
                legend: "Run".into(),
                curves,
            }),
        });
        if let Some(chart) = latency_by_operation(runs, &c) {
            charts.push(chart);
        }
    }
    charts
}

/// The percentile curve of `prefix` (`client.<c>` or `client.<c>.op.<o>`) in run `r`.
fn percentiles(r: &RunData, prefix: &str) -> Vec<(usize, f64)> {
    PERCENTILES
        .iter()
        .enumerate()
        .filter_map(|(k, (m, _))| Some((k, r.metric(&names::metric(prefix, m))?)))
        .collect()
}

/// A client's latency curves per operation of its mix: a colour per operation, a dash pattern
/// per run (base solid, then each variant); none for a client without operations.
fn latency_by_operation(runs: &[RunData], c: &str) -> Option<Chart> {
    let base = runs.first()?;
    let ops = base.client_operations(c);
    if ops.is_empty() {
        return None;
    }
    let mut curves = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        for (k, o) in ops.iter().enumerate() {
            let label = if runs.len() > 1 {
                format!("{o} · {}", r.label)
            } else {
                o.clone()
            };
            curves.push(Curve {
                label,
                color: palette::series(k),
                dash: Dash::nth(i),
                points: percentiles(r, &names::client_op(c, o)),
            });
        }
    }
    let runs_named: Vec<String> = runs.iter().map(|r| run_name(&r.label)).collect();
    let by_run = if runs.len() > 1 {
        " · a dash pattern per run"
    } else {
        ""
    };
    Some(Chart {
        caption: format!(
            "Latency percentiles of {c} by operation ({}): {}, seed {}",
            ops.join(", "),
            runs_named.join(", "),
            base.seed
        ),
        file: file_name(&format!("latency-{c}-by-operation")),
        kind: Kind::Latency(LatencyChart {
            title: format!("{}: latency of {c} by operation", base.scenario),
            subtitle: format!(
                "seed {} · over the {} s measured · a colour per operation{by_run}",
                base.seed,
                short(base.duration_s)
            ),
            legend: if runs.len() > 1 {
                "Operation · run".into()
            } else {
                "Operation".into()
            },
            curves,
        }),
    })
}

/// A run as a caption names it: `the base run` or `variant <name>`.
fn run_name(label: &str) -> String {
    if label == "base" {
        "the base run".into()
    } else {
        format!("variant {label}")
    }
}
