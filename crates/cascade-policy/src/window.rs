//! A sliding window of counters over virtual time: ten slots of a tenth of the window each,
//! aligned to multiples of the slot width. The retry budget, the adaptive throttle and the
//! breaker's time window all count this way.

use crate::time::Nanos;

const SLOTS: usize = 10;

/// `K` counters per slot, summed over the slots still inside the window.
#[derive(Debug, Clone)]
pub struct SlidingCounts<const K: usize> {
    /// A slot's width (ns; at least 1).
    width: u64,
    /// (slot number, counters) per ring position; `u64::MAX` marks a slot never used.
    slots: [(u64, [f64; K]); SLOTS],
}

impl<const K: usize> SlidingCounts<K> {
    pub fn new(window: Nanos) -> Self {
        SlidingCounts {
            width: (window.0 / SLOTS as u64).max(1),
            slots: [(u64::MAX, [0.0; K]); SLOTS],
        }
    }

    /// Adds `amount` to counter `k` of the slot holding `now`.
    pub fn add(&mut self, now: Nanos, k: usize, amount: f64) {
        let n = now.0 / self.width;
        let slot = &mut self.slots[(n % SLOTS as u64) as usize];
        if slot.0 != n {
            *slot = (n, [0.0; K]);
        }
        slot.1[k] += amount;
    }

    /// Each counter summed over the window ending at `now`.
    pub fn totals(&self, now: Nanos) -> [f64; K] {
        let current = now.0 / self.width;
        let mut sum = [0.0; K];
        for (n, counts) in &self.slots {
            if *n != u64::MAX && *n + SLOTS as u64 > current {
                for (s, c) in sum.iter_mut().zip(counts) {
                    *s += c;
                }
            }
        }
        sum
    }

    pub fn clear(&mut self) {
        self.slots = [(u64::MAX, [0.0; K]); SLOTS];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_inside_the_window_and_forgets_what_left_it() {
        let mut w = SlidingCounts::<2>::new(Nanos(10));
        w.add(Nanos::ZERO, 0, 1.0);
        w.add(Nanos(5), 1, 2.0);
        assert_eq!(w.totals(Nanos(9)), [1.0, 2.0]);
        // At 10 the slot of time 0 has left; slot 5 stays until 15.
        assert_eq!(w.totals(Nanos(10)), [0.0, 2.0]);
        assert_eq!(w.totals(Nanos(15)), [0.0, 0.0]);
        // A reused ring position starts from zero.
        w.add(Nanos(20), 0, 3.0);
        assert_eq!(w.totals(Nanos(20)), [3.0, 0.0]);
        w.clear();
        assert_eq!(w.totals(Nanos(20)), [0.0, 0.0]);
    }
}
