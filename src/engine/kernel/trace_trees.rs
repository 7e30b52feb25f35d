//! `--trace-sample`, and `--trace-from`/`--trace-to` for a trace of spans: which client
//! requests' trees a trace keeps, whole. A tree's root is a client's `call_start` row; it is kept
//! when `trace_ids::sampled` says so and it starts within the window, and then every row of it
//! and of its descendants (the jobs of its attempts, the calls they make, its fallbacks, down
//! the tree) is kept, whenever it comes. Rows of no request (arrivals, faults, probes, an
//! instance's life) and of requests outside the kept trees are left out. A child's first row
//! names its parent, which is a member by then, so the trees are followed as rows are written.

use super::trace::Id;
use super::trace_ids::sampled;
use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq)]
pub struct Trees {
    seed: u64,
    fraction: f64,
    /// Roots starting at `from <= time_ns < to`.
    from: u64,
    to: u64,
    members: HashSet<String>,
}

impl Trees {
    /// The trees of `fraction` of the client requests (by `trace_ids::sampled` under `seed`)
    /// that start in `[from, to)`.
    pub fn new(seed: u64, fraction: f64, from: u64, to: u64) -> Trees {
        Trees {
            seed,
            fraction,
            from,
            to,
            members: HashSet::new(),
        }
    }

    /// Whether the row is kept. Called for every row, in order.
    pub(super) fn admits(&mut self, now: u64, request: &Id, parent: &str, event: &str) -> bool {
        if matches!(request, Id::None) {
            return false;
        }
        let id = request.to_string();
        if self.members.contains(&id) {
            return true;
        }
        let root = event == "call_start"
            && parent.starts_with("client.")
            && (self.from..self.to).contains(&now)
            && sampled(self.seed, &id, self.fraction);
        if root || self.members.contains(parent) {
            self.members.insert(id);
            return true;
        }
        false
    }
}
