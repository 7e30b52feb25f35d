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
}
