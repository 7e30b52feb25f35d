//! Text in PNG charts, rasterised from the embedded font's outlines. plotters' own ab_glyph
//! path puts each glyph's top at `size / 2 + top` truncated towards zero, which rounds glyphs
//! above the baseline down and glyphs below it up (a "." at 13 px sits a pixel above the
//! letters), and starts each glyph's ink at its truncated pen position without the glyph's
//! left side bearing (so "cl" touch). Here every glyph is outlined at its exact, fractional
//! pen position on one shared baseline, bearings and kerning included, and the coverage of
//! a whole line is summed before it is blended once, so no pixel is painted twice.

use super::font::FONT;
use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};
use std::sync::OnceLock;

fn font() -> &'static FontRef<'static> {
    static PARSED: OnceLock<FontRef<'static>> = OnceLock::new();
    // The font is compiled in and known to parse; a failure would be a broken build.
    PARSED.get_or_init(|| FontRef::try_from_slice(FONT).expect("the embedded font parses"))
}

/// ab_glyph's scale for `em` pixels per em: it scales the font's whole height (ascent minus
/// descent), not its em, so the two differ by that ratio.
fn scale(em: f32) -> PxScale {
    let f = font();
    PxScale::from(em * f.height_unscaled() / f.units_per_em().unwrap_or(2048.0))
}

/// The width of `text` at `em` pixels per em: its advances and kerning.
pub fn advance(text: &str, em: f32) -> f32 {
    let f = font().as_scaled(scale(em));
    let mut width = 0.0;
    let mut prev: Option<GlyphId> = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            width += f.kern(p, id);
        }
        width += f.h_advance(id);
        prev = Some(id);
    }
    width
}

/// The height of a lower-case "x" at `em` pixels per em (the `ex` SVG viewers centre text by).
pub fn x_height(em: f32) -> f32 {
    let f = font();
    let top = f.outline(f.glyph_id('x')).map_or(0.0, |o| o.bounds.max.y);
    top * em / f.units_per_em().unwrap_or(2048.0)
}

/// A line of text as pixel coverage: `width × height` values from 0 to 1, row-major, whose
/// first pixel is `(x0, y0)`.
#[derive(Debug, Default)]
pub struct Ink {
    pub x0: i32,
    pub y0: i32,
    pub width: usize,
    pub height: usize,
    pub coverage: Vec<f32>,
}

impl Ink {
    /// Each pixel the text covers at all: `(x, y, coverage)`.
    pub fn pixels(&self) -> impl Iterator<Item = (i32, i32, f32)> + '_ {
        self.coverage.iter().enumerate().filter_map(|(i, &c)| {
            let (x, y) = (i % self.width, i / self.width);
            (c > 0.0).then(|| (self.x0 + x as i32, self.y0 + y as i32, c.min(1.0)))
        })
    }
}

/// Rasterises `text` at `em` pixels per em, its pen starting at `x` on the baseline `y`
/// (pixel edges, fractional allowed).
pub fn rasterize(text: &str, em: f32, (x, y): (f32, f32)) -> Ink {
    let f = font().as_scaled(scale(em));
    let mut pen = x;
    let mut prev: Option<GlyphId> = None;
    let mut outlined = Vec::new();
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            pen += f.kern(p, id);
        }
        let glyph = id.with_scale_and_position(f.scale(), point(pen, y));
        if let Some(o) = font().outline_glyph(glyph) {
            outlined.push(o);
        }
        pen += f.h_advance(id);
        prev = Some(id);
    }
    let Some(first) = outlined.first() else {
        return Ink::default();
    };
    let mut bounds = first.px_bounds();
    for o in &outlined {
        let b = o.px_bounds();
        bounds.min.x = bounds.min.x.min(b.min.x);
        bounds.min.y = bounds.min.y.min(b.min.y);
        bounds.max.x = bounds.max.x.max(b.max.x);
        bounds.max.y = bounds.max.y.max(b.max.y);
    }
    let (x0, y0) = (bounds.min.x as i32, bounds.min.y as i32);
    let width = (bounds.max.x - bounds.min.x) as usize;
    let height = (bounds.max.y - bounds.min.y) as usize;
    let mut coverage = vec![0.0f32; width * height];
    for o in &outlined {
        let b = o.px_bounds();
        let (dx, dy) = (
            (b.min.x as i32 - x0) as usize,
            (b.min.y as i32 - y0) as usize,
        );
        o.draw(|gx, gy, c| {
            let at = (dy + gy as usize) * width + dx + gx as usize;
            coverage[at] = (coverage[at] + c).min(1.0);
        });
    }
    Ink {
        x0,
        y0,
        width,
        height,
        coverage,
    }
}
