//! The figures of the README's prose under its charts: the retry storm, the auth storm, the
//! recommendations meltdown and the payments' retries.

use super::ratio;
use crate::doc_numbers::quote::Of::{F, M};
use crate::doc_numbers::quote::{At, Quote, fig};

pub(super) const QUOTES: &[Quote] = &[
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
];
