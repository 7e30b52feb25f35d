//! Which instance a caller picks: the balancer, the instances outlier detection ejected and
//! failure accrual marked, slow start's weights, and a retry's re-picks away from the hosts its
//! call tried.

pub(super) mod accrual;
pub(super) mod balance;
pub(super) mod down;
pub(super) mod ejection;
pub(super) mod least;
pub(in crate::engine) mod other_host;
pub(super) mod slow_start;
