//! Guava's `RateLimiter.create(permitsPerSecond)`: `SmoothRateLimiter.SmoothBursty`, followed
//! line by line (Guava 33, `SmoothRateLimiter.reserveEarliestAvailable` and `resync`).
//!
//! The limiter starts with no stored permits and its next free instant at its creation, so
//! the first caller is free. Unused time is stored as permits, at most `maxBurstSeconds` (1 s)
//! of them. A request takes what is stored and borrows the rest from the future: it is granted
//! at the next free instant (now, if that is past), and the next free instant moves on by the
//! borrowed permits' time, so the *next* caller pays for a large request: `acquire(10)` at
//! 1 permit/s is immediate and the following `acquire` waits 10 s.
//!
//! Guava keeps microseconds in doubles; this keeps nanoseconds in doubles for the stored
//! permits and integer nanoseconds for instants, rounding a borrowed wait up to the ns.

use crate::time::Nanos;

/// Guava's `SmoothBursty` at `permits_per_second`, with `maxBurstSeconds` 1.
#[derive(Debug, Clone)]
pub struct SmoothBursty {
    /// `stableIntervalMicros`, in ns.
    interval: f64,
    /// `maxPermits`: `maxBurstSeconds · permitsPerSecond`.
    max_permits: f64,
    stored: f64,
    /// `nextFreeTicketMicros`: when the next request is granted.
    next_free: Nanos,
}

/// Guava's `SmoothBursty` burst: one second of permits.
const MAX_BURST_SECONDS: f64 = 1.0;

impl SmoothBursty {
    /// Created at `now`, empty; `None` unless the rate is finite and above zero (Guava throws).
    pub fn new(permits_per_second: f64, now: Nanos) -> Option<SmoothBursty> {
        (permits_per_second.is_finite() && permits_per_second > 0.0).then(|| SmoothBursty {
            interval: 1e9 / permits_per_second,
            max_permits: MAX_BURST_SECONDS * permits_per_second,
            stored: 0.0,
            next_free: now,
        })
    }

    /// `resync`: time past the next free instant becomes stored permits.
    fn resync(&mut self, now: Nanos) {
        if now > self.next_free {
            let new = (now.0 - self.next_free.0) as f64 / self.interval;
            self.stored = self.max_permits.min(self.stored + new);
            self.next_free = now;
        }
    }

    /// `acquire(permits)` at `now`: how long the caller sleeps (zero if it is granted now).
    pub fn acquire(&mut self, now: Nanos, permits: u32) -> Nanos {
        self.resync(now);
        let granted = self.next_free;
        let from_store = self.stored.min(permits as f64);
        let fresh = permits as f64 - from_store;
        let borrowed = Nanos((fresh * self.interval).ceil() as u64);
        self.next_free = self.next_free.saturating_add(borrowed);
        self.stored -= from_store;
        granted.saturating_sub(now)
    }

    /// `tryAcquire(permits, timeout)` at `now`: the wait if it is within `timeout` (then the
    /// permits are taken as `acquire` takes them), else `None` and nothing taken.
    pub fn try_acquire(&mut self, now: Nanos, permits: u32, timeout: Nanos) -> Option<Nanos> {
        // Guava's `canAcquire`: queryEarliestAvailable(now) − timeout ≤ now.
        (self.next_free.saturating_sub(timeout) <= now).then(|| self.acquire(now, permits))
    }

    /// How long from `now` until `tryAcquire(timeout)` would be granted: until the next free
    /// instant is within `timeout`.
    pub fn until_within(&self, now: Nanos, timeout: Nanos) -> Nanos {
        self.next_free.saturating_sub(timeout).saturating_sub(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = Nanos::from_secs(1);

    #[test]
    fn a_large_acquire_is_free_and_the_next_caller_pays() {
        // Guava's javadoc: at 1 permit/s, acquire(10) is immediate and the next acquire waits.
        let mut g = SmoothBursty::new(1.0, Nanos::ZERO).unwrap();
        assert_eq!(g.acquire(Nanos::ZERO, 10), Nanos::ZERO);
        assert_eq!(g.acquire(Nanos::ZERO, 1), 10 * S);
        // And the one after that waits for both: 11 s.
        assert_eq!(g.acquire(Nanos::ZERO, 1), 11 * S);
    }

    #[test]
    fn first_caller_is_free_then_steady_rate() {
        // 2 permits/s: 0, 0.5, 1.0, 1.5 s for four back-to-back acquires at 0.
        let mut g = SmoothBursty::new(2.0, Nanos::ZERO).unwrap();
        let waits: Vec<Nanos> = (0..4).map(|_| g.acquire(Nanos::ZERO, 1)).collect();
        let half = Nanos::from_ms(500);
        assert_eq!(waits, [Nanos::ZERO, half, 2 * half, 3 * half]);
    }

    #[test]
    fn stores_at_most_one_second_of_permits() {
        // 5 permits/s, idle 10 s: 5 stored (not 50), so five are free, the sixth waits 0.2 s.
        let mut g = SmoothBursty::new(5.0, Nanos::ZERO).unwrap();
        let t = 10 * S;
        for _ in 0..5 {
            assert_eq!(g.acquire(t, 1), Nanos::ZERO);
        }
        // The sixth is granted at once too (next free is now), and the seventh pays its 0.2 s.
        assert_eq!(g.acquire(t, 1), Nanos::ZERO);
        assert_eq!(g.acquire(t, 1), Nanos::from_ms(200));
    }

    #[test]
    fn try_acquire_refuses_past_its_timeout_and_takes_nothing() {
        let mut g = SmoothBursty::new(1.0, Nanos::ZERO).unwrap();
        assert_eq!(
            g.try_acquire(Nanos::ZERO, 3, Nanos::ZERO),
            Some(Nanos::ZERO)
        );
        // Next free at 3 s: refused with a 2 s timeout, granted with 3 s.
        assert_eq!(g.try_acquire(Nanos::ZERO, 1, 2 * S), None);
        assert_eq!(g.try_acquire(Nanos::ZERO, 1, 3 * S), Some(3 * S));
        assert!(SmoothBursty::new(0.0, Nanos::ZERO).is_none());
        assert!(SmoothBursty::new(f64::INFINITY, Nanos::ZERO).is_none());
    }
}
