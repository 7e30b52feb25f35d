//! What every chart shares: the title block, legends drawn beside the data (never over it),
//! the "no data" note, and the mesh style.

use super::font::FAMILY;
use super::palette;
use super::style::Dash;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Width of the legend column at the right of every chart, px.
pub const LEGEND_WIDTH: u32 = 250;
/// Width of the y tick labels and description, px: the same in every panel so their data
/// areas line up.
pub const Y_LABELS: u32 = 78;

pub fn text(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&palette::TEXT)
}

pub fn bold(size: u32) -> TextStyle<'static> {
    (FAMILY, size)
        .into_font()
        .style(FontStyle::Bold)
        .color(&RGBColor(0, 0, 0))
}

/// Draws the title and a grey subtitle at the top of `root`; returns the area below them.
pub fn title<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw(&Text::new(title.to_string(), (16, 12), bold(20)))?;
    root.draw(&Text::new(
        subtitle.to_string(),
        (16, 38),
        (FAMILY, 13).into_font().color(&RGBColor(0x55, 0x55, 0x55)),
    ))?;
    Ok(root.split_vertically(62).1)
}

/// How a legend entry shows its series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mark {
    Line,
    /// A line with a dash pattern (`Dash::Solid` draws as `Line`).
    Stroke(Dash),
    /// No mark: a line of text (the names a panel left out).
    Note,
    /// A shaded band (fault window, confidence interval, breaker open).
    Band(f64),
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub label: String,
    pub color: RGBColor,
    pub mark: Mark,
}

impl Entry {
    pub fn new(label: impl Into<String>, color: RGBColor, mark: Mark) -> Entry {
        Entry {
            label: label.into(),
            color,
            mark,
        }
    }
}

/// Longest legend label, in characters, before it is shortened with an ellipsis.
pub const LABEL_CHARS: usize = 30;

fn shorten(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        return label.to_string();
    }
    let head: String = label.chars().take(LABEL_CHARS - 1).collect();
    format!("{head}…")
}

/// Characters of an 11 px title line that fit the legend column.
pub const TITLE_LINE_CHARS: usize = 34;

/// A title broken into lines of at most `max` characters, after a `.`, `-` or `_` where it
/// can and inside a longer segment where it must: never shortened, so a metric's name reads
/// whole however long it is.
pub fn wrap_title(title: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for piece in title.split_inclusive(['.', '-', '_']) {
        if !line.is_empty() && line.chars().count() + piece.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        for ch in piece.chars() {
            if line.chars().count() == max {
                lines.push(std::mem::take(&mut line));
            }
            line.push(ch);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A legend: an optional heading, then one row per entry, from `top` px down in `area`.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    top: i32,
    heading: &str,
    entries: &[Entry],
) -> DrawResult<DB> {
    let x = 12;
    let mut y = top;
    if !heading.is_empty() {
        area.draw(&Text::new(heading.to_string(), (x, y), bold(13)))?;
        y += 20;
    }
    let (_, height) = area.dim_in_pixel();
    for (i, e) in entries.iter().enumerate() {
        // Out of room: say how many are left out rather than cutting them silently.
        let left = entries.len() - i;
        if left > 1 && y + 16 + 19 > height as i32 {
            area.draw(&Text::new(format!("… and {left} more"), (x, y), text(12)))?;
            break;
        }
        if y + 16 > height as i32 {
            break;
        }
        let mid = y + 7;
        match e.mark {
            Mark::Line => {
                area.draw(&PathElement::new(
                    vec![(x, mid), (x + 26, mid)],
                    e.color.stroke_width(3),
                ))?;
            }
            Mark::Stroke(dash) => match dash.legend_pattern() {
                None => {
                    area.draw(&PathElement::new(
                        vec![(x, mid), (x + 26, mid)],
                        e.color.stroke_width(3),
                    ))?;
                }
                Some((len, gap)) => {
                    let mut a = x;
                    while a + len <= x + 26 {
                        area.draw(&PathElement::new(
                            vec![(a, mid), (a + len, mid)],
                            e.color.stroke_width(3),
                        ))?;
                        a += len + gap;
                    }
                }
            },
            Mark::Note => {}
            Mark::Band(alpha) => {
                area.draw(&Rectangle::new(
                    [(x, y), (x + 26, y + 14)],
                    e.color.mix(alpha).filled(),
                ))?;
            }
        }
        let label_x = if e.mark == Mark::Note { x } else { x + 34 };
        area.draw(&Text::new(shorten(&e.label), (label_x, y), text(12)))?;
        y += 19;
    }
    Ok(())
}

/// A grey note centred in `area`, for a chart with nothing to draw.
pub fn note<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, msg: &str) -> DrawResult<DB> {
    let (w, h) = area.dim_in_pixel();
    let style = (FAMILY, 16)
        .into_font()
        .color(&RGBColor(0x77, 0x77, 0x77))
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new(
        msg.to_string(),
        (w as i32 / 2, h as i32 / 2),
        style,
    ))
}

/// A y range from 0 (or the data's minimum, when negative) to a little above the maximum;
/// `0..1` when there is nothing, so an empty chart still has axes.
pub fn y_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let mut lo: f64 = 0.0;
    let mut hi: f64 = 0.0;
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if hi - lo <= 0.0 {
        return (lo, lo + 1.0);
    }
    (lo, hi + (hi - lo) * 0.08)
}

/// An x range around values, padded so single points and ends are not on the frame.
pub fn x_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let v: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo <= 0.0 {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 };
        return (lo - pad, hi + pad);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_never_collapse() {
        assert_eq!(y_range([]), (0.0, 1.0));
        assert_eq!(y_range([0.0, 0.0]), (0.0, 1.0));
        assert_eq!(y_range([f64::NAN]), (0.0, 1.0));
        let (lo, hi) = y_range([2.0, 10.0]);
        assert_eq!(lo, 0.0);
        assert!(hi > 10.0);
        assert_eq!(x_range([]), (0.0, 1.0));
        assert_eq!(x_range([4.0]), (2.0, 6.0));
        assert_eq!(x_range([0.0]), (-1.0, 1.0));
        assert_eq!(shorten("short"), "short");
        assert_eq!(shorten(&"x".repeat(40)).chars().count(), LABEL_CHARS);
        assert_eq!(
            wrap_title("client.web.success_ratio", 34),
            ["client.web.success_ratio"]
        );
        assert_eq!(
            wrap_title("window.expect-3.client.checkout.success_ratio", 20),
            ["window.expect-3.", "client.checkout.", "success_ratio"]
        );
        assert_eq!(wrap_title(&"x".repeat(25), 10).concat(), "x".repeat(25));
        assert_eq!(wrap_title("", 10), [""]);
    }
}
