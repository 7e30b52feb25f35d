//! A two-parameter sweep as a heatmap: one cell per grid point, coloured by the metric's mean
//! (viridis) and labelled with it; a 0/1 metric such as `fault.0.recovered` makes it a
//! metastability map (which loads and triggers the system recovers from).

use super::axis::{Keyed, ParamAxis};
use super::canvas::{self, DrawResult, LEGEND_WIDTH, Y_LABELS, text};
use super::format::AxisUnit;
use super::palette;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

#[derive(Debug, Clone)]
pub struct Heatmap {
    pub title: String,
    pub subtitle: String,
    pub x: ParamAxis,
    pub y: ParamAxis,
    pub unit: AxisUnit,
    /// The metric's name, heading the colour scale.
    pub metric: String,
    /// (x index, y index, mean).
    pub cells: Vec<(usize, usize, f64)>,
    /// The colour scale's ends: the data's range, or the one asked for (`--range`).
    pub domain: (f64, f64),
    /// Cells whose 95% interval holds an expectation's threshold: drawn outlined.
    pub marks: Vec<(usize, usize)>,
    /// What the outline means, under the colour scale.
    pub mark_note: Option<String>,
    /// Cells whose mean fails an expectation on the metric: crossed, whatever their interval.
    pub failing: Vec<(usize, usize)>,
    /// What the cross means, under the colour scale.
    pub fail_note: Option<String>,
}

pub const SIZE: (u32, u32) = (960, 600);

impl Heatmap {
    /// The colour of a value on the scale.
    pub fn color(&self, v: f64) -> RGBColor {
        let (lo, hi) = self.domain;
        // Clamped: with a fixed `--range` a value may fall outside it.
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        palette::viridis(t)
    }
}

pub fn draw<DB: DrawingBackend>(h: &Heatmap, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let body = canvas::title(root, &h.title, &h.subtitle)?;
    let (plot, legend) = body.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let nx = h.x.positions.len().max(1) as f64;
    let ny = h.y.positions.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&plot)
        .margin_top(10)
        .margin_left(6)
        .margin_right(20)
        .y_label_area_size(Y_LABELS + 20)
        .x_label_area_size(50)
        .build_cartesian_2d(
            Keyed::new(-0.5, nx - 0.5, h.x.key_points()),
            Keyed::new(-0.5, ny - 0.5, h.y.key_points()),
        )?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(h.x.key_points().len())
        .y_labels(h.y.key_points().len())
        .label_style(text(12))
        .axis_desc_style(text(13))
        .x_label_formatter(&|v| h.x.tick(*v))
        .y_label_formatter(&|v| h.y.tick(*v))
        .x_desc(h.x.desc.as_str())
        .y_desc(h.y.desc.as_str())
        .draw()?;
    chart.draw_series(h.cells.iter().map(|&(x, y, v)| {
        let (x, y) = (x as f64, y as f64);
        Rectangle::new(
            [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
            h.color(v).filled(),
        )
    }))?;
    // White gaps between cells.
    chart.draw_series(h.cells.iter().map(|&(x, y, _)| {
        let (x, y) = (x as f64, y as f64);
        Rectangle::new(
            [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
            WHITE.stroke_width(2),
        )
    }))?;
    // Cells the replications cannot settle: outlined inside the white gap.
    chart.draw_series(h.marks.iter().map(|&(x, y)| {
        let (x, y) = (x as f64, y as f64);
        Rectangle::new(
            [(x - 0.44, y - 0.44), (x + 0.44, y + 0.44)],
            palette::TEXT.stroke_width(3),
        )
    }))?;
    // Cells whose mean fails a gate: a cross in the top-left corner, in the colour that
    // reads on the cell.
    for &(x, y) in &h.failing {
        let color = h
            .cells
            .iter()
            .find(|c| (c.0, c.1) == (x, y))
            .map_or(BLACK, |c| palette::text_on(h.color(c.2)));
        let (x, y) = (x as f64, y as f64);
        for ((x0, y0), (x1, y1)) in [((-0.4, 0.4), (-0.25, 0.25)), ((-0.4, 0.25), (-0.25, 0.4))] {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x + x0, y + y0), (x + x1, y + y1)],
                color.stroke_width(2),
            )))?;
        }
    }
    // Values in the cells, while the cells are big enough to hold them.
    let (pw, ph) = chart.plotting_area().dim_in_pixel();
    if f64::from(pw) / nx >= 44.0 && f64::from(ph) / ny >= 18.0 {
        let unit = h.unit;
        chart.draw_series(h.cells.iter().map(|&(x, y, v)| {
            let style = text(12)
                .color(if palette::text_on(h.color(v)) == WHITE {
                    &WHITE
                } else {
                    &BLACK
                })
                .pos(Pos::new(HPos::Center, VPos::Center));
            Text::new(unit.value(v), (x as f64, y as f64), style)
        }))?;
    }
    if h.cells.is_empty() {
        canvas::note(&chart.plotting_area().strip_coord_spec(), "no data")?;
    }
    scale(h, &legend)
}

/// The colour scale in the legend column: a vertical gradient with its ends and middle.
fn scale<DB: DrawingBackend>(h: &Heatmap, area: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    area.draw(&Text::new(
        "Mean over replications".to_string(),
        (12, 20),
        canvas::bold(13),
    ))?;
    // The metric's name whole, on as many lines as it takes.
    let lines = canvas::wrap_title(&h.metric, canvas::TITLE_LINE_CHARS);
    for (i, line) in lines.iter().enumerate() {
        area.draw(&Text::new(line.clone(), (12, 40 + 14 * i as i32), text(11)))?;
    }
    let (top, height, steps) = (66 + 14 * (lines.len() as i32 - 1), 240, 48);
    for i in 0..steps {
        let t = 1.0 - i as f64 / f64::from(steps - 1);
        let y0 = top + i * height / steps;
        let y1 = top + (i + 1) * height / steps;
        area.draw(&Rectangle::new(
            [(12, y0), (40, y1)],
            palette::viridis(t).filled(),
        ))?;
    }
    let (lo, hi) = h.domain;
    for (k, v) in [(0, hi), (1, (lo + hi) / 2.0), (2, lo)] {
        let y = top + k * height / 2;
        area.draw(&PathElement::new(
            vec![(40, y), (46, y)],
            BLACK.stroke_width(1),
        ))?;
        area.draw(&Text::new(
            h.unit.value(v),
            (50, y),
            text(12).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    if let Some(note) = &h.mark_note {
        let y = top + height + 24;
        area.draw(&Rectangle::new(
            [(12, y), (40, y + 14)],
            palette::TEXT.stroke_width(3),
        ))?;
        area.draw(&Text::new(note.clone(), (48, y), text(11)))?;
    }
    if let Some(note) = &h.fail_note {
        let y = top + height + 48;
        for ((x0, y0), (x1, y1)) in [((14, 2), (28, 14)), ((14, 14), (28, 2))] {
            area.draw(&PathElement::new(
                vec![(x0, y + y0), (x1, y + y1)],
                palette::TEXT.stroke_width(2),
            ))?;
        }
        area.draw(&Text::new(note.clone(), (48, y), text(11)))?;
    }
    Ok(())
}
