//! Latency distributions: each client's percentile curve (p50, p90, p99, p99.9, max) for the
//! base run and each variant on one log-scale chart, so a variant that cuts the tail shows as a
//! lower right end; for a client with operations, a chart of a curve per operation (a colour
//! each), per run (a dash pattern each).

use super::axis::{Keyed, log_ticks};
use super::canvas::{self, DrawResult, Entry, LEGEND_WIDTH, Mark, Y_LABELS, text};
use super::palette;
use super::style::Dash;
use crate::number::latency_ms;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The summary metrics of a percentile curve, in order, with their axis labels.
pub const PERCENTILES: [(&str, &str); 5] = [
    ("latency_p50_ms", "p50"),
    ("latency_p90_ms", "p90"),
    ("latency_p99_ms", "p99"),
    ("latency_p999_ms", "p99.9"),
    ("latency_max_ms", "max"),
];

#[derive(Debug, Clone)]
pub struct Curve {
    pub label: String,
    pub color: RGBColor,
    pub dash: Dash,
    /// (percentile index into `PERCENTILES`, ms).
    pub points: Vec<(usize, f64)>,
}

#[derive(Debug, Clone)]
pub struct LatencyChart {
    pub title: String,
    pub subtitle: String,
    /// What a curve is, as the legend's heading: `Run`, or `Operation` (and run).
    pub legend: String,
    pub curves: Vec<Curve>,
}

pub const SIZE: (u32, u32) = (960, 520);
/// Pixels under the x-axis caption, which plotters anchors on the bottom edge of the area, so
/// that the descenders of `percentile` and the parentheses are not cut off.
pub const CAPTION_MARGIN: u32 = 10;
/// Latencies below this (ms) sit on the bottom of the log scale.
const FLOOR_MS: f64 = 0.01;

pub fn draw<DB: DrawingBackend>(c: &LatencyChart, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let body = canvas::title(root, &c.title, &c.subtitle)?;
    let (plot, legend) = body.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let values: Vec<f64> = c
        .curves
        .iter()
        .flat_map(|k| k.points.iter().map(|p| p.1.max(FLOOR_MS)))
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo / 1.6, hi * 1.6)
    } else if lo.is_finite() {
        (lo / 4.0, lo * 4.0)
    } else {
        (1.0, 1000.0)
    };
    let n = PERCENTILES.len() as f64;
    let mut chart = ChartBuilder::on(&plot)
        .margin_top(10)
        // The x caption is anchored on the area's bottom edge: room for its descenders.
        .margin_bottom(CAPTION_MARGIN)
        .margin_left(6)
        .margin_right(20)
        .y_label_area_size(Y_LABELS)
        .x_label_area_size(50)
        .build_cartesian_2d(
            Keyed::new(
                -0.3,
                n - 0.7,
                (0..PERCENTILES.len()).map(|i| i as f64).collect(),
            ),
            // Log scale by hand: the axis holds log10(ms).
            Keyed::new(
                lo.log10(),
                hi.log10(),
                log_ticks(lo, hi).iter().map(|v| v.log10()).collect(),
            ),
        )?;
    chart
        .configure_mesh()
        .x_labels(PERCENTILES.len())
        .y_labels(12)
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::GRID)
        .label_style(text(12))
        .axis_desc_style(text(13))
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() > 1e-6 || i < 0.0 {
                return String::new();
            }
            PERCENTILES
                .get(i as usize)
                .map_or(String::new(), |p| p.1.to_string())
        })
        .y_label_formatter(&|v| latency_ms(10f64.powf(*v)))
        .x_desc("percentile of request latency (start to answer or give-up)")
        .y_desc("latency (log scale)")
        .draw()?;
    for k in &c.curves {
        let pts: Vec<(f64, f64)> = k
            .points
            .iter()
            .map(|(i, v)| (*i as f64, v.max(FLOOR_MS).log10()))
            .collect();
        let style = k.color.stroke_width(2);
        match k.dash.pattern() {
            Some((dash, gap)) => {
                chart.draw_series(DashedLineSeries::new(pts.clone(), dash, gap, style))?;
            }
            None => {
                chart.draw_series(LineSeries::new(pts.clone(), style))?;
            }
        }
        chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, k.color.filled())))?;
    }
    if c.curves.iter().all(|k| k.points.is_empty()) {
        canvas::note(&chart.plotting_area().strip_coord_spec(), "no data")?;
    }
    let entries: Vec<Entry> = c
        .curves
        .iter()
        .map(|k| Entry::new(&k.label, k.color, Mark::Stroke(k.dash)))
        .collect();
    canvas::legend(&legend, 20, &c.legend, &entries)?;
    Ok(())
}
