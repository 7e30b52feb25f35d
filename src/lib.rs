//! cascade: a deterministic discrete-event simulator for cascading failures.
//!
//! Data flows one way: scenario text → `scenario::load` → `Scenario` (a `Model` with its
//! expectations, sweep and variants) → `engine::Simulation` → `metrics::RunMetrics` →
//! `output` files. Commands read metrics, never the engine. ARCHITECTURE.md maps the layers.

pub mod atomic;
pub mod baseline;
pub mod chart;
pub mod check;
pub mod engine;
pub mod error;
pub mod export;
pub mod import;
pub mod json;
pub mod lint;
pub mod metrics;
pub mod model;
pub mod number;
pub mod output;
pub mod report;
pub mod scenario;
pub mod stats;
pub mod sweep;
pub mod time;
pub mod tune;
pub mod wildcard;

pub use engine::{RunResult, Simulation};
pub use error::{Error, Result};
pub use model::Model;

/// Runs a model to its end.
pub fn simulate(model: &Model) -> Result<RunResult> {
    Simulation::new(model.clone()).run()
}
