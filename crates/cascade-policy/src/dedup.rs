//! Idempotency at the callee: one record per idempotency key (one logical call) at a service
//! with a `dedup_window`, as an idempotency-key store keeps it (AWS Lambda Powertools'
//! idempotency utility, Stripe's `Idempotency-Key`).
//!
//! - The first attempt to arrive *executes* and the key is in progress until it is answered.
//! - An attempt arriving while it is in progress *waits* for that answer, holding nothing at
//!   the service (no worker, no queue place): the store parks it.
//! - A success is stored: attempts arriving within `window` after it are *answered* from it
//!   without work, and so are the waiters, at the moment it is given.
//! - A failure is not stored (Powertools deletes the record when the function raises, so the
//!   next attempt runs again), and neither is an execution that ends without an answer
//!   (cancelled, lost in a crash): the waiters are released and arrive again, the first of
//!   them executing.
//! - After the window the key has expired and the next attempt executes again.
//!
//! Generic over the waiter's handle `W`, so it knows nothing of the engine.

use crate::outcome::Outcome;
use crate::time::Nanos;

/// What an arriving attempt does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Nothing in progress or stored: it runs, and the key is in progress until it answers.
    Execute,
    /// Another attempt of the key is in progress: it waits for that one's answer.
    Wait,
    /// A stored success answers it now; `work_ns` is the worker time the stored execution
    /// held, the work this answer did not do.
    Answer { outcome: Outcome, work_ns: Nanos },
}

/// Who the end of an execution sends where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Released<W> {
    /// The execution succeeded: every waiter is answered with its outcome.
    Answer {
        waiters: Vec<W>,
        outcome: Outcome,
        work_ns: Nanos,
    },
    /// It failed or ended unanswered: every waiter arrives again, in the order it came.
    Again(Vec<W>),
}

#[derive(Debug, Clone, Copy)]
struct Stored {
    outcome: Outcome,
    /// Arrivals before this moment are answered from it.
    until: Nanos,
    work_ns: Nanos,
}

/// The store's record of one key.
#[derive(Debug, Clone)]
pub struct Record<W> {
    running: Option<W>,
    waiting: Vec<W>,
    stored: Option<Stored>,
}

impl<W> Default for Record<W> {
    fn default() -> Self {
        Record {
            running: None,
            waiting: Vec::new(),
            stored: None,
        }
    }
}

impl<W: Copy + PartialEq> Record<W> {
    /// The attempt in progress, if one is.
    pub fn running(&self) -> Option<W> {
        self.running
    }

    /// Attempt `who` arrives at `now`.
    pub fn arrive(&mut self, now: Nanos, who: W) -> Arrival {
        if let Some(s) = self.stored.filter(|s| now < s.until) {
            return Arrival::Answer {
                outcome: s.outcome,
                work_ns: s.work_ns,
            };
        }
        if self.running.is_some() {
            self.waiting.push(who);
            return Arrival::Wait;
        }
        self.running = Some(who);
        Arrival::Execute
    }

    /// Attempt `who` is answered at `now` with `outcome` after holding a worker `work_ns`. `None`
    /// unless it is the execution in progress (a waiter's or a stored answer changes nothing).
    pub fn answered(
        &mut self,
        who: W,
        now: Nanos,
        window: Nanos,
        outcome: Outcome,
        work_ns: Nanos,
    ) -> Option<Released<W>> {
        if self.running != Some(who) {
            return None;
        }
        self.running = None;
        let waiters = std::mem::take(&mut self.waiting);
        if !outcome.is_success() {
            return Some(Released::Again(waiters));
        }
        self.stored = Some(Stored {
            outcome,
            until: now.saturating_add(window),
            work_ns,
        });
        Some(Released::Answer {
            waiters,
            outcome,
            work_ns,
        })
    }

    /// Attempt `who` ended without an answer (cancelled, lost in a crash), or, waiting, gave
    /// up. The execution's waiters are released to arrive again; a waiter is forgotten.
    pub fn gone(&mut self, who: W) -> Vec<W> {
        if self.running == Some(who) {
            self.running = None;
            return std::mem::take(&mut self.waiting);
        }
        self.waiting.retain(|w| *w != who);
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Nanos = Nanos(1_000);

    #[test]
    fn the_first_executes_and_a_concurrent_one_waits_for_its_success() {
        let mut r = Record::default();
        assert_eq!(r.arrive(Nanos::ZERO, 1), Arrival::Execute);
        assert_eq!(r.arrive(Nanos(60), 2), Arrival::Wait);
        assert_eq!(r.arrive(Nanos(120), 3), Arrival::Wait);
        assert_eq!(r.running(), Some(1));
        // A waiter's answer is not the execution's.
        assert_eq!(
            r.answered(2, Nanos(100), WINDOW, Outcome::Ok, Nanos(100)),
            None
        );
        assert_eq!(
            r.answered(1, Nanos(100), WINDOW, Outcome::Ok, Nanos(100)),
            Some(Released::Answer {
                waiters: vec![2, 3],
                outcome: Outcome::Ok,
                work_ns: Nanos(100)
            })
        );
        assert_eq!(r.running(), None);
    }

    #[test]
    fn a_stored_success_answers_within_the_window_and_expires_after_it() {
        let mut r = Record::default();
        assert_eq!(r.arrive(Nanos::ZERO, 1), Arrival::Execute);
        r.answered(1, Nanos(100), WINDOW, Outcome::Degraded, Nanos(80));
        let stored = Arrival::Answer {
            outcome: Outcome::Degraded,
            work_ns: Nanos(80),
        };
        assert_eq!(r.arrive(Nanos(100), 2), stored);
        assert_eq!(r.arrive(Nanos(1_099), 3), stored);
        // At 100 + 1000 the key has expired: the next attempt runs again.
        assert_eq!(r.arrive(Nanos(1_100), 4), Arrival::Execute);
    }

    #[test]
    fn a_failure_is_not_stored_and_its_waiters_arrive_again() {
        let mut r = Record::default();
        r.arrive(Nanos::ZERO, 1);
        r.arrive(Nanos(10), 2);
        r.arrive(Nanos(20), 3);
        assert_eq!(
            r.answered(1, Nanos(50), WINDOW, Outcome::Internal, Nanos(50)),
            Some(Released::Again(vec![2, 3]))
        );
        // Nothing stored: the first released waiter executes, the next waits for it.
        assert_eq!(r.arrive(Nanos(50), 2), Arrival::Execute);
        assert_eq!(r.arrive(Nanos(50), 3), Arrival::Wait);
        assert_eq!(r.arrive(Nanos(60), 4), Arrival::Wait);
    }

    #[test]
    fn an_execution_gone_unanswered_releases_its_waiters_and_a_waiter_gone_is_forgotten() {
        let mut r = Record::default();
        r.arrive(Nanos::ZERO, 1);
        r.arrive(Nanos(10), 2);
        r.arrive(Nanos(20), 3);
        assert_eq!(r.gone(2), Vec::<i32>::new());
        assert_eq!(r.running(), Some(1));
        assert_eq!(r.gone(1), vec![3]);
        assert_eq!(r.running(), None);
        assert_eq!(r.arrive(Nanos(30), 3), Arrival::Execute);
    }
}
