//! Strips under a timeline's load panel: one row per fault (its active window), per breaker
//! (the buckets in which it was open, darker the longer it was open) or per service whose
//! instance count moved (its mean per bucket, darker nearer its highest), on the shared time
//! axis. Row names sit in the legend column, level with their rows; rows come from
//! `strip_rows.rs`.

use super::canvas::{self, DrawResult, Y_LABELS, text};
use super::palette;
use super::timeline::{Timeline, shade};
use crate::number::short;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One bar of a row: [start, end) s, drawn darker as `strength` (0..=1) grows.
#[derive(Debug, Clone)]
pub struct Bar {
    pub start: f64,
    pub end: f64,
    pub strength: f64,
    /// Written inside the bar, from its left end.
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub label: String,
    pub bars: Vec<Bar>,
}

pub struct Strip<'a> {
    /// Shown in the legend column, above the row names.
    pub heading: &'a str,
    pub color: RGBColor,
    pub rows: &'a [Row],
}

const ROW: u32 = 24;
/// Room above the rows for the heading.
const TOP: u32 = 28;
const X_AXIS: u32 = 48;

/// The height of a strip of `rows` rows (without a time axis), px.
pub fn height(rows: usize) -> u32 {
    TOP + 8 + ROW * rows as u32
}

pub fn draw<DB: DrawingBackend>(
    t: &Timeline,
    s: &Strip<'_>,
    area: &DrawingArea<DB, Shift>,
    legend: &DrawingArea<DB, Shift>,
    bottom: bool,
) -> DrawResult<DB> {
    let rows = s.rows.len() as f64;
    let mut chart = ChartBuilder::on(area)
        .margin_top(TOP)
        .margin_left(6)
        .margin_right(14)
        .y_label_area_size(Y_LABELS)
        .x_label_area_size(if bottom { X_AXIS } else { 0 })
        .build_cartesian_2d(0.0..t.end_s.max(1e-9), 0.0..rows.max(1.0))?;
    let x_fmt = |v: &f64| if bottom { short(*v) } else { String::new() };
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(12)
        .y_labels(0)
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::GRID)
        .label_style(text(12))
        .axis_desc_style(text(13))
        .x_label_formatter(&x_fmt);
    if bottom {
        mesh.x_desc("time since start (s)");
    }
    mesh.draw()?;
    shade(t, &mut chart, (0.0, rows.max(1.0)), false)?;
    for (i, row) in s.rows.iter().enumerate() {
        let y = rows - i as f64 - 1.0;
        chart.draw_series(row.bars.iter().map(|b| {
            Rectangle::new(
                [(b.start, y + 0.15), (b.end, y + 0.85)],
                s.color.mix(alpha(b)).filled(),
            )
        }))?;
        for (j, b) in row
            .bars
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.text.is_empty())
        {
            // Inside the bar when it fits, in black or white as reads better on its shade;
            // else just after it in the text colour, if no later bar of the row lies under
            // that room (back-to-back bars, as an instance count's, lose such texts).
            let x0 = chart.backend_coord(&(b.start, y)).0;
            let x1 = chart.backend_coord(&(b.end, y)).0;
            let needed = b.text.chars().count() as i32 * 7 + 8;
            let (at, dx, color) = if x1 - x0 >= needed {
                (b.start, 4, palette::text_on(over_white(s.color, alpha(b))))
            } else {
                let room = x1 + needed;
                let blocked = row.bars[j + 1..]
                    .iter()
                    .any(|n| chart.backend_coord(&(n.start, y)).0 < room);
                if blocked {
                    continue;
                }
                (b.end, 4, palette::TEXT)
            };
            chart.draw_series(std::iter::once(
                EmptyElement::at((at, y + 0.85))
                    + Text::new(b.text.clone(), (dx, 3), text(11).color(&color)),
            ))?;
        }
    }
    let base = legend.get_base_pixel();
    legend.draw(&Text::new(s.heading.to_string(), (12, 8), canvas::bold(13)))?;
    for (i, row) in s.rows.iter().enumerate() {
        let at = chart.backend_coord(&(0.0, rows - i as f64 - 0.5));
        let mid = at.1 - base.1;
        legend.draw(&Rectangle::new(
            [(12, mid - 6), (38, mid + 6)],
            s.color.mix(0.8).filled(),
        ))?;
        legend.draw(&Text::new(row.label.clone(), (46, mid - 7), text(12)))?;
    }
    Ok(())
}

/// A bar's opacity: pale for a weak bar, near solid for a full one.
fn alpha(b: &Bar) -> f64 {
    0.35 + 0.5 * b.strength
}

/// `c` at opacity `a` over the white plot.
fn over_white(c: RGBColor, a: f64) -> RGBColor {
    let mix = |v: u8| (f64::from(v) * a + 255.0 * (1.0 - a)).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}
