//! Which metrics a pattern (`--metric`, `--gate`, a sweep's table) selects. `*` matches any
//! run of characters, as `wildcard::matches` says, with one rule more: the metrics of a part
//! (an operation of a service, a client's mix entry, the calls of an edge to one operation:
//! `service.api.op.login.arrivals`) are selected only by a pattern that names `.op.` itself
//! (`service.api.op.*.arrivals`, `*.op.*`). So `service.*.arrivals` selects exactly the
//! services' totals, as it did before operations existed.

use crate::wildcard;

pub fn selects(pattern: &str, name: &str) -> bool {
    wildcard::matches(pattern, name) && (!is_part(name) || pattern.contains(".op."))
}

/// Whether `name` is a part's metric: `op` as the segment after a client's or service's name,
/// or after an edge's two names (under an optional `window.<w>.`).
pub fn is_part(name: &str) -> bool {
    let name = super::catalogue::windowed(name)
        .filter(|_| name.starts_with("window."))
        .unwrap_or(name);
    let segments: Vec<&str> = name.splitn(6, '.').collect();
    match segments.first() {
        Some(&"client") | Some(&"service") => segments.get(2) == Some(&"op"),
        Some(&"edge") => segments.get(3) == Some(&"op"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_patterns_leave_operations_out() {
        assert!(selects("service.*.arrivals", "service.api.arrivals"));
        assert!(!selects(
            "service.*.arrivals",
            "service.api.op.login.arrivals"
        ));
        assert!(selects(
            "service.*.op.*.arrivals",
            "service.api.op.login.arrivals"
        ));
        assert!(!selects("edge.web.*.calls", "edge.web.api.op.login.calls"));
        assert!(selects("edge.web.api.op.*", "edge.web.api.op.login.calls"));
        assert!(!selects("*", "window.w.client.web.op.buy.success"));
        assert!(selects("*", "window.w.client.web.success"));
        // A service named `op` is a whole, not a part.
        assert!(selects("service.*.arrivals", "service.op.arrivals"));
        assert!(!is_part("edge.op.db.calls"));
        assert!(is_part("edge.a.db.op.read.calls"));
    }
}
