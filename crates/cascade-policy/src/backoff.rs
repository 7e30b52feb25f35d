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
use crate::time::Nanos;
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

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Backoff {
        schedule: Schedule,
        base: Nanos,
        max: Nanos,
        jitter: Jitter,
    }
}

getters!(Backoff {
    /// How the delay grows with each retry.
    schedule: Schedule,
    /// The first delay.
    base: Nanos,
    /// The cap on a delay before jitter.
    max: Nanos,
    /// How the delay is randomised.
    jitter: Jitter,
});

impl Backoff {
    /// The delay before retry `k` (1-based). `previous` is the call's last delay, which
    /// decorrelated jitter grows from (zero before the first retry).
    pub fn delay<R: Rng + ?Sized>(&self, k: u32, previous: Nanos, rng: &mut R) -> Nanos {
        let d = self.scheduled(k);
        self.jittered(d, previous, unit(rng))
    }

    /// The shortest delay retry `k` can draw: its jitter at the bottom of its range
    /// (none for full jitter, half for equal, `base` for decorrelated). The lints ask whether
    /// even this wait fits a deadline.
    pub fn least(&self, k: u32) -> Nanos {
        self.jittered(self.scheduled(k), Nanos::ZERO, 0.0)
    }

    /// Retry `k`'s delay before jitter (ns, as a float): the schedule, capped at `max`.
    fn scheduled(&self, k: u32) -> f64 {
        let base = self.base.0 as f64;
        match self.schedule {
            Schedule::Constant => base,
            Schedule::Linear => base * f64::from(k),
            Schedule::Exponential { multiplier } => {
                base * multiplier.powi(k.saturating_sub(1).min(1000) as i32)
            }
        }
        .min(self.max.0 as f64)
    }

    /// A scheduled delay `d` after jitter, for a uniform draw `u` in [0, 1).
    fn jittered(&self, d: f64, previous: Nanos, u: f64) -> Nanos {
        let (base, max) = (self.base.0 as f64, self.max.0 as f64);
        let delayed = match self.jitter {
            Jitter::None => d,
            Jitter::Full => d * u,
            Jitter::Equal => d / 2.0 + d / 2.0 * u,
            Jitter::Decorrelated => {
                let prev = if previous == Nanos::ZERO {
                    base
                } else {
                    previous.0 as f64
                };
                let hi = (3.0 * prev).max(base);
                (base + (hi - base) * u).min(max)
            }
            Jitter::Proportional { factor } => d * (1.0 - factor + 2.0 * factor * u),
        };
        Nanos(delayed.max(0.0).round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const MS: Nanos = Nanos::from_ms(1);
    const NO_PREVIOUS: Nanos = Nanos::ZERO;

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
        assert_eq!([1, 2, 5].map(|k| c.delay(k, NO_PREVIOUS, r)), [50 * MS; 3]);
        let l = backoff(Schedule::Linear, Jitter::None);
        assert_eq!(
            [1, 2, 3].map(|k| l.delay(k, NO_PREVIOUS, r)),
            [50 * MS, 100 * MS, 150 * MS]
        );
        let e = backoff(Schedule::Exponential { multiplier: 2.0 }, Jitter::None);
        assert_eq!(
            [1, 2, 3, 4].map(|k| e.delay(k, NO_PREVIOUS, r)),
            [50 * MS, 100 * MS, 200 * MS, 400 * MS]
        );
        // Capped at max.
        assert_eq!(e.delay(10, NO_PREVIOUS, r), 1000 * MS);
        assert_eq!(e.delay(u32::MAX, NO_PREVIOUS, r), 1000 * MS);
        let e15 = backoff(Schedule::Exponential { multiplier: 1.5 }, Jitter::None);
        assert_eq!(e15.delay(3, NO_PREVIOUS, r), Nanos(112_500_000));
    }

    #[test]
    fn the_least_delay_is_the_bottom_of_each_jitter_range_and_never_above_a_draw() {
        let exp = Schedule::Exponential { multiplier: 2.0 };
        // Retry 3 is scheduled at 200 ms.
        let least = |jitter| backoff(exp, jitter).least(3);
        assert_eq!(least(Jitter::None), 200 * MS);
        assert_eq!(least(Jitter::Full), Nanos::ZERO);
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
            assert!((0..1000).all(|_| b.delay(3, NO_PREVIOUS, r) >= b.least(3)));
        }
    }

    #[test]
    fn jitter_kinds_stay_in_their_documented_ranges() {
        let r = &mut rng();
        let exp = Schedule::Exponential { multiplier: 2.0 };
        for k in 1..8 {
            let d = backoff(exp, Jitter::None).delay(k, NO_PREVIOUS, r);
            for _ in 0..2000 {
                let full = backoff(exp, Jitter::Full).delay(k, NO_PREVIOUS, r);
                assert!(full < d.max(Nanos(1)), "full {full:?} < {d:?}");
                let equal = backoff(exp, Jitter::Equal).delay(k, NO_PREVIOUS, r);
                let half = Nanos(d.0 / 2);
                assert!(
                    equal >= half && equal <= d,
                    "equal {equal:?} in [{half:?}, {d:?}]"
                );
                let p = backoff(exp, Jitter::Proportional { factor: 0.2 }).delay(k, NO_PREVIOUS, r);
                let (p, d) = (p.0 as f64, d.0 as f64);
                assert!(p >= d * 0.8 - 1.0 && p <= d * 1.2 + 1.0);
            }
        }
    }

    #[test]
    fn full_jitter_averages_half_the_delay() {
        let r = &mut rng();
        let b = backoff(Schedule::Constant, Jitter::Full);
        let mean = (0..20_000)
            .map(|_| b.delay(1, NO_PREVIOUS, r).0 as f64)
            .sum::<f64>()
            / 20_000.0;
        assert!((mean / (25.0 * MS.0 as f64) - 1.0).abs() < 0.02, "{mean}");
    }

    #[test]
    fn decorrelated_grows_from_the_previous_delay_and_never_exceeds_its_cap() {
        let r = &mut rng();
        let b = backoff(
            Schedule::Exponential { multiplier: 2.0 },
            Jitter::Decorrelated,
        );
        let mut prev = NO_PREVIOUS;
        for k in 1..200 {
            let d = b.delay(k, prev, r);
            assert!((50 * MS..=1000 * MS).contains(&d), "{d:?}");
            let upper = if prev == NO_PREVIOUS {
                150 * MS
            } else {
                (prev * 3).max(50 * MS)
            };
            assert!(d <= upper.min(1000 * MS));
            prev = d;
        }
    }
}
