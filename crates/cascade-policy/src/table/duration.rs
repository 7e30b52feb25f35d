//! Durations as a table writes them: `"250ms"`, `"1.5s"`, `"1m 30s"` or `"0"`, held as
//! nanoseconds (`Dur`). The one parser of the scenario language's durations; cascade's
//! `time::parse_duration` is this one.

use crate::time::Nanos;

/// A duration written as a string with a unit (`"250ms"`), held as nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dur(pub u64);

/// A table's duration as the policies take it, when a table is compiled into configs.
impl From<Dur> for Nanos {
    #[inline]
    fn from(d: Dur) -> Nanos {
        Nanos(d.0)
    }
}

/// Parses a duration: a decimal number with a unit (`250ms`, `1.5s`, `2us`, `3m`, `1h`), a
/// compound humantime form (`1m 30s`), or a bare `0`. Returns nanoseconds.
///
/// ```
/// use cascade_policy::table::parse_duration;
/// assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
/// assert!(parse_duration("10").is_err()); // a unit is required
/// ```
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

/// How the message for a duration written as a bare number starts (cascade adds the fix
/// with the field's usual unit when it sees it).
pub const UNITLESS: &str = "a duration needs a unit: `";

/// The message for a duration written as a bare number `n`.
pub fn unitless(n: &str) -> String {
    format!("{UNITLESS}{n}` alone is not one")
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Dur {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Dur, D::Error> {
        use serde::de::{self, Visitor};
        use std::fmt;
        struct DurVisitor;
        impl Visitor<'_> for DurVisitor {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration with its unit, as a string, like \"250ms\" or \"2s\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
                parse_duration(v).map(Dur).map_err(E::custom)
            }
            // A bare number is the common slip: say so.
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
                Err(E::custom(unitless(&v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
                Err(E::custom(unitless(&v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dur, E> {
                Err(E::custom(unitless(&v.to_string())))
            }
        }
        d.deserialize_any(DurVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    #[test]
    fn parses_units_and_fractions() {
        assert_eq!(parse_duration("250ms"), Ok(250 * MS));
        assert_eq!(parse_duration("1.5s"), Ok(1_500 * MS));
        assert_eq!(parse_duration("2us"), Ok(2_000));
        assert_eq!(parse_duration("3m"), Ok(180 * S));
        assert_eq!(parse_duration("1h"), Ok(3600 * S));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("1m 30s"), Ok(90 * S));
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("").is_err());
        assert_eq!(
            parse_duration("fast"),
            Err("invalid duration \"fast\": expected a number with a unit, like \"250ms\", \"1.5s\" or \"2m\"".into())
        );
    }
}
