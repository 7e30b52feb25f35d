//! What a step along an axis does to a model. Load: every client's open-loop rate (with its
//! phases) times the multiplier, and every closed loop's users times it, rounded (at least
//! one); an overload fault's own `factor` then multiplies the scaled rate, while its added
//! `users` are the fault's size, not today's load, and stay. Trigger: the fault's duration
//! times the multiplier, from its start (its ramps kept, shortened to half the new duration
//! at most), up to the start of the next fault: beyond it the two would be one episode,
//! judged together. Magnitude: the fault's size times the multiplier, 0 being no fault and 1
//! as written (`magnitude`); only a fault that has a size has this axis.

use crate::model::fault::{Cut, Effect, Fault, Slowdown, Target};
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

/// The largest multiplier of fault `i`'s size that means something (an error rate or a share
/// of workers reaches 1 there; no bound otherwise), or why it has no size to scale: an outage,
/// a stall and a crash are all or nothing, a latency redrawn from a distribution and a branch's
/// probability have no "more" of themselves.
pub fn largest_magnitude(model: &Model, i: usize) -> Result<f64, &'static str> {
    let f = &model.faults[i];
    match &f.effect {
        Effect::Latency(Slowdown::Factor(_) | Slowdown::Add(_)) | Effect::Overload { .. } => {
            Ok(f64::INFINITY)
        }
        Effect::Errors { rate, .. } => Ok(1.0 / rate.max(f64::MIN_POSITIVE)),
        Effect::Capacity(Cut::Share(share)) => Ok(1.0 / share.max(f64::MIN_POSITIVE)),
        Effect::Capacity(Cut::Left(left)) => {
            let removed = workers(model, f).saturating_sub(*left);
            Ok(f64::from(workers(model, f)) / f64::from(removed.max(1)))
        }
        Effect::Latency(Slowdown::Replace(_)) => {
            Err("its work is redrawn from a distribution, which has no size to scale")
        }
        Effect::Outage { .. } | Effect::Stall | Effect::Crash { .. } => {
            Err("it is all or nothing, so only its duration can grow")
        }
        Effect::Branch { .. } => Err("a branch's probability is a setting, not a size"),
    }
}

/// `model` with fault `i` `m` times as large (`largest_magnitude` says which faults have a
/// size): a slowdown's factor beyond 1 (×3 becomes ×(1 + 2m)) or its added time, an error rate,
/// a share of workers removed or the workers removed below the written count, an overload's
/// factor beyond 1 or its added users.
pub fn magnitude(model: &Model, i: usize, m: f64) -> Model {
    let mut scaled = model.clone();
    let per_instance = workers(model, &model.faults[i]);
    let f = &mut scaled.faults[i];
    let beyond_one = |x: f64| 1.0 + (x - 1.0) * m;
    match &mut f.effect {
        Effect::Latency(Slowdown::Factor(x)) => *x = beyond_one(*x),
        Effect::Latency(Slowdown::Add(ns)) => *ns = (*ns as f64 * m).round() as u64,
        Effect::Errors { rate, .. } => *rate = (*rate * m).min(1.0),
        Effect::Capacity(Cut::Share(share)) => *share = (*share * m).min(1.0),
        Effect::Capacity(Cut::Left(left)) => {
            let removed = f64::from(per_instance.saturating_sub(*left)) * m;
            *left = per_instance.saturating_sub(removed.round() as u32);
        }
        Effect::Overload { factor, users } => {
            *factor = beyond_one(*factor);
            *users = (f64::from(*users) * m).round() as u32;
        }
        Effect::Latency(Slowdown::Replace(_))
        | Effect::Outage { .. }
        | Effect::Stall
        | Effect::Crash { .. }
        | Effect::Branch { .. } => {}
    }
    scaled
}

/// The workers of each instance of the service a fault targets (0 for another target).
fn workers(model: &Model, f: &Fault) -> u32 {
    match f.target {
        Target::Service(s) | Target::Instance(s, _) => model.services[s].workers,
        Target::Edge(_) | Target::Client(_) => 0,
    }
}

