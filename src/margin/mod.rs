//! `cascade margin`: how far a scenario's load, or a fault's trigger, can grow before the
//! system no longer recovers from the fault. For each fault and axis, a bisection with
//! replications (`search.rs`) over a multiplier of the model (`scale.rs`), each run judged by
//! the fault's own recovery verdict (`fault.<i>.recovered`, `metrics::recovery`), then the
//! multiplier where half the runs recover, with its interval (`estimate.rs`), and the
//! mechanism that keeps the system down where cascade can tell it (`mechanism.rs`). Every run
//! is a pure function of its model and seed, so a margin is as reproducible as a run.
//! docs/tune.md describes the method and what it can and cannot say.

pub mod estimate;
pub mod gate;
pub mod map;
pub mod mechanism;
pub mod runs;
pub mod scale;
pub mod search;
pub mod store;
pub mod text;

use crate::error::{Error, Result};
use crate::model::Model;
use estimate::Estimate;
use mechanism::Mechanism;
use runs::Runs;
use search::{Bounds, Found};
use std::collections::BTreeMap;
use store::Point;

/// What is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Every client's load (`scale::load`).
    Load,
    /// The fault's duration (`scale::trigger`).
    Trigger,
    /// The fault's size (`scale::magnitude`): a slowdown, an error rate, workers removed, an
    /// overload.
    Magnitude,
}

impl Axis {
    pub fn name(self) -> &'static str {
        match self {
            Axis::Load => "load",
            Axis::Trigger => "trigger",
            Axis::Magnitude => "magnitude",
        }
    }
}

/// The margin of one fault along one axis.
#[derive(Debug, Clone)]
pub struct Margin {
    pub fault: usize,
    pub axis: Axis,
    pub found: Found,
    /// For a bracketed search: the 50% point and its interval.
    pub estimate: Option<Estimate>,
    /// For a bracketed search: what differs between the two ends' runs.
    pub mechanism: Option<Mechanism>,
}

/// Finds fault `fault`'s margin along `axis` of `model` within `bounds` (whose `max_x` for the
/// trigger is cut to `scale::longest_trigger`, for the magnitude to `scale::largest_magnitude`),
/// its runs made by (or found in) `runs`. A fault without a size has no magnitude axis: a usage
/// error says why.
pub fn find(
    model: &Model,
    fault: usize,
    axis: Axis,
    bounds: Bounds,
    runs: &mut Runs,
) -> Result<Margin> {
    let bounds = match axis {
        Axis::Load => bounds,
        Axis::Trigger => Bounds {
            max_x: bounds.max_x.min(scale::longest_trigger(model, fault)),
            ..bounds
        },
        Axis::Magnitude => Bounds {
            max_x: bounds
                .max_x
                .min(scale::largest_magnitude(model, fault).map_err(|why| {
                    Error::Usage(format!(
                        "fault {fault} ({}) has no magnitude axis: {why}",
                        crate::output::describe::fault_label(model, &model.faults[fault])
                    ))
                })?),
            ..bounds
        },
    };
    let verdict = Verdict::new(model, fault);
    // Replication 0's summary at each probe, for the mechanism.
    let mut first_runs: BTreeMap<u64, Vec<(String, f64)>> = BTreeMap::new();
    // The baseline goodput as written (the search probes 1 first).
    let mut written_goodput = 0.0;
    let found = search::search(bounds, |x| {
        let (point, scaled, load) = match axis {
            Axis::Load => (Point::Load(x), scale::load(model, x), x),
            Axis::Trigger => (
                Point::Trigger { fault, x },
                scale::trigger(model, fault, x),
                1.0,
            ),
            Axis::Magnitude => (
                Point::Magnitude { fault, x },
                scale::magnitude(model, fault, x),
                1.0,
            ),
        };
        let summaries = runs.replicate(point, &scaled, bounds.reps)?;
        if x == 1.0 {
            verdict.judged_as_written(fault, summaries.iter().map(Vec::as_slice))?;
            written_goodput = (summaries.iter())
                .map(|s| verdict.goodput_before(s))
                .sum::<f64>()
                / summaries.len() as f64;
        }
        if let Some(s) = summaries.first() {
            first_runs.insert(x.to_bits(), s.clone());
        }
        Ok(summaries
            .iter()
            .filter(|s| verdict.recovered_healthy(s, load, written_goodput))
            .count() as u32)
    })?;
    let (estimate, mechanism) = match &found {
        Found::Bracketed { lo, hi, probes } => (
            Some(estimate::estimate(lo, hi, probes)),
            match (
                first_runs.get(&lo.x.to_bits()),
                first_runs.get(&hi.x.to_bits()),
            ) {
                (Some(a), Some(b)) => Some(
                    if verdict.goodput_before(b)
                        < (1.0 - verdict.tolerance)
                            * written_goodput
                            * if axis == Axis::Load { hi.x } else { 1.0 }
                    {
                        Mechanism::OverloadedBefore
                    } else {
                        mechanism::between(model, a, b)
                    },
                ),
                _ => None,
            },
        ),
        _ => (None, None),
    };
    Ok(Margin {
        fault,
        axis,
        found,
        estimate,
        mechanism,
    })
}

/// How a run is judged at a probe: the fault's episode judged (a steady baseline before it),
/// the run not diverged, and the episode recovered; and, checked against the written load, a
/// baseline that was healthy: its goodput at least the written one's times the load multiplier,
/// less the recovery tolerance. Without that, a load the system cannot carry even before the
/// fault would count as recovered, since recovery is judged against the baseline: back to a
/// collapsed baseline is "back". (For a closed loop, goodput grows with users only while they
/// mostly think; docs/tune.md says so.)
struct Verdict {
    judged: String,
    recovered: String,
    goodput_before: String,
    tolerance: f64,
}

impl Verdict {
    fn new(model: &Model, fault: usize) -> Verdict {
        let name = |what| crate::metrics::names::fault_metric(fault, what);
        Verdict {
            judged: name("judged"),
            recovered: name("recovered"),
            goodput_before: name("goodput_before_rps"),
            tolerance: model.recovery_tolerance.max(0.05),
        }
    }

    fn value(summary: &[(String, f64)], name: &str) -> Option<f64> {
        summary.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    fn judged(&self, s: &[(String, f64)]) -> bool {
        Self::value(s, &self.judged) == Some(1.0)
    }

    fn recovered(&self, s: &[(String, f64)]) -> bool {
        self.judged(s)
            && Self::value(s, "run.diverged") == Some(0.0)
            && Self::value(s, &self.recovered) == Some(1.0)
    }

    fn goodput_before(&self, s: &[(String, f64)]) -> f64 {
        Self::value(s, &self.goodput_before).unwrap_or(0.0)
    }

    /// Recovered, from a baseline that carried `load` times the written goodput (less the
    /// tolerance).
    fn recovered_healthy(&self, s: &[(String, f64)], load: f64, written_goodput: f64) -> bool {
        self.recovered(s)
            && self.goodput_before(s) >= (1.0 - self.tolerance) * load * written_goodput
    }

    /// A usage error unless every run of the scenario as written (their `summaries`) judges
    /// fault `fault`.
    fn judged_as_written<'a>(
        &self,
        fault: usize,
        mut summaries: impl Iterator<Item = &'a [(String, f64)]>,
    ) -> Result<()> {
        if summaries.all(|s| self.judged(s)) {
            return Ok(());
        }
        Err(Error::Usage(format!(
            "fault {fault} is not judged as the scenario is written ({} = 0: no steady baseline before it; the fault table of `cascade run` says why), so it has no margin",
            self.judged
        )))
    }
}
