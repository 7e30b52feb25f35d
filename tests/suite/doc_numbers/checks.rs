//! The checker: a figure held to its run's value at the precision the document shows, a
//! cell's words held to what the run shows, and a cell that gives a run's verdict; each check
//! counted, each disagreement kept as a message.

use super::reader::{Shown, number_after};

/// One row's checks: the figures it shows beside the values its run gives, or a mismatch of
/// words (a row says "never recovers").
#[derive(Default)]
pub(super) struct Checks {
    pub(super) failures: Vec<String>,
    pub(super) checked: usize,
}

impl Checks {
    /// The figure `shown` (from the cell `cell`) against `value`, to the shown precision.
    pub(super) fn figure(&mut self, what: &str, cell: &str, shown: Option<Shown>, value: f64) {
        let Some(shown) = shown else {
            self.failures.push(format!(
                "{what}: no figure where one is expected in `{cell}`"
            ));
            return;
        };
        let value = if shown.percent { value * 100.0 } else { value };
        let d = shown.decimals;
        let printed = format!("{value:.d$}");
        self.checked += 1;
        if printed != format!("{:.d$}", shown.value) {
            self.failures.push(format!(
                "{what}: the document shows {}{} in `{cell}`, the run gives {printed} ({value})",
                shown.text,
                if shown.percent { "%" } else { "" }
            ));
        }
    }

    pub(super) fn holds(&mut self, what: &str, cell: &str, ok: bool) {
        self.checked += 1;
        if !ok {
            self.failures
                .push(format!("{what}: `{cell}` is not what the run shows"));
        }
    }

    /// A cell that gives a run's verdict: it says `bad` and the run must show `is_bad`, or it
    /// does not and the run must not; then, where the cell has a figure after `label`, the
    /// figure must be the run's `value` (asked for only then: a run that did not recover has
    /// no recovery time).
    pub(super) fn verdict(
        &mut self,
        cell: &str,
        (bad, is_bad): (&str, bool),
        (what, label): (&str, &str),
        value: impl FnOnce() -> f64,
    ) {
        if cell.contains(bad) {
            self.holds(bad, cell, is_bad);
            return;
        }
        self.holds(&format!("not {bad}"), cell, !is_bad);
        if let Some(shown) = cell.contains(label).then(|| number_after(cell, label)) {
            self.figure(what, cell, shown, value());
        }
    }
}
