//! Faults: what goes wrong, where and when. Compiled from `[[fault]]`; the engine applies them
//! (`engine::faults`). Each fault draws from its own random stream, so adding one never changes
//! another's draws or the rest of the run's.

use crate::model::latency::{LONGEST_DRAW, scale_ns};
use crate::model::{Latency, Outcome};

#[derive(Debug, Clone)]
pub struct Fault {
    pub target: Target,
    /// Active over [start, end), ns.
    pub start: u64,
    pub end: u64,
    /// Linear onset over [start, start + ramp) and recovery over [end − ramp, end); 0 = steps.
    pub ramp: u64,
    pub effect: Effect,
    /// Only requests of this operation of the target service (numbered from 1, as
    /// `CallSpec::operation`); 0 for every request.
    pub operation: u16,
    /// The span [start, end) ns its recovery is judged against, when the scenario names one
    /// (`baseline`; checked by `scenario::fault_baseline`); `None` for the default
    /// (`metrics::recovery`).
    pub baseline: Option<(u64, u64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Every instance of a service.
    Service(usize),
    /// One instance of a service.
    Instance(usize, u32),
    /// Only attempts on one edge (by edge id).
    Edge(usize),
    /// A client (overload).
    Client(usize),
}

#[derive(Debug, Clone)]
pub enum Effect {
    /// Work (or, on an edge, the request's network trip) takes longer.
    Latency(Slowdown),
    /// A share of requests fail with `error`, answered after `latency`, without using a worker.
    Errors {
        rate: f64,
        error: Outcome,
        retry_after: Option<u64>,
        latency: u64,
    },
    /// Nothing gets through: refused at once, or never answered (the caller's timeout decides).
    Outage { blackhole: bool },
    /// The instances stop taking work off their queues, and running work pauses.
    Stall,
    /// The instances go down at `start` (their work lost: answered unavailable, or never
    /// answered) and are back at `end`; then work is `cold_factor` times slower for
    /// `cold_start`. The balancer sends nothing to an instance that is down.
    Crash {
        blackhole: bool,
        cold_start: u64,
        cold_factor: f64,
    },
    /// Workers taken away from each instance.
    Capacity(Cut),
    /// A client's open-loop rate multiplied by `factor`, or `users` more closed-loop users.
    Overload { factor: f64, users: u32 },
    /// Step `step` of the target service's plan (its operation's, `Fault::operation`) is made
    /// with probability `p` instead of its own (at full intensity; in between on the ramps),
    /// then comes back after `end` as `warm` says (a cache flushed, then warming).
    Branch { step: usize, p: f64, warm: Warm },
}

/// How a `branch` fault's weight falls back from 1 to 0 after its `end` (a cold cache
/// refilling): the share of the fault's change of probability still in place.
#[derive(Debug, Clone, PartialEq)]
pub enum Warm {
    /// Linearly to 0 over this many ns (0: at once, at `end`).
    Linear(u64),
    /// exp(−(t − end) / τ) with τ this many ns (> 0), to the run's end: never exactly 0.
    Exponential(u64),
    /// Points (ns since `end`, weight), linear between them: the first (0, 1), times
    /// increasing, the last weight 0, which holds after it.
    Table(Vec<(u64, f64)>),
}

impl Warm {
    /// The weight `since` ns after the fault's end.
    pub fn weight(&self, since: u64) -> f64 {
        match self {
            // As the linear warm-up always computed it, so its runs keep their bytes.
            Warm::Linear(warm) if since < *warm => 1.0 - since as f64 / *warm as f64,
            Warm::Linear(_) => 0.0,
            Warm::Exponential(tau) => (-(since as f64) / *tau as f64).exp(),
            Warm::Table(points) => table_weight(points, since),
        }
    }
}

/// The table's weight at `since`: interpolated between the points around it, the last
/// point's weight after it.
fn table_weight(points: &[(u64, f64)], since: u64) -> f64 {
    // The first point after `since`; the one before it is at or before `since`.
    let next = points.partition_point(|&(t, _)| t <= since);
    match (next.checked_sub(1).map(|i| points[i]), points.get(next)) {
        (Some((t0, w0)), Some(&(t1, w1))) => {
            w0 + (w1 - w0) * (since - t0) as f64 / (t1 - t0) as f64
        }
        (Some((_, w)), None) => w,
        // The compiler requires a first point at 0, so nothing comes before it.
        (None, _) => 1.0,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cut {
    /// Leave this many workers per instance.
    Left(u32),
    /// Remove this share of each instance's workers (rounded to whole workers).
    Share(f64),
}

#[derive(Debug, Clone)]
pub enum Slowdown {
    Factor(f64),
    Add(u64),
    Replace(Latency),
}

impl Fault {
    pub fn active(&self, now: u64) -> bool {
        self.start <= now && now < self.end
    }

    /// How strongly the fault acts at `now`, from 0 (not at all) to 1 (fully): 1 while active,
    /// except on its linear ramps.
    pub fn intensity(&self, now: u64) -> f64 {
        if !self.active(now) {
            return 0.0;
        }
        if self.ramp == 0 {
            return 1.0;
        }
        let from_edge = (now - self.start).min(self.end - 1 - now) as f64;
        ((from_edge + 0.5) / self.ramp as f64).min(1.0)
    }

    pub fn hits_service(&self, service: usize, instance: u32) -> bool {
        match self.target {
            Target::Service(s) => s == service,
            Target::Instance(s, i) => s == service && i == instance,
            Target::Edge(_) | Target::Client(_) => false,
        }
    }

    /// The kind's name, as written in `[[fault]]`.
    pub fn kind(&self) -> &'static str {
        match self.effect {
            Effect::Latency(_) => "latency",
            Effect::Errors { .. } => "errors",
            Effect::Outage { .. } => "outage",
            Effect::Stall => "stall",
            Effect::Crash { .. } => "crash",
            Effect::Capacity(_) => "capacity",
            Effect::Overload { .. } => "overload",
            Effect::Branch { .. } => "branch",
        }
    }

    /// The probability of a step whose own is `base`, under this `branch` fault at `now`:
    /// `p` at full intensity, on the ramps in between, and after `end` back to `base` as
    /// `warm` says. `base` for any other fault, and before the fault's start.
    pub fn branch_p(&self, base: f64, now: u64) -> f64 {
        let Effect::Branch { p, ref warm, .. } = self.effect else {
            return base;
        };
        let weight = if self.active(now) {
            self.intensity(now)
        } else if now >= self.end {
            warm.weight(now - self.end)
        } else {
            0.0
        };
        base + (p - base) * weight
    }
}

impl Slowdown {
    /// Applies the slowdown at `intensity` (0..=1) to a drawn duration; `rng` serves a
    /// replacing distribution (which is never ramped).
    pub fn apply<R: rand::Rng + ?Sized>(&self, ns: u64, intensity: f64, rng: &mut R) -> u64 {
        match self {
            Slowdown::Factor(f) => scale_ns(ns, 1.0 + (f - 1.0) * intensity),
            Slowdown::Add(d) => ns
                .saturating_add((*d as f64 * intensity).round() as u64)
                .min(LONGEST_DRAW),
            Slowdown::Replace(l) => l.sample(rng),
        }
    }
}

impl Cut {
    /// Workers left of `workers` at `intensity`.
    pub fn workers_left(&self, workers: u32, intensity: f64) -> u32 {
        let removed_at_full = match *self {
            Cut::Left(n) => workers.saturating_sub(n),
            Cut::Share(s) => (f64::from(workers) * s).round() as u32,
        };
        let removed = (f64::from(removed_at_full) * intensity).round() as u32;
        workers - removed.min(workers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(start: u64, end: u64, ramp: u64) -> Fault {
        Fault {
            target: Target::Service(0),
            start,
            end,
            ramp,
            effect: Effect::Stall,
            operation: 0,
            baseline: None,
        }
    }

    #[test]
    fn intensity_steps_or_ramps_linearly_in_and_out() {
        let f = fault(100, 200, 0);
        assert_eq!(
            [99, 100, 150, 199, 200].map(|t| f.intensity(t)),
            [0.0, 1.0, 1.0, 1.0, 0.0]
        );
        // Ramps of 10 ns: midpoints of each nanosecond, so the ramp is symmetric.
        let f = fault(100, 200, 10);
        assert_eq!(f.intensity(100), 0.05);
        assert_eq!(f.intensity(104), 0.45);
        assert_eq!(f.intensity(110), 1.0);
        assert_eq!(f.intensity(195), 0.45);
        assert_eq!(f.intensity(199), 0.05);
    }

    #[test]
    fn slowdowns_scale_with_intensity() {
        let mut rng = crate::engine::rng::stream(1, "t", "t");
        assert_eq!(Slowdown::Factor(3.0).apply(100, 1.0, &mut rng), 300);
        assert_eq!(Slowdown::Factor(3.0).apply(100, 0.5, &mut rng), 200);
        assert_eq!(Slowdown::Add(50).apply(100, 0.5, &mut rng), 125);
    }

    #[test]
    fn a_cut_leaves_whole_workers() {
        assert_eq!(Cut::Left(3).workers_left(10, 1.0), 3);
        assert_eq!(
            Cut::Left(3).workers_left(10, 0.5),
            6,
            "3.5 removed rounds to 4"
        );
        assert_eq!(Cut::Share(0.5).workers_left(10, 1.0), 5);
        assert_eq!(Cut::Share(0.25).workers_left(10, 1.0), 7);
        assert_eq!(Cut::Left(20).workers_left(10, 1.0), 10);
    }

    #[test]
    fn each_warm_curve_falls_from_1_at_the_end() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let linear = Warm::Linear(100);
        assert_eq!(
            [0, 25, 100, 500].map(|t| linear.weight(t)),
            [1.0, 0.75, 0.0, 0.0]
        );
        assert!(close(linear.weight(99), 0.01));
        assert_eq!(Warm::Linear(0).weight(0), 0.0);
        let exp = Warm::Exponential(100);
        assert_eq!(exp.weight(0), 1.0);
        assert!(close(exp.weight(100), 0.367_879_441_171_442_33));
        assert!(close(exp.weight(250), 0.082_084_998_623_898_8));
        assert!(exp.weight(u64::MAX) >= 0.0);
        let table = Warm::Table(vec![(0, 1.0), (10, 0.4), (30, 0.0)]);
        let got = [0, 5, 10, 20, 29, 30, 1000].map(|t| table.weight(t));
        for (g, want) in got.iter().zip([1.0, 0.7, 0.4, 0.2, 0.02, 0.0, 0.0]) {
            assert!(close(*g, want), "{got:?}");
        }
    }
}
