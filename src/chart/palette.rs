//! Colours: Okabe–Ito for categories (distinguishable with every common colour-vision
//! deficiency) and viridis for heatmaps (perceptually uniform, readable in grey).

use plotters::style::RGBColor;

/// Okabe–Ito, ordered so the first colours are the most distinct on white; yellow last.
pub const SERIES: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xC8, 0xB4, 0x00), // yellow, darkened to read on white
];

/// The colour of the `i`-th series (cycles after eight).
pub fn series(i: usize) -> RGBColor {
    SERIES[i % SERIES.len()]
}

/// Fault windows: a pale vermillion wash.
pub const FAULT: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// The warm-up: grey.
pub const WARMUP: RGBColor = RGBColor(0x99, 0x99, 0x99);
/// Breaker-open bands.
pub const BREAKER: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
/// Instance-count bands: bluish green, apart from the fault and breaker strips' colours.
pub const INSTANCES: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Alert-firing bands: blue, apart from the fault, breaker and instance strips' colours.
pub const ALERT: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Axis text and notes.
pub const TEXT: RGBColor = RGBColor(0x33, 0x33, 0x33);
pub const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);

/// The colour as `#rrggbb`, for hand-made SVG.
pub fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x47, 0x2c, 0x7a),
    (0x3b, 0x51, 0x8b),
    (0x2c, 0x71, 0x8e),
    (0x21, 0x90, 0x8d),
    (0x27, 0xad, 0x81),
    (0x5c, 0xc8, 0x63),
    (0xaa, 0xdc, 0x32),
    (0xfd, 0xe7, 0x25),
];

/// Viridis at `t` in [0, 1] (clamped), interpolated linearly between nine anchors.
pub fn viridis(t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Black or white, whichever reads better on `c`.
pub fn text_on(c: RGBColor) -> RGBColor {
    let luminance = 0.2126 * f64::from(c.0) + 0.7152 * f64::from(c.1) + 0.0722 * f64::from(c.2);
    if luminance > 140.0 {
        RGBColor(0, 0, 0)
    } else {
        RGBColor(255, 255, 255)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_spans_dark_to_light() {
        assert_eq!(viridis(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(viridis(1.0), RGBColor(0xfd, 0xe7, 0x25));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        assert_eq!(text_on(viridis(0.0)), RGBColor(255, 255, 255));
        assert_eq!(text_on(viridis(1.0)), RGBColor(0, 0, 0));
        assert_eq!(hex(series(0)), "#0072b2");
        assert_eq!(series(8), series(0));
    }
}
