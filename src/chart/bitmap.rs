//! The PNG drawing backend: plotters' bitmap backend at a whole-number scale, with text drawn
//! by `glyphs`. A chart is laid out in the same logical pixels as its SVG; every coordinate,
//! radius and stroke width is multiplied by the scale on its way to the bitmap, and text is
//! rasterised at the scaled size, so `--scale 2` is the same chart with twice the pixels in
//! each direction, sharp rather than enlarged. At scale 1 every shape reaches the bitmap
//! backend exactly as plotters would have sent it.

use super::glyphs;
use plotters::prelude::BitMapBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};

/// The em of a plotters text size, in pixels: the SVG backend writes `font-size` as the size
/// divided by 1.24, and PNG text matches the SVG's.
const SIZE_PER_EM: f64 = 1.24;
/// Where a top-anchored line's baseline sits below its anchor, in ems (the SVG backend's
/// `dy="0.76em"`).
const TOP_TO_BASELINE: f32 = 0.76;

pub struct Scaled<'a> {
    inner: BitMapBackend<'a>,
    scale: u32,
    /// The logical size: what the chart is laid out in.
    size: (u32, u32),
}

type Fallible<E> = Result<(), DrawingErrorKind<E>>;

impl<'a> Scaled<'a> {
    /// Draws a chart of logical `size` into `pixels` (8-bit RGB, `size × scale` in each
    /// direction).
    pub fn new(pixels: &'a mut [u8], size: (u32, u32), scale: u32) -> Scaled<'a> {
        let scale = scale.max(1);
        Scaled {
            inner: BitMapBackend::with_buffer(pixels, (size.0 * scale, size.1 * scale)),
            scale,
            size,
        }
    }

    fn at(&self, (x, y): BackendCoord) -> BackendCoord {
        let s = self.scale as i32;
        (x * s, y * s)
    }

    /// Just past logical pixel `p`'s block of physical pixels (the bitmap backend's filled
    /// rectangles exclude their bottom-right corner).
    fn block_end(&self, (x, y): BackendCoord) -> BackendCoord {
        let s = self.scale as i32;
        (x * s + s, y * s + s)
    }
}

/// A style with its stroke width scaled.
struct Wider<'s, S> {
    style: &'s S,
    scale: u32,
}

impl<S: BackendStyle> BackendStyle for Wider<'_, S> {
    fn color(&self) -> BackendColor {
        self.style.color()
    }
    fn stroke_width(&self) -> u32 {
        self.style.stroke_width() * self.scale
    }
}

/// Where text-frame pixel `(i, j)` lands relative to the anchor after the rotation: pixel
/// `(i, j)` covers `[i, i+1] × [j, j+1]`, and it is that square that turns.
fn rotate(t: &FontTransform, (i, j): (i32, i32)) -> (i32, i32) {
    match t {
        FontTransform::None => (i, j),
        FontTransform::Rotate90 => (-j - 1, i),
        FontTransform::Rotate180 => (-i - 1, -j - 1),
        FontTransform::Rotate270 => (j, -i - 1),
    }
}

