//! What a step along an axis does to a model. Load: every client's open-loop rate (with its
//! phases) times the multiplier, and every closed loop's users times it, rounded (at least
//! one); an overload fault's own `factor` then multiplies the scaled rate, while its added
//! `users` are the fault's size, not today's load, and stay. Trigger: the fault's duration
//! times the multiplier, from its start (its ramps kept, shortened to half the new duration
//! at most), up to the start of the next fault: beyond it the two would be one episode,
//! judged together.

use crate::model::{Load, Model};

/// `model` at `m` times its load.
pub fn load(model: &Model, m: f64) -> Model {
    let mut scaled = model.clone();
    for client in &mut scaled.clients {
        match &mut client.load {
            Load::Open { rate, .. } => *rate = rate.scaled(0, u64::MAX, 0, m),
            Load::Closed { users, .. } => {
                *users = ((f64::from(*users) * m).round() as u32).max(1);
            }
        }
    }
    scaled
}

/// The longest multiplier of fault `i`'s duration: up to the next fault's start (or the run's
/// end, less the recovery hold that judging it needs).
pub fn longest_trigger(model: &Model, i: usize) -> f64 {
    let f = &model.faults[i];
    let run_end = model.warmup + model.duration;
    let next = (model.faults.iter())
        .map(|g| g.start)
        .filter(|&s| s > f.start)
        .min()
        .unwrap_or(run_end.saturating_sub(model.recovery_hold));
    let span = f.end.saturating_sub(f.start).max(1);
    next.saturating_sub(f.start) as f64 / span as f64
}

/// `model` with fault `i` lasting `m` times as long.
pub fn trigger(model: &Model, i: usize, m: f64) -> Model {
    let mut scaled = model.clone();
    let f = &mut scaled.faults[i];
    let span = ((f.end - f.start) as f64 * m).round().max(1.0) as u64;
    f.end = f.start + span;
    f.ramp = f.ramp.min(span / 2);
    scaled
}

/// Fault `i`'s duration in seconds.
pub fn trigger_s(model: &Model, i: usize) -> f64 {
    let f = &model.faults[i];
    (f.end - f.start) as f64 / 1e9
}
