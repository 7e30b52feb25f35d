//! Backoff between retries: a base schedule (constant, linear, exponential) capped at `max`,
//! then jitter. `k` is the index of the retry, starting at 1 (the first retry waits `delay(1)`).
//!
//! | kind | delay before jitter |
//! |---|---|
//! | constant | base |
//! | linear | k · base |
//! | exponential | base · multiplier^(k−1) |
//!
//! | jitter | delay | as in |
//! |---|---|---|
//! | none | d | r4j default, Polly without jitter |
//! | full | U[0, d) | AWS "full jitter", Envoy, gRPC before 2024 |
//! | equal | d/2 + U[0, d/2) | AWS "equal jitter" |
//! | decorrelated | min(max, U[base, 3·previous)), first previous = base | AWS "decorrelated jitter" |
//! | proportional | d · U[1−f, 1+f) | gRPC (f = 0.2), r4j randomized (f = 0.5), Polly constant/linear (f = 0.25) |
//!
//! The cap applies before jitter, so proportional jitter can exceed `max` by the factor, as gRPC's
//! does; decorrelated jitter never exceeds `max`.

use crate::random::unit;
use rand::Rng;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Schedule {
    Constant,
    Linear,
    Exponential { multiplier: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Jitter {
    None,
    Full,
    Equal,
    Decorrelated,
    Proportional { factor: f64 },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    pub schedule: Schedule,
    /// ns
    pub base: u64,
    /// ns
    pub max: u64,
    pub jitter: Jitter,
}

impl Backoff {
    /// The delay (ns) before retry `k` (1-based). `previous` is the call's last delay, which
    /// decorrelated jitter grows from (0 before the first retry).
    pub fn delay<R: Rng + ?Sized>(&self, k: u32, previous: u64, rng: &mut R) -> u64 {
        let d = self.scheduled(k);
        self.jittered(d, previous, unit(rng))
    }

    /// The shortest delay (ns) retry `k` can draw: its jitter at the bottom of its range
    /// (none for full jitter, half for equal, `base` for decorrelated). The lints ask whether
    /// even this wait fits a deadline.
    pub fn least(&self, k: u32) -> u64 {
        self.jittered(self.scheduled(k), 0, 0.0)
    }

    /// Retry `k`'s delay before jitter: the schedule, capped at `max`.
    fn scheduled(&self, k: u32) -> f64 {
        let base = self.base as f64;
        match self.schedule {
            Schedule::Constant => base,
            Schedule::Linear => base * f64::from(k),
            Schedule::Exponential { multiplier } => {
                base * multiplier.powi(k.saturating_sub(1).min(1000) as i32)
            }
        }
        .min(self.max as f64)
    }

    /// A scheduled delay `d` after jitter, for a uniform draw `u` in [0, 1).
    fn jittered(&self, d: f64, previous: u64, u: f64) -> u64 {
        let (base, max) = (self.base as f64, self.max as f64);
        let delayed = match self.jitter {
            Jitter::None => d,
            Jitter::Full => d * u,
            Jitter::Equal => d / 2.0 + d / 2.0 * u,
            Jitter::Decorrelated => {
                let prev = if previous == 0 { base } else { previous as f64 };
                let hi = (3.0 * prev).max(base);
                (base + (hi - base) * u).min(max)
            }
            Jitter::Proportional { factor } => d * (1.0 - factor + 2.0 * factor * u),
        };
        delayed.max(0.0).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const MS: u64 = 1_000_000;

    fn backoff(schedule: Schedule, jitter: Jitter) -> Backoff {
        Backoff {
            schedule,
            base: 50 * MS,
            max: 1000 * MS,
            jitter,
        }
    }

    fn rng() -> rand_pcg::Pcg64Mcg {
        rand_pcg::Pcg64Mcg::seed_from_u64(9)
    }

    #[test]
    fn schedules_without_jitter() {
        let r = &mut rng();
        let c = backoff(Schedule::Constant, Jitter::None);
        assert_eq!([1, 2, 5].map(|k| c.delay(k, 0, r)), [50 * MS; 3]);
        let l = backoff(Schedule::Linear, Jitter::None);
        assert_eq!(
            [1, 2, 3].map(|k| l.delay(k, 0, r)),
            [50 * MS, 100 * MS, 150 * MS]
        );
        let e = backoff(Schedule::Exponential { multiplier: 2.0 }, Jitter::None);
        assert_eq!(
            [1, 2, 3, 4].map(|k| e.delay(k, 0, r)),
            [50 * MS, 100 * MS, 200 * MS, 400 * MS]
        );
        // Capped at max.
        assert_eq!(e.delay(10, 0, r), 1000 * MS);
        assert_eq!(e.delay(u32::MAX, 0, r), 1000 * MS);
        let e15 = backoff(Schedule::Exponential { multiplier: 1.5 }, Jitter::None);
        assert_eq!(e15.delay(3, 0, r), 112_500_000);
    }

    #[test]
    fn the_least_delay_is_the_bottom_of_each_jitter_range_and_never_above_a_draw() {
        let exp = Schedule::Exponential { multiplier: 2.0 };
        // Retry 3 is scheduled at 200 ms.
        let least = |jitter| backoff(exp, jitter).least(3);
        assert_eq!(least(Jitter::None), 200 * MS);
        assert_eq!(least(Jitter::Full), 0);
        assert_eq!(least(Jitter::Equal), 100 * MS);
        assert_eq!(least(Jitter::Decorrelated), 50 * MS);
        assert_eq!(least(Jitter::Proportional { factor: 0.2 }), 160 * MS);
        let r = &mut rng();
        for jitter in [
            Jitter::Full,
            Jitter::Equal,
            Jitter::Proportional { factor: 0.5 },
        ] {
            let b = backoff(exp, jitter);
            assert!((0..1000).all(|_| b.delay(3, 0, r) >= b.least(3)));
        }
    }

    #[test]
    fn jitter_kinds_stay_in_their_documented_ranges() {
        let r = &mut rng();
        let exp = Schedule::Exponential { multiplier: 2.0 };
        for k in 1..8 {
            let d = backoff(exp, Jitter::None).delay(k, 0, r);
            for _ in 0..2000 {
                let full = backoff(exp, Jitter::Full).delay(k, 0, r);
                assert!(full < d.max(1), "full {full} < {d}");
                let equal = backoff(exp, Jitter::Equal).delay(k, 0, r);
                assert!(
                    equal >= d / 2 && equal <= d,
                    "equal {equal} in [{}, {d}]",
                    d / 2
                );
                let p = backoff(exp, Jitter::Proportional { factor: 0.2 }).delay(k, 0, r);
                assert!(p as f64 >= d as f64 * 0.8 - 1.0 && p as f64 <= d as f64 * 1.2 + 1.0);
            }
        }
    }

    #[test]
    fn full_jitter_averages_half_the_delay() {
        let r = &mut rng();
        let b = backoff(Schedule::Constant, Jitter::Full);
        let mean = (0..20_000).map(|_| b.delay(1, 0, r) as f64).sum::<f64>() / 20_000.0;
        assert!((mean / (25.0 * MS as f64) - 1.0).abs() < 0.02, "{mean}");
    }

    #[test]
    fn decorrelated_grows_from_the_previous_delay_and_never_exceeds_its_cap() {
        let r = &mut rng();
        let b = backoff(
            Schedule::Exponential { multiplier: 2.0 },
            Jitter::Decorrelated,
        );
        let mut prev = 0;
        for k in 1..200 {
            let d = b.delay(k, prev, r);
            assert!((50 * MS..=1000 * MS).contains(&d), "{d}");
            let upper = if prev == 0 {
                150 * MS
            } else {
                (3 * prev).max(50 * MS)
            };
            assert!(d <= upper.min(1000 * MS));
            prev = d;
        }
    }
}
