//! `[[alert]]`: would the team's alerts have fired, how soon, and would they have stayed
//! quiet? A pure pass over a finished run's time series, after the engine is done: each rule's
//! condition at its evaluation instants (`rule.rs`, with the burn-rate windows of `burn.rs`),
//! run through Prometheus' pending/firing state machine (`eval.rs`), gives its firing
//! intervals; `summary.rs` turns them into metrics (`alert.<name>.*`, and per fault
//! `fault.<i>.alert.<name>.detect_s`). A scenario without alerts never enters this module.

mod burn;
mod eval;
mod rule;
mod summary;

pub use eval::firing_intervals;
pub use summary::{add_to_summary, fault_windows};

use crate::metrics::RunMetrics;
use crate::model::Model;

/// One alert over one run.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertRun {
    pub name: String,
    /// Its firing intervals, [start, end) ns from t = 0, in time order.
    pub firings: Vec<(u64, u64)>,
    /// The series the rule reads that the run did not record (a metric emitted only where the
    /// feature it measures exists): the alert never fires, and `cascade run` says why.
    pub missing: Option<String>,
}

/// Every alert of the model evaluated over the run's series; `run_end` is where the run
/// stopped.
pub fn evaluate(model: &Model, m: &RunMetrics, run_end: u64) -> Vec<AlertRun> {
    model
        .alerts
        .iter()
        .map(|a| match rule::condition_at(a, m, model.warmup, run_end) {
            Some(evals) => AlertRun {
                name: a.name.clone(),
                firings: firing_intervals(evals, a.hold, a.keep_firing_for, run_end),
                missing: None,
            },
            None => AlertRun {
                name: a.name.clone(),
                firings: Vec::new(),
                missing: Some(rule::series_named(a)),
            },
        })
        .collect()
}
