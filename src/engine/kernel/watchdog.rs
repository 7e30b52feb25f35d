//! The run's watchdog: two ways a run stops before its end, both looked at once per
//! `CHECK_EVERY` events, off the path of each event (a third, a closed loop past its work
//! bound, is `work_bound.rs`). Not a progress bar: that is `cli/progress.rs`.
//!
//! **No progress in simulated time**: a closed-loop client whose requests are answered at once
//! (think and work of zero, an outage, `queue = 0`) asks again at the same instant forever,
//! and the clock never moves. The engine counts the events handled at one instant and stops
//! the run past a limit, which `simulate` turns into an error: such a run has no result.
//!
//! The limit is 1,000,000 events plus 1,000 per client, closed-loop user (those an overload
//! fault adds included) and service instance: many entities acting at one instant (100,000
//! users starting together) stay far below it, a loop that never advances reaches it within a
//! fraction of a second.
//!
//! **Divergence**: an open system offered more than it can serve, with an unbounded queue,
//! grows without bound (about 140 bytes per queued request) until memory runs out. Past
//! `scenario.max_in_flight` requests in flight (logical calls plus jobs at services; default
//! `model::DEFAULT_MAX_IN_FLIGHT`) the run stops and is a result: `run.diverged` = 1,
//! `run.stopped_at_s` the simulated time it stopped at, and every metric measured up to then.
//! Checked per stride, the count can overshoot the limit by what one stride of events adds.

use crate::model::fault::Effect;
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
    let instances: u64 = model
        .services
        .iter()
        .map(|s| u64::from(s.instance_slots()))
        .sum();
    let entities = model.clients.len() as u64 + users + extra_users + instances;
    BASE.saturating_add(PER_ENTITY.saturating_mul(entities))
}

/// Why a run stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The clock stood still: no result.
    NoProgress(NoProgress),
    /// Too many requests in flight at this instant (ns): a result up to then.
    Diverged(u64),
    /// A closed-loop client past its work bound (`engine::work_bound`): no result.
    WorkBound(super::work_bound::Past),
}

/// Where a run stopped for want of progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoProgress {
    /// The instant, ns.
    pub at: u64,
    /// Events handled at it.
    pub events: u64,
}
