//! Client-side adaptive throttling (Google SRE book, "Handling Overload"): the client rejects
//! a request locally with probability max(0, (requests − K·accepts) / (requests + 1)), counted
//! over a sliding `window` (ten slots). `requests` includes the ones rejected locally;
//! `accepts` are attempts the backend took on (any answer but overloaded, shed, refused, or no
//! answer in time). K = 2 is the book's value; lower K throttles harder.

use super::window::SlidingCounts;
use crate::outcome::Outcome;
use crate::time::Nanos;

const REQUESTS: usize = 0;
const ACCEPTS: usize = 1;

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ThrottleConfig {
        k: f64,
        window: Nanos,
    }
}

getters!(ThrottleConfig {
    /// Accepts are multiplied by `k` before requests are compared with them (2 in the SRE book).
    k: f64,
    /// The span requests and accepts are counted over.
    window: Nanos,
});

#[derive(Debug, Clone)]
pub struct Throttle {
    k: f64,
    /// Requests and accepts over the window.
    counts: SlidingCounts<2>,
}

impl Throttle {
    pub fn new(cfg: &ThrottleConfig) -> Throttle {
        Throttle {
            k: cfg.k,
            counts: SlidingCounts::new(cfg.window),
        }
    }

    /// The rejection probability now, from the window's counts.
    pub fn reject_probability(&self, now: Nanos) -> f64 {
        let [requests, accepts] = self.counts.totals(now);
        ((requests - self.k * accepts) / (requests + 1.0)).max(0.0)
    }

    /// A request is about to be sent; `u` is a uniform draw in [0, 1). Returns true when it is
    /// rejected locally. Either way it counts as a request.
    pub fn reject(&mut self, now: Nanos, u: f64) -> bool {
        let p = self.reject_probability(now);
        self.counts.add(now, REQUESTS, 1.0);
        u < p
    }

    /// The backend accepted a request.
    pub fn accepted(&mut self, now: Nanos) {
        self.counts.add(now, ACCEPTS, 1.0);
    }

    /// Whether an attempt that ended with `outcome` counts as accepted: the backend took it
    /// on, whatever it answered. Turned away (overloaded, shed, refused) or no answer in time
    /// (timeout, deadline exceeded) is the book's "rejected".
    #[inline]
    pub fn counts_as_accepted(outcome: Outcome) -> bool {
        !matches!(
            outcome,
            Outcome::Overloaded
                | Outcome::Shed
                | Outcome::Refused
                | Outcome::Timeout
                | Outcome::DeadlineExceeded
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = Nanos::from_secs(1);

    #[test]
    fn rejects_by_the_sre_formula() {
        let mut t = Throttle::new(&ThrottleConfig {
            k: 2.0,
            window: 120 * S,
        });
        assert_eq!(t.reject_probability(Nanos::ZERO), 0.0);
        // 100 requests, 20 accepted: p = (100 - 40) / 101.
        for i in 0..100 {
            t.reject(Nanos(i), 0.999_999);
            if i < 20 {
                t.accepted(Nanos(i));
            }
        }
        assert!((t.reject_probability(Nanos(100)) - 60.0 / 101.0).abs() < 1e-12);
        // A healthy backend (accepts >= requests / K) is never throttled.
        let mut t = Throttle::new(&ThrottleConfig {
            k: 2.0,
            window: 120 * S,
        });
        for i in 0..100 {
            assert!(!t.reject(Nanos(i), 0.0));
            if i % 2 == 0 {
                t.accepted(Nanos(i));
            }
        }
        assert_eq!(t.reject_probability(Nanos(100)), 0.0);
    }

    #[test]
    fn rejected_requests_count_and_old_slots_expire() {
        let mut t = Throttle::new(&ThrottleConfig {
            k: 2.0,
            window: 10 * S,
        });
        for _ in 0..50 {
            t.reject(Nanos::ZERO, 0.5);
        }
        assert!(t.reject_probability(Nanos::ZERO) > 0.9);
        assert_eq!(
            t.reject_probability(10 * S),
            0.0,
            "the window moved past them"
        );
    }

    #[test]
    fn accepted_means_the_backend_took_the_attempt_on() {
        let rejected: Vec<&str> = Outcome::ALL
            .iter()
            .filter(|o| !Throttle::counts_as_accepted(**o))
            .map(|o| o.name())
            .collect();
        assert_eq!(
            rejected,
            [
                "timeout",
                "deadline_exceeded",
                "overloaded",
                "refused",
                "shed"
            ]
        );
    }
}
