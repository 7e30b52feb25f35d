//! A margin gated by `[[expect]]` (`margin.fault.<i>.load >= 1.2`): `cascade check --margin`
//! finds the margin as `cascade margin` does, at the standard bounds, and judges the 50% point,
//! or with `ci = true` its whole interval. A search that never crossed the boundary still
//! judges: the margin lies beyond the range searched, an interval open on one side. A search
//! that ran out of runs cannot judge and says so, where the expectation was written.

use super::runs::Runs;
use super::search::{Bounds, Found};
use super::{Axis, Margin, find, scale};
use crate::check::Verdict;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::scenario::{MarginAlong, MarginExpect};

/// The margin `e` gates on `model`, found within `bounds` by `runs` (which the gates of one
/// scenario share: their load searches run the same models), and the verdict.
pub fn judge(
    model: &Model,
    e: &MarginExpect,
    bounds: Bounds,
    runs: &mut Runs,
) -> Result<(Verdict, Margin)> {
    let axis = match e.along {
        MarginAlong::Load => Axis::Load,
        MarginAlong::Trigger => Axis::Trigger,
    };
    let margin = find(model, e.fault, axis, bounds, runs)?;
    // The search is in multipliers; a trigger is gated in seconds of the fault as written.
    let unit = match e.along {
        MarginAlong::Load => 1.0,
        MarginAlong::Trigger => scale::trigger_s(model, e.fault),
    };
    let probed = |f: fn(f64, f64) -> f64, start: f64| {
        margin.found.probes().iter().map(|p| p.x).fold(start, f)
    };
    // (the point judged without `ci`, the interval the margin lies in)
    let (point, (lo, hi)) = match &margin.found {
        Found::Bracketed { .. } => {
            let est = margin
                .estimate
                .as_ref()
                .expect("a bracketed search has an estimate");
            (Some(est.x), (est.low, est.high))
        }
        Found::RecoversThroughout { .. } => (None, (probed(f64::max, 0.0), f64::INFINITY)),
        Found::FailsThroughout { .. } => (None, (0.0, probed(f64::min, f64::INFINITY))),
        Found::OutOfRuns { .. } => {
            let mut err = (*e.at).clone();
            err.message = format!(
                "`{}`: the search ran out of its {} runs before it crossed the boundary, so the margin is unknown",
                e.metric, bounds.max_runs
            );
            return Err(Error::Scenario(Box::new(err)));
        }
    };
    let (lo, hi) = (lo * unit, hi * unit);
    let verdict = match point.filter(|_| !e.whole_interval) {
        Some(x) => Verdict {
            label: e.label(),
            measured: x * unit,
            interval: Some((lo, hi)),
            passed: e.op.holds(x * unit, e.value),
        },
        None => Verdict {
            label: e.label(),
            measured: point.map_or(if hi.is_finite() { hi } else { lo }, |x| x * unit),
            interval: Some((lo, hi)),
            passed: e.op.holds_throughout(lo, hi, e.value),
        },
    };
    Ok((verdict, margin))
}