impl<'a> DrawingBackend for Scaled<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Fallible<Self::ErrorType> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Fallible<Self::ErrorType> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, p: BackendCoord, color: BackendColor) -> Fallible<Self::ErrorType> {
        if self.scale == 1 {
            return self.inner.draw_pixel(p, color);
        }
        let (from, to) = (self.at(p), self.block_end(p));
        self.inner.draw_rect(from, to, &color, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Fallible<Self::ErrorType> {
        let wider = Wider {
            style,
            scale: self.scale,
        };
        if self.scale > 1 && style.stroke_width() == 1 {
            // A hairline is a row or column of logical pixels: fill their blocks.
            if from.0 == to.0 || from.1 == to.1 {
                let (lo, hi) = (
                    (from.0.min(to.0), from.1.min(to.1)),
                    (from.0.max(to.0), from.1.max(to.1)),
                );
                let (a, b) = (self.at(lo), self.block_end(hi));
                return self.inner.draw_rect(a, b, &style.color(), true);
            }
        }
        let (a, b) = (self.at(from), self.at(to));
        self.inner.draw_line(a, b, &wider)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Fallible<Self::ErrorType> {
        if self.scale == 1 {
            return self.inner.draw_rect(upper_left, bottom_right, style, fill);
        }
        let lo = (
            upper_left.0.min(bottom_right.0),
            upper_left.1.min(bottom_right.1),
        );
        let hi = (
            upper_left.0.max(bottom_right.0),
            upper_left.1.max(bottom_right.1),
        );
        if fill {
            // Filled, the bottom-right corner is excluded at every scale.
            let (a, b) = (self.at(lo), self.at(hi));
            return self.inner.draw_rect(a, b, &style.color(), true);
        }
        // An outline: its four sides, each a line of logical pixels.
        for (from, to) in [
            (lo, (hi.0, lo.1)),
            ((lo.0, hi.1), hi),
            (lo, (lo.0, hi.1)),
            ((hi.0, lo.1), hi),
        ] {
            self.draw_line(from, to, style)?;
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Fallible<Self::ErrorType> {
        if self.scale == 1 {
            return self.inner.draw_path(path, style);
        }
        let points: Vec<BackendCoord> = path.into_iter().collect();
        if style.stroke_width() == 1 {
            // Hairlines segment by segment, so a straight one fills its logical pixels.
            for pair in points.windows(2) {
                self.draw_line(pair[0], pair[1], style)?;
            }
            return Ok(());
        }
        let points: Vec<BackendCoord> = points.into_iter().map(|p| self.at(p)).collect();
        let wider = Wider {
            style,
            scale: self.scale,
        };
        self.inner.draw_path(points, &wider)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Fallible<Self::ErrorType> {
        let wider = Wider {
            style,
            scale: self.scale,
        };
        let c = self.at(center);
        self.inner.draw_circle(c, radius * self.scale, &wider, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Fallible<Self::ErrorType> {
        let points: Vec<BackendCoord> = vert.into_iter().map(|p| self.at(p)).collect();
        self.inner.fill_polygon(points, style)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Fallible<Self::ErrorType> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let em = (style.size() / SIZE_PER_EM) as f32 * self.scale as f32;
        let anchor = style.anchor();
        let width = glyphs::advance(text, em);
        let x = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        // The SVG backend's baselines: 0.76 em below a top anchor, half an ex below a centre
        // one and half an ex above a bottom one.
        let ex = glyphs::x_height(em);
        let y = match anchor.v_pos {
            VPos::Top => TOP_TO_BASELINE * em,
            VPos::Center => ex / 2.0,
            VPos::Bottom => -ex / 2.0,
        };
        let ink = glyphs::rasterize(text, em, (x, y));
        let origin = self.at(pos);
        let turn = style.transform();
        for (i, j, c) in ink.pixels() {
            let (dx, dy) = rotate(&turn, (i, j));
            let ink = BackendColor {
                alpha: color.alpha * f64::from(c),
                rgb: color.rgb,
            };
            self.inner.draw_pixel((origin.0 + dx, origin.1 + dy), ink)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    const W: u32 = 48;
    const H: u32 = 32;
    /// An odd text size: plotters' own path rounded a glyph's top from `size / 2`, off by
    /// half a pixel one way above the baseline and the other way below it.
    const SIZE: u32 = 21;
    const TOP: i32 = 4;

    /// Each pixel's darkness, 0 to 255, of a `W × H` (logical) chart drawn black on white
    /// by `draw` at `scale`.
    fn darkness(scale: u32, draw: impl FnOnce(&mut [u8])) -> Vec<Vec<u8>> {
        let (w, h) = ((W * scale) as usize, (H * scale) as usize);
        let mut pixels = vec![255u8; w * h * 3];
        draw(&mut pixels);
        (0..h)
            .map(|y| (0..w).map(|x| 255 - pixels[(y * w + x) * 3]).collect())
            .collect()
    }

    /// "cl." at `SIZE`, anchored by its top-left at (4, `TOP`).
    fn cl_dot<DB: DrawingBackend>(backend: DB) {
        crate::chart::font::ensure_registered();
        let root = backend.into_drawing_area();
        let style = crate::chart::canvas::text(SIZE).color(&BLACK);
        root.draw(&Text::new("cl.", (4, TOP), style)).unwrap();
        root.present().unwrap();
    }

    /// Runs of columns holding any ink, left to right, as (first, last) column.
    fn column_runs(ink: &[Vec<u8>]) -> Vec<(usize, usize)> {
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for x in 0..ink[0].len() {
            if !ink.iter().any(|row| row[x] > 0) {
                continue;
            }
            match runs.last_mut() {
                Some(r) if r.1 + 1 == x => r.1 = x,
                _ => runs.push((x, x)),
            }
        }
        runs
    }

    /// The lowest row at least half covered within columns `a..=b`.
    fn bottom(ink: &[Vec<u8>], (a, b): (usize, usize)) -> usize {
        (0..ink.len())
            .rev()
            .find(|&y| (a..=b).any(|x| ink[y][x] >= 128))
            .expect("ink")
    }

    /// "c", "l" and "." are three runs of inked columns, a clean column between each (no
    /// column holds ink of two glyphs), and the "." ends on the row holding the baseline
    /// (0.76 em below the top anchor, as the SVG puts it), as the "l" does.
    fn assert_placed(ink: &[Vec<u8>], scale: u32) {
        let runs = column_runs(ink);
        assert_eq!(runs.len(), 3, "c, l and . apart: column runs {runs:?}");
        let em = SIZE as f64 / SIZE_PER_EM * f64::from(scale);
        let baseline = f64::from(TOP) * f64::from(scale) + f64::from(TOP_TO_BASELINE) * em;
        let row = baseline.floor() as usize;
        assert_eq!(
            bottom(ink, runs[1]),
            row,
            "the l ends on the baseline {baseline}"
        );
        assert_eq!(
            bottom(ink, runs[2]),
            row,
            "the dot ends on the baseline {baseline}"
        );
    }

    #[test]
    fn a_dot_sits_on_the_baseline_and_c_and_l_do_not_touch() {
        // Before glyphs were placed here (plotters' BitMapBackend drawing the same text), the
        // columns ran [(5, 15), (18, 20)]: "c" and "l" in one, and the dot's last row 12
        // against the l's 14.
        let ink = darkness(1, |pixels| cl_dot(Scaled::new(pixels, (W, H), 1)));
        assert_placed(&ink, 1);
        let ink = darkness(2, |pixels| cl_dot(Scaled::new(pixels, (W, H), 2)));
        assert_placed(&ink, 2);
    }

    #[test]
    fn a_scaled_chart_fills_each_logical_pixel_with_a_block() {
        let ink = darkness(3, |pixels| {
            let root = Scaled::new(pixels, (W, H), 3).into_drawing_area();
            root.draw_pixel((1, 2), &BLACK).unwrap();
            // A filled rectangle excludes its bottom-right corner, at every scale.
            root.draw(&Rectangle::new([(10, 10), (12, 11)], BLACK.filled()))
                .unwrap();
            root.draw(&PathElement::new(vec![(20, 5), (22, 5)], BLACK))
                .unwrap();
            root.present().unwrap();
        });
        let black = |x: usize, y: usize| ink[y][x] == 255;
        let blank = |x: usize, y: usize| ink[y][x] == 0;
        // Pixel (1, 2): physical 3..6 × 6..9.
        assert!((3..6).all(|x| (6..9).all(|y| black(x, y))));
        assert!(blank(2, 6) && blank(6, 6) && blank(3, 5) && blank(3, 9));
        // Rectangle (10, 10)-(12, 11): physical 30..36 × 30..33.
        assert!((30..36).all(|x| (30..33).all(|y| black(x, y))));
        assert!(blank(36, 30) && blank(30, 33) && blank(29, 30));
        // A hairline from (20, 5) to (22, 5), ends included: 60..69 × 15..18.
        assert!((60..69).all(|x| (15..18).all(|y| black(x, y))));
        assert!(blank(69, 15) && blank(60, 18) && blank(59, 15));
    }

    #[test]
    fn turned_text_keeps_its_pixels() {
        // A quarter turn maps the text frame's pixel (i, j) to (-j - 1, i) and back again.
        let t = FontTransform::Rotate90;
        assert_eq!(rotate(&t, (0, 0)), (-1, 0));
        assert_eq!(rotate(&t, (3, 1)), (-2, 3));
        let r270 = FontTransform::Rotate270;
        assert_eq!(rotate(&r270, rotate(&t, (3, 1))), (3, 1));
        let half = FontTransform::Rotate180;
        assert_eq!(rotate(&half, rotate(&half, (5, -2))), (5, -2));
    }
}
