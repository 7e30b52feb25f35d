//! A client's metrics (`client.<c>.*`): its logical requests, their outcomes and latencies.

use super::{MetricDoc, doc};

pub(super) const CLIENTS: &[MetricDoc] = &[
    doc(
        "client.<c>.requests",
        "count",
        "logical requests the client started",
    ),
    doc(
        "client.<c>.offered_rps",
        "1/s",
        "requests started per second: the load offered, whatever became of it",
    ),
    doc(
        "client.<c>.in_flight_end",
        "count",
        "requests still unanswered when the run ended (summary only): requests = success + errors + this, with no warm-up",
    ),
    doc(
        "client.<c>.pool.<p>.in_use_mean",
        "count",
        "permits of the client's connection pool `<p>` (`bulkhead.pool`) held, time average over the measured run, and over each bucket in the series",
    ),
    doc(
        "client.<c>.pool.<p>.waiting_mean",
        "count",
        "calls waiting in line for a permit of the client's pool `<p>`, time average over the measured run, and over each bucket in the series",
    ),
    doc(
        "client.<c>.success",
        "count",
        "requests answered ok or degraded within the deadline",
    ),
    doc(
        "client.<c>.degraded",
        "count",
        "requests answered degraded (an optional call failed, or a fallback answered)",
    ),
    doc(
        "client.<c>.success_ratio",
        "ratio",
        "success / requests that finished in the window (0 when none finished)",
    ),
    doc(
        "client.<c>.ok_ratio",
        "ratio",
        "requests answered ok, not degraded / requests that finished: a fallback's answer is a success and lifts success_ratio, not this (gate it beside success_ratio on a path with a fallback)",
    ),
    doc(
        "client.<c>.goodput_rps",
        "1/s",
        "success per second of the window",
    ),
    doc(
        "client.<c>.latency_p50_ms",
        "ms",
        "median time from start to answer or give-up, over every finished request",
    ),
    doc(
        "client.<c>.latency_p90_ms",
        "ms",
        "90th percentile of that latency",
    ),
    doc(
        "client.<c>.latency_p99_ms",
        "ms",
        "99th percentile of that latency",
    ),
    doc(
        "client.<c>.latency_p999_ms",
        "ms",
        "99.9th percentile of that latency",
    ),
    doc(
        "client.<c>.latency_mean_ms",
        "ms",
        "mean of that latency (exact, not from the histogram)",
    ),
    doc("client.<c>.latency_max_ms", "ms", "largest such latency"),
    doc(
        "client.<c>.success_latency_p50_ms",
        "ms",
        "median time from start to answer of the requests answered ok or degraded alone: failures, fast or slow, do not move it (a breaker's quick refusals lower latency_p99_ms in an outage, not this)",
    ),
    doc(
        "client.<c>.success_latency_p99_ms",
        "ms",
        "99th percentile of that latency of successful requests",
    ),
    doc(
        "client.<c>.errors.<kind>",
        "count",
        "requests that failed with this outcome kind",
    ),
];
