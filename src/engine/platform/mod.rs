//! The platform around a service's instances (reached only at a service with
//! `Service::orchestration`): their lives, health probes, and the autoscaler with its
//! stabilization windows.

pub(super) mod autoscale;
pub(super) mod lifecycle;
pub(super) mod probes;
pub(super) mod stabilization;
