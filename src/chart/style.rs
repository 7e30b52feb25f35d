//! Line styles: a colour and a dash pattern. Eight Okabe–Ito colours are not enough for a
//! panel of many series, so after the eight solid lines come eight dotted, eight long-dashed
//! and eight dashed ones; `Styles` hands them out so that no two series of one panel share a
//! colour and a pattern.

use super::palette;
use plotters::style::RGBColor;

/// How a line is stroked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    Solid,
    /// Short dashes: a client's offered load beside its solid goodput.
    Dashed,
    Dotted,
    LongDash,
}

impl Dash {
    /// The patterns in the order they are handed out.
    const ORDER: [Dash; 4] = [Dash::Solid, Dash::Dotted, Dash::LongDash, Dash::Dashed];

    /// The `i`-th pattern in the order they are handed out (cycling): a run's on a chart that
    /// gives colours to something else.
    pub fn nth(i: usize) -> Dash {
        Self::ORDER[i % Self::ORDER.len()]
    }

    /// (dash length, gap) of the legend's 26 px sample; `None` for a solid line.
    pub fn legend_pattern(self) -> Option<(i32, i32)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((6, 4)),
            Dash::Dotted => Some((2, 3)),
            Dash::LongDash => Some((11, 4)),
        }
    }

    /// (dash length, gap) in pixels; `None` for a solid line.
    pub fn pattern(self) -> Option<(u32, u32)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((7, 4)),
            Dash::Dotted => Some((2, 4)),
            Dash::LongDash => Some((16, 5)),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Index into `palette::SERIES`.
    pub color_index: usize,
    pub dash: Dash,
}

impl Style {
    pub fn color(self) -> RGBColor {
        palette::series(self.color_index)
    }
}

/// Distinct styles: every (colour, pattern) pair at most once, in the order colours first.
#[derive(Debug, Default)]
pub struct Styles {
    used: Vec<Style>,
}

/// How many distinct styles there are; a panel never needs more (`timeline::MAX_LINES`).
pub const DISTINCT: usize = palette::SERIES.len() * Dash::ORDER.len();

impl Styles {
    /// The next style not yet handed out, or the least recent one when all 32 are taken.
    pub fn fresh(&mut self) -> Style {
        let colors = palette::SERIES.len();
        let fresh = (0..DISTINCT)
            .map(|i| Style {
                color_index: i % colors,
                dash: Dash::ORDER[i / colors],
            })
            .find(|s| !self.used.contains(s));
        let style = fresh.unwrap_or_else(|| self.used[self.used.len() % DISTINCT]);
        self.used.push(style);
        style
    }

    /// Takes `style` as well (a client's dashed offered line in its goodput's colour).
    pub fn claim(&mut self, style: Style) -> Style {
        self.used.push(style);
        style
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_two_styles_are_distinct_and_colours_come_first() {
        let mut s = Styles::default();
        let all: Vec<Style> = (0..DISTINCT).map(|_| s.fresh()).collect();
        for (i, a) in all.iter().enumerate() {
            assert!(!all[..i].contains(a), "style {i} repeats");
        }
        assert!(all[..8].iter().all(|s| s.dash == Dash::Solid));
        assert_eq!(all[8].dash, Dash::Dotted);
        assert_eq!(all[8].color_index, 0);
    }

    #[test]
    fn a_claimed_style_is_not_handed_out_again() {
        let mut s = Styles::default();
        let first = s.fresh();
        s.claim(Style {
            color_index: first.color_index,
            dash: Dash::Dotted,
        });
        let rest: Vec<Style> = (0..DISTINCT - 2).map(|_| s.fresh()).collect();
        assert!(!rest.contains(&first));
        assert!(!rest.contains(&Style {
            color_index: first.color_index,
            dash: Dash::Dotted
        }));
    }
}
