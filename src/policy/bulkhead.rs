//! A bulkhead: at most `max_concurrent` attempts in flight on a call path; up to `queue` more
//! wait, first come first served, for at most `max_wait`; the rest are rejected at once
//! (resilience4j SemaphoreBulkhead: `maxConcurrentCalls`, `maxWaitDuration`; queue 0 and wait 0
//! reject immediately, its default). A permit is held for one attempt and released when the
//! attempt ends, before any backoff sleep.

use serde::Deserialize;
use std::collections::VecDeque;

/// When a bulkhead permit comes back: when the caller stops waiting for the attempt (its reply
/// or its timeout, resilience4j's semaphore), or only once the callee's answer has reached the
/// caller or its work there is gone (a connection pool: the connection stays busy until the
/// database answers, whoever still listens).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BulkheadRelease {
    #[default]
    Return,
    Answer,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BulkheadConfig {
    pub max_concurrent: u32,
    pub queue: u32,
    /// ns
    pub max_wait: u64,
    /// When a permit comes back (`bulkhead.release`).
    pub release: BulkheadRelease,
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
}

impl<T: PartialEq> Bulkhead<T> {
    pub fn new(cfg: BulkheadConfig) -> Bulkhead<T> {
        Bulkhead {
            cfg,
            in_use: 0,
            waiting: VecDeque::new(),
        }
    }

    pub fn max_wait(&self) -> u64 {
        self.cfg.max_wait
    }

    /// Asks for a permit for `who`.
    pub fn acquire(&mut self, who: T) -> Admission {
        if self.in_use < self.cfg.max_concurrent {
            self.in_use += 1;
            Admission::Granted
        } else if (self.waiting.len() as u32) < self.cfg.queue && self.cfg.max_wait > 0 {
            self.waiting.push_back(who);
            Admission::Queued
        } else {
            Admission::Rejected
        }
    }

    /// Returns a permit; the first waiter, if any, gets it (and is returned).
    pub fn release(&mut self) -> Option<T> {
        match self.waiting.pop_front() {
            Some(next) => Some(next),
            None => {
                self.in_use = self.in_use.saturating_sub(1);
                None
            }
        }
    }

    /// Removes a waiter that gave up; true if it was waiting.
    pub fn abandon(&mut self, who: &T) -> bool {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_queues_rejects_and_hands_permits_to_waiters_in_order() {
        let mut b = Bulkhead::new(BulkheadConfig {
            max_concurrent: 2,
            queue: 1,
            max_wait: 10,
            release: Default::default(),
        });
        assert_eq!(b.acquire(1), Admission::Granted);
        assert_eq!(b.acquire(2), Admission::Granted);
        assert_eq!(b.acquire(3), Admission::Queued);
        assert_eq!(b.acquire(4), Admission::Rejected);
        assert_eq!(b.release(), Some(3), "the waiter takes the permit");
        assert_eq!(b.in_use(), 2);
        assert_eq!(b.release(), None);
        assert_eq!(b.in_use(), 1);
    }

    #[test]
    fn no_waiting_without_max_wait_and_waiters_can_leave() {
        let mut b = Bulkhead::new(BulkheadConfig {
            max_concurrent: 1,
            queue: 5,
            max_wait: 0,
            release: Default::default(),
        });
        assert_eq!(b.acquire(1), Admission::Granted);
        assert_eq!(
            b.acquire(2),
            Admission::Rejected,
            "resilience4j default: wait 0 rejects"
        );
        let mut b = Bulkhead::new(BulkheadConfig {
            max_concurrent: 1,
            queue: 5,
            max_wait: 5,
            release: Default::default(),
        });
        b.acquire(1);
        assert_eq!(b.acquire(2), Admission::Queued);
        assert!(b.abandon(&2));
        assert!(!b.abandon(&2));
        assert_eq!(b.release(), None);
        assert_eq!(b.in_use(), 0);
    }
}
