//! A run's timeline: offered load, goodput and attempts per edge on the top panel with fault
//! windows shaded; faults, breaker-open intervals and moving instance counts as strips; each
//! client's success and goodput by operation (`client_panels`), queue length, utilization and
//! p99 latency on panels beneath, all on one time axis. A panel whose every series is 0
//! throughout folds to one line saying so; a series identical to an earlier one is raised a few
//! pixels so it stays visible (`overlap`).

use super::canvas::{self, DrawResult, Entry, LEGEND_WIDTH, Mark, Y_LABELS, text};
use super::client_panels::{self, midpoints};
use super::emphasis::rank_services;
use super::format::AxisUnit;
use super::gates::Gate;
use super::latency::CAPTION_MARGIN;
use super::overlap::{self, RAISE_PX};
use super::palette;
use super::strip_rows;
use super::strips::{self, Bar, Row};
use super::style::{Dash, Style, Styles};
use crate::metrics::names;
use crate::number::short;
use crate::output::describe;
use crate::output::read_run::RunData;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

#[derive(Debug, Clone)]
pub struct Line {
    pub label: String,
    pub color: RGBColor,
    pub dash: Dash,
    /// (time s, value), at bucket midpoints.
    pub points: Vec<(f64, f64)>,
}

#[derive(Debug, Clone)]
pub struct Panel {
    pub heading: String,
    /// The y axis description, unit included.
    pub y_desc: String,
    pub unit: AxisUnit,
    pub lines: Vec<Line>,
    /// Series left out to keep the panel readable, listed in its legend.
    pub folded: Vec<String>,
    /// `[[expect]]` thresholds on the panel's metric: a dashed line at each value.
    pub gates: Vec<Gate>,
}

impl Panel {
    /// Every series has points and every point is 0: the panel folds to one line.
    pub fn flat_at_zero(&self) -> bool {
        self.lines.iter().any(|l| !l.points.is_empty())
            && self
                .lines
                .iter()
                .all(|l| l.points.iter().all(|p| p.1 == 0.0))
    }

    /// For each line, the earlier line it repeats exactly (`overlap::repeats`).
    fn repeats(&self) -> Vec<Option<usize>> {
        let series: Vec<&[(f64, f64)]> = self.lines.iter().map(|l| l.points.as_slice()).collect();
        overlap::repeats(&series)
    }
}

/// A fault's window, for the shading and the fault strip.
#[derive(Debug, Clone)]
pub struct FaultBand {
    pub start: f64,
    pub end: f64,
    /// `errors on auth`.
    pub name: String,
    /// `50% unavailable`.
    pub effect: String,
}

#[derive(Debug, Clone)]
pub struct Timeline {
    pub title: String,
    pub subtitle: String,
    pub end_s: f64,
    pub warmup_s: f64,
    pub faults: Vec<FaultBand>,
    pub load: Panel,
    /// One row per edge with a breaker.
    pub breakers: Vec<Row>,
    /// One row per service whose instance count moved, and one of its ready instances where
    /// some were out of rotation (`strip_rows::instances`).
    pub instances: Vec<Row>,
    /// Queue length, utilization, p99 latency.
    pub panels: Vec<Panel>,
}

const WIDTH: u32 = 1100;
const LOAD_HEIGHT: u32 = 290;
const PANEL_HEIGHT: u32 = 150;
const X_AXIS: u32 = 48;
/// The height of a panel folded to one line (every series flat at 0).
const FOLDED_HEIGHT: u32 = 30;
/// Services drawn on each per-service panel: one solid Okabe–Ito colour each.
pub const MAX_SERVICES: usize = palette::SERIES.len();
/// Lines on the load panel (clients' offered and goodput, then edges' attempts).
pub const MAX_LOAD_LINES: usize = 16;

impl Timeline {
    /// Heights of the panels from the top: load, the fault, breaker and instance strips when
    /// there are any, then the others; the last includes the time axis.
    fn heights(&self) -> Vec<u32> {
        let mut heights = vec![LOAD_HEIGHT.max(legend_height(load_entries(self).len()))];
        if !self.faults.is_empty() {
            heights.push(strips::height(self.faults.len()));
        }
        if !self.breakers.is_empty() {
            heights.push(strips::height(self.breakers.len()));
        }
        if !self.instances.is_empty() {
            heights.push(strips::height(self.instances.len()));
        }
        heights.extend(self.panels.iter().map(|p| {
            if p.flat_at_zero() {
                FOLDED_HEIGHT
            } else {
                PANEL_HEIGHT.max(legend_height(panel_entries(p).len()))
            }
        }));
        if let Some(last) = heights.last_mut() {
            *last += X_AXIS + CAPTION_MARGIN;
        }
        heights
    }

