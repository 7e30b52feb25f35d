//! Virtual time: an integer count of nanoseconds (`u64` everywhere), and the duration syntax
//! of scenario files.

pub const NANOS_PER_SEC: u64 = 1_000_000_000;
pub const NANOS_PER_MS: u64 = 1_000_000;

/// Parses a duration: a decimal number with a unit (`250ms`, `1.5s`, `2us`, `3m`, `1h`), a
/// compound humantime form (`1m 30s`), or a bare `0`. Returns nanoseconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t == "0" {
        return Ok(0);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ns" => Some(1.0),
        "us" | "µs" => Some(1e3),
        "ms" => Some(1e6),
        "s" | "sec" | "secs" => Some(1e9),
        "m" | "min" | "mins" => Some(60e9),
        "h" | "hr" | "hours" => Some(3600e9),
        _ => None,
    };
    if let (Some(scale), Ok(value)) = (scale, num.parse::<f64>()) {
        let ns = value * scale;
        if ns.is_finite() && ns >= 0.0 && ns < u64::MAX as f64 {
            return Ok(ns.round() as u64);
        }
    }
    humantime::parse_duration(t)
        .map_err(|_| {
            format!("invalid duration \"{text}\": expected a number with a unit, like \"250ms\", \"1.5s\" or \"2m\"")
        })
        .and_then(|d| u64::try_from(d.as_nanos()).map_err(|_| format!("duration \"{text}\" is too long")))
}

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
    fn parses_units_and_fractions() {
        assert_eq!(parse_duration("250ms"), Ok(250 * NANOS_PER_MS));
        assert_eq!(parse_duration("1.5s"), Ok(1_500 * NANOS_PER_MS));
        assert_eq!(parse_duration("2us"), Ok(2_000));
        assert_eq!(parse_duration("3m"), Ok(180 * NANOS_PER_SEC));
        assert_eq!(parse_duration("1h"), Ok(3600 * NANOS_PER_SEC));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("1m 30s"), Ok(90 * NANOS_PER_SEC));
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn formats_compactly() {
        assert_eq!(format_duration(250 * NANOS_PER_MS), "250ms");
        assert_eq!(format_duration(1_500 * NANOS_PER_MS), "1.5s");
        assert_eq!(format_duration(40_000), "40µs");
        assert_eq!(format_duration(7), "7ns");
    }
}
