//! Time as the policies take it: `Nanos`, a whole number of nanoseconds.
//!
//! One type serves for both instants and durations. An instant is the time since an origin the
//! caller keeps (a simulation's clock starting at 0, or a monotonic clock's elapsed time since a
//! service started), so it is itself a duration from that origin, and every policy's arithmetic
//! mixes the two (`now + open`, `deadline - now`, `now - period_start`). Two types would double
//! the operators without catching a mistake the policies can make: none of them compares
//! instants from different clocks. What the type does catch is a count, a rate or a bare number
//! passed where a time belongs, and milliseconds taken for nanoseconds.
//!
//! The field is public (`Nanos(x)`, `.0`): every `u64` is a valid `Nanos`, so there is no
//! invariant to guard, and the conversion at a caller's boundary (the simulator keeps its clock
//! as `u64` nanoseconds) is a wrapper around the value, free at run time
//! (`#[repr(transparent)]`) and usable in `const` items and patterns.
//!
//! Arithmetic follows `u64`'s: `+` and `-` panic on overflow where overflow checks are on
//! (debug builds, cascade's test profile) and wrap where they are off; `saturating_add` and
//! `saturating_sub` are what the policies use where an instant may be `MAX` (no deadline) or a
//! duration may exceed what is left.

use std::ops::{Add, AddAssign, Mul, Sub};
use std::time::Duration;

/// Nanoseconds: an instant on the caller's clock (from whatever origin it keeps) or a duration.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Nanos(pub u64);

impl Nanos {
    /// No time; the origin of a clock.
    pub const ZERO: Nanos = Nanos(0);
    /// The largest value: an instant that never comes (no deadline), a duration longer than any.
    pub const MAX: Nanos = Nanos(u64::MAX);

    /// `us` microseconds.
    #[inline]
    pub const fn from_micros(us: u64) -> Nanos {
        Nanos(us * 1_000)
    }

    /// `ms` milliseconds.
    #[inline]
    pub const fn from_ms(ms: u64) -> Nanos {
        Nanos(ms * 1_000_000)
    }

    /// `s` seconds.
    #[inline]
    pub const fn from_secs(s: u64) -> Nanos {
        Nanos(s * 1_000_000_000)
    }

    /// The sum, or `MAX` when it would overflow (a time after "never" is still never).
    #[inline]
    pub const fn saturating_add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(rhs.0))
    }

    /// The difference, or `ZERO` when `rhs` is later (no time left is none, not a wrap).
    #[inline]
    pub const fn saturating_sub(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(rhs.0))
    }

    /// The value in seconds, as a float (rates per second, and printing).
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// Scaled by `factor`, rounded toward zero and saturating at `ZERO` and `MAX` (a breaker's
    /// growing open time, a jittered mark): the float product as `as u64` converts it.
    #[inline]
    pub fn mul_f64(self, factor: f64) -> Nanos {
        Nanos((self.0 as f64 * factor) as u64)
    }
}

impl Add for Nanos {
    type Output = Nanos;
    #[inline]
    fn add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0 + rhs.0)
    }
}

impl AddAssign for Nanos {
    #[inline]
    fn add_assign(&mut self, rhs: Nanos) {
        self.0 += rhs.0;
    }
}

impl Sub for Nanos {
    type Output = Nanos;
    #[inline]
    fn sub(self, rhs: Nanos) -> Nanos {
        Nanos(self.0 - rhs.0)
    }
}

/// A duration repeated `n` times (`2 * target`, `50 * MS`).
impl Mul<u64> for Nanos {
    type Output = Nanos;
    #[inline]
    fn mul(self, n: u64) -> Nanos {
        Nanos(self.0 * n)
    }
}

impl Mul<Nanos> for u64 {
    type Output = Nanos;
    #[inline]
    fn mul(self, d: Nanos) -> Nanos {
        Nanos(self * d.0)
    }
}

/// Saturating: a `Duration` past `MAX` (584 years) becomes `MAX`.
impl From<Duration> for Nanos {
    #[inline]
    fn from(d: Duration) -> Nanos {
        Nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }
}

