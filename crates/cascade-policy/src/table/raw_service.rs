//! A service's own protections as written (`codel`, `outlier` on a `[[service]]`).

use super::duration::Dur;

/// `codel = { target, interval }` on a service (folly/Envoy CoDel).
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawCodel {
    /// Acceptable queueing delay (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "5ms")))]
    pub target: Option<Dur>,
    /// Period over which the smallest queueing delay is judged (>= `target`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "100ms")))]
    pub interval: Option<Dur>,
}

/// `outlier = { ... }` on a service: Envoy consecutive-failure ejection at its balancer.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RawOutlier {
    /// Failures in a row of one instance that eject it (>= 1).
    #[cfg_attr(feature = "schema", schemars(extend("default" = 5)))]
    pub consecutive_failures: Option<u32>,
    /// Every `interval`, instances whose ejection time is up come back (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "10s")))]
    pub interval: Option<Dur>,
    /// A first ejection's length; each further one lasts one more (> 0).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "30s")))]
    pub base_ejection_time: Option<Dur>,
    /// The longest ejection (>= `base_ejection_time`).
    #[cfg_attr(feature = "schema", schemars(extend("default" = "300s")))]
    pub max_ejection_time: Option<Dur>,
    /// Ejections allowed while 100 x (ejected + 1) / instances stays at or below this.
    #[cfg_attr(feature = "schema", schemars(extend("default" = 10)))]
    pub max_ejection_percent: Option<u32>,
    /// Allow one ejection whatever the cap.
    #[cfg_attr(feature = "schema", schemars(extend("default" = false)))]
    pub always_eject_one: Option<bool>,
}
