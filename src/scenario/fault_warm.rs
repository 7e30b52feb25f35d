//! How a `branch` fault comes back after its `end` (`warm`, `warm_curve`, `warm_table`):
//! checked and compiled into `Warm`.

use super::document::{Located, Source};
use super::schema::{Dur, RawFault};
use super::schema_fault::WarmPoint;
use crate::model::WarmCurve;
use crate::model::fault::Warm;

/// The fault's `Warm`: linear over `warm` (0 by default), exponential with `warm` as its time
/// constant, or a table of weights, which takes neither `warm` nor `warm_curve`.
pub(super) fn compile_warm(
    src: &Source,
    at: &dyn Fn(&str) -> String,
    f: &RawFault,
) -> Located<Warm> {
    if let Some(points) = &f.warm_table {
        let also = [
            ("warm", f.warm.is_some()),
            ("warm_curve", f.warm_curve.is_some()),
        ];
        if let Some((k, _)) = also.iter().find(|(_, given)| *given) {
            return Err(src.error_at(
                &at(k),
                "give `warm_table` (the fault's weight against time since `end`) or `warm` (with `warm_curve`), not both",
            ));
        }
        return table(src, &at("warm_table"), points);
    }
    let warm = f.warm.map_or(0, |d| d.0);
    match f.warm_curve.unwrap_or_default() {
        WarmCurve::Linear => Ok(Warm::Linear(warm)),
        WarmCurve::Exponential if f.warm.is_none() => Err(src.error_at(
            &at("warm_curve"),
            "an exponential warm-up needs `warm`, its time constant",
        )),
        // A time constant of 0 would be no warm-up at all: the linear default says that.
        WarmCurve::Exponential if warm == 0 => Err(src.error_at(
            &at("warm"),
            "is the time constant of `warm_curve = \"exponential\"`: it must be more than 0 (for none, leave out `warm_curve`)",
        )),
        WarmCurve::Exponential => Ok(Warm::Exponential(warm)),
    }
}

/// A `warm_table`: [duration since `end`, weight] points from ["0s", 1] to a weight of 0, at
/// increasing times.
fn table(src: &Source, path: &str, points: &[WarmPoint]) -> Located<Warm> {
    if points.len() < 2 {
        return Err(src.error_at(
            path,
            "needs at least two points: [\"0s\", 1] at the fault's end and one where the weight is 0",
        ));
    }
    for (k, &WarmPoint(Dur(t), w)) in points.iter().enumerate() {
        let at = |part: usize| format!("{path}.{k}.{part}");
        if !(0.0..=1.0).contains(&w) {
            return Err(src.error_at(
                &at(1),
                format!("is a weight: a number from 0 to 1, got {w}"),
            ));
        }
        if k == 0 && t != 0 {
            return Err(src.error_at(
                &at(0),
                "the first point is at \"0s\": the fault's end, where the weight is 1",
            ));
        }
        if k == 0 && w != 1.0 {
            return Err(src.error_at(
                &at(1),
                format!(
                    "the first point's weight is 1, the fault's full weight at its end; got {w}"
                ),
            ));
        }
        if k > 0 && t <= points[k - 1].0.0 {
            return Err(src.error_at(
                &at(0),
                "times must increase: this point is not after the one before",
            ));
        }
    }
    let last = points.len() - 1;
    if points[last].1 != 0.0 {
        return Err(src.error_at(
            &format!("{path}.{last}.1"),
            format!(
                "the last point's weight is 0, where the step is back to its own probability; got {}",
                points[last].1
            ),
        ));
    }
    Ok(Warm::Table(
        points.iter().map(|&WarmPoint(Dur(t), w)| (t, w)).collect(),
    ))
}
