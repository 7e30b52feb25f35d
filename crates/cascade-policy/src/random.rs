//! Shared sampling helpers, so every module turns random bits into numbers the same way.

use rand::Rng;

/// A uniform draw in [0, 1) from 53 random bits.
#[inline]
pub fn unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}
