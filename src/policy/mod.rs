//! Resilience policies: small state machines over virtual time that know nothing of the
//! engine. Each takes `now` (and a random stream where it draws) and returns a decision.

pub mod accrual;
pub mod backoff;
pub mod breaker;
pub mod budget;
pub mod bulkhead;
pub mod codel;
pub mod dedup;
pub mod hedge;
pub mod limit;
pub mod outlier;
pub mod retry;
pub mod throttle;
pub mod window;
