//! Number formats for chart ticks, labels and tables: k/M for large values, ms or s for
//! latencies, percent for ratios, never more than three significant figures.

/// `v` with about three significant figures and k/M suffixes: 0.25, 12.5, 850, 1.2k, 15k, 2.5M.
pub fn short(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    let (x, suffix) = if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let ax = x.abs();
    let digits = if ax == 0.0 || ax >= 100.0 {
        0
    } else if ax >= 10.0 {
        1
    } else if ax >= 1.0 {
        2
    } else {
        // Small values: three significant figures.
        (2 - ax.log10().floor() as i32).clamp(0, 6) as usize
    };
    let text = trim(&format!("{x:.digits$}"));
    let text = if text == "-0" { "0".to_string() } else { text };
    // Thousands below 10k keep all digits, with a thin separator: 1,250.
    if suffix.is_empty() && ax >= 1000.0 {
        return crate::output::table::count(x);
    }
    format!("{text}{suffix}")
}

fn trim(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// A latency in ms as text with its unit: `0.25 ms`, `150 ms`, `1.5 s`.
pub fn latency_ms(ms: f64) -> String {
    if ms.abs() >= 1000.0 {
        format!("{} s", short(ms / 1000.0))
    } else {
        format!("{} ms", short(ms))
    }
}

/// A ratio as a percentage: `99.5%`, `100%`, `0%`.
pub fn percent(ratio: f64) -> String {
    format!("{}%", short(ratio * 100.0))
}

/// How one axis shows a metric: the unit written in its label and the tick formatter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AxisUnit {
    /// Plain numbers (counts, ratios such as amplification), k/M.
    Plain,
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
            _ => AxisUnit::Plain,
        }
    }

    /// `(ms)`, `(s)`, `(%)`, `(/s)` or nothing, to append to an axis description.
    pub fn suffix(self) -> &'static str {
        match self {
            AxisUnit::Plain => "",
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
            AxisUnit::PerSecond => format!("{}/s", short(v)),
            AxisUnit::Ms | AxisUnit::MsAsSeconds => latency_ms(v),
            AxisUnit::Seconds => format!("{} s", short(v)),
            AxisUnit::Percent => percent(v),
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
    fn numbers_read_at_a_glance() {
        assert_eq!(short(0.0), "0");
        assert_eq!(short(0.25), "0.25");
        assert_eq!(short(0.0123), "0.0123");
        assert_eq!(short(2.5), "2.5");
        assert_eq!(short(12.34), "12.3");
        assert_eq!(short(850.2), "850");
        assert_eq!(short(1250.0), "1,250");
        assert_eq!(short(15_000.0), "15k");
        assert_eq!(short(2_500_000.0), "2.5M");
        assert_eq!(short(-3.0), "-3");
        assert_eq!(latency_ms(150.0), "150 ms");
        assert_eq!(latency_ms(1500.0), "1.5 s");
        assert_eq!(percent(0.995), "99.5%");
    }

    #[test]
    fn axes_pick_their_unit_from_the_catalogue_and_range() {
        assert_eq!(AxisUnit::of("ms", 300.0), AxisUnit::Ms);
        assert_eq!(AxisUnit::of("ms", 3000.0), AxisUnit::MsAsSeconds);
        assert_eq!(AxisUnit::of("ms", 3000.0).tick(2500.0), "2.5");
        assert_eq!(AxisUnit::of("ratio", 1.0).tick(0.5), "50");
        assert_eq!(AxisUnit::of("1/s", 1.0).suffix(), " (/s)");
        assert_eq!(unit_of("client.web.goodput_rps"), "1/s");
        assert_eq!(unit_of("client.web.latency_p99_ms"), "ms");
    }
}