    pub fn size(&self) -> (u32, u32) {
        (WIDTH, 62 + self.heights().iter().sum::<u32>())
    }

    pub fn from_run(run: &RunData) -> Timeline {
        let b = run.bucket_s;
        let mid = |values: &[f64], scale: f64| midpoints(run, values, scale);
        let clients = run.entities("client");
        let services = rank_services(run, &run.entities("service"));
        let (shown, folded_services) = services.split_at(services.len().min(MAX_SERVICES));
        let edges = run.entities("edge");
        let line = |label: String, style: Style, points| Line {
            label,
            color: style.color(),
            dash: style.dash,
            points,
        };
        let mut styles = Styles::default();
        let mut load = Vec::new();
        for c in &clients {
            let style = styles.fresh();
            if let Some(v) = run.series(&names::client_metric(c, "offered_rps")) {
                let offered = styles.claim(Style {
                    dash: Dash::Dashed,
                    ..style
                });
                load.push(line(format!("{c} offered"), offered, mid(v, 1.0)));
            }
            if let Some(v) = run.series(&names::client_metric(c, "goodput_rps")) {
                load.push(line(format!("{c} goodput"), style, mid(v, 1.0)));
            }
        }
        // Edges by their callee's rank, so the edges into the services that matter come first.
        let mut by_callee: Vec<&String> = edges.iter().collect();
        let callee_rank = |e: &str| {
            let callee = e.split('.').nth(1).unwrap_or("");
            services
                .iter()
                .position(|s| s == callee)
                .unwrap_or(usize::MAX)
        };
        by_callee.sort_by_key(|e| callee_rank(e));
        let mut folded_edges = Vec::new();
        for e in by_callee {
            let Some(v) = run.series(&names::edge_metric(e, "attempts")) else {
                continue;
            };
            let label = format!("{} attempts", e.replacen('.', "→", 1));
            if load.len() >= MAX_LOAD_LINES {
                folded_edges.push(label);
                continue;
            }
            load.push(line(label, styles.fresh(), mid(v, 1.0 / b)));
        }
        let per_service = |metric: &str, scale: f64| -> Vec<Line> {
            shown
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let v = run.series(&names::service_metric(s, metric))?;
                    Some(Line {
                        label: s.clone(),
                        color: palette::series(i),
                        dash: Dash::Solid,
                        points: mid(v, scale),
                    })
                })
                .collect()
        };
        // Each client's p99 of successful requests (solid) beside its p99 of all answers
        // (dotted), each labelled so: fast refusals pull the second down in an outage.
        let p99: Vec<Line> = clients
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                [
                    ("success_latency_p99_ms", "p99 of successes", Dash::Solid),
                    ("latency_p99_ms", "p99 of all answers", Dash::Dotted),
                ]
                .into_iter()
                .filter_map(move |(metric, what, dash)| {
                    let v = run.series(&names::client_metric(c, metric))?;
                    Some(Line {
                        label: format!("{c} {what}"),
                        color: palette::series(i),
                        dash,
                        points: mid(v, 1.0),
                    })
                })
            })
            .collect();
        let p99_max = p99
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let p99_unit = AxisUnit::of("ms", p99_max);
        let breakers = strip_rows::breakers(run, &edges);
        let instances = strip_rows::instances(run, &services);
        let faults = run
            .model
            .as_ref()
            .map(|m| {
                m.faults
                    .iter()
                    .map(|f| FaultBand {
                        start: f.start as f64 / 1e9,
                        end: f.end as f64 / 1e9,
                        name: format!("{} on {}", f.kind(), describe::fault_target(m, f)),
                        effect: describe::fault_effect(f),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let variant = if run.label == "base" {
            String::new()
        } else {
            format!(" — variant {}", run.label)
        };
        Timeline {
            title: format!("{}{variant}: timeline", run.scenario),
            subtitle: format!(
                "seed {} · {} s measured after {} s warm-up · {} s buckets",
                run.seed,
                short(run.duration_s),
                short(run.warmup_s),
                short(b)
            ),
            end_s: run.end_s(),
            warmup_s: run.warmup_s,
            faults,
            load: Panel {
                heading: "Load".into(),
                y_desc: "requests/s".into(),
                unit: AxisUnit::PerSecond,
                lines: load,
                folded: folded_edges,
                gates: Vec::new(),
            },
            breakers,
            instances,
            panels: [
                client_panels::panels(run, &clients),
                vec![
                    Panel {
                        heading: "Queue length (mean)".into(),
                        y_desc: "queued jobs".into(),
                        unit: AxisUnit::Plain,
                        lines: per_service("queue_mean", 1.0),
                        folded: folded_services.to_vec(),
                        gates: Vec::new(),
                    },
                    Panel {
                        heading: "Utilization".into(),
                        y_desc: "utilization (%)".into(),
                        unit: AxisUnit::Percent,
                        lines: per_service("utilization", 1.0),
                        folded: folded_services.to_vec(),
                        gates: Vec::new(),
                    },
                    Panel {
                        heading: "Client latency".into(),
                        y_desc: format!("p99 latency{}", p99_unit.suffix()),
                        unit: p99_unit,
                        lines: p99,
                        folded: Vec::new(),
                        gates: Vec::new(),
                    },
                ],
            ]
            .concat(),
        }
    }
}

pub fn draw<DB: DrawingBackend>(t: &Timeline, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let body = canvas::title(root, &t.title, &t.subtitle)?;
    let (plots, legends) = body.split_horizontally(WIDTH - LEGEND_WIDTH);
    let heights = t.heights();
    let last = heights.len() - 1;
    let mut breaks = Vec::new();
    let mut y = 0;
    for h in &heights[..last] {
        y += h;
        breaks.push(y);
    }
    let areas = plots.split_by_breakpoints(Vec::<u32>::new(), breaks.clone());
    let legend_areas = legends.split_by_breakpoints(Vec::<u32>::new(), breaks);
    let mut k = 0;
    let entries = load_entries(t);
    panel(t, &t.load, &areas[k], k == last, true)?;
    canvas::legend(&legend_areas[k], 8, &t.load.heading, &entries)?;
    k += 1;
    if !t.faults.is_empty() {
        let rows: Vec<Row> = t
            .faults
            .iter()
            .enumerate()
            .map(|(i, f)| Row {
                label: format!("F{i} {}", f.name),
                bars: vec![Bar {
                    start: f.start,
                    end: f.end,
                    strength: 1.0,
                    text: format!("F{i} {}", f.effect),
                }],
            })
            .collect();
        let strip = strips::Strip {
            heading: "Faults",
            color: palette::FAULT,
            rows: &rows,
        };
        strips::draw(t, &strip, &areas[k], &legend_areas[k], k == last)?;
        k += 1;
    }
    let row_strips = [
        ("Breakers open", palette::BREAKER, &t.breakers),
        ("Instances", palette::INSTANCES, &t.instances),
    ];
    for (heading, color, rows) in row_strips {
        if rows.is_empty() {
            continue;
        }
        let strip = strips::Strip {
            heading,
            color,
            rows,
        };
        strips::draw(t, &strip, &areas[k], &legend_areas[k], k == last)?;
        k += 1;
    }
    for p in &t.panels {
        if p.flat_at_zero() {
            folded_panel(t, p, &areas[k], k == last)?;
        } else {
            panel(t, p, &areas[k], k == last, false)?;
            canvas::legend(&legend_areas[k], 8, &p.heading, &panel_entries(p))?;
        }
        k += 1;
    }
    Ok(())
}

/// The load panel's legend: its lines, the warm-up and fault shading, what it left out.
fn load_entries(t: &Timeline) -> Vec<Entry> {
    let mut entries = panel_entries(&t.load);
    if t.warmup_s > 0.0 {
        entries.push(Entry::new("warm-up", palette::WARMUP, Mark::Band(0.3)));
    }
    if !t.faults.is_empty() {
        entries.push(Entry::new("fault active", palette::FAULT, Mark::Band(0.3)));
    }
    entries
}

/// A panel's legend: one row per line (a line repeating an earlier one says so), then the
/// names of the series it left out.
fn panel_entries(p: &Panel) -> Vec<Entry> {
    let repeats = p.repeats();
    let mut entries: Vec<Entry> = Vec::new();
    for (j, l) in p.lines.iter().enumerate() {
        entries.push(Entry::new(&l.label, l.color, Mark::Stroke(l.dash)));
        if let Some(i) = repeats[j] {
            let px = RAISE_PX * overlap::raise_level(&repeats, j);
            for note in [
                format!("  = {}", p.lines[i].label),
                format!("  (drawn {px} px higher)"),
            ] {
                entries.push(Entry::new(note, palette::TEXT, Mark::Note));
            }
        }
    }
    for g in &p.gates {
        entries.push(Entry::new(
            &g.label,
            palette::FAULT,
            Mark::Stroke(Dash::Dashed),
        ));
        if let Some(w) = &g.window {
            entries.push(Entry::new(
                format!("  in window {w}"),
                palette::TEXT,
                Mark::Note,
            ));
        }
    }
    entries.extend(folded_entries(&p.folded));
    entries
}

/// Pixels a legend of `rows` entries needs under its heading (`canvas::legend`'s spacing).
fn legend_height(rows: usize) -> u32 {
    8 + 20 + 19 * rows as u32 + 8
}

/// The names a panel leaves out, as text rows of the legend: "not drawn (N):", then the
/// names, as many to a row as fit.
fn folded_entries(folded: &[String]) -> Vec<Entry> {
    if folded.is_empty() {
        return Vec::new();
    }
    let mut rows = vec![format!("not drawn ({}):", folded.len())];
    let mut row = String::new();
    for name in folded {
        if !row.is_empty() && row.len() + name.len() + 2 > canvas::LABEL_CHARS {
            rows.push(std::mem::take(&mut row));
        }
        if !row.is_empty() {
            row.push_str(", ");
        }
        row.push_str(name);
    }
    rows.push(row);
    rows.into_iter()
        .map(|r| Entry::new(r, palette::TEXT, Mark::Note))
        .collect()
}

/// Shades the warm-up and the fault windows over a panel's whole height.
pub(super) fn shade<DB: DrawingBackend>(
    t: &Timeline,
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    (lo, hi): (f64, f64),
    tag: bool,
) -> DrawResult<DB> {
    if t.warmup_s > 0.0 {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, lo), (t.warmup_s, hi)],
            palette::WARMUP.mix(0.18).filled(),
        )))?;
    }
    for f in &t.faults {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(f.start, lo), (f.end, hi)],
            palette::FAULT.mix(0.09).filled(),
        )))?;
    }
    if tag {
        let width = chart.plotting_area().dim_in_pixel().0;
        let px_per_s = f64::from(width) / t.end_s.max(1e-9);
        let starts: Vec<f64> = t.faults.iter().map(|f| f.start).collect();
        for (i, (f, dx)) in t
            .faults
            .iter()
            .zip(tag_offsets(&starts, px_per_s))
            .enumerate()
        {
            chart.draw_series(std::iter::once(
                EmptyElement::at((f.start, hi))
                    + Text::new(format!("F{i}"), (dx, 3), text(11).color(&palette::FAULT)),
            ))?;
        }
    }
    Ok(())
}

