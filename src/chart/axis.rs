//! A swept parameter as an axis: numbers and durations on a numeric scale, anything else
//! (`fifo`/`lifo`, `true`/`false`) as evenly spaced categories.

use crate::number::short;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// A linear f64 axis whose ticks are exactly the given key points (plotters' own picks round
/// numbers only, which puts category labels between categories).
#[derive(Debug, Clone)]
pub struct Keyed {
    lo: f64,
    hi: f64,
    keys: Vec<f64>,
}

impl Keyed {
    pub fn new(lo: f64, hi: f64, keys: Vec<f64>) -> Keyed {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        Keyed { lo, hi, keys }
    }
}

impl Ranged for Keyed {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let share = (v - self.lo) / (self.hi - self.lo);
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points();
        if max == 0 {
            return Vec::new();
        }
        let step = self.keys.len().div_ceil(max).max(1);
        self.keys.iter().copied().step_by(step).collect()
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParamAxis {
    /// The axis description, unit included.
    pub desc: String,
    /// Each value's position on the axis, in the order given.
    pub positions: Vec<f64>,
    /// Category labels, when the values are not numeric (positions are then 0, 1, 2…).
    pub categories: Option<Vec<String>>,
}

impl ParamAxis {
    pub fn new(path: &str, values: &[String]) -> ParamAxis {
        let numbers: Option<Vec<f64>> = values.iter().map(|v| v.trim().parse().ok()).collect();
        if let Some(positions) = numbers {
            return ParamAxis {
                desc: path.to_string(),
                positions,
                categories: None,
            };
        }
        let durations: Option<Vec<f64>> = values
            .iter()
            .map(|v| {
                crate::time::parse_duration(v.trim().trim_matches('"'))
                    .ok()
                    .map(|ns| ns as f64 / 1e6)
            })
            .collect();
        if let Some(ms) = durations {
            let max = ms.iter().copied().fold(0.0, f64::max);
            let (scale, unit) = if max >= 1500.0 {
                (1e-3, "s")
            } else {
                (1.0, "ms")
            };
            return ParamAxis {
                desc: format!("{path} ({unit})"),
                positions: ms.iter().map(|v| v * scale).collect(),
                categories: None,
            };
        }
        ParamAxis::categorical(path, values)
    }

    pub fn categorical(path: &str, values: &[String]) -> ParamAxis {
        ParamAxis {
            desc: path.to_string(),
            positions: (0..values.len()).map(|i| i as f64).collect(),
            categories: Some(values.to_vec()),
        }
    }

    /// The axis range: the values' span padded, or half a category either side.
    pub fn range(&self) -> (f64, f64) {
        match &self.categories {
            Some(c) => (-0.5, c.len().max(1) as f64 - 0.5),
            None => super::canvas::x_range(self.positions.iter().copied()),
        }
    }

    /// Where the ticks go: at every category (every k-th past twelve), at every swept value
    /// while they are few and far enough apart not to collide, else at round numbers.
    pub fn key_points(&self) -> Vec<f64> {
        let n = self.positions.len();
        if self.categories.is_some() {
            let step = n.div_ceil(12).max(1);
            return (0..n).step_by(step).map(|i| i as f64).collect();
        }
        let (lo, hi) = self.range();
        let mut sorted = self.positions.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.dedup();
        let gap = sorted
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        if sorted.len() <= 12 && gap >= (hi - lo) / 14.0 {
            return sorted;
        }
        nice_ticks(lo, hi, 8)
    }

    /// The tick label at position `v`: a category's name at whole positions, nothing between.
    pub fn tick(&self, v: f64) -> String {
        match &self.categories {
            None => short(v),
            Some(c) => {
                let i = v.round();
                if (v - i).abs() > 1e-6 || i < 0.0 {
                    return String::new();
                }
                c.get(i as usize).cloned().unwrap_or_default()
            }
        }
    }
}

/// Round tick values (steps of 1, 2 or 5 times a power of ten) in [lo, hi], at most `max`.
pub fn nice_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let rough = (hi - lo) / max.max(1) as f64;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| (((hi - lo) / s).floor() as usize) < max)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Ticks for a log axis over [lo, hi]: 1, 2 and 5 times powers of ten, or only the powers
/// when those would be too many.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi <= lo || lo <= 0.0 || !hi.is_finite() {
        return vec![lo.max(1e-9)];
    }
    let all = |mults: &[f64]| -> Vec<f64> {
        let mut out = Vec::new();
        let mut p = 10f64.powf(lo.log10().floor());
        while p <= hi {
            for m in mults {
                let v = p * m;
                if v >= lo && v <= hi {
                    out.push(v);
                }
            }
            p *= 10.0;
        }
        out
    };
    let fine = all(&[1.0, 2.0, 5.0]);
    if fine.len() <= 10 { fine } else { all(&[1.0]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn numbers_durations_and_categories() {
        let a = ParamAxis::new("client.web.rate", &strings(&["100", "200.5"]));
        assert_eq!(a.positions, [100.0, 200.5]);
        assert_eq!(a.categories, None);
        let d = ParamAxis::new("policy.p.timeout", &strings(&["100ms", "1s"]));
        assert_eq!(d.positions, [100.0, 1000.0]);
        assert_eq!(d.desc, "policy.p.timeout (ms)");
        let s = ParamAxis::new("f.end", &strings(&["1s", "5s"]));
        assert_eq!(s.positions, [1.0, 5.0]);
        let c = ParamAxis::new("service.db.discipline", &strings(&["fifo", "lifo"]));
        assert_eq!(c.positions, [0.0, 1.0]);
        assert_eq!(c.tick(1.0), "lifo");
        assert_eq!(c.tick(0.5), "");
        assert_eq!(c.tick(7.0), "");
        assert_eq!(c.range(), (-0.5, 1.5));
        assert_eq!(c.key_points(), [0.0, 1.0]);
        assert_eq!(a.key_points(), [100.0, 200.5]);
    }

    #[test]
    fn ticks_are_round_and_few() {
        assert_eq!(nice_ticks(0.0, 10.0, 6), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(nice_ticks(0.0, 1.0, 5), [0.0, 0.5, 1.0]);
        assert_eq!(nice_ticks(3.0, 3.0, 5), [3.0]);
        assert_eq!(log_ticks(40.0, 600.0), [50.0, 100.0, 200.0, 500.0]);
        assert_eq!(log_ticks(0.5, 5e5).len(), 6);
        let crowded = ParamAxis::new("x", &strings(&["1", "2", "1000"]));
        assert_eq!(crowded.key_points(), nice_ticks(-48.95, 1049.95, 8));
    }
}
