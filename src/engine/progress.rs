//! A run that makes no progress in simulated time: a closed-loop client whose requests are
//! answered at once (think and work of zero, an outage, `queue = 0`) asks again at the same
//! instant forever, and the clock never moves. The engine counts the events handled at one
//! instant, in strides of `CHECK_EVERY`, and stops the run past a limit, which `simulate`
//! turns into an error.
//!
//! The limit is 1,000,000 events plus 1,000 per client, closed-loop user (those an overload
//! fault adds included) and service instance: many entities acting at one instant (100,000
//! users starting together) stay far below it, a loop that never advances reaches it within a
//! fraction of a second.

use crate::fault::Effect;
use crate::model::{Load, Model};

/// The engine looks at its clock every this many events (a power of two).
pub const CHECK_EVERY: u64 = 1 << 16;

/// Events at one instant allowed whatever the scenario.
pub const BASE: u64 = 1_000_000;
/// Events at one instant allowed per client, closed-loop user and service instance.
pub const PER_ENTITY: u64 = 1_000;

/// How many events may be handled at one simulated instant before the run counts as stuck.
pub fn instant_limit(model: &Model) -> u64 {
    let users: u64 = model
        .clients
        .iter()
        .map(|c| match &c.load {
            Load::Closed { users, .. } => u64::from(*users),
            Load::Open { .. } => 0,
        })
        .sum();
    let extra_users: u64 = model
        .faults
        .iter()
        .map(|f| match f.effect {
            Effect::Overload { users, .. } => u64::from(users),
            _ => 0,
        })
        .sum();
    let instances: u64 = model.services.iter().map(|s| u64::from(s.instances)).sum();
    let entities = model.clients.len() as u64 + users + extra_users + instances;
    BASE.saturating_add(PER_ENTITY.saturating_mul(entities))
}

/// Where a run stopped for want of progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoProgress {
    /// The instant, ns.
    pub at: u64,
    /// Events handled at it.
    pub events: u64,
}
