//! The deterministic discrete-event engine.

pub mod arena;
pub mod queue;
pub mod rng;
mod sim;
mod state;

pub use sim::{RunResult, Simulation};
