//! CoDel at a service queue, the way folly's `Codel` (folly/executors/Codel.cpp) and Envoy's
//! copy of it (source/common/common/codel.cc) do it — not CoDel proper (RFC 8289), which drops
//! at a rising rate. Here the queue is *overloaded* when the smallest queue delay seen over the
//! last interval exceeded `target`; while overloaded, every job that waited more than 2·target
//! is shed at dequeue.
//!
//! The interval bookkeeping is folly's, lazy rather than on a timer:
//!
//! * The first dequeue after the interval's end (strictly after it) closes the interval:
//!   overloaded ← min delay > target, and the next interval ends `interval` after this dequeue.
//! * That dequeue then opens the new interval: its delay becomes the minimum, and it is never
//!   shed ("more than one request must come in during an interval before codel starts
//!   dropping requests").
//! * Every other dequeue lowers the minimum if smaller, then is shed when overloaded and its
//!   delay exceeds 2·target.
//!
//! The very first dequeue only opens an interval (nothing to close yet); the first interval
//! ends at creation time (0), so the second dequeue closes it. `target` is kept at most
//! `interval`, as folly's `getOptions` does.

use crate::time::Nanos;

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct CodelConfig {
        target: Nanos,
        interval: Nanos,
    }
}

getters!(CodelConfig {
    /// The sojourn time CoDel aims to keep the queue under.
    target: Nanos,
    /// How long the sojourn must stay above `target` before dropping starts.
    interval: Nanos,
});

impl Default for CodelConfig {
    /// folly's and Envoy's: 5 ms, 100 ms.
    fn default() -> CodelConfig {
        CodelConfig {
            target: Nanos::from_ms(5),
            interval: Nanos::from_ms(100),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Codel {
    target: Nanos,
    interval: Nanos,
    /// Smallest queue delay since the current interval opened.
    min_delay: Nanos,
    /// When the current interval ends.
    interval_end: Nanos,
    /// The next dequeue opens a new interval.
    reset_delay: bool,
    overloaded: bool,
}

impl Codel {
    pub fn new(cfg: &CodelConfig) -> Codel {
        Codel {
            target: cfg.target.min(cfg.interval),
            interval: cfg.interval,
            min_delay: Nanos::ZERO,
            interval_end: Nanos::ZERO,
            reset_delay: true,
            overloaded: false,
        }
    }

    /// A job leaves the queue at `now` after waiting `queue_delay`. Returns true when it is
    /// to be shed instead of served.
    pub fn on_dequeue(&mut self, now: Nanos, queue_delay: Nanos) -> bool {
        if now > self.interval_end && !self.reset_delay {
            self.reset_delay = true;
            self.interval_end = now.saturating_add(self.interval);
            self.overloaded = self.min_delay > self.target;
        }
        if self.reset_delay {
            self.reset_delay = false;
            self.min_delay = queue_delay;
            return false;
        }
        self.min_delay = self.min_delay.min(queue_delay);
        self.overloaded && queue_delay > self.target * 2
    }

    /// Whether the last closed interval found the queue overloaded.
    pub fn overloaded(&self) -> bool {
        self.overloaded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);

    #[test]
    fn sheds_over_twice_target_while_the_last_interval_minimum_exceeded_target() {
        let mut c = Codel::new(&CodelConfig::default());
        assert!(
            !c.on_dequeue(MS, 50 * MS),
            "the first dequeue opens an interval"
        );
        // Closes the first interval (min 50 ms > 5 ms: overloaded); opens the next, to 102 ms.
        assert!(
            !c.on_dequeue(2 * MS, 20 * MS),
            "an opening dequeue is never shed"
        );
        assert!(c.overloaded());
        assert!(c.on_dequeue(3 * MS, 11 * MS), "11 ms > 2 × 5 ms");
        assert!(!c.on_dequeue(4 * MS, 10 * MS), "10 ms is not over 10 ms");
        assert!(
            c.on_dequeue(102 * MS, 30 * MS),
            "102 ms is not after the end"
        );
        // Closes [2 ms, 102 ms]: its minimum was 10 ms > 5 ms, so still overloaded.
        assert!(!c.on_dequeue(103 * MS, 4 * MS));
        assert!(c.overloaded());
        assert!(c.on_dequeue(150 * MS, 30 * MS));
        // Closes [103 ms, 203 ms]: minimum 4 ms ≤ 5 ms, no longer overloaded.
        assert!(!c.on_dequeue(204 * MS, 30 * MS));
        assert!(!c.overloaded());
        assert!(
            !c.on_dequeue(205 * MS, 30 * MS),
            "not overloaded: long waits pass"
        );
    }

    #[test]
    fn a_minimum_of_exactly_target_is_not_overload() {
        let mut c = Codel::new(&CodelConfig::default());
        c.on_dequeue(MS, 9 * MS);
        c.on_dequeue(2 * MS, 40 * MS);
        assert!(
            c.overloaded(),
            "the first interval closed with a 9 ms minimum"
        );
        assert!(!c.on_dequeue(3 * MS, 5 * MS));
        assert!(!c.on_dequeue(4 * MS, 7 * MS));
        assert!(!c.on_dequeue(103 * MS, 40 * MS), "opens the next interval");
        assert!(!c.overloaded(), "minimum 5 ms is not over the 5 ms target");
    }

    #[test]
    fn a_lone_dequeue_per_interval_never_sheds() {
        // One job per interval: each one closes the previous interval and opens the next.
        let mut c = Codel::new(&CodelConfig::default());
        for i in 1..10 {
            assert!(!c.on_dequeue(i * 200 * MS, 80 * MS));
        }
        assert!(c.overloaded(), "each interval's single delay was 80 ms");
    }

    #[test]
    fn target_is_kept_within_the_interval() {
        let mut c = Codel::new(&CodelConfig {
            target: 50 * MS,
            interval: 20 * MS,
        });
        // Target 20 ms: a minimum of 30 ms is overload, and 41 ms > 40 ms is shed.
        c.on_dequeue(MS, 30 * MS);
        c.on_dequeue(2 * MS, 30 * MS);
        assert!(c.overloaded());
        assert!(c.on_dequeue(3 * MS, 41 * MS));
    }
}
