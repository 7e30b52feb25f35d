//! How much room text takes: the diagram's font sizes and an estimate of a line's width. SVG
//! text cannot be measured without a renderer, so widths are estimated per character on the
//! generous side (DejaVu Sans, the widest of the fonts the SVG names, averages about 0.55 em
//! on lowercase text and 0.62 em in bold); boxes are sized from the estimate with padding.

use super::diagram::{Edge, Node};

pub const NAME_SIZE: f64 = 14.0;
pub const TEXT_SIZE: f64 = 10.5;
/// Line pitch of the 10.5 px lines.
pub const LINE: f64 = 14.0;
/// Padding inside boxes and labels.
pub const PAD_X: f64 = 10.0;
pub const LABEL_PAD: f64 = 4.0;
const MIN_BOX_W: f64 = 140.0;

pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let em = if bold { 0.64 } else { 0.6 };
    text.chars().count() as f64 * size * em
}

/// A node's box: wide enough for its widest line, tall enough for its name, its lines and
/// its faults line.
pub fn box_size(n: &Node) -> (f64, f64) {
    let widest = n
        .lines
        .iter()
        .map(|l| text_width(l, TEXT_SIZE, false))
        .chain([
            text_width(&n.name, NAME_SIZE, true),
            text_width(&n.faults, TEXT_SIZE, true),
        ])
        .fold(0.0, f64::max);
    let lines = n.lines.len() + usize::from(!n.faults.is_empty());
    (
        (widest + 2.0 * PAD_X).max(MIN_BOX_W).ceil(),
        24.0 + lines as f64 * LINE + 6.0,
    )
}

/// A label's box, `None` for an edge without a label.
pub fn label_size(e: &Edge) -> Option<(f64, f64)> {
    if e.label.is_empty() {
        return None;
    }
    let widest = e
        .label
        .iter()
        .map(|l| text_width(l, TEXT_SIZE, false))
        .fold(0.0, f64::max);
    Some((
        (widest + 2.0 * LABEL_PAD).ceil(),
        e.label.len() as f64 * LINE + 2.0 * LABEL_PAD,
    ))
}
