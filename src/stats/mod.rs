//! Statistics that several layers share: the latency histogram (recorded by the engine's
//! metrics, read by the hedge policy for its learned delay), summaries of replications with
//! Student's t confidence intervals (sweeps, `check`), and Welch's test (baselines).

pub mod hist;
pub mod summary;
pub mod welch;
