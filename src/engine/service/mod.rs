//! The callee's side: a job at a service instance, from arrival through the queue, the work and
//! its plan's steps (their own calls, branches and publishes) to the reply, with the service's
//! protections (partitions, overload, idempotency).

pub(super) mod branches;
pub(super) mod children;
pub(super) mod dedup;
pub(super) mod dispatch;
pub(super) mod jobs;
pub(super) mod overload;
pub(super) mod partitions;
pub(super) mod publish;
pub(super) mod rate_limit;
