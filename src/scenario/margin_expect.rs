//! `[[expect]]` on a margin (`margin.fault.<i>.load`, `margin.fault.<i>.trigger_s`): not a
//! metric of any one run but the result of `cascade margin`'s search over many, so it is
//! compiled apart from the run expectations and judged only when `cascade check --margin` asks
//! (`margin::gate`): a library check stays as fast as its runs.

use super::document::Source;
use super::expectation::Op;
use super::schema::RawExpect;
use crate::error::ScenarioError;

/// The prefix every margin metric's name starts with.
pub const MARGIN_PREFIX: &str = "margin.";

/// Which margin of a fault is gated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarginAlong {
    /// `margin.fault.<i>.load`: the load multiplier at which half the runs stop recovering.
    Load,
    /// `margin.fault.<i>.trigger_s`: the fault's duration, in seconds, at which they do.
    Trigger,
}

/// A compiled margin expectation.
#[derive(Debug, Clone)]
pub struct MarginExpect {
    /// As written: `margin.fault.0.load`.
    pub metric: String,
    pub fault: usize,
    pub along: MarginAlong,
    pub op: Op,
    pub value: f64,
    /// `ci = true`: the whole interval of the 50% point must satisfy the comparison.
    pub whole_interval: bool,
    /// Where it was written, for an error found while judging (the search ran out of runs).
    pub at: Box<ScenarioError>,
}

impl MarginExpect {
    /// `margin.fault.0.load >= 1.2`, prefixed `95% CI: ` when the whole interval is judged.
    pub fn label(&self) -> String {
        format!(
            "{}{} {} {}",
            if self.whole_interval { "95% CI: " } else { "" },
            self.metric,
            self.op.symbol(),
            self.value
        )
    }
}

/// Whether `metric` names a margin (then it is compiled by `compile`, never read from a run).
pub fn is_margin(metric: &str) -> bool {
    metric.starts_with(MARGIN_PREFIX)
}

/// `margin.fault.<i>.load` or `.trigger_s` split into the fault's index and the axis.
pub fn margin_metric(metric: &str) -> Option<(usize, MarginAlong)> {
    let rest = metric.strip_prefix("margin.fault.")?;
    let (index, what) = rest.split_once('.')?;
    let along = match what {
        "load" => MarginAlong::Load,
        "trigger_s" => MarginAlong::Trigger,
        _ => return None,
    };
    // Digits only: `+1` or ` 1` parse as numbers but are not how a metric is spelled.
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((index.parse().ok()?, along))
}

/// Compiles `[[expect]]` number `i`, whose metric `is_margin`, with its comparison already
/// parsed: a margin is judged on the scenario's own model at the standard bounds, so every key
/// that chooses runs (`window`, `reps`, `stat`, `variant`, `against`, `compare`) is refused
/// rather than ignored.
pub fn compile(
    src: &Source,
    i: usize,
    e: &RawExpect,
    op: Op,
    faults: usize,
) -> Result<MarginExpect, Box<ScenarioError>> {
    let at = |k: &str| format!("expect.{i}.{k}");
    let Some((fault, along)) = margin_metric(&e.metric) else {
        return Err(src.error_at(
            &at("metric"),
            format!(
                "unknown margin `{}`; valid: margin.fault.<i>.load (the load multiplier) and margin.fault.<i>.trigger_s (the fault's duration in seconds), <i> a fault's index from 0",
                e.metric
            ),
        ));
    };
    if fault >= faults {
        return Err(src.error_at(
            &at("metric"),
            format!(
                "`{}`: this scenario has {faults} [[fault]](s), numbered from 0",
                e.metric
            ),
        ));
    }
    let chooses_runs = [
        ("window", e.window.is_some()),
        ("reps", e.reps.is_some()),
        ("stat", e.stat.is_some()),
        ("variant", e.variant.is_some()),
        ("against", e.against.is_some()),
        ("compare", e.compare.is_some()),
    ];
    if let Some((key, _)) = chooses_runs.iter().find(|(_, set)| *set) {
        return Err(src.error_at(
            &at(key),
            format!(
                "a margin is found by `cascade margin`'s search on the scenario as written (5 runs a probe), so `{key}` does not apply to it: drop it"
            ),
        ));
    }
    if !(e.value > 0.0 && e.value.is_finite()) {
        return Err(src.error_at(
            &at("value"),
            "a margin is a positive multiplier or duration: the value must be above 0",
        ));
    }
    Ok(MarginExpect {
        metric: e.metric.clone(),
        fault,
        along,
        op,
        value: e.value,
        whole_interval: e.ci.unwrap_or(false),
        at: src.error_at(&at("metric"), ""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margin_names_split_into_the_fault_and_the_axis() {
        assert_eq!(
            margin_metric("margin.fault.0.load"),
            Some((0, MarginAlong::Load))
        );
        assert_eq!(
            margin_metric("margin.fault.12.trigger_s"),
            Some((12, MarginAlong::Trigger))
        );
        for bad in [
            "margin.fault.0.trigger",
            "margin.fault..load",
            "margin.fault.+1.load",
            "margin.fault.x.load",
            "margin.load",
            "fault.0.load",
        ] {
            assert_eq!(margin_metric(bad), None, "{bad}");
        }
        assert!(is_margin("margin.anything") && !is_margin("fault.0.recovered"));
    }
}
