//! A bulkhead: at most `max_concurrent` attempts in flight on a call path; up to `queue` more
//! wait, first come first served, for at most `max_wait`; the rest are rejected at once
//! (resilience4j SemaphoreBulkhead: `maxConcurrentCalls`, `maxWaitDuration`; queue 0 and wait 0
//! reject immediately, its default). A permit is held for one attempt and released when the
//! attempt ends, before any backoff sleep (`wraps = "attempt"`), or for the whole call, across
//! its backoffs and retries (`wraps = "call"`). Paths of one caller naming the same `pool`
//! share one `Bulkhead`: one permit count, one line of waiters.

use crate::time::Nanos;
use std::collections::VecDeque;

/// What a circuit breaker or a bulkhead wraps: each attempt, or the whole call with its
/// retries (`breaker.wraps`, `bulkhead.wraps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Wraps {
    #[default]
    Attempt,
    Call,
}

/// When a bulkhead permit comes back: when the caller stops waiting for the attempt (its reply
/// or its timeout, resilience4j's semaphore), or only once the callee's answer has reached the
/// caller or its work there is gone (a connection pool: the connection stays busy until the
/// database answers, whoever still listens).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum BulkheadRelease {
    #[default]
    Return,
    Answer,
}

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct BulkheadConfig {
        max_concurrent: u32,
        queue: u32,
        max_wait: Nanos,
        release: BulkheadRelease,
        wraps: Wraps,
        pool: Option<String>,
    }
}

getters!(BulkheadConfig {
    /// Permits: attempts (or calls) at once.
    max_concurrent: u32,
    /// Waiters at most in its line; 0: a full bulkhead refuses at once.
    queue: u32,
    /// The longest a waiter waits for a permit.
    max_wait: Nanos,
    /// When a permit comes back (`bulkhead.release`).
    release: BulkheadRelease,
    /// What a permit covers: one attempt, or the whole call with its retries
    /// (`bulkhead.wraps`).
    wraps: Wraps,
});

impl BulkheadConfig {
    /// The caller's pool this bulkhead is, shared with its other paths naming it
    /// (`bulkhead.pool`); `None`: the path's own.
    pub fn pool(&self) -> Option<&str> {
        self.pool.as_deref()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Granted,
    Queued,
    Rejected,
}

#[derive(Debug, Clone)]
pub struct Bulkhead<T> {
    cfg: BulkheadConfig,
    in_use: u32,
    waiting: VecDeque<T>,
    /// Time integrals of `in_use` and of the line's length over `[from, since)` (permit·ns),
    /// for the pool's time averages over the measured part of a run (`from`: its warm-up).
    in_use_area: u128,
    waiting_area: u128,
    since: Nanos,
    from: Nanos,
}

impl<T: PartialEq> Bulkhead<T> {
    pub fn new(cfg: BulkheadConfig) -> Bulkhead<T> {
        Bulkhead::measured_from(cfg, Nanos::ZERO)
    }

    /// A bulkhead whose time averages leave out `[0, from)` (a run's warm-up).
    pub fn measured_from(cfg: BulkheadConfig, from: Nanos) -> Bulkhead<T> {
        Bulkhead {
            cfg,
            in_use: 0,
            waiting: VecDeque::new(),
            in_use_area: 0,
            waiting_area: 0,
            since: Nanos::ZERO,
            from,
        }
    }

    /// Brings the time integrals up to `now`, before a count changes.
    fn advance(&mut self, now: Nanos) {
        let dt = u128::from(now.saturating_sub(self.since.max(self.from)).0);
        self.in_use_area += dt * u128::from(self.in_use);
        self.waiting_area += dt * self.waiting.len() as u128;
        self.since = self.since.max(now);
    }

    pub fn max_wait(&self) -> Nanos {
        self.cfg.max_wait
    }

    /// Asks for a permit for `who` at `now`.
    pub fn acquire(&mut self, now: Nanos, who: T) -> Admission {
        self.advance(now);
        if self.in_use < self.cfg.max_concurrent {
            self.in_use += 1;
            Admission::Granted
        } else if (self.waiting.len() as u32) < self.cfg.queue && self.cfg.max_wait > Nanos::ZERO {
            self.waiting.push_back(who);
            Admission::Queued
        } else {
            Admission::Rejected
        }
    }

    /// Returns a permit at `now`; the first waiter, if any, gets it (and is returned).
    pub fn release(&mut self, now: Nanos) -> Option<T> {
        self.advance(now);
        match self.waiting.pop_front() {
            Some(next) => Some(next),
            None => {
                self.in_use = self.in_use.saturating_sub(1);
                None
            }
        }
    }

