//! Numbers as text, each format once, shared by every layer that prints one: the exact form
//! result files hold (`exact`), and the forms people read in the stdout tables (`count`,
//! `sig3`, `percent_fixed`), the charts and the report (`short`, `latency_ms`, `percent`) and
//! the scenario compiler's error messages (`thousands`).

/// `1234567` as `1,234,567`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A count with thousands separators: `1234567.0` as `1,234,567`.
pub fn count(v: f64) -> String {
    thousands(v.round() as i64)
}

/// A number with about three significant figures, as the stdout tables print it.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A ratio as a percentage with two decimals, as the stdout tables print it: `99.87%`.
pub fn percent_fixed(v: f64) -> String {
    format!("{:.2}%", v * 100.0)
}

/// `v` with about three significant figures and k/M suffixes, as charts and the report print
/// it: 0.25, 12.5, 850, 1,250, 15k, 2.5M.
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
    // Thousands below 10k keep all digits, with a separator: 1,250.
    if suffix.is_empty() && ax >= 1000.0 {
        return count(x);
    }
    format!("{text}{suffix}")
}

/// Trailing zeros of a fraction dropped, and the point with them: `2.50` as `2.5`, `3.0` as `3`.
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

/// A ratio as a percentage in `short`'s form: `99.5%`, `100%`, `0%`.
pub fn percent(ratio: f64) -> String {
    format!("{}%", short(ratio * 100.0))
}

/// A number as JSON or CSV text: integral values without a fraction, others in Rust's shortest
/// round-trip form, so the same value always prints the same way.
///
/// Every metric is defined where it is computed, finite even with nothing to measure (docs/metrics.md,
/// "Metrics"), so a NaN or infinity here is a bug at its source. It stops a debug build (every
/// test) and, in a release build, prints as `NaN` / `inf` so that a reader fails on it rather
/// than take it for a measured 0.
pub fn exact(v: f64) -> String {
    debug_assert!(
        v.is_finite(),
        "non-finite value {v} written: define it where it is computed"
    );
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_three_from_the_right() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(-1234567), "-1,234,567");
        assert_eq!(thousands(i64::MIN), "-9,223,372,036,854,775,808");
    }

    #[test]
    fn table_numbers() {
        assert_eq!(count(1234567.0), "1,234,567");
        assert_eq!(count(-1000.0), "-1,000");
        assert_eq!(count(12.0), "12");
        assert_eq!(sig3(4.56789), "4.57");
        assert_eq!(sig3(31.4159), "31.4");
        assert_eq!(sig3(314.159), "314");
        assert_eq!(sig3(0.0314), "0.031");
        assert_eq!(percent_fixed(0.99871), "99.87%");
    }

    #[test]
    fn chart_numbers_read_at_a_glance() {
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
        assert_eq!(short(-0.0001), "-0.0001");
        assert_eq!(short(f64::NAN), "–");
        assert_eq!(latency_ms(150.0), "150 ms");
        assert_eq!(latency_ms(1500.0), "1.5 s");
        assert_eq!(percent(0.995), "99.5%");
    }

    #[test]
    fn exact_numbers_are_integers_when_integral_and_shortest_otherwise() {
        assert_eq!(exact(5.0), "5");
        assert_eq!(exact(-0.0), "0");
        assert_eq!(exact(0.25), "0.25");
        assert_eq!(exact(1e-7), "0.0000001");
        assert_eq!(exact(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(exact(8.9e15), "8900000000000000");
        assert_eq!(exact(9.0e15), "9000000000000000");
        assert_eq!(exact(1e300).len(), 301);
    }
}