/// Fault `i`'s duration in seconds.
pub fn trigger_s(model: &Model, i: usize) -> f64 {
    let f = &model.faults[i];
    (f.end - f.start) as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fault::{Effect, Fault, Target};

    fn model() -> Model {
        let text = "[scenario]\nname = \"m\"\nduration = \"100s\"\nwarmup = \"10s\"\n\
            [[client]]\nname = \"app\"\ntarget = \"api\"\nrate = 200\n\
            [[service]]\nname = \"api\"\nworkers = 1\nwork = { dist = \"constant\", value = \"1ms\" }\n\
            [[fault]]\nkind = \"latency\"\nfactor = 3\ntarget = \"api\"\nstart = \"30s\"\nend = \"32s\"\nramp = \"0.5s\"\n\
            [[fault]]\nkind = \"stall\"\ntarget = \"api\"\nstart = \"60s\"\nend = \"61s\"\n";
        crate::scenario::load_str("m.toml", text, &[])
            .unwrap()
            .model
    }

    #[test]
    fn load_scales_the_rate_and_a_trigger_its_duration_up_to_the_next_fault() {
        let m = model();
        let Load::Open { rate, .. } = &load(&m, 1.5).clients[0].load else {
            panic!("open loop")
        };
        assert_eq!(rate.rate_at(20_000_000_000), 300.0);
        let t = trigger(&m, 0, 2.5);
        assert_eq!(
            (t.faults[0].start, t.faults[0].end),
            (30_000_000_000, 35_000_000_000)
        );
        assert_eq!(t.faults[0].ramp, 500_000_000);
        // A 0.5 s slowdown keeps at most half its length as ramps.
        assert_eq!(trigger(&m, 0, 0.25).faults[0].ramp, 250_000_000);
        // 30 s to the next fault's start, over 2 s: 15x; the last fault, from 60 s to the run's end
        // (10 s of warm-up and 100 s) less the 10 s hold: 40x its 1 s.
        assert_eq!(longest_trigger(&m, 0), 15.0);
        assert_eq!(longest_trigger(&m, 1), 40.0);
        let f: &Fault = &m.faults[1];
        assert!(matches!(
            (f.target, &f.effect),
            (Target::Service(0), Effect::Stall)
        ));
    }

    fn effect(fault: &str, m: f64) -> (Effect, Result<f64, &'static str>) {
        let text = format!(
            "[scenario]\nname = \"m\"\nduration = \"100s\"\n\
             [[client]]\nname = \"app\"\ntarget = \"api\"\nrate = 200\n\
             [[service]]\nname = \"api\"\nworkers = 8\nwork = \"1ms\"\n\
             [[fault]]\ntarget = \"api\"\nstart = \"30s\"\nend = \"32s\"\n{fault}\n"
        );
        let model = crate::scenario::load_str("m.toml", &text, &[])
            .unwrap_or_else(|e| panic!("{e}"))
            .model;
        let largest = largest_magnitude(&model, 0);
        (magnitude(&model, 0, m).faults[0].effect.clone(), largest)
    }

    #[test]
    fn magnitude_scales_a_faults_size_from_none_at_0_to_as_written_at_1() {
        let (e, largest) = effect("kind = \"latency\"\nfactor = 3", 1.5);
        assert!(matches!(e, Effect::Latency(Slowdown::Factor(x)) if x == 4.0));
        assert_eq!(largest, Ok(f64::INFINITY));
        let (e, _) = effect("kind = \"latency\"\nadd = \"200ms\"", 2.5);
        assert!(matches!(e, Effect::Latency(Slowdown::Add(500_000_000))));
        let (e, largest) = effect("kind = \"errors\"\nrate = 0.4", 2.0);
        assert!(matches!(e, Effect::Errors { rate, .. } if rate == 0.8));
        assert_eq!(largest, Ok(2.5));
        // 8 workers, 2 left: 6 removed; half as large removes 3, leaving 5; at most 8/6.
        let (e, largest) = effect("kind = \"capacity\"\nworkers = 2", 0.5);
        assert!(matches!(e, Effect::Capacity(Cut::Left(5))));
        assert_eq!(largest, Ok(8.0 / 6.0));
        let (e, largest) = effect("kind = \"capacity\"\nshare = 0.25", 3.0);
        assert!(matches!(e, Effect::Capacity(Cut::Share(s)) if s == 0.75));
        assert_eq!(largest, Ok(4.0));
        let (_, largest) = effect("kind = \"outage\"", 2.0);
        assert!(largest.is_err());
    }
}
