//! The README library table's rows from published results: the Tail at Scale, Brooker,
//! the SRE book, Finagle, gRPC, and the AWS SDKs' Retry-After (fanout-hedge and
//! fanout-2000-leaves to retry-after-max).

use super::library;
use super::validation::{open_rate, sent_per_accepted, serial_rate};
use crate::doc_numbers::quote::Of::{Extra, F, M};
use crate::doc_numbers::quote::{At, Quote, fig};

pub(super) const QUOTES: &[Quote] = &[
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
        "scenarios/fanout-2000-leaves.toml",
        &[fig(
            "",
            "^{}% of requests meet",
            M("client.users.success_ratio"),
        )],
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
];
