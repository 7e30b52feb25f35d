//! How a chart's axis shows a metric: the unit in its label and the tick and value formats,
//! chosen from the metric's catalogue unit and range. A value with its unit is
//! `output::units`' (one function per catalogue unit); ticks are `number::short`'s digits.

use crate::number::short;
use crate::output::units;

/// How one axis shows a metric: the unit written in its label and the tick formatter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AxisUnit {
    /// Plain numbers (counts), k/M.
    Plain,
    /// A multiple (amplification, attempts per request), never a percentage.
    Times,
    /// Per second, k/M.
    PerSecond,
    /// Values in ms shown as ms.
    Ms,
    /// Values in ms shown as seconds (the axis reaches past 1.5 s).
    MsAsSeconds,
    /// Values in s.
    Seconds,
    /// A ratio in [0, 1] shown as percent.
    Percent,
}

impl AxisUnit {
    /// The unit for values of catalogue unit `unit` (`ms`, `1/s`, `ratio`, …) up to `max`.
    pub fn of(unit: &str, max: f64) -> AxisUnit {
        match unit {
            "ms" if max >= 1500.0 => AxisUnit::MsAsSeconds,
            "ms" => AxisUnit::Ms,
            "1/s" => AxisUnit::PerSecond,
            "s" => AxisUnit::Seconds,
            "ratio" | "0/1" | "share" => AxisUnit::Percent,
            "×" => AxisUnit::Times,
            _ => AxisUnit::Plain,
        }
    }

    /// `(ms)`, `(s)`, `(%)`, `(/s)` or nothing, to append to an axis description.
    pub fn suffix(self) -> &'static str {
        match self {
            AxisUnit::Plain => "",
            AxisUnit::Times => " (×)",
            AxisUnit::PerSecond => " (/s)",
            AxisUnit::Ms => " (ms)",
            AxisUnit::MsAsSeconds | AxisUnit::Seconds => " (s)",
            AxisUnit::Percent => " (%)",
        }
    }

    /// A tick label for `v` (in the metric's own unit).
    pub fn tick(self, v: f64) -> String {
        match self {
            AxisUnit::MsAsSeconds => short(v / 1000.0),
            AxisUnit::Percent => short(v * 100.0),
            _ => short(v),
        }
    }

    /// A value with its unit, for cell labels and tables.
    pub fn value(self, v: f64) -> String {
        match self {
            AxisUnit::Plain => short(v),
            AxisUnit::Times => units::times(v),
            AxisUnit::PerSecond => units::per_second(v),
            AxisUnit::Ms | AxisUnit::MsAsSeconds => units::ms(v),
            AxisUnit::Seconds => units::seconds(v),
            AxisUnit::Percent => units::ratio(v),
        }
    }
}

/// The catalogue unit of a metric (`cascade metrics`), or `""` when it has none.
pub fn unit_of(metric: &str) -> &'static str {
    crate::metrics::catalogue::describe(metric).map_or("", |d| d.unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_pick_their_unit_from_the_catalogue_and_range() {
        assert_eq!(AxisUnit::of("ms", 300.0), AxisUnit::Ms);
        assert_eq!(AxisUnit::of("ms", 3000.0), AxisUnit::MsAsSeconds);
        assert_eq!(AxisUnit::of("ms", 3000.0).tick(2500.0), "2.5");
        assert_eq!(AxisUnit::of("ratio", 1.0).tick(0.5), "50");
        assert_eq!(AxisUnit::of("1/s", 1.0).suffix(), " (/s)");
        assert_eq!(unit_of("client.web.goodput_rps"), "1/s");
        assert_eq!(unit_of("client.web.latency_p99_ms"), "ms");
        // Amplification is a multiple: 1.5 is 1.50×, not 150%.
        let amplification = AxisUnit::of(unit_of("edge.a.b.amplification"), 1.5);
        assert_eq!(amplification, AxisUnit::Times);
        assert_eq!(amplification.value(1.5), "1.50×");
        assert_eq!(amplification.tick(1.5), "1.5");
    }
}
