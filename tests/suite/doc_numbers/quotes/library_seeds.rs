//! The README library table's first rows, the seeds' claims (deadlines, retries, breakers,
//! bulkheads, hedging, overload): product-page-deadline to timeout-too-short.

use super::{library, ratio};
use crate::doc_numbers::quote::Of::{Extra, F, M, Rest};
use crate::doc_numbers::quote::{Get, Quote, fig};

pub(super) const QUOTES: &[Quote] = &[
    library(
        "scenarios/product-page-deadline.toml",
        &[fig(
            "",
            "answers at {} ms",
            M("window.slow-inventory.client.page.latency_max_ms"),
        )],
    ),
    library(
        "scenarios/layered-retries.toml",
        &[
            fig(
                "seed-000",
                "exactly {},",
                M("service.b.attempts_per_request"),
            ),
            fig("", ", {} and", M("service.c.attempts_per_request")),
            fig(
                "",
                "and {} attempts per request",
                M("service.e.attempts_per_request"),
            ),
            fig(
                "edge-only",
                "only leaves {}$",
                M("service.e.attempts_per_request"),
            ),
        ],
    ),
    library(
        "scenarios/payment-budget-800ms.toml",
        &[
            fig("", "{}% pay", M("client.shoppers.success_ratio")),
            fig(
                "",
                "at {} attempts",
                M("edge.checkout.payment.amplification"),
            ),
            fig(
                "all-to-payment",
                "fails the {}% of hung",
                Rest("client.shoppers.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/breaker-counts-health.toml",
        &[
            fig(
                "",
                "payments sees {} calls",
                M("window.outage.service.payments.arrivals"),
            ),
            fig(
                "",
                "({} that open it",
                F("attempts less half-open probes over `outage`", |g| {
                    g.m("window.outage.edge.checkout.payments.attempts")
                        - g.m("window.outage.edge.checkout.payments.half_open_probes")
                }),
            ),
            fig(
                "",
                "then {} half-open probes",
                M("window.outage.edge.checkout.payments.half_open_probes"),
            ),
            fig(
                "",
                "the p99 is {} ms",
                M("window.outage.client.shop.latency_p99_ms"),
            ),
        ],
    ),
    library(
        "scenarios/breaker-half-open.toml",
        &[
            fig(
                "",
                "({} openings",
                M("window.hang.edge.checkout.payments.breaker_opens"),
            ),
            fig(
                "",
                "openings, {} probes",
                M("window.hang.edge.checkout.payments.half_open_probes"),
            ),
            fig(
                "",
                "probes, {} attempts",
                M("window.hang.edge.checkout.payments.attempts"),
            ),
            fig(
                "no-limit",
                "the limit {} probes",
                M("window.hang.edge.checkout.payments.half_open_probes"),
            ),
        ],
    ),
    library(
        "scenarios/retry-waves.toml",
        &[
            fig(
                "no-jitter",
                "waves of {},",
                M("window.at-100ms.edge.fleet.api.attempts"),
            ),
            fig(
                "no-jitter",
                ", {} and",
                M("window.at-300ms.edge.fleet.api.attempts"),
            ),
            fig(
                "no-jitter",
                "and {} in 10 ms",
                M("window.at-700ms.edge.fleet.api.attempts"),
            ),
            fig(
                "",
                "outage for {} requests",
                M("client.fleet.errors.refused"),
            ),
        ],
    ),
    library(
        "scenarios/retry-after-deadline.toml",
        &[
            fig(
                "",
                "retried, {}% succeed",
                M("window.fits.client.users.success_ratio"),
            ),
            fig(
                "",
                "{}% fail at once",
                Rest("window.too-long.client.users.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/acme-checkout.toml",
        &[
            fig("", "pending at {} ms", M("client.shopper.latency_max_ms")),
            fig(
                "fails-fast",
                "answered at {} ms",
                M("client.shopper.latency_max_ms"),
            ),
        ],
    ),
    library(
        "scenarios/payment-idempotency.toml",
        &[
            fig(
                "--set service.payments.dedup_window=\"0s\"",
                "{} orders charged twice",
                M("edge.checkout.payments.duplicates"),
            ),
            fig(
                "--set service.payments.dedup_window=\"0s\"",
                "(`duplicates` {})",
                M("edge.checkout.payments.duplicates"),
            ),
            fig("", "({} `dedup_hits`)", M("service.payments.dedup_hits")),
        ],
    ),
    library(
        "scenarios/payment-bulkhead.toml",
        &[
            fig("", "^{} in flight", M("service.payments.in_system_mean")),
            fig(
                "random",
                "but {}% under random",
                Rest("client.shoppers.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/order-api.toml",
        &[
            fig(
                "",
                "checkout at {}% with",
                M("window.ft-01.client.web.op.checkout.success_ratio"),
            ),
            fig(
                "",
                "unchanged ({} s)",
                F(
                    "window.ft-01.client.web.op.checkout.latency_p99_ms in s",
                    |g| g.m("window.ft-01.client.web.op.checkout.latency_p99_ms") / 1e3,
                ),
            ),
            fig(
                "",
                "up from {}% to",
                F("degraded / requests of checkout over `calm`", |g| {
                    degraded_share(g, "calm")
                }),
            ),
            fig(
                "",
                "to {}% under FT-01",
                F("degraded / requests of checkout over `ft-01`", |g| {
                    degraded_share(g, "ft-01")
                }),
            ),
            fig(
                "",
                "retries {}% of payment calls",
                F("retries / calls to payment over `ft-02`", |g| {
                    retry_share(g, "ft-02")
                }),
            ),
            fig(
                "",
                "with {}% of orders pending",
                F("fallbacks of payment / checkouts over `ft-02`", |g| {
                    g.m("window.ft-02.edge.order-api.payment.fallbacks")
                        / g.m("window.ft-02.client.web.op.checkout.requests")
                }),
            ),
            fig(
                "",
                "p99: {}%",
                Rest("window.calm.edge.order-api.recommendations.success_ratio"),
            ),
            fig(
                "--set policy.payment.reserve=0ms",
                "or {}% of checkouts fail",
                Rest("window.calm.client.web.op.checkout.success_ratio"),
            ),
            fig(
                "floor",
                "allows {}% with",
                F("retries / calls to payment over `ft-02`", |g| {
                    retry_share(g, "ft-02")
                }),
            ),
        ],
    ),
    library(
        "scenarios/inventory-bulkhead.toml",
        &[
            fig(
                "",
                "^{} in flight in calm",
                M("window.calm.service.inventory.in_system_mean"),
            ),
            fig(
                "",
                "slowed, {} in flight",
                M("window.slow.service.inventory.in_system_mean"),
            ),
            fig(
                "",
                "{}/s through",
                M("window.slow.service.inventory.throughput_rps"),
            ),
            fig(
                "",
                "keeps a {} ms p99",
                M("window.slow.client.shop.op.status.latency_p99_ms"),
            ),
            fig(
                "unbounded",
                "bulkhead {} in flight",
                M("window.slow.service.inventory.in_system_mean"),
            ),
            fig(
                "no-bulkhead",
                "waits {} s",
                F(
                    "window.slow.client.shop.op.status.latency_p99_ms in s",
                    |g| g.m("window.slow.client.shop.op.status.latency_p99_ms") / 1e3,
                ),
            ),
        ],
    ),
    library(
        "scenarios/queue-wait.toml",
        &[
            fig("", "^{} ms of wait", M("service.api.wait_mean_ms")),
            fig("", "all {}/s served", M("service.api.goodput_rps")),
        ],
    ),
    library(
        "scenarios/overload-criticality.toml",
        &[
            fig("", "goodput {}/s of", M("client.interactive.goodput_rps")),
            fig(
                "no-shedding",
                "collapses to {}$",
                M("client.interactive.goodput_rps"),
            ),
        ],
    ),
    library(
        "scenarios/breaker-backoff.toml",
        &[
            fig(
                "",
                "^{} openings",
                M("edge.checkout.inventory.breaker_opens"),
            ),
            fig(
                "flat",
                "({} with a flat",
                M("edge.checkout.inventory.breaker_opens"),
            ),
        ],
    ),
    library(
        "scenarios/timeout-percentile.toml",
        &[
            fig(
                "",
                "gives up on {}% of healthy",
                Rest("client.app.success_ratio"),
            ),
            fig(
                "at-p99",
                "at the p99, {}%",
                Rest("client.app.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/backup-overload.toml",
        &[
            fig(
                "",
                "runs {}% busy",
                M("window.primary-down.service.backup.utilization"),
            ),
            fig(
                "",
                "saves only {}% of reads",
                M("window.primary-down.client.catalog.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/breaker-wrapping.toml",
        &[
            fig(
                "",
                "and {}% succeed",
                M("window.flaky.client.app.success_ratio"),
            ),
            fig(
                "",
                "at {} attempts a call",
                M("window.flaky.edge.api.dep.amplification"),
            ),
        ],
    ),
    library(
        "scenarios/hedge-p95.toml",
        &[
            fig(
                "",
                "hedges {}% of calls",
                Extra("edge.api.store.amplification"),
            ),
            fig(
                "unhedged",
                "p99 from {} to",
                M("edge.api.store.call_latency_p99_ms"),
            ),
            fig("", "to {} ms;", M("edge.api.store.call_latency_p99_ms")),
            fig(
                "learned",
                "hedges {}%, learning",
                Extra("edge.api.store.amplification"),
            ),
        ],
    ),
    library(
        "scenarios/shipping-product.toml",
        &[
            fig(
                "",
                "keeps {}% and",
                M("window.slow-shipping.client.browsers.op.product.success_ratio"),
            ),
            fig(
                "",
                "a {} ms p99",
                M("window.slow-shipping.client.browsers.op.product.latency_p99_ms"),
            ),
            fig(
                "",
                "{}% of pages answered",
                F("degraded / requests of product over `slow-shipping`", |g| {
                    g.m("window.slow-shipping.client.browsers.op.product.degraded")
                        / g.m("window.slow-shipping.client.browsers.op.product.requests")
                }),
            ),
            fig(
                "",
                "against {} of",
                M("window.calm.client.browsers.op.product.degraded"),
            ),
            fig(
                "",
                "of {} in calm",
                M("window.calm.client.browsers.op.product.requests"),
            ),
            fig(
                "shared-pool",
                "({}% succeed)",
                M("window.slow-shipping.client.browsers.op.product.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/login-analytics.toml",
        &[
            fig(
                "",
                "lets {}/s through",
                M("window.slow-events.service.api.op.analytics.throughput_rps"),
            ),
            fig(
                "",
                "stay at {}% with",
                M("window.slow-events.client.users.op.login.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/auth-retry-storm.toml",
        &[fig(
            "",
            "^{} attempts a call",
            M("window.outage.edge.api.auth.amplification"),
        )],
    ),
    library(
        "scenarios/recommendations-meltdown.toml",
        &[
            fig(
                "",
                "(median {} of timeout-only)",
                F("breaker's median over `slow-recs` / timeout's", |g| {
                    ratio(
                        g,
                        ("breaker", "timeout"),
                        "window.slow-recs.client.shoppers.latency_p50_ms",
                    )
                }),
            ),
            fig(
                "breaker",
                "dependency {}% of its calls",
                Rest("window.slow-recs.edge.page.recommendations.amplification"),
            ),
        ],
    ),
    library(
        "scenarios/deadline-600ms.toml",
        &[
            fig("", "so: {}% succeed", M("client.app.success_ratio")),
            fig("", "the whole {} ms", M("client.app.latency_max_ms")),
        ],
    ),
    library(
        "scenarios/timeout-too-short.toml",
        &[
            fig(
                "one-try",
                "answers {}% at one",
                M("client.app.success_ratio"),
            ),
            fig("", "and {}% at three", M("client.app.success_ratio")),
        ],
    ),
];

/// order-api's checkouts answered degraded, as a share, over a window.
fn degraded_share(g: &Get, window: &str) -> f64 {
    let m = |what: &str| g.m(&format!("window.{window}.client.web.op.checkout.{what}"));
    m("degraded") / m("requests")
}

/// order-api's retries to payment, as a share of its calls, over a window.
fn retry_share(g: &Get, window: &str) -> f64 {
    let m = |what: &str| g.m(&format!("window.{window}.edge.order-api.payment.{what}"));
    m("retries") / m("calls")
}
