//! The deterministic discrete-event engine, its files grouped by concept: the run itself
//! (`kernel`), the caller's side of a call (`caller`), the balancer's pick of an instance
//! (`balancer`), the callee's side, a job at a service instance (`service`), the platform
//! around the instances (`platform`) and faults (`faults`).

pub mod arrivals;
mod balancer;
mod caller;
mod faults;
mod kernel;
mod platform;
mod service;

pub use kernel::simulation::{Measured, RUN_METRICS, Simulation};
pub use kernel::{arena, event_queue, rng, trace, trace_ids, trace_trees, watchdog, work_bound};