impl From<Nanos> for Duration {
    #[inline]
    fn from(n: Nanos) -> Duration {
        Duration::from_nanos(n.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_scale_to_nanoseconds() {
        assert_eq!(Nanos::from_micros(3), Nanos(3_000));
        assert_eq!(Nanos::from_ms(250), Nanos(250_000_000));
        assert_eq!(Nanos::from_secs(2), Nanos(2_000_000_000));
        assert_eq!(Nanos::ZERO, Nanos::default());
        assert_eq!(Nanos::MAX.0, u64::MAX);
        const HALF_SECOND: Nanos = Nanos::from_ms(500);
        assert_eq!(HALF_SECOND, Nanos(500_000_000));
    }

    #[test]
    fn orders_as_its_value() {
        assert!(Nanos(1) < Nanos(2));
        assert_eq!(Nanos(7).max(Nanos(3)), Nanos(7));
        assert!(Nanos::MAX > Nanos::from_secs(1_000_000));
    }

    #[test]
    fn saturating_arithmetic_stops_at_the_ends() {
        assert_eq!(Nanos::MAX.saturating_add(Nanos(1)), Nanos::MAX);
        assert_eq!(Nanos(5).saturating_add(Nanos(2)), Nanos(7));
        assert_eq!(Nanos(5).saturating_sub(Nanos(7)), Nanos::ZERO);
        assert_eq!(Nanos(7).saturating_sub(Nanos(5)), Nanos(2));
    }

    #[test]
    fn adds_subtracts_and_repeats_like_u64() {
        assert_eq!(Nanos(5) + Nanos(2), Nanos(7));
        assert_eq!(Nanos(5) - Nanos(2), Nanos(3));
        let mut t = Nanos(1);
        t += Nanos(4);
        assert_eq!(t, Nanos(5));
        assert_eq!(Nanos::from_ms(5) * 2, Nanos::from_ms(10));
        assert_eq!(50 * Nanos::from_ms(1), Nanos::from_ms(50));
    }

    #[test]
    fn overflow_panics_exactly_where_u64s_does() {
        // Whatever the profile's overflow checks, `+` and `-` behave as u64's (a panic with
        // checks on, a wrap without).
        use std::hint::black_box;
        use std::panic::catch_unwind;
        let one = black_box(1u64);
        let add = catch_unwind(|| Nanos::MAX + Nanos(one)).map(|n| n.0);
        assert_eq!(add.ok(), catch_unwind(|| u64::MAX + one).ok());
        let sub = catch_unwind(|| Nanos(one) - Nanos(2)).map(|n| n.0);
        assert_eq!(sub.ok(), catch_unwind(|| one - 2).ok());
        let mut t = Nanos(u64::MAX - 1);
        t += Nanos(one);
        assert_eq!(t, Nanos::MAX);
    }

    #[test]
    fn seconds_as_a_float() {
        assert_eq!(Nanos::from_ms(1_500).as_secs_f64(), 1.5);
        assert_eq!(Nanos::ZERO.as_secs_f64(), 0.0);
    }

    #[test]
    fn scales_by_a_float_toward_zero_and_saturating() {
        assert_eq!(Nanos::from_secs(5).mul_f64(2.0), Nanos::from_secs(10));
        assert_eq!(Nanos(10).mul_f64(0.55), Nanos(5));
        assert_eq!(Nanos(10).mul_f64(-1.0), Nanos::ZERO);
        assert_eq!(Nanos::MAX.mul_f64(2.0), Nanos::MAX);
    }

    #[test]
    fn converts_to_and_from_duration() {
        assert_eq!(Nanos::from(Duration::from_millis(3)), Nanos::from_ms(3));
        assert_eq!(
            Duration::from(Nanos::from_micros(7)),
            Duration::from_micros(7)
        );
        assert_eq!(Nanos::from(Duration::MAX), Nanos::MAX, "saturates");
        assert_eq!(Duration::from(Nanos::MAX), Duration::from_nanos(u64::MAX));
    }
}
