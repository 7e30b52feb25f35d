//! The `grpc-timeout` header as gRPC's HTTP/2 protocol writes it: at most eight ASCII
//! digits and a unit (`H` hours, `M` minutes, `S` seconds, `m` milliseconds, `u`
//! microseconds, `n` nanoseconds). A deadline goes out in the finest unit whose value fits,
//! rounded up, so a callee never gets less time than its caller would give it; what comes in
//! is read exactly.

use std::time::Duration;

/// The header's name.
pub const GRPC_TIMEOUT: &str = "grpc-timeout";

/// The largest value the header carries (eight digits).
const MAX_VALUE: u128 = 99_999_999;

/// Each unit, finest first, with its length in nanoseconds.
const UNITS: [(char, u128); 6] = [
    ('n', 1),
    ('u', 1_000),
    ('m', 1_000_000),
    ('S', 1_000_000_000),
    ('M', 60_000_000_000),
    ('H', 3_600_000_000_000),
];

/// `left` written as the header's value: the finest unit that holds it in eight digits,
/// rounded up; past 99,999,999 hours, that many hours.
pub fn encode(left: Duration) -> String {
    let nanos = left.as_nanos();
    for (unit, len) in UNITS {
        let value = nanos.div_ceil(len);
        if value <= MAX_VALUE {
            return format!("{value}{unit}");
        }
    }
    format!("{MAX_VALUE}H")
}

/// The time a header's value says is left; `None` for a value gRPC refuses (empty, more than
/// eight digits, anything but digits before one known unit).
pub fn decode(value: &str) -> Option<Duration> {
    let unit = value.chars().last()?;
    let digits = &value[..value.len() - unit.len_utf8()];
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (_, len) = UNITS.iter().find(|(u, _)| *u == unit)?;
    let nanos = digits.parse::<u128>().ok()? * len;
    Some(Duration::from_nanos(u64::try_from(nanos).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_goes_out_in_the_finest_unit_that_fits_rounded_up() {
        assert_eq!(encode(Duration::from_nanos(99_999_999)), "99999999n");
        assert_eq!(encode(Duration::from_millis(450)), "450000u");
        assert_eq!(encode(Duration::from_nanos(450_000_001)), "450001u");
        // 100,000 s is 10^8 ms, one digit too many: seconds.
        assert_eq!(encode(Duration::from_secs(100_000)), "100000S");
        assert_eq!(encode(Duration::ZERO), "0n");
        assert_eq!(encode(Duration::MAX), "99999999H");
    }

    #[test]
    fn a_header_is_read_exactly_and_a_malformed_one_is_none() {
        assert_eq!(decode("450000u"), Some(Duration::from_millis(450)));
        assert_eq!(decode("2S"), Some(Duration::from_secs(2)));
        assert_eq!(decode("1H"), Some(Duration::from_secs(3600)));
        for bad in ["", "m", "123456789m", "12x", "-1m", "1.5S", "10 m"] {
            assert_eq!(decode(bad), None, "{bad:?}");
        }
        // What goes out comes back as at least the time sent.
        for ns in [1, 999, 1_000_001, 123_456_789_012] {
            let d = Duration::from_nanos(ns);
            assert!(decode(&encode(d)).unwrap() >= d);
        }
    }
}
