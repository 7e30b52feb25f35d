//! `--trace-epoch`: the wall time of simulated t = 0, as unix nanoseconds. Written as unix
//! seconds (`1796547600`, a fraction allowed) or an RFC 3339 timestamp with `Z` or an offset
//! (`2026-12-06T09:00:00Z`, `2026-12-06T10:00:00.25+01:00`).

/// The epoch `text` names, in ns since 1970-01-01T00:00:00Z; the error says what is wrong.
pub fn parse(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let ns = if t.bytes().all(|b| b.is_ascii_digit() || b == b'.') && !t.is_empty() {
        unix_seconds(t)
    } else {
        rfc3339(t)
    };
    ns.ok_or_else(|| {
        format!(
            "--trace-epoch {text}: expected unix seconds (`1796547600`) or an RFC 3339 time \
             (`2026-12-06T09:00:00Z`, `2026-12-06T10:00:00+01:00`), at or after 1970 and \
             before 2262"
        )
    })
}

/// `S` or `S.F`: seconds and up to 9 digits of fraction.
fn unix_seconds(t: &str) -> Option<u64> {
    let (secs, frac) = t.split_once('.').unwrap_or((t, ""));
    let secs: i64 = secs.parse().ok()?;
    to_ns(secs, fraction_ns(frac)?)
}

/// Nanoseconds of a fraction's digits (`25` → 250,000,000); `None` past 9 digits.
fn fraction_ns(frac: &str) -> Option<u64> {
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    Some(digits * 10u64.pow(9 - frac.len() as u32))
}

/// `YYYY-MM-DDTHH:MM:SS[.F](Z|±HH:MM)`, `T` and `Z` in either case.
fn rfc3339(t: &str) -> Option<u64> {
    let b = t.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = t.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let rest = &t[19..];
    let (frac, zone) = match rest.strip_prefix('.') {
        Some(r) => {
            let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            (&r[..end], &r[end..])
        }
        None => ("", rest),
    };
    if rest.starts_with('.') && frac.is_empty() {
        return None;
    }
    let offset = match zone {
        "Z" | "z" => 0,
        _ => {
            let z = zone.as_bytes();
            if z.len() != 6 || z[3] != b':' || !matches!(z[0], b'+' | b'-') {
                return None;
            }
            let (h, m): (i64, i64) = (zone[1..3].parse().ok()?, zone[4..6].parse().ok()?);
            if h > 23 || m > 59 {
                return None;
            }
            let sign = if z[0] == b'-' { -1 } else { 1 };
            sign * (h * 3600 + m * 60)
        }
    };
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => return None,
    };
    // Second 60 is a leap second, which unix time does not count: it reads as the next one.
    if day < 1 || day > days_in_month || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let secs =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    to_ns(secs, fraction_ns(frac)?)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds and ns as unix ns; `None` before 1970 or past u64's ns (2554), and past 2262 so that
/// a run's end (up to 2^62 ns) still fits when added.
fn to_ns(secs: i64, frac: u64) -> Option<u64> {
    const LIMIT: u64 = u64::MAX - (1 << 62);
    let ns = u64::try_from(secs)
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(frac)?;
    (ns <= LIMIT).then_some(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_seconds_and_rfc3339_agree() {
        // 2026-12-06T09:00:00Z: 20,793 days after 1970-01-01, plus 9 hours.
        let want = (20_793 * 86_400 + 9 * 3600) * 1_000_000_000u64;
        assert_eq!(parse("1796547600"), Ok(want));
        assert_eq!(parse("2026-12-06T09:00:00Z"), Ok(want));
        assert_eq!(parse("2026-12-06t10:30:00+01:30"), Ok(want));
        assert_eq!(parse("2026-12-06T08:00:00-01:00"), Ok(want));
        assert_eq!(parse("1796547600.25"), Ok(want + 250_000_000));
        assert_eq!(parse("2026-12-06T09:00:00.000000001Z"), Ok(want + 1));
        assert_eq!(parse("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(parse("2024-02-29T00:00:00Z"), Ok(1_709_164_800_000_000_000));
    }

    #[test]
    fn refuses_what_is_not_a_time_after_1970() {
        for bad in [
            "",
            "now",
            "-5",
            "1.2.3",
            "1.0000000001",
            "1969-12-31T23:59:59Z",
            "2026-12-06 09:00:00Z",
            "2026-12-06T09:00:00",
            "2026-02-30T09:00:00Z",
            "2026-12-06T24:00:00Z",
            "2026-12-06T09:00:00.Z",
            "2026-12-06T09:00:00+1:00",
            "3000-01-01T00:00:00Z",
            "99999999999999999999",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.starts_with("--trace-epoch"), "{bad}: {e}");
        }
    }
}
