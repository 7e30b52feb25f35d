//! The deterministic discrete-event engine.

mod accrual;
mod adaptive;
pub mod arena;
mod attempt_end;
mod autoscale;
mod balance;
mod branches;
mod call_timers;
mod calls;
mod children;
mod clients;
mod dedup;
mod dispatch;
mod endings;
mod fault_events;
mod faults;
mod fresh_state;
mod hedges;
mod in_flight;
mod jobs;
mod lifecycle;
mod overload;
mod partitions;
mod policy_state;
mod pool_holds;
mod probes;
pub mod progress;
mod publish;
pub mod queue;
pub mod rng;
mod sim;
mod slow_start;
mod stabilization;
mod state;
pub mod trace;

pub use sim::{RUN_METRICS, RunResult, Simulation};
