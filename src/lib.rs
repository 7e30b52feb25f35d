//! cascade: a deterministic discrete-event simulator for cascading failures.
//!
//! Data flows one way: scenario text → `scenario::load` → `Scenario` (a `Model` with its
//! expectations, sweep and variants) → `engine::Simulation` → `metrics::RunMetrics` →
//! `output` files. Commands read metrics, never the engine. ARCHITECTURE.md maps the layers.

pub mod alert;
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
pub mod margin;
pub mod metrics;
pub mod model;
pub mod number;
pub mod output;
pub mod report;
pub mod scenario;
pub mod stats;
pub mod sweep;
pub mod time;
pub mod trace_export;
pub mod tune;
pub mod wildcard;

pub use engine::{Measured, Simulation};
pub use error::{Error, Result};
pub use model::Model;

/// A finished run: what it measured, and the verdicts on its faults computed from that.
pub struct RunResult {
    pub metrics: metrics::RunMetrics,
    pub events: u64,
    /// Most calls and jobs in flight at once (arena high-water marks).
    pub peak_in_flight: usize,
    /// Whether the run recovered from each episode of faults, judged or not; each verdict is
    /// in `metrics`' summary too (`fault.<i>.*`).
    pub faults: Vec<metrics::recovery::EpisodeVerdict>,
    /// Each `[[alert]]`'s firing intervals; each alert's metrics are in `metrics`' summary
    /// too (`alert.<name>.*`). Empty, and never computed, without alerts.
    pub alerts: Vec<alert::AlertRun>,
    /// The trace's CSV text, when one was asked for; `Err(rows)` when it had more rows than
    /// its limit.
    pub trace: Option<std::result::Result<String, u64>>,
}

/// Judges a run of `model` from its measurements: the recovery verdict of each episode of
/// faults (`metrics::recovery`) and each alert's firings (`alert`), added to its summary.
pub fn judge(model: &Model, measured: Measured) -> RunResult {
    let Measured {
        mut metrics,
        events,
        peak_in_flight,
        stopped_at,
        trace,
    } = measured;
    let faults = metrics::recovery::assess(model, &metrics, stopped_at);
    metrics::recovery::add_to_summary(model, &faults, &mut metrics);
    let alerts = if model.alerts.is_empty() {
        Vec::new()
    } else {
        let alerts = alert::evaluate(model, &metrics, stopped_at);
        alert::add_to_summary(model, &alerts, &faults, stopped_at, &mut metrics);
        alerts
    };
    RunResult {
        metrics,
        events,
        peak_in_flight,
        faults,
        alerts,
        trace,
    }
}

/// Runs a model to its end, and judges the run.
pub fn simulate(model: &Model) -> Result<RunResult> {
    Ok(judge(model, Simulation::new(model.clone()).run()?))
}
