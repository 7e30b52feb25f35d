//! `slow_start = { ... }` on a service: Envoy's `slow_start_config` at its balancer
//! (`model/slow_start.rs`), with Envoy's defaults (`aggression` 1.0, `min_weight_percent` 10)
//! and its rule that only the round-robin and least-request balancers have one.

use super::document::{Located, Source};
use super::schema::Dur;
use crate::model::BalancerKind;
use crate::model::slow_start::SlowStart;
use schemars::JsonSchema;
use serde::Deserialize;

/// `slow_start = { ... }`: an instance coming into rotation gets a share of the traffic that
/// grows over `window` (Envoy's `slow_start_config`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSlowStart {
    /// `slow_start_window`: how long an instance is in slow start after it comes into
    /// rotation (> 0; required).
    pub window: Dur,
    /// `aggression`: the weight is (time in slow start / window)^(1 / aggression) (> 0).
    #[schemars(extend("default" = 1.0))]
    pub aggression: Option<f64>,
    /// `min_weight_percent`: the least weight an instance in slow start has, percent.
    #[schemars(extend("default" = 10))]
    pub min_weight_percent: Option<f64>,
}

pub fn slow_start(
    src: &Source,
    at: &str,
    raw: &RawSlowStart,
    balancer: BalancerKind,
) -> Located<SlowStart> {
    let field = |f: &str| format!("{at}.{f}");
    if !matches!(
        balancer,
        BalancerKind::RoundRobin | BalancerKind::LeastOutstanding
    ) {
        return Err(src.error_at(
            at,
            "needs `balancer = \"round_robin\"` or `\"least_outstanding\"` (Envoy's slow start is \
             a setting of its round-robin and least-request balancers only)",
        ));
    }
    if raw.window.0 == 0 {
        return Err(src.error_at(&field("window"), "must be longer than zero"));
    }
    let aggression = raw.aggression.unwrap_or(1.0);
    if !(aggression > 0.0 && aggression.is_finite()) {
        return Err(src.error_at(&field("aggression"), "must be a number above zero"));
    }
    let min_weight_percent = raw.min_weight_percent.unwrap_or(10.0);
    if !(0.0..=100.0).contains(&min_weight_percent) {
        return Err(src.error_at(&field("min_weight_percent"), "is a percentage: 0 to 100"));
    }
    Ok(SlowStart {
        window: raw.window.0,
        aggression,
        min_weight: min_weight_percent / 100.0,
    })
}
