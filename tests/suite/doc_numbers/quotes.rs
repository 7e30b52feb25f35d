//! The figures quoted outside the tables of runs, each with the words that find it and the
//! metric it is. Not here: closed forms and hand arithmetic (`1 − f⁴ = 0.9375`, `Erlang B(10,
//! 7.5) = 10.0%`), a scenario's own settings (`a 150 ms timeout`), bounds rather than figures
//! (`under 1%`, `at most 20`), and runs too slow for this test (`fanout-2000-leaves.toml`, over
//! 10 s of CPU; the `metastability-map.toml` sweep, over 500 runs).

use super::Of::{Extra, F, M, Rest};
use super::{At, Figure, Get, Quote, cell, fig, read, repo, step_at};

/// The late autoscaler's last bad second after its load step (docs/scenario.md defines it):
/// the end of the last second, counted from the step, in which under 99% of requests succeeded.
fn last_bad_second(g: &Get) -> f64 {
    let step = step_at(&read(&repo().join(g.scenario)));
    let hurt = g.run.hurt(g.variant, "web", step, 0.99);
    hurt.last_end.unwrap_or(0.0)
}

/// The span of whole seconds in which the quick start's client has no goodput: the start of
/// the first and the end of the last.
fn no_goodput(g: &Get) -> (f64, f64) {
    let series = g.run.series(g.variant, "client.web.goodput_rps");
    let width = series[1].0 - series[0].0;
    let zero: Vec<f64> = series
        .iter()
        .filter(|&&(_, v)| v == 0.0)
        .map(|&(t, _)| t)
        .collect();
    let (first, last) = (zero.first(), zero.last());
    (
        *first.expect("a second without goodput"),
        last.unwrap() + width,
    )
}

/// sre-throttling's sent rate: what reaches the backend, per second.
fn sent(g: &Get) -> f64 {
    g.per_s("service.backend.arrivals")
}

/// One metric over a variant's, as a ratio.
fn ratio(g: &Get, (a, b): (&str, &str), name: &str) -> f64 {
    g.of(a, name) / g.of(b, name)
}

const BROOKER_CURES: &str = "| policy | closed form | cascade |";
const BACKOFF: &str = "| clients | closed form, backoff | cascade | closed form, none | cascade |";
const OPEN_CLOSED: &str = "| | closed form | cascade |";
const TAIL: &str = "| case | paper | closed form | cascade |";
const HEDGE: &str = "| hedge delay | extra load, paper | cascade | call p99 |";
const SRE: &str =
    "| K | sent, closed form | cascade | accepted, closed form | cascade | sent / accepted |";

const VALIDATION: &str = "docs/validation.md";

/// cold-cache's retry without its budget, and the attempts per call it makes over the storm.
const COLD_NO_BUDGET: &str = "--set policy.db.retry={ attempts = 3, backoff = \"exponential\", \
                              base = \"10ms\", max = \"100ms\", jitter = \"full\" }";
const COLD_STORM: &str = "window.storm.edge.catalog.postgres.amplification";

/// storm-guarded's retry without its budget.
const NO_BUDGET: &str =
    "--set policy.app-api.retry={ attempts = 4, backoff = \"constant\", base = \"1ms\" }";

/// A library row of the README: the figures of one scenario's "what cascade shows".
const fn library(scenario: &'static str, figures: &'static [Figure]) -> Quote {
    Quote {
        doc: "README.md",
        at: At::Library,
        scenario,
        reps: 1,
        figures,
    }
}

