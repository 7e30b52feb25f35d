//! The figures of docs/validation.md, beside published results and their closed forms:
//! Brooker's cures, backoff (open and serial clients), open and closed clients, the Tail at
//! Scale, hedging at the p95 and the SRE book's client-side throttling.

use crate::doc_numbers::quote::Of::{self, Extra, F, M, Ratio, Rest};
use crate::doc_numbers::quote::{At, Get, Quote, cell, fig};

/// sre-throttling's sent rate: what reaches the backend, per second.
fn sent(g: &Get) -> f64 {
    g.per_s("service.backend.arrivals")
}

const BROOKER_CURES: &str = "| policy | closed form | cascade |";
const BACKOFF: &str = "| clients | closed form, backoff | cascade | closed form, none | cascade |";
const OPEN_CLOSED: &str = "| | closed form | cascade |";
const TAIL: &str = "| case | paper | closed form | cascade |";
const HEDGE: &str = "| hedge delay | extra load, paper | cascade | call p99 |";
const SRE: &str =
    "| K | sent, closed form | cascade | accepted, closed form | cascade | sent / accepted |";

const VALIDATION: &str = "docs/validation.md";

/// sre-throttling at K = 1.1 "after 1,200 s of warm-up", with its 30 s window and with 120 s.
const SRE_LATE: &str = "--set scenario.warmup=1200s --set policy.throttled.throttle.k=1.1";
const SRE_LATE_120: &str = "--set scenario.warmup=1200s --set policy.throttled.throttle.k=1.1 \
                            --set policy.throttled.throttle.window=120s";

/// What reaches the backend over what it admits, of the run's one variant (an `F` would run
/// the scenario's variants too).
const SENT_PER_ACCEPTED: Of = Ratio("service.backend.arrivals", "service.backend.admitted");

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
    // docs/validation.md, the Tail at Scale: 100 leaves, then 2,000 (about 12 s of CPU, run
    // beside the rest).
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
    Quote {
        doc: VALIDATION,
        at: At::Table(TAIL),
        scenario: "scenarios/fanout-2000-leaves.toml",
        reps: 1,
        figures: &[
            cell(
                "2,000 leaves",
                3,
                "",
                "{}% fast",
                M("client.users.success_ratio"),
            ),
            cell(
                "2,000 leaves",
                3,
                "",
                "({} requests)",
                M("client.users.requests"),
            ),
            cell(
                "the same, hedged after 20 ms (`hedged`)",
                3,
                "hedged",
                "^{}%$",
                M("client.users.success_ratio"),
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
    // The prose under it: K = 1.1 measured after a longer warm-up, with either window.
    Quote {
        doc: VALIDATION,
        at: At::Text,
        scenario: "scenarios/sre-throttling.toml",
        reps: 1,
        figures: &[
            fig(
                SRE_LATE,
                "K = 1.1 gives {} × with a 30 s window",
                SENT_PER_ACCEPTED,
            ),
            fig(
                SRE_LATE_120,
                "window and {} × with 120 s",
                SENT_PER_ACCEPTED,
            ),
        ],
    },
];

/// Attempts per second reaching each of backoff-open-serial's servers during the burst.
pub(super) fn open_rate(g: &Get) -> f64 {
    g.window_per_s("during", "window.during.service.server-open.arrivals")
}

pub(super) fn serial_rate(g: &Get) -> f64 {
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
pub(super) fn sent_per_accepted(g: &Get) -> f64 {
    g.m("service.backend.arrivals") / g.m("service.backend.admitted")
}
