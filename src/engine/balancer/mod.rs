//! Which instance a caller picks: the balancer, the instances outlier detection ejected and
//! failure accrual marked, and slow start's weights.

pub(super) mod accrual;
pub(super) mod balance;
pub(super) mod down;
pub(super) mod ejection;
pub(super) mod least;
pub(super) mod slow_start;
