//! The service's clock: tokio's `Instant` (paused and advanced by hand in tests) read as
//! `Nanos` since an origin the service keeps, the time the policies decide in.

use cascade_policy::Nanos;
use std::time::Duration;
use tokio::time::Instant;

/// Instants as `Nanos` since `origin`, and back.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    origin: Instant,
}

impl Clock {
    /// A clock whose zero is now.
    pub(crate) fn starting_now() -> Clock {
        Clock {
            origin: Instant::now(),
        }
    }

    pub(crate) fn now(&self) -> Nanos {
        self.nanos_at(Instant::now())
    }

    /// `at` as `Nanos` since the origin; an instant before it is zero.
    pub(crate) fn nanos_at(&self, at: Instant) -> Nanos {
        let since = at.saturating_duration_since(self.origin);
        Nanos(u64::try_from(since.as_nanos()).unwrap_or(u64::MAX))
    }

    /// The instant `at` names; `None` for one too far to represent (no deadline).
    pub(crate) fn instant(&self, at: Nanos) -> Option<Instant> {
        self.origin.checked_add(Duration::from_nanos(at.0))
    }
}
