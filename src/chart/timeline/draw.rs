//! Drawing a `Timeline`: its panels one under another on one time axis, the legends beside
//! them, fault windows shaded and fault tags placed so they never overlap.

use super::*;

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
        ("Alerts firing", palette::ALERT, &t.alerts),
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
pub(super) fn load_entries(t: &Timeline) -> Vec<Entry> {
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
pub(super) fn panel_entries(p: &Panel) -> Vec<Entry> {
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
pub(super) fn legend_height(rows: usize) -> u32 {
    8 + 20 + 19 * rows as u32 + 8
}

/// The names a panel leaves out, as text rows of the legend: "not drawn (N):", then the
/// names, as many to a row as fit.
pub(super) fn folded_entries(folded: &[String]) -> Vec<Entry> {
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
pub(in crate::chart) fn shade<DB: DrawingBackend>(
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

pub(super) fn panel<DB: DrawingBackend>(
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
pub(super) fn folded_panel<DB: DrawingBackend>(
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
