//! A search's trade-off as charts: when no candidate of `cascade tune` satisfies every
//! expectation, one `SweepLine` per expectation, its value against the objective over the
//! Pareto frontier's points (each a candidate no other matches or beats on every count), with
//! the expectation's threshold drawn as a gate. Read from the directory's files alone
//! (`tune.json` and the scenario's expectations).

use super::super::axis::ParamAxis;
use super::super::format::{AxisUnit, unit_of};
use super::super::sweep_line::{SweepLine, SweepPoint, SweepSeries};
use super::super::{Chart, Kind, file_name, palette};
use crate::number::short;
use crate::output::read_sweep::SweepData;
use crate::output::read_tune::TuneData;

/// The frontier charts of a search (none when a candidate satisfied every expectation), in the
/// order of the expectations; files `frontier-<i>-<metric>`.
pub fn frontier_charts(s: &SweepData, t: &TuneData) -> Vec<Chart> {
    let Some(trade) = &t.tradeoff else {
        return Vec::new();
    };
    let objective = &t.objective.metric;
    // Best objective first in the file; drawn left to right.
    let mut points: Vec<(f64, &[f64])> = (trade.frontier.iter())
        .filter_map(|f| f.objective.map(|o| (o, f.values.as_slice())))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let x = ParamAxis {
        desc: format!("{objective} ({}; mean)", t.objective.goal),
        positions: points.iter().map(|p| p.0).collect(),
        categories: None,
    };
    (s.expects.iter().enumerate())
        .map(|(i, e)| {
            let series_points: Vec<SweepPoint> = (points.iter())
                .filter_map(|(o, values)| {
                    let v = *values.get(i)?;
                    v.is_finite().then_some(SweepPoint {
                        x: *o,
                        mean: v,
                        low: f64::NAN,
                        high: f64::NAN,
                    })
                })
                .collect();
            let unit = AxisUnit::of(
                unit_of(&e.read_from),
                series_points.iter().map(|p| p.mean).fold(e.value, f64::max),
            );
            let label = e.label();
            Chart {
                caption: format!(
                    "{}: the trade-off's {} points on the Pareto frontier, {label} against the objective {objective}, the expectation's threshold dashed",
                    s.scenario,
                    series_points.len()
                ),
                file: file_name(&format!("frontier-{i}-{}", e.read_from)),
                kind: Kind::SweepLine(SweepLine {
                    title: format!("trade-off: {} against {objective}", e.read_from),
                    subtitle: format!(
                        "{} · the Pareto frontier of the search, each point on the replications it ran",
                        s.scenario
                    ),
                    x: x.clone(),
                    y_desc: format!("{}{}", e.read_from, unit.suffix()),
                    unit,
                    legend_heading: "Candidates".into(),
                    series: vec![SweepSeries {
                        label: "Pareto frontier".into(),
                        color: palette::series(0),
                        points: series_points,
                    }],
                    gates: vec![(
                        e.value,
                        format!("expectation {} {}", e.op.symbol(), short(e.value)),
                    )],
                }),
            }
        })
        .collect()
}
