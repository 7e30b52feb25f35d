//! Compiles `failure_accrual` on a policy: Finagle's defaults (`cascade-policy/src/accrual.rs`).

use super::document::{Located, Source};
use super::schema_policy::RawAccrual;
use cascade_policy::accrual::AccrualConfig;

pub fn compile_accrual(src: &Source, at: &str, a: &RawAccrual) -> Located<AccrualConfig> {
    let d = AccrualConfig::default();
    let field = |f: &str| format!("{at}.{f}");
    let consecutive_failures = a.consecutive_failures.unwrap_or(d.consecutive_failures);
    if consecutive_failures == 0 {
        return Err(src.error_at(
            &field("consecutive_failures"),
            "must be at least 1 (Finagle's default is 5)",
        ));
    }
    let mark_dead_for = a.mark_dead_for.map_or(d.mark_dead_for, |t| t.0);
    if mark_dead_for == 0 {
        return Err(src.error_at(&field("mark_dead_for"), "must be longer than zero"));
    }
    // Without a maximum of its own, a mark longer than Finagle's 300 s stays constant.
    let mark_dead_max = a
        .mark_dead_max
        .map_or(d.mark_dead_max.max(mark_dead_for), |t| t.0);
    if mark_dead_max < mark_dead_for {
        return Err(src.error_at(
            &field("mark_dead_max"),
            "must be at least `mark_dead_for` (equal for a constant mark)",
        ));
    }
    Ok(AccrualConfig {
        consecutive_failures,
        mark_dead_for,
        mark_dead_max,
    })
}
