//! The README library table's rows after the published results: the quick start and its
//! storms, then timeouts, health probes, instances, autoscaling and pools (quickstart to
//! retry-loop-bulkhead).

use super::library;
use crate::doc_numbers::quote::Of::{F, M};
use crate::doc_numbers::quote::{Get, Quote, fig};
use crate::doc_numbers::run::step_at;
use crate::support::golden::repo;
use crate::support::read;

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

pub(super) const QUOTES: &[Quote] = &[
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
