//! Which way is better for a metric, so a comparison with a baseline can call a change an
//! improvement or a regression. Metrics that only describe the load (requests, arrivals,
//! attempts, utilization) have no better direction: a change in them is just reported.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

/// The better direction of a metric, by the last part of its name.
pub fn better(metric: &str) -> Option<Better> {
    // `window.<w>.<metric>` is judged like the metric; `errors.<kind>` and `shed.<class>` by
    // their family.
    let parts: Vec<&str> = metric.split('.').collect();
    let last = parts.last().copied().unwrap_or("");
    let family = parts.len().checked_sub(2).map_or("", |i| parts[i]);
    if matches!(family, "errors" | "shed") {
        return Some(Better::Lower);
    }
    const HIGHER: [&str; 10] = [
        "stopped_at_s",
        "success",
        "success_ratio",
        "ok_ratio",
        "goodput_rps",
        "goodput_after_rps",
        "goodput_during_rps",
        "throughput_rps",
        "served",
        "recovered",
    ];
    const LOWER: [&str; 31] = [
        "false_pages",
        "detect_s",
        "abandoned",
        "diverged",
        "amplification",
        "amplification_sent",
        "attempts_per_request",
        "breaker_open_s",
        "breaker_opens",
        "budget_exhausted",
        "hedge_budget_exhausted",
        "dropped_expired",
        "duplicates",
        "in_flight_end",
        "in_system_mean",
        "queue_mean",
        "waiting_mean",
        "rejected",
        "rejected_breaker",
        "rejected_bulkhead",
        "limited",
        "rate_limited",
        "delayed",
        "throttled",
        "retries",
        "recovery_s",
        "shed_codel",
        "unanswered",
        "wasted_share",
        "wasted_work_s",
        "ejections",
    ];
    if HIGHER.contains(&last) {
        Some(Better::Higher)
    } else if LOWER.contains(&last) || last.ends_with("_ms") {
        Some(Better::Lower)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goodput_up_latency_and_errors_down_load_neither() {
        assert_eq!(better("client.web.goodput_rps"), Some(Better::Higher));
        assert_eq!(
            better("window.storm.client.web.success_ratio"),
            Some(Better::Higher)
        );
        assert_eq!(better("fault.0.recovered"), Some(Better::Higher));
        assert_eq!(better("client.web.latency_p99_ms"), Some(Better::Lower));
        assert_eq!(better("service.db.wait_mean_ms"), Some(Better::Lower));
        assert_eq!(better("client.web.errors.timeout"), Some(Better::Lower));
        assert_eq!(better("service.api.shed.sheddable"), Some(Better::Lower));
        assert_eq!(better("edge.web.api.amplification"), Some(Better::Lower));
        assert_eq!(better("client.web.requests"), None);
        assert_eq!(better("service.api.utilization"), None);
        assert_eq!(better("edge.web.api.attempts"), None);
        // A branch's counts describe the load a step sends on, not how well it went.
        assert_eq!(better("service.api.step.miss.taken"), None);
        assert_eq!(better("service.api.step.1.skipped"), None);
    }
}
