//! Faults: where a single request meets one (`per_request`), and the moments of a fault that
//! change state (`events`).

pub(super) mod events;
pub(super) mod per_request;
