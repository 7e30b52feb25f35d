//! What the stack tells a service as it decides, so the service can export the metrics
//! cascade's simulator reports for an edge, under the same names, without this crate
//! depending on a metrics library: `Events::on` is called with each `Event` (a no-op unless
//! implemented), and `EventLog` records them (tests, or a service that drains it).
//!
//! An `Event` maps to cascade's edge metrics (`edge.<from>.<to>.<name>`, `cascade metrics`):
//! `CallStarted` → `calls`; `AttemptSent` → `attempts` (and `retries` past the first);
//! `HedgeSent` → `hedges` and `attempts`; `Refused` → `rejected_breaker`, `throttled`,
//! `limited`, `rate_limited` or `rejected_bulkhead`; `BudgetExhausted` → `budget_exhausted`;
//! `HedgeBudgetExhausted` → `hedge_budget_exhausted`; `Breaker` `Opened`/`Reopened` →
//! `breaker_opens` (and the open and half-open levels); `HalfOpenProbe` → `half_open_probes`;
//! `LimitMoved` → the `limit_mean` level; `FellBack` → `fallbacks`; `CallEnded` →
//! `success`, `errors.<kind>` and the call latency.

use cascade_policy::Nanos;
use cascade_policy::breaker::Transition;
use cascade_policy::outcome::Outcome;
use cascade_policy::path::Refusal;
use std::sync::{Mutex, PoisonError};

/// One thing the stack did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    CallStarted,
    /// Attempt number `attempt` (1-based) of a call was sent.
    AttemptSent {
        attempt: u32,
    },
    /// A hedged copy of the current attempt was sent.
    HedgeSent,
    HedgeBudgetExhausted,
    /// A guard turned the call away.
    Refused(Refusal),
    /// A retry will be sent after `wait`.
    RetryScheduled {
        attempt: u32,
        wait: Nanos,
    },
    /// The policy would retry, but the budget does not pay for it.
    BudgetExhausted,
    /// A breaker changed state.
    Breaker(Transition),
    /// A half-open breaker let a probe through.
    HalfOpenProbe,
    /// The adaptive limit moved by `by` to `limit`.
    LimitMoved {
        limit: u32,
        by: i64,
    },
    /// The call failed with `from`, and its fallback answers.
    FellBack {
        from: Outcome,
    },
    /// The call ended with `outcome` after `took`.
    CallEnded {
        outcome: Outcome,
        took: Nanos,
    },
}

/// Receives the stack's events, `at` the service's clock (since the layer's service was
/// made). Called with the service's state locked: keep it short, and never call the service
/// from it.
pub trait Events: Send + Sync + 'static {
    fn on(&self, at: Nanos, event: Event) {
        let _ = (at, event);
    }
}

/// No events.
impl Events for () {}

/// Every event with its instant, in order.
#[derive(Debug, Default)]
pub struct EventLog(Mutex<Vec<(Nanos, Event)>>);

impl EventLog {
    /// The events so far, taken out of the log.
    pub fn take(&self) -> Vec<(Nanos, Event)> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Events for EventLog {
    fn on(&self, at: Nanos, event: Event) {
        (self.0.lock().unwrap_or_else(PoisonError::into_inner)).push((at, event));
    }
}

impl<T: Events> Events for std::sync::Arc<T> {
    fn on(&self, at: Nanos, event: Event) {
        (**self).on(at, event);
    }
}
