//! Faults: what goes wrong, where and when. Compiled from `[[fault]]`; the engine applies them
//! (`engine::faults`). Each fault draws from its own random stream, so adding one never changes
//! another's draws or the rest of the run's.

use crate::model::{Latency, Outcome};

#[derive(Debug, Clone)]
pub struct Fault {
    pub target: Target,
    /// Active over [start, end), ns.
    pub start: u64,
    pub end: u64,
    pub effect: Effect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Every instance of a service.
    Service(usize),
    /// One instance of a service.
    Instance(usize, u32),
    /// Only attempts on one edge (by edge id).
    Edge(usize),
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

    pub fn hits_service(&self, service: usize, instance: u32) -> bool {
        match self.target {
            Target::Service(s) => s == service,
            Target::Instance(s, i) => s == service && i == instance,
            Target::Edge(_) => false,
        }
    }
}

impl Slowdown {
    /// Applies the slowdown to a drawn duration; `rng` serves a replacing distribution.
    pub fn apply<R: rand::Rng + ?Sized>(&self, ns: u64, rng: &mut R) -> u64 {
        match self {
            Slowdown::Factor(f) => (ns as f64 * f).round() as u64,
            Slowdown::Add(d) => ns.saturating_add(*d),
            Slowdown::Replace(l) => l.sample(rng),
        }
    }
}
