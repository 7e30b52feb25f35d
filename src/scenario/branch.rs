//! A service's steps with a probability (`p`) and their names: checked here, compiled into
//! `model::Branch`, one per step, or none at all when no step of the service has a `p` (so the
//! engine's plain path sees an empty list).

use super::compile::{Res, check_name};
use super::document::Source;
use super::schema::RawStep;
use crate::model::Branch;

/// The branches of a plan's `calls`, given each step's path (`service.<s>.calls.<name,
/// callee or index>`, as errors name it) and the prefix of their streams' purposes (empty for
/// a service's own calls, `operation.<o>.` for an operation's).
pub(super) fn compile_branches(
    src: &Source,
    calls: &[RawStep],
    paths: &[String],
    streams: &str,
) -> Res<Vec<Option<Branch>>> {
    let mut names: Vec<&str> = Vec::new();
    for (step, path) in calls.iter().zip(paths) {
        check_parallel_elements(src, path, step)?;
        let Some(name) = step.name.as_deref() else {
            continue;
        };
        let at = format!("{path}.name");
        check_name(src, &at, name)?;
        // A step's metrics are named by its name, or by its index when it has none: a name of
        // digits alone could stand for another step's index.
        if name.chars().all(|c| c.is_ascii_digit()) {
            return Err(src.error_at(
                &at,
                format!("`{name}` is not a valid step name: digits alone read as a step's index; use a letter too"),
            ));
        }
        if names.contains(&name) {
            // Both are written at the same path: point at the second.
            return Err(src.error_at_nth(&at, 1, format!("two steps are named `{name}`")));
        }
        if step.p.is_none() {
            // Until steps are addressed by name elsewhere, a name without a `p` would be
            // parsed and change nothing.
            return Err(src.error_at(
                &at,
                "a step's name keys the draws and the metrics of its `p`: give the step a `p` (p = 1 always calls) or drop the name",
            ));
        }
        names.push(name);
    }
    if calls.iter().all(|s| s.p.is_none()) {
        return Ok(Vec::new());
    }
    calls
        .iter()
        .zip(paths)
        .enumerate()
        .map(|(i, (step, path))| {
            let Some(p) = step.p else {
                return Ok(None);
            };
            if !(0.0..=1.0).contains(&p) {
                return Err(src.error_at(
                    &format!("{path}.p"),
                    format!("is a probability: a number from 0 to 1, got {p}"),
                ));
            }
            let (stream, label) = match step.name.as_deref() {
                Some(name) => (format!("{streams}branch.{name}"), name.to_string()),
                None => (format!("{streams}branch.calls.{i}"), i.to_string()),
            };
            Ok(Some(Branch { p, stream, label }))
        })
        .collect()
}

/// `p` belongs to a whole step: on one call of a `parallel` list it is refused, not ignored.
fn check_parallel_elements(src: &Source, path: &str, step: &RawStep) -> Res<()> {
    for call in step.parallel.iter().flatten() {
        if call.p.is_some() {
            return Err(src.error_at(
                &format!("{path}.parallel.{}.p", call.to),
                "a call inside `parallel` takes no `p`: put `p` beside `parallel` to make the whole step with that probability",
            ));
        }
    }
    Ok(())
}
