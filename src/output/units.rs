//! One formatting function per unit of the metric catalogue, which every label of the
//! charts, the report and the policy descriptions goes through: a value is printed by what it
//! is, never by guessing its scale at the call site (a 0..1 fraction printed with a bare `%`
//! read as "0.25% concurrent" for an Envoy budget of 25%). The digits are `number::short`'s.

use crate::number::{latency_ms, short};

/// What a number is, as the catalogue's unit column says (`cascade metrics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A fraction in [0, 1] (`ratio`, `0/1`): shown as a percentage.
    Ratio,
    /// A value already in percent (0..100): shown with `%`, never scaled.
    Percent,
    /// A multiple (`×`): amplification, attempts per request.
    Times,
    /// Milliseconds (`ms`), as ms or s by size.
    Ms,
    /// A rate (`1/s`).
    PerSecond,
    /// Seconds (`s`, `breaker-seconds`, `worker-seconds`).
    Seconds,
    /// Counts and anything else: the number alone.
    Plain,
}

impl Unit {
    /// The unit of a catalogue unit string.
    pub fn of(catalogue_unit: &str) -> Unit {
        match catalogue_unit {
            "ratio" | "0/1" | "share" => Unit::Ratio,
            "%" | "percent" => Unit::Percent,
            "×" => Unit::Times,
            "ms" => Unit::Ms,
            "1/s" => Unit::PerSecond,
            "s" | "breaker-seconds" | "worker-seconds" => Unit::Seconds,
            _ => Unit::Plain,
        }
    }

    /// The unit of a metric, from its catalogue entry (`Plain` for a name it does not know).
    pub fn of_metric(metric: &str) -> Unit {
        Unit::of(crate::metrics::catalogue::describe(metric).map_or("", |d| d.unit))
    }

    /// `v` with its unit.
    pub fn format(self, v: f64) -> String {
        match self {
            Unit::Ratio => ratio(v),
            Unit::Percent => percent(v),
            Unit::Times => times(v),
            Unit::Ms => ms(v),
            Unit::PerSecond => per_second(v),
            Unit::Seconds => seconds(v),
            Unit::Plain => short(v),
        }
    }
}

/// A fraction in [0, 1] as a percentage: `0.25` → `25%`.
pub fn ratio(v: f64) -> String {
    format!("{}%", short(v * 100.0))
}

/// A value already in percent: `25` → `25%`.
pub fn percent(v: f64) -> String {
    format!("{}%", short(v))
}

/// A multiple, to two decimals so 1.00× (no retry) and 1.05× read apart: `1.5` → `1.50×`.
pub fn times(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}×")
    } else {
        short(v)
    }
}

/// Milliseconds: `150 ms`, `1.5 s`.
pub fn ms(v: f64) -> String {
    latency_ms(v)
}

/// A rate: `1,250/s`.
pub fn per_second(v: f64) -> String {
    format!("{}/s", short(v))
}

/// Seconds: `126 s`.
pub fn seconds(v: f64) -> String {
    format!("{} s", short(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_unit_prints_its_own_scale() {
        assert_eq!(ratio(0.25), "25%");
        assert_eq!(percent(25.0), "25%");
        assert_eq!(times(1.5), "1.50×");
        assert_eq!(ms(150.0), "150 ms");
        assert_eq!(ms(1500.0), "1.5 s");
        assert_eq!(per_second(1250.0), "1,250/s");
        assert_eq!(seconds(126.0), "126 s");
        assert_eq!(Unit::of("×"), Unit::Times);
        assert_eq!(Unit::of_metric("edge.a.b.amplification"), Unit::Times);
        assert_eq!(Unit::of_metric("client.web.success_ratio"), Unit::Ratio);
        assert_eq!(
            Unit::of_metric("client.web.op.buy.goodput_rps"),
            Unit::PerSecond
        );
    }
}
