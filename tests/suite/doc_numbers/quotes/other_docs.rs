//! The figures of the other docs: docs/policies.md (the retry-only breaker), docs/gates.md
//! (storm-guarded without its budget, seed 003's claims) and docs/guide.md (cold cache,
//! fan-out).

use crate::doc_numbers::quote::Of::{M, Rest};
use crate::doc_numbers::quote::{At, Quote, fig};

/// cold-cache's retry without its budget, and the attempts per call it makes over the storm.
const COLD_NO_BUDGET: &str = "--set policy.db.retry={ attempts = 3, backoff = \"exponential\", \
                              base = \"10ms\", max = \"100ms\", jitter = \"full\" }";
const COLD_STORM: &str = "window.storm.edge.catalog.postgres.amplification";

/// storm-guarded's retry without its budget.
const NO_BUDGET: &str =
    "--set policy.app-api.retry={ attempts = 4, backoff = \"constant\", base = \"1ms\" }";

pub(super) const QUOTES: &[Quote] = &[
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
    Quote {
        doc: "docs/guide.md",
        at: At::Text,
        scenario: "scenarios/fanout-2000-leaves.toml",
        reps: 1,
        figures: &[fig(
            "",
            "which make {}% of searches slow",
            Rest("client.users.success_ratio"),
        )],
    },
];
