//! A service's own protections: CoDel at its queue (folly's and Envoy's defaults) and outlier
//! ejection at its balancer (Envoy's), compiled from `codel` and `outlier`.

use super::error::{Checked, TableError};
use super::raw_service::{RawCodel, RawOutlier};
use crate::codel::CodelConfig;
use crate::outlier::OutlierConfig;
use crate::time::Nanos;

impl CodelConfig {
    /// CoDel as a `codel` table describes it; errors name the field relative to it.
    pub fn from_table(c: &RawCodel) -> Checked<CodelConfig> {
        let d = CodelConfig::default();
        let target = c.target.map_or(d.target, Nanos::from);
        let interval = c.interval.map_or(d.interval, Nanos::from);
        if target == Nanos::ZERO {
            return Err(TableError::at("target", "must be longer than zero"));
        }
        if interval < target {
            return Err(TableError::at(
                "interval",
                "must be at least `target` (the minimum delay is judged over one interval)",
            ));
        }
        Ok(CodelConfig { target, interval })
    }
}

impl OutlierConfig {
    /// Outlier ejection as an `outlier` table describes it; errors name the field relative
    /// to it.
    pub fn from_table(o: &RawOutlier) -> Checked<OutlierConfig> {
        let d = OutlierConfig::default();
        let consecutive_failures = o.consecutive_failures.unwrap_or(d.consecutive_failures);
        if consecutive_failures == 0 {
            return Err(TableError::at("consecutive_failures", "must be at least 1"));
        }
        let interval = o.interval.map_or(d.interval, Nanos::from);
        if interval == Nanos::ZERO {
            return Err(TableError::at("interval", "must be longer than zero"));
        }
        let base_ejection_time = o
            .base_ejection_time
            .map_or(d.base_ejection_time, Nanos::from);
        if base_ejection_time == Nanos::ZERO {
            return Err(TableError::at(
                "base_ejection_time",
                "must be longer than zero",
            ));
        }
        let max_ejection_time = o.max_ejection_time.map_or(d.max_ejection_time, Nanos::from);
        if max_ejection_time < base_ejection_time {
            return Err(TableError::at(
                "max_ejection_time",
                "must be at least `base_ejection_time`",
            ));
        }
        let max_ejection_percent = o.max_ejection_percent.unwrap_or(d.max_ejection_percent);
        if max_ejection_percent > 100 {
            return Err(TableError::at(
                "max_ejection_percent",
                "is a percentage: 0 to 100",
            ));
        }
        Ok(OutlierConfig {
            consecutive_failures,
            interval,
            base_ejection_time,
            max_ejection_time,
            max_ejection_percent,
            always_eject_one_host: o.always_eject_one.unwrap_or(d.always_eject_one_host),
        })
    }
}
