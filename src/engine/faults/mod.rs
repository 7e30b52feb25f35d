//! Faults: where a single request meets one (`per_request`), the moments of a fault that
//! change state (`events`), and the work a stall pauses (`stalls`).

pub(super) mod events;
pub(super) mod per_request;
pub(super) mod stalls;
