//! The font chart text is laid out with: DejaVu Sans, embedded in the binary and registered
//! with plotters once, so charts need neither fontconfig nor freetype (assets/fonts/LICENSE).

use std::sync::Once;

/// The family name charts ask for; the embedded font is registered under it.
pub const FAMILY: &str = "sans-serif";

pub(super) static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// Registers the embedded font (idempotent). Bold and other styles fall back to it in PNGs;
/// SVG viewers render `font-weight="bold"` with their own sans-serif.
pub fn ensure_registered() {
    REGISTER.call_once(|| {
        // The font is compiled in and known to parse; a failure would be a broken build.
        if plotters::style::register_font(FAMILY, plotters::style::FontStyle::Normal, FONT).is_err()
        {
            panic!("the embedded DejaVu Sans font does not parse");
        }
    });
}
