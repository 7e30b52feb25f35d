//! A metric against a swept parameter: one line per variant (or per value of a second
//! parameter), the mean over replications with its 95% confidence band and whiskers.

use super::axis::{Keyed, ParamAxis};
use super::canvas::{self, DrawResult, Entry, LEGEND_WIDTH, Mark, Y_LABELS, text};
use super::format::AxisUnit;
use super::palette;
use super::style::Dash;
use plotters::coord::Shift;
use plotters::prelude::*;

#[derive(Debug, Clone)]
pub struct SweepPoint {
    pub x: f64,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone)]
pub struct SweepSeries {
    pub label: String,
    pub color: RGBColor,
    pub points: Vec<SweepPoint>,
}

#[derive(Debug, Clone)]
pub struct SweepLine {
    pub title: String,
    pub subtitle: String,
    pub x: ParamAxis,
    pub y_desc: String,
    pub unit: AxisUnit,
    pub legend_heading: String,
    pub series: Vec<SweepSeries>,
    /// `[[expect]]` thresholds on the metric for the runs drawn: (value, legend label), each a
    /// dashed vermillion line across the chart.
    pub gates: Vec<(f64, String)>,
}

pub const SIZE: (u32, u32) = (960, 540);

impl SweepPoint {
    /// The interval, or the mean alone where the interval is unknown (one replication).
    fn band(&self) -> (f64, f64) {
        if self.low.is_finite() && self.high.is_finite() {
            (self.low.min(self.mean), self.high.max(self.mean))
        } else {
            (self.mean, self.mean)
        }
    }
}

pub fn draw<DB: DrawingBackend>(c: &SweepLine, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let body = canvas::title(root, &c.title, &c.subtitle)?;
    let (plot, legend) = body.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let values = c.series.iter().flat_map(|s| {
        s.points.iter().flat_map(|p| {
            let (lo, hi) = p.band();
            [lo, hi, p.mean]
        })
    });
    let (lo, mut hi) = canvas::y_range(values.chain(c.gates.iter().map(|g| g.0)));
    if c.unit == AxisUnit::Percent {
        hi = hi.max(1.05);
    }
    let (x0, x1) = c.x.range();
    let mut chart = ChartBuilder::on(&plot)
        .margin_top(10)
        .margin_left(6)
        .margin_right(20)
        .y_label_area_size(Y_LABELS)
        .x_label_area_size(50)
        .build_cartesian_2d(Keyed::new(x0, x1, c.x.key_points()), lo..hi)?;
    let unit = c.unit;
    chart
        .configure_mesh()
        .x_labels(c.x.key_points().len())
        .y_labels(6)
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::GRID)
        .label_style(text(12))
        .axis_desc_style(text(13))
        .x_label_formatter(&|v| c.x.tick(*v))
        .y_label_formatter(&|v| unit.tick(*v))
        .x_desc(c.x.desc.as_str())
        .y_desc(c.y_desc.as_str())
        .draw()?;
    for s in &c.series {
        if s.points.len() > 1 {
            let mut band: Vec<(f64, f64)> = s.points.iter().map(|p| (p.x, p.band().1)).collect();
            band.extend(s.points.iter().rev().map(|p| (p.x, p.band().0)));
            chart.draw_series(std::iter::once(Polygon::new(band, s.color.mix(0.15))))?;
        }
    }
    for s in &c.series {
        chart.draw_series(
            s.points
                .iter()
                .filter(|p| p.band().1 > p.band().0)
                .map(|p| {
                    let (lo, hi) = p.band();
                    PathElement::new(vec![(p.x, lo), (p.x, hi)], s.color.stroke_width(1))
                }),
        )?;
        chart.draw_series(LineSeries::new(
            s.points.iter().map(|p| (p.x, p.mean)),
            s.color.stroke_width(2),
        ))?;
        chart.draw_series(
            s.points
                .iter()
                .map(|p| Circle::new((p.x, p.mean), 4, s.color.filled())),
        )?;
    }
    let (dash, gap) = Dash::Dashed.pattern().unwrap_or((7, 4));
    for (value, _) in &c.gates {
        chart.draw_series(DashedLineSeries::new(
            [(x0, *value), (x1, *value)],
            dash,
            gap,
            palette::FAULT.stroke_width(1),
        ))?;
    }
    if c.series.iter().all(|s| s.points.is_empty()) {
        canvas::note(&chart.plotting_area().strip_coord_spec(), "no data")?;
    }
    let mut entries: Vec<Entry> = c
        .series
        .iter()
        .map(|s| Entry::new(&s.label, s.color, Mark::Line))
        .collect();
    if let Some(color) = c.series.first().map(|s| s.color) {
        entries.push(Entry::new("95% confidence band", color, Mark::Band(0.2)));
    }
    for (_, label) in &c.gates {
        entries.push(Entry::new(
            label,
            palette::FAULT,
            Mark::Stroke(Dash::Dashed),
        ));
    }
    canvas::legend(&legend, 20, &c.legend_heading, &entries)
}
