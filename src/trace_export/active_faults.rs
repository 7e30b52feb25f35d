//! `cascade.faults`: the scenario's faults in force where and when a span starts. The trace's
//! rows do not say which fault acted on a request, so this reads the faults' windows from the
//! model: a fault is listed when its target covers the span's place and `[start, end)` holds the
//! span's start, whether or not it acted on that request (an `errors` fault at `rate = 0.1`
//! lets nine in ten through).

use crate::model::Model;
use crate::model::fault::Target;

/// Where a span is.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    /// A client's request (an `overload` fault targets a client).
    Client(usize),
    /// An attempt on an edge: its id, and the pair's edge for an operation's edge.
    Edge(usize, Option<usize>),
    /// A job at instance `i` of service `s`, of operation `op` (from 1; 0 for none).
    Instance(usize, u32, u16),
}

/// `fault.<i>:<kind>` for each fault in force at `place` at `at`, in the scenario's order.
pub fn active_faults(model: &Model, place: Place, at: u64) -> Vec<String> {
    model
        .faults
        .iter()
        .enumerate()
        .filter(|(_, f)| (f.start..f.end).contains(&at))
        .filter(|(_, f)| {
            let op = |o: u16| f.operation == 0 || f.operation == o;
            match (f.target, place) {
                (Target::Client(c), Place::Client(k)) => c == k,
                (Target::Edge(e), Place::Edge(edge, total)) => e == edge || Some(e) == total,
                (Target::Service(s), Place::Instance(k, _, o)) => s == k && op(o),
                (Target::Instance(s, i), Place::Instance(k, j, o)) => s == k && i == j && op(o),
                _ => false,
            }
        })
        .map(|(i, f)| format!("fault.{i}:{}", f.kind()))
        .collect()
}
