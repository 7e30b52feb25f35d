//! The run itself: the simulation's state and event loop, how it is built, the records of what
//! is in flight, and the structures under them (event queue, arena, random streams, trace) and
//! the run's guards.

pub mod arena;
pub(super) mod build;
pub mod event_queue;
pub(super) mod in_flight;
pub mod rng;
pub(super) mod simulation;
pub(super) mod state;
pub mod trace;
pub mod trace_ids;
pub mod trace_trees;
pub mod watchdog;
pub mod work_bound;