/// Each fault tag's x offset in px from its fault's start, so that tags of faults starting
/// together (or a few px apart) stand side by side in start order instead of on top of each
/// other. A tag `F<i>` is taken as 7 px a character and 4 px of gap.
pub fn tag_offsets(starts: &[f64], px_per_s: f64) -> Vec<i32> {
    let mut order: Vec<usize> = (0..starts.len()).collect();
    order.sort_by(|&a, &b| starts[a].total_cmp(&starts[b]).then(a.cmp(&b)));
    let mut offsets = vec![4; starts.len()];
    let mut free = i32::MIN;
    for i in order {
        let natural = (starts[i] * px_per_s).round() as i32 + 4;
        let x = natural.max(free);
        offsets[i] = 4 + x - natural;
        free = x + 7 * format!("F{i}").len() as i32 + 4;
    }
    offsets
}

fn panel<DB: DrawingBackend>(
    t: &Timeline,
    p: &Panel,
    area: &DrawingArea<DB, Shift>,
    bottom: bool,
    tag_faults: bool,
) -> DrawResult<DB> {
    let values = p.lines.iter().flat_map(|l| l.points.iter().map(|q| q.1));
    let (lo, hi) = canvas::y_range(values.chain(p.gates.iter().map(|g| g.value)));
    // Room above 100% so the top tick does not meet the panel above's bottom tick.
    let hi = if p.unit == AxisUnit::Percent {
        hi.max(1.08)
    } else {
        hi
    };
    let mut chart = ChartBuilder::on(area)
        .margin_top(if tag_faults { 8 } else { 14 })
        .margin_bottom(if bottom { CAPTION_MARGIN } else { 0 })
        .margin_left(6)
        .margin_right(14)
        .y_label_area_size(Y_LABELS)
        .x_label_area_size(if bottom { X_AXIS } else { 0 })
        .build_cartesian_2d(0.0..t.end_s.max(1e-9), lo..hi)?;
    let unit = p.unit;
    let y_fmt = |v: &f64| unit.tick(*v);
    let x_fmt = |v: &f64| if bottom { short(*v) } else { String::new() };
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(12)
        .y_labels(4)
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::GRID)
        .label_style(text(12))
        .axis_desc_style(text(13))
        .y_label_formatter(&y_fmt)
        .x_label_formatter(&x_fmt)
        .y_desc(p.y_desc.as_str());
    if bottom {
        mesh.x_desc("time since start (s)");
    }
    mesh.draw()?;
    shade(t, &mut chart, (lo, hi), tag_faults)?;
    let drawn = p.lines.iter().any(|l| !l.points.is_empty());
    // A value's worth of one pixel, to raise a line repeating another.
    let px_height = f64::from(chart.plotting_area().dim_in_pixel().1.max(1));
    let per_px = (hi - lo) / px_height;
    let repeats = p.repeats();
    for (j, l) in p.lines.iter().enumerate() {
        let raise = f64::from(RAISE_PX * overlap::raise_level(&repeats, j)) * per_px;
        let points: Vec<(f64, f64)> = l.points.iter().map(|q| (q.0, q.1 + raise)).collect();
        let style = l.color.stroke_width(2);
        match l.dash.pattern() {
            Some((dash, gap)) => {
                chart.draw_series(DashedLineSeries::new(points.clone(), dash, gap, style))?;
            }
            None => {
                chart.draw_series(LineSeries::new(points.clone(), style))?;
            }
        }
        if points.len() == 1 {
            chart.draw_series(points.iter().map(|q| Circle::new(*q, 4, l.color.filled())))?;
        }
    }
    for g in &p.gates {
        let (dash, gap) = Dash::Dashed.pattern().unwrap_or((7, 4));
        chart.draw_series(DashedLineSeries::new(
            [(0.0, g.value), (t.end_s, g.value)],
            dash,
            gap,
            palette::FAULT.stroke_width(1),
        ))?;
    }
    if !drawn {
        canvas::note(&chart.plotting_area().strip_coord_spec(), "no data")?;
    }
    Ok(())
}

