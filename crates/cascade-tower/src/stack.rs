//! The state one service instance keeps, shared by its clones and every call in flight: the
//! path's policies (`PathPolicies`, built by cascade-policy from the table, as the engine
//! builds a caller instance's), its bulkhead and the calls waiting in the bulkhead's line.

use crate::clock::Clock;
use crate::events::{Event, Events};
use cascade_policy::Nanos;
use cascade_policy::bulkhead::Bulkhead;
use cascade_policy::path::PathPolicies;
use cascade_policy::table::PolicyConfig;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use tokio::sync::oneshot;

/// What every call of one service instance shares.
pub(crate) struct Stack<C, H, F, R> {
    pub policy: PolicyConfig,
    /// The calls may be sent again: retries and hedges are allowed.
    pub retry_allowed: bool,
    pub clock: Clock,
    pub classifier: C,
    pub events: H,
    pub fallback: F,
    pub shared: Mutex<Shared<R>>,
}

/// The mutable part, locked for each decision and never across an await.
pub(crate) struct Shared<R> {
    pub policies: PathPolicies<R>,
    /// Waiters are numbered; the number is the call's place in the line.
    pub bulkhead: Option<Bulkhead<u64>>,
    /// Who to wake when the bulkhead hands a waiter its permit (with the instant).
    pub waiters: HashMap<u64, oneshot::Sender<Nanos>>,
    pub next_waiter: u64,
}

impl<C, H: Events, F, R> Stack<C, H, F, R> {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Shared<R>> {
        // A panic elsewhere leaves the policies' state as consistent as any one decision
        // leaves it: keep serving rather than poison every later call.
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn emit(&self, at: Nanos, event: Event) {
        self.events.on(at, event);
    }
}

impl<R> Shared<R> {
    /// A bulkhead permit comes back at `now`: handed to the first waiter, who is woken, or
    /// freed.
    pub(crate) fn hand_back_permit(&mut self, now: Nanos) {
        let next = self.bulkhead.as_mut().and_then(|b| b.release(now));
        if let Some(tx) = next.and_then(|id| self.waiters.remove(&id)) {
            // A waiter whose call is gone left the line first (`CallState`'s drop), so the
            // receiver is there; if not, nothing is lost but the wake-up.
            let _ = tx.send(now);
        }
    }

    /// Waiter `id` leaves the line at `now`: true if it did, false if the bulkhead had
    /// already handed it a permit (which it now holds).
    pub(crate) fn leave_line(&mut self, now: Nanos, id: u64) -> bool {
        self.waiters.remove(&id);
        self.bulkhead.as_mut().is_some_and(|b| b.abandon(now, &id))
    }
}