pub(super) const QUOTES: &[Quote] = &[
    // docs/validation.md: Brooker's two cures, in a total outage and at 60% failures.
    Quote {
        doc: VALIDATION,
        at: At::Table(BROOKER_CURES),
        scenario: "scenarios/brooker-outage.toml",
        reps: 1,
        figures: &[
            cell(
                "plain retries, outage",
                2,
                "plain",
                "{}",
                M("edge.app.backend.amplification"),
            ),
            cell(
                "adaptive token bucket",
                2,
                "",
                "{}",
                M("edge.app.backend.amplification"),
            ),
            cell(
                "the same bucket",
                2,
                "per-success",
                "{}",
                M("edge.app.backend.amplification"),
            ),
            cell(
                "retry-only breaker, outage",
                2,
                "retry-only-breaker",
                "{}",
                M("edge.app.backend.amplification"),
            ),
        ],
    },
    Quote {
        doc: VALIDATION,
        at: At::Table(BROOKER_CURES),
        scenario: "scenarios/brooker-retry-breaker.toml",
        reps: 1,
        figures: &[
            cell(
                "retry-only breaker, 60%",
                2,
                "",
                "^{},",
                M("client.app.success_ratio"),
            ),
            cell(
                "retry-only breaker, 60%",
                2,
                "",
                ", {}",
                M("edge.app.backend.amplification"),
            ),
            cell(
                "ordinary breaker",
                2,
                "ordinary-breaker",
                "{}",
                M("client.app.success_ratio"),
            ),
            cell(
                "plain retries, 60%",
                2,
                "plain",
                "^{},",
                M("client.app.success_ratio"),
            ),
            cell(
                "plain retries, 60%",
                2,
                "plain",
                ", {}",
                M("edge.app.backend.amplification"),
            ),
        ],
    },
    // docs/validation.md, "What is Backoff For?": attempts per second reaching each server
    // during the error burst, and the paragraph under the table.
    Quote {
        doc: VALIDATION,
        at: At::Table(BACKOFF),
        scenario: "scenarios/backoff-open-serial.toml",
        reps: 1,
        figures: &[
            cell(
                "open",
                2,
                "",
                "{} /s",
                F("server-open's attempts/s over `during`", open_rate),
            ),
            cell("open", 4, "no-backoff", "{} /s", F("the same", open_rate)),
            cell(
                "serial",
                2,
                "",
                "{} /s",
                F("server-serial's attempts/s over `during`", serial_rate),
            ),
            cell(
                "serial",
                4,
                "no-backoff",
                "{} /s",
                F("the same", serial_rate),
            ),
        ],
    },
    Quote {
        doc: VALIDATION,
        at: At::Text,
        scenario: "scenarios/backoff-open-serial.toml",
        reps: 1,
        figures: &[
            fig(
                "",
                "(cascade: {} to",
                F("the lowest success over `during`, in %", |g| {
                    100.0 * fold_success(g, f64::min)
                }),
            ),
            fig(
                "",
                "to {}%): backoff",
                F("the highest success over `during`", |g| {
                    fold_success(g, f64::max)
                }),
            ),
            fig(
                "",
                "by the draws: {} calls",
                M("window.during.client.open.offered_rps"),
            ),
            fig(
                "",
                "the fault failed {}% of",
                Rest("window.during.service.server-open.success_ratio"),
            ),
            fig(
                "",
                "({} and 3",
                M("window.during.edge.open.server-open.amplification"),
            ),
            fig(
                "no-backoff",
                "and {} measured)",
                M("window.during.edge.open.server-open.amplification"),
            ),
        ],
    },
    // docs/validation.md, open and closed clients: the mean of 3 replications, as it says.
    Quote {
        doc: VALIDATION,
        at: At::Table(OPEN_CLOSED),
        scenario: "scenarios/open-closed.toml",
        reps: 3,
        figures: &[
            cell("open p99", 2, "", "{} ms", M("client.open.latency_p99_ms")),
            cell(
                "closed throughput",
                2,
                "",
                "{} /s",
                M("client.closed.goodput_rps"),
            ),
            cell(
                "closed p99",
                2,
                "",
                "{} ms",
                M("client.closed.latency_p99_ms"),
            ),
            cell(
                "both time out",
                2,
                "retry",
                "queue {} on",
                M("service.server-open.queue_mean"),
            ),
            cell(
                "the same: closed",
                2,
                "retry",
                "unchanged: {} /s",
                M("client.closed.goodput_rps"),
            ),
            cell(
                "an 80 ms timeout",
                2,
                "retry-tight",
                "queue {} on",
                M("service.server-closed.queue_mean"),
            ),
            cell(
                "an 80 ms timeout",
                2,
                "retry-tight",
                "{}% more attempts",
                Extra("edge.closed.server-closed.amplification"),
            ),
            cell(
                "an 80 ms timeout",
                2,
                "retry-tight",
                "goodput {} /s",
                M("client.closed.goodput_rps"),
            ),
        ],
    },
    // docs/validation.md, the Tail at Scale (the 2,000 leaves' rows are left out: over 10 s).
    Quote {
        doc: VALIDATION,
        at: At::Table(TAIL),
        scenario: "scenarios/fanout-hedge.toml",
        reps: 1,
        figures: &[
            cell(
                "100 leaves, 1% slow",
                3,
                "unhedged",
                "{}% fast",
                M("client.users.success_ratio"),
            ),
            cell(
                "100 leaves, 1% slow",
                3,
                "unhedged",
                "({} requests)",
                M("client.users.requests"),
            ),
            cell(
                "the same, hedged after 20 ms",
                3,
                "",
                "^{}%,",
                M("client.users.success_ratio"),
            ),
            cell(
                "the same, hedged after 20 ms",
                3,
                "",
                "p99 {} ms",
                M("client.users.latency_p99_ms"),
            ),
            cell(
                "the same, hedged after 20 ms",
                3,
                "",
                "{}% more shard calls",
                Extra("edge.search.shard.amplification"),
            ),
        ],
    },
    // docs/validation.md, hedging at the 95th percentile.
    Quote {
        doc: VALIDATION,
        at: At::Table(HEDGE),
        scenario: "scenarios/hedge-p95.toml",
        reps: 1,
        figures: &[
            cell(
                "none",
                2,
                "unhedged",
                "{}",
                Extra("edge.api.store.amplification"),
            ),
            cell(
                "none",
                3,
                "unhedged",
                "{} ms",
                M("edge.api.store.call_latency_p99_ms"),
            ),
            cell(
                "fixed, at the true p95",
                2,
                "",
                "{}%",
                Extra("edge.api.store.amplification"),
            ),
            cell(
                "fixed, at the true p95",
                3,
                "",
                "{} ms",
                M("edge.api.store.call_latency_p99_ms"),
            ),
            cell(
                "learned p95",
                2,
                "learned",
                "{}%",
                Extra("edge.api.store.amplification"),
            ),
            cell(
                "learned p95",
                3,
                "learned",
                "{} ms",
                M("edge.api.store.call_latency_p99_ms"),
            ),
        ],
    },
    // docs/validation.md, the SRE book's client-side throttling: sent and accepted per
    // second, and their ratio.
    Quote {
        doc: VALIDATION,
        at: At::Table(SRE),
        scenario: "scenarios/sre-throttling.toml",
        reps: 1,
        figures: &[
            cell(
                "2",
                2,
                "",
                "{} /s",
                F("service.backend.arrivals per second", sent),
            ),
            cell("2", 4, "", "{} /s", M("client.app.goodput_rps")),
            cell(
                "2",
                5,
                "",
                "{}",
                F("arrivals / admitted", sent_per_accepted),
            ),
            cell(
                "1.5",
                2,
                "k-1-5",
                "{} /s",
                F("service.backend.arrivals per second", sent),
            ),
            cell("1.5", 4, "k-1-5", "{} /s", M("client.app.goodput_rps")),
            cell(
                "1.5",
                5,
                "k-1-5",
                "{}",
                F("arrivals / admitted", sent_per_accepted),
            ),
            cell(
                "1.1",
                2,
                "k-1-1",
                "{} /s",
                F("service.backend.arrivals per second", sent),
            ),
            cell("1.1", 4, "k-1-1", "{} /s", M("client.app.goodput_rps")),
            cell(
                "1.1",
                5,
                "k-1-1",
                "{}",
                F("arrivals / admitted", sent_per_accepted),
            ),
        ],
    },
    // docs/policies.md, the retry-only breaker's worked numbers.
    Quote {
        doc: "docs/policies.md",
        at: At::Text,
        scenario: "scenarios/brooker-retry-breaker.toml",
        reps: 1,
        figures: &[
            fig("", "success (cascade {}) at", M("client.app.success_ratio")),
            fig(
                "",
                ") at {} attempts a call; the ordinary",
                M("edge.app.backend.amplification"),
            ),
            fig(
                "ordinary-breaker",
                "too and {} % succeed",
                M("client.app.success_ratio"),
            ),
        ],
    },
    // docs/gates.md: storm-guarded's four expectations without its budget, and seed 003's
    // claims.
    Quote {
        doc: "docs/gates.md",
        at: At::Text,
        scenario: "scenarios/storm-guarded.toml",
        reps: 1,
        figures: &[
            fig(NO_BUDGET, "expectations read {},", M("fault.0.recovered")),
            fig(NO_BUDGET, "read 0, {}, ", M("fault.0.recovery_s")),
            fig(
                NO_BUDGET,
                ", {} and 0: all",
                M("edge.app.api.amplification"),
            ),
            fig(
                NO_BUDGET,
                "and {}: all ✗",
                M("window.expect-3.client.app.goodput_rps"),
            ),
        ],
    },
    Quote {
        doc: "docs/gates.md",
        at: At::Text,
        scenario: "scenarios/auth-retry-storm.toml",
        reps: 1,
        figures: &[fig(
            "",
            "give auth {} attempts per call",
            M("window.outage.edge.api.auth.amplification"),
        )],
    },
    Quote {
        doc: "docs/gates.md",
        at: At::Text,
        scenario: "scenarios/recommendations-meltdown.toml",
        reps: 1,
        figures: &[
            fig(
                "breaker",
                "a median of {} ms against",
                M("window.slow-recs.client.shoppers.latency_p50_ms"),
            ),
            fig(
                "timeout",
                "ms against {}) and spares",
                M("window.slow-recs.client.shoppers.latency_p50_ms"),
            ),
            fig(
                "breaker",
                "spares the failing service {}% of its calls",
                Rest("window.slow-recs.edge.page.recommendations.amplification"),
            ),
        ],
    },
    Quote {
        doc: "docs/gates.md",
        at: At::Text,
        scenario: "scenarios/deadline-600ms.toml",
        reps: 1,
        figures: &[
            fig("", "machine\": {}% succeed", M("client.app.success_ratio")),
            fig(
                "",
                "takes the whole {} ms. Two",
                M("client.app.latency_max_ms"),
            ),
            fig(
                "fits",
                "and fail at {} ms instead",
                M("client.app.latency_max_ms"),
            ),
        ],
    },
    Quote {
        doc: "docs/gates.md",
        at: At::Text,
        scenario: "scenarios/timeout-too-short.toml",
        reps: 1,
        figures: &[fig(
            "one-try",
            "median answers {}% of",
            M("client.app.success_ratio"),
        )],
    },
    // docs/guide.md, the scenario language's examples.
    Quote {
        doc: "docs/guide.md",
        at: At::Text,
        scenario: "scenarios/cold-cache.toml",
        reps: 1,
        figures: &[
            fig("", "keeps the storm at {} attempts per call", M(COLD_STORM)),
            fig(
                COLD_NO_BUDGET,
                "per call instead of {} without",
                M(COLD_STORM),
            ),
        ],
    },
    Quote {
        doc: "docs/guide.md",
        at: At::Text,
        scenario: "scenarios/fanout-hedge.toml",
        reps: 1,
        figures: &[fig(
            "",
            "leaves {}% of them slow",
            Rest("client.users.success_ratio"),
        )],
    },
    // README.md, the prose under the charts.
    Quote {
        doc: "README.md",
        at: At::Text,
        scenario: "scenarios/retry-storm.toml",
        reps: 1,
        figures: &[
            fig(
                "",
                "take ({} ms over the last 20 s)",
                M("window.last-20s.client.app.latency_p99_ms"),
            ),
            fig(
                "one-attempt",
                "caps the tail at its {} ms",
                M("client.app.latency_max_ms"),
            ),
        ],
    },
    Quote {
        doc: "README.md",
        at: At::Text,
        scenario: "scenarios/auth-retry-storm.toml",
        reps: 1,
        figures: &[fig(
            "",
            "holding it at {}%",
            M("window.last-30s.service.auth.utilization"),
        )],
    },
    Quote {
        doc: "README.md",
        at: At::Text,
        scenario: "scenarios/recommendations-meltdown.toml",
        reps: 1,
        figures: &[
            fig(
                "",
                "every page at the shoppers' {} s",
                F("client.shoppers.latency_p50_ms in s", |g| {
                    g.m("client.shoppers.latency_p50_ms") / 1e3
                }),
            ),
            fig(
                "timeout",
                "a timeout: a {} ms median",
                M("client.shoppers.latency_p50_ms"),
            ),
            fig(
                "breaker",
                "a breaker: a {} ms median",
                M("client.shoppers.latency_p50_ms"),
            ),
            fig(
                "breaker",
                "run, {} ms while",
                M("window.slow-recs.client.shoppers.latency_p50_ms"),
            ),
        ],
    },
    Quote {
        doc: "README.md",
        at: At::Text,
        scenario: "docs/examples/payments.toml",
        reps: 1,
        figures: &[
            fig(
                "--set client.web.deadline=3s",
                "Two retries keep {}% more checkouts",
                F("base / one-retry - 1, client.web.success_ratio", |g| {
                    ratio(g, ("", "one-retry"), "client.web.success_ratio") - 1.0
                }),
            ),
            fig(
                "--set client.web.deadline=3s",
                "for {}% more attempts",
                F(
                    "base / one-retry - 1, edge.checkout.payments.amplification",
                    |g| ratio(g, ("", "one-retry"), "edge.checkout.payments.amplification") - 1.0,
                ),
            ),
        ],
    },
    // README.md, the scenario library: each row's "what cascade shows".
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
    library(
        "scenarios/fanout-hedge.toml",
        &[
            fig(
                "unhedged",
                "unhedged {}% of",
                M("client.users.success_ratio"),
            ),
            fig("", "20 ms {}% do", M("client.users.success_ratio")),
            fig(
                "",
                "for {}% more shard calls",
                Extra("edge.search.shard.amplification"),
            ),
        ],
    ),
    library(
        "scenarios/refusal-storm.toml",
        &[
            fig(
                "free-refusals",
                "falls from {}/s",
                M("fault.0.goodput_during_rps"),
            ),
            fig("", "keeps {}/s", M("fault.0.goodput_during_rps")),
        ],
    ),
    library(
        "scenarios/brooker-retries.toml",
        &[
            fig("", "^{} and", M("client.app.success_ratio")),
            fig("", "and {} at f = 0.5", M("edge.app.backend.amplification")),
            fig("f90", "0.5, {} and", M("client.app.success_ratio")),
            fig(
                "f90",
                "and {} at f = 0.9",
                M("edge.app.backend.amplification"),
            ),
        ],
    ),
    library(
        "scenarios/backoff-open-serial.toml",
        &[
            fig(
                "",
                "burst, {} attempts/s",
                F("server-open's attempts/s over `during`", open_rate),
            ),
            fig("no-backoff", "and {}/s without;", F("the same", open_rate)),
            fig(
                "",
                "send {}/s with it",
                F("server-serial's attempts/s over `during`", serial_rate),
            ),
            fig(
                "no-backoff",
                "and {}/s without (",
                F("the same", serial_rate),
            ),
        ],
    ),
    Quote {
        doc: "README.md",
        at: At::Library,
        scenario: "scenarios/open-closed.toml",
        reps: 3,
        figures: &[
            fig("", "open p99 is {} ms", M("client.open.latency_p99_ms")),
            fig("", "closed one {} ms", M("client.closed.latency_p99_ms")),
            fig("retry", "stays at {}/s", M("client.closed.goodput_rps")),
        ],
    },
    library(
        "scenarios/sre-throttling.toml",
        &[
            fig(
                "",
                "capacity: {}×,",
                F("arrivals / admitted", sent_per_accepted),
            ),
            fig(
                "k-1-5",
                "×, {}× and",
                F("arrivals / admitted", sent_per_accepted),
            ),
            fig(
                "k-1-1",
                "and {}× for K",
                F("arrivals / admitted", sent_per_accepted),
            ),
        ],
    ),
    library(
        "scenarios/brooker-outage.toml",
        &[
            fig(
                "plain",
                "callee: {} attempts",
                M("edge.app.backend.amplification"),
            ),
            fig("", "retries, {} with", M("edge.app.backend.amplification")),
            fig(
                "per-success",
                "({} earning",
                M("edge.app.backend.amplification"),
            ),
            fig(
                "retry-only-breaker",
                "success), {} with",
                M("edge.app.backend.amplification"),
            ),
        ],
    ),
    library(
        "scenarios/brooker-retry-breaker.toml",
        &[
            fig("", "retry-only, {} succeed", M("client.app.success_ratio")),
            fig(
                "",
                "at {} attempts a call",
                M("edge.app.backend.amplification"),
            ),
            fig(
                "ordinary-breaker",
                "breaker, {};",
                M("client.app.success_ratio"),
            ),
            fig(
                "plain",
                "plain retries, {} at",
                M("client.app.success_ratio"),
            ),
            fig("plain", " at {}$", M("edge.app.backend.amplification")),
        ],
    ),
    library(
        "scenarios/finagle-accrual.toml",
        &[
            fig(
                "",
                "60 s: {} requests fail",
                M("client.app.errors.unavailable"),
            ),
            fig("", "fail of {} (", M("client.app.requests")),
            fig(
                "per-host-breaker",
                "instead, {} succeed",
                M("client.app.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/grpc-hedge-throttling.toml",
        &[
            fig(
                "",
                "retries, {} attempts",
                M("edge.app.backend.amplification"),
            ),
            fig(
                "own-hedges",
                "own, {}$",
                M("edge.app.backend.amplification"),
            ),
        ],
    ),
    library(
        "scenarios/paced-pollers.toml",
        &[
            fig("", "exactly {} requests/s", M("client.pollers.goodput_rps")),
            fig(
                "",
                "({} in the window",
                M("window.slow.client.pollers.requests"),
            ),
            fig(
                "",
                "utilization {} by",
                M("window.slow.service.status-a.utilization"),
            ),
            fig(
                "",
                "fall to {} requests",
                M("window.slow.client.users.requests"),
            ),
        ],
    ),
    library(
        "scenarios/retry-after-max.toml",
        &[
            fig(
                "",
                "spreads its {} attempts",
                M("window.throttled.edge.app.api.amplification"),
            ),
            fig(
                "",
                "over {} ms of backoff",
                M("window.throttled.edge.app.api.call_latency_p50_ms"),
            ),
            fig(
                "replace",
                "within {} ms",
                M("window.throttled.edge.app.api.call_latency_p99_ms"),
            ),
        ],
    ),
    library(
        "scenarios/quickstart.toml",
        &[
            fig(
                "",
                "from {} s to",
                F("the first second without goodput", |g| no_goodput(g).0),
            ),
            fig(
                "",
                "s to {} s the",
                F("the end of the last second without goodput", |g| {
                    no_goodput(g).1
                }),
            ),
            fig(
                "--set service.db.discipline=lifo",
                "({}%,",
                M("client.web.success_ratio"),
            ),
            fig(
                "--set service.db.queue=40",
                "%, {}%, ",
                M("client.web.success_ratio"),
            ),
            fig(
                "--set service.db.drop_expired=true",
                "{}% success against",
                M("client.web.success_ratio"),
            ),
            fig("", "against {}%)", M("client.web.success_ratio")),
        ],
    ),
    library(
        "scenarios/retry-storm.toml",
        &[fig(
            "",
            "^{} attempts a call",
            M("window.last-20s.edge.app.api.amplification"),
        )],
    ),
    library(
        "scenarios/storm-guarded.toml",
        &[
            fig("", "recovered {} s after", M("fault.0.recovery_s")),
            fig("", "amplification {};", M("edge.app.api.amplification")),
        ],
    ),
    library(
        "scenarios/serial-timeouts.toml",
        &[
            fig(
                "",
                "each call at {} ms",
                M("window.slow.edge.api.db.call_latency_p50_ms"),
            ),
            fig(
                "",
                "writing {} ms of answers",
                F("wasted ms per request over `slow`", |g| {
                    g.m("window.slow.service.api.wasted_work_s")
                        / g.m("window.slow.service.api.arrivals")
                        * 1e3
                }),
            ),
            fig(
                "propagated",
                "fails at {} ms",
                M("window.slow.client.users.latency_p50_ms"),
            ),
        ],
    ),
    library(
        "scenarios/timeout-chain-reversed.toml",
        &[
            fig(
                "",
                "wastes {} worker-seconds",
                M("window.slow.service.payment.wasted_work_s"),
            ),
            fig(
                "",
                "fall to {}%",
                M("window.slow.client.status.success_ratio"),
            ),
            fig(
                "ordered",
                "still wastes {} s",
                M("window.slow.service.payment.wasted_work_s"),
            ),
        ],
    ),
    library(
        "scenarios/event-bus-async.toml",
        &[
            fig(
                "",
                "stay at {}%",
                M("window.slow-bus.client.shop.success_ratio"),
            ),
            fig(
                "",
                "a {} ms p99",
                M("window.slow-bus.client.shop.latency_p99_ms"),
            ),
        ],
    ),
    library(
        "scenarios/liveness-death-spiral.toml",
        &[
            fig("", "no restart, {}/s", M("fault.0.goodput_after_rps")),
            fig(
                "in-queue",
                "timeout: {} restarts",
                M("service.api.restarts"),
            ),
            fig(
                "in-queue",
                "and {}/s after it",
                M("fault.0.goodput_after_rps"),
            ),
            fig("patient", "none, {}/s$", M("fault.0.goodput_after_rps")),
        ],
    ),
    library(
        "scenarios/slow-start-rejoin.toml",
        &[
            fig("full-rate", "success {}%,", M("client.web.success_ratio")),
            fig(
                "full-rate",
                "%, {} errors",
                F("deadline_exceeded + overloaded errors", |g| {
                    g.m("client.web.errors.deadline_exceeded") + g.m("client.web.errors.overloaded")
                }),
            ),
            fig(
                "short-window",
                "20 s one {}%",
                M("client.web.success_ratio"),
            ),
            fig(
                "least-outstanding",
                "queues, {}%$",
                M("client.web.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/late-autoscaler.toml",
        &[
            fig(
                "",
                "startup {}% succeed",
                M("window.step.client.web.success_ratio"),
            ),
            fig(
                "",
                "second {} s after",
                F("the last bad second after the step", last_bad_second),
            ),
            fig(
                "quick",
                "startup {}% (",
                M("window.step.client.web.success_ratio"),
            ),
            fig("quick", "% ({} s); a 60", F("the same", last_bad_second)),
            fig(
                "late",
                "sync {}% (",
                M("window.step.client.web.success_ratio"),
            ),
            fig("late", "% ({} s); a sweep", F("the same", last_bad_second)),
        ],
    ),
    library(
        "scenarios/readiness-fail-open.toml",
        &[
            fig("refuse", "falls from {}/s", M("fault.0.goodput_before_rps")),
            fig("refuse", "to {}/s and", M("fault.0.goodput_during_rps")),
            fig("refuse", "success to {}%", M("client.web.success_ratio")),
        ],
    ),
    library(
        "scenarios/db-pool-starvation.toml",
        &[
            fig("", "holds {} queries", M("service.db.in_system_mean")),
            fig(
                "",
                "answers {}%;",
                M("client.shoppers.op.browse.success_ratio"),
            ),
            fig(
                "--set policy.db-pool.bulkhead.release=\"return\"",
                "lets {} pile in",
                M("service.db.in_system_mean"),
            ),
            fig(
                "--set policy.db-pool.bulkhead.release=\"return\"",
                "starves it ({}%)",
                M("client.shoppers.op.browse.success_ratio"),
            ),
        ],
    ),
    library(
        "scenarios/preset-attempts.toml",
        &[
            fig("", "exactly {},", M("service.r4j-api.attempts_per_request")),
            fig("", ", {} and", M("service.polly-api.attempts_per_request")),
            fig(
                "",
                "and {} attempts",
                M("service.envoy-api.attempts_per_request"),
            ),
        ],
    ),
    library(
        "scenarios/db-pool-shared.toml",
        &[
            fig("", "holds {} queries", M("service.db.in_system_mean")),
            fig(
                "--set policy.history-db.bulkhead.pool=\"history\"",
                "and {} pile in",
                M("service.db.in_system_mean"),
            ),
        ],
    ),
    library(
        "scenarios/retry-loop-bulkhead.toml",
        &[
            fig(
                "",
                "({} retries)",
                M("window.outage.edge.orders.payments.retries"),
            ),
            fig(
                "",
                "answers {}%, p99",
                M("window.outage.client.shoppers.op.browse.success_ratio"),
            ),
            fig(
                "",
                "p99 {} ms",
                M("window.outage.client.shoppers.op.browse.latency_p99_ms"),
            ),
            fig(
                "--set policy.pay.bulkhead.wraps=\"attempt\"",
                "full, {} requests queue",
                M("window.outage.service.orders.queue_mean"),
            ),
            fig(
                "--set policy.pay.bulkhead.wraps=\"attempt\"",
                "falls to {}% at",
                M("window.outage.client.shoppers.op.browse.success_ratio"),
            ),
        ],
    ),
];

/// Attempts per second reaching each of backoff-open-serial's servers during the burst.
fn open_rate(g: &Get) -> f64 {
    g.window_per_s("during", "window.during.service.server-open.arrivals")
}

fn serial_rate(g: &Get) -> f64 {
    g.window_per_s("during", "window.during.service.server-serial.arrivals")
}

/// The lowest or highest success over the burst, of both clients in the base and `no-backoff`.
fn fold_success(g: &Get, pick: fn(f64, f64) -> f64) -> f64 {
    let all = ["", "no-backoff"].into_iter().flat_map(|v| {
        ["open", "serial"].map(|c| g.of(v, &format!("window.during.client.{c}.success_ratio")))
    });
    all.reduce(pick).unwrap()
}

/// sre-throttling's sent / accepted: what reaches the backend over what it admits.
fn sent_per_accepted(g: &Get) -> f64 {
    g.m("service.backend.arrivals") / g.m("service.backend.admitted")
}

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