/// A panel whose every series is 0 throughout, as one line of text naming them (and the time
/// axis under it when it is the last panel).
fn folded_panel<DB: DrawingBackend>(
    t: &Timeline,
    p: &Panel,
    area: &DrawingArea<DB, Shift>,
    bottom: bool,
) -> DrawResult<DB> {
    let names: Vec<&str> = p.lines.iter().map(|l| l.label.as_str()).collect();
    let line = format!("{}: 0 throughout ({})", p.heading, names.join(", "));
    area.draw(&Text::new(line, (Y_LABELS as i32 + 12, 8), text(12)))?;
    if bottom {
        let mut chart = ChartBuilder::on(area)
            .margin_top(FOLDED_HEIGHT - 4)
            .margin_bottom(CAPTION_MARGIN)
            .margin_left(6)
            .margin_right(14)
            .y_label_area_size(Y_LABELS)
            .x_label_area_size(X_AXIS)
            .build_cartesian_2d(0.0..t.end_s.max(1e-9), 0.0..1.0)?;
        let x_fmt = |v: &f64| short(*v);
        chart
            .configure_mesh()
            .x_labels(12)
            .y_labels(0)
            .disable_y_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(palette::GRID)
            .label_style(text(12))
            .axis_desc_style(text(13))
            .x_label_formatter(&x_fmt)
            .x_desc("time since start (s)")
            .draw()?;
    }
    Ok(())
}
