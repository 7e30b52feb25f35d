//! Applying faults: where a request meets an active fault, the fault answers, slows the work,
//! or swallows the request.

use super::arena::Ref;
use super::rng::{Stream, stream};
use super::sim::{Simulation, spec_of};
use super::state::Event;
use crate::fault::{Effect, Fault, Target};
use crate::model::Model;
use crate::random::unit;

/// Which faults can touch each service and each edge, and each fault's random stream.
pub struct FaultIndex {
    by_service: Vec<Vec<u32>>,
    by_edge: Vec<Vec<u32>>,
    /// Per service: whether any fault targets it, one of its instances, or an edge into it.
    touched: Vec<bool>,
    rngs: Vec<Stream>,
}

impl FaultIndex {
    pub fn new(model: &Model) -> FaultIndex {
        let mut by_service = vec![Vec::new(); model.services.len()];
        let mut by_edge = vec![Vec::new(); model.edges.len()];
        for (i, f) in model.faults.iter().enumerate() {
            match f.target {
                Target::Service(s) | Target::Instance(s, _) => by_service[s].push(i as u32),
                Target::Edge(e) => by_edge[e].push(i as u32),
            }
        }
        // Named by what the fault is, not its place in the file, so adding a fault before it
        // leaves its draws alone.
        let rngs = model
            .faults
            .iter()
            .map(|f| {
                let target = match f.target {
                    Target::Service(s) => model.services[s].name.clone(),
                    Target::Instance(s, i) => format!("{}#{i}", model.services[s].name),
                    Target::Edge(e) => model.edges[e].name.clone(),
                };
                stream(
                    model.seed,
                    &format!("fault.{target}.{}.{}", f.start, f.end),
                    "draws",
                )
            })
            .collect();
        let touched = (0..model.services.len())
            .map(|s| {
                !by_service[s].is_empty()
                    || model
                        .edges
                        .iter()
                        .enumerate()
                        .any(|(e, edge)| edge.to == s && !by_edge[e].is_empty())
            })
            .collect();
        FaultIndex {
            by_service,
            by_edge,
            touched,
            rngs,
        }
    }
}

/// What an active fault does to an arriving request.
enum Intercept {
    Answer {
        outcome: crate::model::Outcome,
        after: u64,
        retry_after: Option<u64>,
    },
    Swallow,
}

impl Simulation {
    /// Lets the faults on the job's service, instance and edge act on its arrival. Returns true
    /// when a fault took the request (answered or swallowed it), so the service never sees it.
    #[inline]
    pub(super) fn fault_intercepts(&mut self, jr: Ref, service: usize, instance: u32) -> bool {
        self.faults.touched[service] && self.fault_acts(jr, service, instance)
    }

    fn fault_acts(&mut self, jr: Ref, service: usize, instance: u32) -> bool {
        let job = self.jobs.get(jr).expect("arriving job");
        let edge = spec_of(&self.model, job.spec).edge;
        let now = self.now;
        let (by_service, by_edge) = (&self.faults.by_service[service], &self.faults.by_edge[edge]);
        if by_service.is_empty() && by_edge.is_empty() {
            return false;
        }
        let candidates = by_service.iter().chain(by_edge).copied();
        let mut hit = None;
        for i in candidates {
            let f: &Fault = &self.model.faults[i as usize];
            if !f.active(now)
                || !(matches!(f.target, Target::Edge(_)) || f.hits_service(service, instance))
            {
                continue;
            }
            match f.effect {
                Effect::Outage { blackhole: true } => hit = Some(Intercept::Swallow),
                Effect::Outage { blackhole: false } => {
                    hit = Some(Intercept::Answer {
                        outcome: crate::model::Outcome::Refused,
                        after: 0,
                        retry_after: None,
                    })
                }
                Effect::Errors {
                    rate,
                    error,
                    retry_after,
                    latency,
                } => {
                    let u = unit(&mut self.faults.rngs[i as usize]);
                    if u < rate {
                        hit = Some(Intercept::Answer {
                            outcome: error,
                            after: latency,
                            retry_after,
                        });
                    }
                }
                Effect::Latency(_) => {}
            }
            if hit.is_some() {
                break;
            }
        }
        match hit {
            None => false,
            Some(Intercept::Swallow) => {
                // Never answered: the caller's timeout (or deadline) ends the attempt.
                self.free_job(jr);
                true
            }
            Some(Intercept::Answer {
                outcome,
                after,
                retry_after,
            }) => {
                let job = self.jobs.get_mut(jr).expect("arriving job");
                job.state = super::state::JobState::Replying;
                job.outcome = outcome;
                job.retry_after = retry_after;
                match after {
                    0 => self.send_reply(jr),
                    d => self.queue.push(now + d, Event::Answer(jr)),
                }
                true
            }
        }
    }

    /// A drawn work time, slowed by the latency faults active on this instance.
    #[inline]
    pub(super) fn slowed_work(&mut self, service: usize, instance: u32, work: u64) -> u64 {
        if self.faults.by_service[service].is_empty() {
            return work;
        }
        let mut work = work;
        for &i in &self.faults.by_service[service] {
            let f = &self.model.faults[i as usize];
            if let Effect::Latency(s) = &f.effect
                && f.active(self.now)
                && f.hits_service(service, instance)
            {
                work = s.apply(work, &mut self.faults.rngs[i as usize]);
            }
        }
        work
    }

    /// A drawn network delay on an edge, slowed by the latency faults active on it.
    #[inline]
    pub(super) fn slowed_network(&mut self, edge: usize, delay: u64) -> u64 {
        if self.faults.by_edge[edge].is_empty() {
            return delay;
        }
        let mut delay = delay;
        for &i in &self.faults.by_edge[edge] {
            let f = &self.model.faults[i as usize];
            if let Effect::Latency(s) = &f.effect
                && f.active(self.now)
            {
                delay = s.apply(delay, &mut self.faults.rngs[i as usize]);
            }
        }
        delay
    }
}