    /// Removes a waiter that gave up at `now`; true if it was waiting.
    pub fn abandon(&mut self, now: Nanos, who: &T) -> bool {
        self.advance(now);
        match self.waiting.iter().position(|w| w == who) {
            Some(i) => {
                self.waiting.remove(i);
                true
            }
            None => false,
        }
    }

    pub fn in_use(&self) -> u32 {
        self.in_use
    }

    /// Callers in line for a permit.
    pub fn waiting(&self) -> u32 {
        self.waiting.len() as u32
    }

    /// Permits held and callers waiting, each averaged over `[from, end)`.
    pub fn means(&self, end: Nanos) -> (f64, f64) {
        let dt = u128::from(end.saturating_sub(self.since.max(self.from)).0);
        let in_use = self.in_use_area + dt * u128::from(self.in_use);
        let waiting = self.waiting_area + dt * self.waiting.len() as u128;
        let span = end.saturating_sub(self.from).0.max(1) as f64;
        (in_use as f64 / span, waiting as f64 / span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_queues_rejects_and_hands_permits_to_waiters_in_order() {
        let mut b = Bulkhead::new(BulkheadConfig {
            max_concurrent: 2,
            queue: 1,
            max_wait: Nanos(10),
            release: Default::default(),
            wraps: Default::default(),
            pool: None,
        });
        assert_eq!(b.acquire(Nanos::ZERO, 1), Admission::Granted);
        assert_eq!(b.acquire(Nanos::ZERO, 2), Admission::Granted);
        assert_eq!(b.acquire(Nanos::ZERO, 3), Admission::Queued);
        assert_eq!(b.acquire(Nanos::ZERO, 4), Admission::Rejected);
        assert_eq!(
            b.release(Nanos::ZERO),
            Some(3),
            "the waiter takes the permit"
        );
        assert_eq!(b.in_use(), 2);
        assert_eq!(b.release(Nanos::ZERO), None);
        assert_eq!(b.in_use(), 1);
    }

    #[test]
    fn no_waiting_without_max_wait_and_waiters_can_leave() {
        let mut b = Bulkhead::new(BulkheadConfig {
            max_concurrent: 1,
            queue: 5,
            max_wait: Nanos::ZERO,
            release: Default::default(),
            wraps: Default::default(),
            pool: None,
        });
        assert_eq!(b.acquire(Nanos::ZERO, 1), Admission::Granted);
        assert_eq!(
            b.acquire(Nanos::ZERO, 2),
            Admission::Rejected,
            "resilience4j default: wait 0 rejects"
        );
        let mut b = Bulkhead::new(BulkheadConfig {
            max_concurrent: 1,
            queue: 5,
            max_wait: Nanos(5),
            release: Default::default(),
            wraps: Default::default(),
            pool: None,
        });
        b.acquire(Nanos::ZERO, 1);
        assert_eq!(b.acquire(Nanos::ZERO, 2), Admission::Queued);
        assert!(b.abandon(Nanos::ZERO, &2));
        assert!(!b.abandon(Nanos::ZERO, &2));
        assert_eq!(b.release(Nanos::ZERO), None);
        assert_eq!(b.in_use(), 0);
    }

    #[test]
    fn time_averages_of_permits_held_and_callers_waiting() {
        // One permit, room for one waiter: held over [0, 10) by 1, [10, 30) by 2 (handed to
        // the waiter at 10), free over [30, 40). In use 1·10 + 1·20 = 30 permit·ns over 40 ns;
        // waiting over [5, 10): 5 over 40.
        let mut b = Bulkhead::new(BulkheadConfig {
            max_concurrent: 1,
            queue: 1,
            max_wait: Nanos(100),
            release: Default::default(),
            wraps: Default::default(),
            pool: Some("pg".into()),
        });
        assert_eq!(b.acquire(Nanos::ZERO, 1), Admission::Granted);
        assert_eq!(b.acquire(Nanos(5), 2), Admission::Queued);
        assert_eq!(b.release(Nanos(10)), Some(2));
        assert_eq!(b.release(Nanos(30)), None);
        assert_eq!(b.means(Nanos(40)), (30.0 / 40.0, 5.0 / 40.0));
        assert_eq!(b.in_use(), 0);
    }

    #[test]
    fn time_averages_leave_the_warm_up_out() {
        // Warm-up [0, 20): held by 1 over [0, 30), then free to 40. Measured: 10 of 20 ns.
        let cfg = BulkheadConfig {
            max_concurrent: 1,
            queue: 0,
            max_wait: Nanos::ZERO,
            release: Default::default(),
            wraps: Default::default(),
            pool: None,
        };
        let mut b = Bulkhead::measured_from(cfg, Nanos(20));
        assert_eq!(b.acquire(Nanos::ZERO, 1), Admission::Granted);
        assert_eq!(b.release(Nanos(30)), None);
        assert_eq!(b.means(Nanos(40)), (0.5, 0.0));
    }
}
