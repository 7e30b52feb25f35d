//! Compiles a service's own adaptive protections: CoDel, adaptive LIFO and outlier ejection at
//! its balancer. Defaults are the libraries' (folly/Envoy CoDel, Envoy outlier detection).

use super::document::{Located, Source};
use super::schema::RawService;
use super::schema_policy::{RawCodel, RawOutlier};
use crate::model::Discipline;
use cascade_policy::codel::CodelConfig;
use cascade_policy::outlier::OutlierConfig;

pub fn codel(src: &Source, at: &str, c: &RawCodel) -> Located<CodelConfig> {
    let d = CodelConfig::default();
    let target = c.target.map_or(d.target, |t| t.0);
    let interval = c.interval.map_or(d.interval, |t| t.0);
    if target == 0 {
        return Err(src.error_at(&format!("{at}.target"), "must be longer than zero"));
    }
    if interval < target {
        return Err(src.error_at(
            &format!("{at}.interval"),
            "must be at least `target` (the minimum delay is judged over one interval)",
        ));
    }
    Ok(CodelConfig { target, interval })
}

pub fn adaptive_lifo(src: &Source, at: &str, s: &RawService) -> Located<Option<u64>> {
    let Some(threshold) = s.adaptive_lifo else {
        return Ok(None);
    };
    if threshold == 0 {
        return Err(src.error_at(
            at,
            "is the queue length at which LIFO begins: at least 1 (for always-LIFO use `discipline = \"lifo\"`)",
        ));
    }
    if s.discipline == Some(Discipline::Lifo) {
        return Err(src.error_at(
            at,
            "switches a FIFO queue to LIFO while it is long; this queue is always LIFO",
        ));
    }
    Ok(Some(threshold))
}

pub fn outlier(src: &Source, at: &str, o: &RawOutlier) -> Located<OutlierConfig> {
    let d = OutlierConfig::default();
    let field = |f: &str| format!("{at}.{f}");
    let consecutive_failures = o.consecutive_failures.unwrap_or(d.consecutive_failures);
    if consecutive_failures == 0 {
        return Err(src.error_at(&field("consecutive_failures"), "must be at least 1"));
    }
    let interval = o.interval.map_or(d.interval, |t| t.0);
    if interval == 0 {
        return Err(src.error_at(&field("interval"), "must be longer than zero"));
    }
    let base_ejection_time = o.base_ejection_time.map_or(d.base_ejection_time, |t| t.0);
    if base_ejection_time == 0 {
        return Err(src.error_at(&field("base_ejection_time"), "must be longer than zero"));
    }
    let max_ejection_time = o.max_ejection_time.map_or(d.max_ejection_time, |t| t.0);
    if max_ejection_time < base_ejection_time {
        return Err(src.error_at(
            &field("max_ejection_time"),
            "must be at least `base_ejection_time`",
        ));
    }
    let max_ejection_percent = o.max_ejection_percent.unwrap_or(d.max_ejection_percent);
    if max_ejection_percent > 100 {
        return Err(src.error_at(&field("max_ejection_percent"), "is a percentage: 0 to 100"));
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
