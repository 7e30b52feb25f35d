//! `[[expect]]` thresholds drawn on the timeline panels they concern: a gate on a client's (or
//! one of its operations') success ratio or goodput is a line at the gated value on that
//! client's panel, so the reader sees how far from it each line ran, and when.

use crate::output::read_run::RunData;

/// One expectation's threshold on a panel.
#[derive(Debug, Clone)]
pub struct Gate {
    /// The gated value, in the panel's metric unit.
    pub value: f64,
    /// `gate: profile >= 99%`.
    pub label: String,
    /// The `[[window]]` (or an expectation's own, `expect-<i>`) it is measured over; none: the
    /// measured run.
    pub window: Option<String>,
    /// The operation gated, or none for the client's total.
    pub operation: Option<String>,
}

/// The gates of `run`'s expectations on `client.<c>.<what>` or `client.<c>.op.<o>.<what>`,
/// over the measured run or a window, judged on this run alone: an
/// expectation on another variant, or comparing two runs, is not a line on this one.
pub fn client_gates(run: &RunData, client: &str, what: &str, fmt: fn(f64) -> String) -> Vec<Gate> {
    let prefix = format!("client.{client}.");
    run.expects
        .iter()
        .filter(|e| e.variant == run.label && e.against.is_none())
        .filter_map(|e| {
            let (window, metric) = match e.read_from.strip_prefix("window.") {
                Some(rest) => {
                    let (w, m) = rest.split_once('.')?;
                    (Some(w), m)
                }
                None => (None, e.read_from.as_str()),
            };
            let rest = metric.strip_prefix(&prefix)?.strip_suffix(what)?;
            let operation = match rest.strip_prefix("op.") {
                Some(op) => Some(op.strip_suffix('.')?.to_string()),
                None if rest.is_empty() => None,
                None => return None,
            };
            let subject = operation.as_deref().unwrap_or(client);
            Some(Gate {
                value: e.value,
                label: format!("gate: {subject} {} {}", e.op.symbol(), fmt(e.value)),
                window: window.map(str::to_string),
                operation,
            })
        })
        .collect()
}
