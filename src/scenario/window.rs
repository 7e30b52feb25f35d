//! Compiles `[[window]]`: a named span given by `start`/`end`, or a phase of a fault.

use super::document::{Located, Source};
use super::names::Named;
use super::schema::RawWindow;
use crate::model::Window;
use crate::model::fault::Fault;

/// A part of a fault's span, as `[[window]]` `phase` names it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum WindowPhase {
    Before,
    During,
    After,
}

impl Named for WindowPhase {
    const WHAT: &'static str = "phase";
    const NAMES: &'static [(WindowPhase, &'static str)] = &[
        (WindowPhase::Before, "before"),
        (WindowPhase::During, "during"),
        (WindowPhase::After, "after"),
    ];
}

/// `base` is the table's path for errors: `window.0`, or `expect.2.window`.
pub fn compile_window(
    src: &Source,
    base: &str,
    w: &RawWindow,
    faults: &[Fault],
    warmup: u64,
    end: u64,
) -> Located<Window> {
    let at = |k: &str| format!("{base}.{k}");
    super::compile::check_name(src, &at("name"), &w.name)?;
    let (start, stop) = match (&w.fault, &w.phase) {
        (Some(f), Some(phase)) => {
            if w.start.is_some() || w.end.is_some() {
                return Err(src.error_at(
                    &at("start"),
                    "a fault's phase sets its own span: give `fault` and `phase`, or `start` and `end`",
                ));
            }
            phase_of(src, &at, *f, phase, faults, warmup, end)?
        }
        (Some(_), None) | (None, Some(_)) => {
            return Err(src.error_at(
                &at(if w.fault.is_some() { "phase" } else { "fault" }),
                "a fault's phase needs both `fault` (its position, from 0) and `phase` (before, during, after)",
            ));
        }
        (None, None) => (
            w.start.map_or(warmup, |d| d.0),
            w.end.map_or(end, |d| d.0).min(end),
        ),
    };
    if stop <= start {
        return Err(src.error_at(&at("end"), "must be after `start` (and within the run)"));
    }
    Ok(Window {
        name: w.name.clone(),
        start,
        end: stop,
    })
}

fn phase_of(
    src: &Source,
    at: &dyn Fn(&str) -> String,
    fault: usize,
    phase: &str,
    faults: &[Fault],
    warmup: u64,
    end: u64,
) -> Located<(u64, u64)> {
    let Some(f) = faults.get(fault) else {
        return Err(src.error_at(
            &at("fault"),
            format!("there are {} faults, numbered from 0", faults.len()),
        ));
    };
    match WindowPhase::parse(phase).map_err(|message| src.error_at(&at("phase"), message))? {
        WindowPhase::Before => Ok((warmup, f.start)),
        WindowPhase::During => Ok((f.start, f.end)),
        WindowPhase::After => Ok((f.end, end)),
    }
}
