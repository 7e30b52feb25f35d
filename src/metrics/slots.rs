//! Where each request's metrics are recorded: one accumulator ("slot") per client, service and
//! edge, and more for the parts of one that are measured apart (a service's operations, a
//! client's mix). A whole is then the sum of its parts, merged when a bucket closes, so it is
//! never recorded twice on the hot path. Edges need no table here: an operation's edge is an
//! edge of the model (`Edge::total`).

use super::names;
use crate::model::Model;

pub struct MetricSlots {
    /// A job of operation `k` (from 1) of service `s` records on slot `service_base[s] + k`;
    /// a job at a service without operations on `s` itself (`k` = 0).
    pub service_base: Vec<u32>,
    /// A request of mix entry `k` (from 0) of client `c` records on `client_base[c] + k`; a
    /// client without a mix on `c` itself.
    pub client_base: Vec<u32>,
    /// Every service slot: its metric prefix and the slot it is a part of (`None` for a whole).
    /// Wholes first (slot `s` is service `s`), then the parts in service order.
    pub services: Vec<(String, Option<usize>)>,
    /// Every client slot, as `services` is.
    pub clients: Vec<(String, Option<usize>)>,
}

impl MetricSlots {
    pub fn of(model: &Model) -> MetricSlots {
        let mut services: Vec<(String, Option<usize>)> = model
            .services
            .iter()
            .map(|s| (names::service(&s.name), None))
            .collect();
        let mut service_base = Vec::new();
        for (i, s) in model.services.iter().enumerate() {
            if s.operations.is_empty() {
                service_base.push(i as u32);
                continue;
            }
            // Operation 1 lands on the first free slot.
            service_base.push(services.len() as u32 - 1);
            for op in &s.operations {
                services.push((names::service_op(&s.name, &op.name), Some(i)));
            }
        }
        let mut clients: Vec<(String, Option<usize>)> = model
            .clients
            .iter()
            .map(|c| (names::client(&c.name), None))
            .collect();
        let mut client_base = Vec::new();
        for (i, c) in model.clients.iter().enumerate() {
            if c.mix.is_none() {
                client_base.push(i as u32);
                continue;
            }
            client_base.push(clients.len() as u32);
            for call in c.calls() {
                let op = &model.services[call.to].operations[usize::from(call.operation) - 1];
                clients.push((names::client_op(&c.name, &op.name), Some(i)));
            }
        }
        MetricSlots {
            service_base,
            client_base,
            services,
            clients,
        }
    }

    /// Every slot's metric prefix with its slot, in the order metrics are emitted: clients,
    /// services, edges, each whole followed by its parts (a model without operations or
    /// mixes gives its entities in model order).
    pub fn order(&self, model: &Model) -> Order {
        let edges: Vec<(String, Option<usize>)> = model
            .edges
            .iter()
            .map(|e| (names::edge(&e.name), e.total))
            .collect();
        Order {
            clients: grouped(&self.clients),
            services: grouped(&self.services),
            edges: grouped(&edges),
        }
    }
}

/// Metric prefixes with their slots, in emission order (`MetricSlots::order`).
pub struct Order {
    pub clients: Vec<(String, usize)>,
    pub services: Vec<(String, usize)>,
    pub edges: Vec<(String, usize)>,
}

impl Order {
    /// Every prefix: clients', services', then edges'.
    pub fn prefixes(&self) -> impl Iterator<Item = &str> {
        self.clients
            .iter()
            .chain(&self.services)
            .chain(&self.edges)
            .map(|(p, _)| p.as_str())
    }
}

/// Each whole followed by its parts. Wholes are the entries without a whole of their own, in
/// order; a part names its whole's index among all entries.
fn grouped(entries: &[(String, Option<usize>)]) -> Vec<(String, usize)> {
    let mut order = Vec::with_capacity(entries.len());
    for (w, (name, whole)) in entries.iter().enumerate() {
        if whole.is_some() {
            continue;
        }
        order.push((name.clone(), w));
        for (p, (part, of)) in entries.iter().enumerate() {
            if *of == Some(w) {
                order.push((part.clone(), p));
            }
        }
    }
    order
}
