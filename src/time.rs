//! Virtual time: an integer count of nanoseconds (`u64` everywhere), and the duration syntax
//! of scenario files.

pub const NANOS_PER_SEC: u64 = 1_000_000_000;
pub const NANOS_PER_MS: u64 = 1_000_000;

/// Parses a duration (`250ms`, `1.5s`, `1m 30s`, `0`) into nanoseconds: the policy crate's
/// parser, the one every table of a scenario is read with.
pub use cascade_policy::table::parse_duration;

/// Formats nanoseconds compactly for tables and messages (`250ms`, `1.5s`, `40µs`).
pub fn format_duration(ns: u64) -> String {
    let (value, unit) = if ns >= NANOS_PER_SEC {
        (ns as f64 / 1e9, "s")
    } else if ns >= NANOS_PER_MS {
        (ns as f64 / 1e6, "ms")
    } else if ns >= 1_000 {
        (ns as f64 / 1e3, "µs")
    } else {
        (ns as f64, "ns")
    };
    let s = format!("{value:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_compactly() {
        assert_eq!(format_duration(250 * NANOS_PER_MS), "250ms");
        assert_eq!(format_duration(1_500 * NANOS_PER_MS), "1.5s");
        assert_eq!(format_duration(40_000), "40µs");
        assert_eq!(format_duration(7), "7ns");
    }
}
