//! Statistics that several layers share: summaries of replications with Student's t
//! confidence intervals (sweeps, `check`), and Welch's test (baselines). The latency histogram
//! the metrics record is the policy crate's (`cascade_policy::hist`): the hedge policy reads it
//! for its learned delay.

pub mod summary;
pub mod welch;
