//! What a run leaves unfinished at its end: the requests, logical calls and arrivals still in
//! flight, as the `*.in_flight_end` metrics that make every count balance.

use super::simulation::{Simulation, spec_of};
use super::state::*;
use crate::metrics::names;
use cascade_policy::Nanos;

impl Simulation {
    /// What is still in flight, per client (requests), edge (logical calls) and service
    /// (arrivals not yet answered), as `*.in_flight_end` metrics: with them every count
    /// balances (`requests = success + errors + in_flight_end`, and so on).
    pub(in crate::engine) fn unfinished(&self) -> Vec<(String, f64)> {
        let slots = crate::metrics::slots::MetricSlots::of(&self.model);
        let mut clients = vec![0u64; slots.clients.len()];
        let mut edges = vec![0u64; self.model.edges.len()];
        let mut services = vec![0u64; slots.services.len()];
        // A client's mix entry is known by its call spec.
        let mut client_metric_slot_of_spec = vec![None; self.specs.len()];
        for (c, client) in self.model.clients.iter().enumerate() {
            if client.mix.is_some() {
                for (k, call) in client.calls().enumerate() {
                    client_metric_slot_of_spec[call.id] = Some(slots.client_base[c] as usize + k);
                }
            }
        }
        for (_, call) in self.calls.iter() {
            edges[spec_of(&self.specs, call.spec).edge] += 1;
            if let Parent::Client { client, .. } = call.parent {
                clients[client as usize] += 1;
                if let Some(slot) = client_metric_slot_of_spec[call.spec.0 as usize] {
                    clients[slot] += 1;
                }
            }
        }
        for (_, job) in self.jobs.iter() {
            let arrived = !matches!(job.state, JobState::InTransit | JobState::Cancelled);
            if arrived && !job.answered {
                services[job.metric_slot as usize] += 1;
                if job.operation != 0 {
                    services[job.service as usize] += 1;
                }
            }
        }
        // A pair's edge holds the sum of its operations' edges.
        for (e, edge) in self.model.edges.iter().enumerate() {
            if let Some(total) = edge.total {
                edges[total] += edges[e];
            }
        }
        let order = slots.order(&self.model);
        let named = |(prefix, slot): &(String, usize), counts: &[u64]| {
            (
                names::metric(prefix, names::IN_FLIGHT_END),
                counts[*slot] as f64,
            )
        };
        (order.clients.iter().map(|e| named(e, &clients)))
            .chain(order.services.iter().map(|e| named(e, &services)))
            .chain(order.edges.iter().map(|e| named(e, &edges)))
            .collect()
    }

    /// Each named pool's permits held and callers waiting, time averages summed over its
    /// caller's instances (`<caller>.pool.<name>.in_use_mean`, `.waiting_mean`).
    pub(in crate::engine) fn pool_means(&self, end: u64) -> Vec<(String, f64)> {
        let [in_use, waiting] = names::POOL_METRICS;
        let mut out = Vec::new();
        for pool in &self.pools {
            let (mut held, mut queued) = (0.0, 0.0);
            for &b in &pool.instances {
                let (h, q) = self.bulkheads[b as usize].means(Nanos(end));
                (held, queued) = (held + h, queued + q);
            }
            out.push((names::metric(&pool.prefix, in_use), held));
            out.push((names::metric(&pool.prefix, waiting), queued));
        }
        out
    }
}
