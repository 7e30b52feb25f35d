//! What a call through the stack fails with when no answer of the inner service ends it.

use cascade_policy::path::Refusal;
use std::fmt;

/// A call's failure. A call that ends on an answer (a 503 the retries could not get past)
/// returns that answer, or the inner service's own error (`Inner`); the stack's own endings
/// are the rest.
#[derive(Debug)]
pub enum CascadeError<E> {
    /// The inner service failed (after any retries).
    Inner(E),
    /// A guard turned the call away: an open breaker, the throttle, the adaptive limit, or a
    /// full bulkhead (at once, or after waiting its `max_wait`).
    Refused(Refusal),
    /// The last attempt's own timeout ran out.
    Timeout,
    /// The call's deadline ran out, or left too little time (`min_attempt`) to start.
    DeadlineExceeded,
}

impl<E: fmt::Display> fmt::Display for CascadeError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CascadeError::Inner(e) => write!(f, "{e}"),
            CascadeError::Refused(r) => write!(f, "refused: {}", r.outcome().name()),
            CascadeError::Timeout => f.write_str("the attempt timed out"),
            CascadeError::DeadlineExceeded => f.write_str("the deadline was exceeded"),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for CascadeError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CascadeError::Inner(e) => Some(e),
            _ => None,
        }
    }
}
