//! Compiles a service's own adaptive protections: CoDel, adaptive LIFO and outlier ejection at
//! its balancer. Defaults and checks of CoDel and ejection are the policy crate's
//! (`cascade-policy/src/table/service.rs`: folly/Envoy CoDel, Envoy outlier detection).

use super::document::{Located, Source};
use super::schema::RawService;
use crate::model::Discipline;
use cascade_policy::codel::CodelConfig;
use cascade_policy::outlier::OutlierConfig;
use cascade_policy::table::{RawCodel, RawOutlier};

/// `codel` on a service, checked by the policy crate (`CodelConfig::from_table`).
pub fn codel(src: &Source, at: &str, c: &RawCodel) -> Located<CodelConfig> {
    CodelConfig::from_table(c).map_err(|e| src.error_at(&e.path_under(at), e.message))
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

/// `outlier` on a service, checked by the policy crate (`OutlierConfig::from_table`).
pub fn outlier(src: &Source, at: &str, o: &RawOutlier) -> Located<OutlierConfig> {
    OutlierConfig::from_table(o).map_err(|e| src.error_at(&e.path_under(at), e.message))
}
