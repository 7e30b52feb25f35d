//! The tables' validation as a specification: each check refuses what cascade's scenario
//! language refuses (tests/suite/bad_input.rs holds the located messages), with the field's
//! path relative to the `[policy.NAME]` table.

use super::*;
use crate::budget::BudgetConfig;
use crate::hedge::HedgeDelay;
use crate::time::Nanos;

const MS: Nanos = Nanos::from_ms(1);
const S: Nanos = Nanos::from_secs(1);

fn refused(table: RawPolicy) -> (String, String) {
    let e = PolicyConfig::new(&table).expect_err("refused");
    (e.path, e.message)
}

#[test]
fn an_empty_table_compiles_to_no_policies_and_cascades_defaults() {
    let c = PolicyConfig::new(&RawPolicy::default()).unwrap();
    assert_eq!(
        (c.timeout, c.reserve, c.min_attempt),
        (None, Nanos::ZERO, Nanos::ZERO)
    );
    assert!(c.propagate_deadline && !c.cancel);
    assert!(c.retry.is_none() && c.breaker.is_none() && c.hedge.is_none());
    let retry = PolicyConfig::new(&RawPolicy {
        retry: Some(RawRetry::default()),
        ..RawPolicy::default()
    })
    .unwrap()
    .retry
    .unwrap();
    assert_eq!(retry.attempts, 3);
    assert_eq!((retry.backoff.base, retry.backoff.max), (100 * MS, 10 * S));
}

#[test]
fn a_ratio_budget_takes_finagles_window_and_floor() {
    let c = PolicyConfig::new(&RawPolicy {
        retry: Some(RawRetry {
            budget: Some(RawBudget::Ratio(0.1)),
            ..RawRetry::default()
        }),
        ..RawPolicy::default()
    })
    .unwrap();
    assert_eq!(
        c.budget,
        Some(BudgetConfig::Ratio {
            ratio: 0.1,
            min_per_s: 10.0,
            window: 10 * S
        })
    );
}

#[test]
fn a_hedge_delay_is_a_duration_or_a_percentile() {
    let hedge = |delay: &str| {
        HedgeConfig::from_table(&RawHedge {
            delay: Some(delay.to_string()),
            ..RawHedge::default()
        })
    };
    assert_eq!(hedge("50ms").unwrap().delay, HedgeDelay::Fixed(50 * MS));
    assert_eq!(hedge("p95").unwrap().delay, HedgeDelay::Percentile(0.95));
    let e = hedge("p100").unwrap_err();
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("delay", "a percentile is written p50 to p99.9")
    );
    let e = hedge("soon").unwrap_err();
    assert!(
        e.message
            .starts_with("a duration like \"50ms\" or a percentile like \"p95\": invalid duration")
    );
}

#[test]
fn a_fallback_resolves_its_target_through_the_caller() {
    let table = RawPolicy {
        fallback: Some(RawFallback {
            to: Some("cache".into()),
            ..RawFallback::default()
        }),
        ..RawPolicy::default()
    };
    let c = PolicyConfig::resolving(&table, |to| {
        if to == "cache" {
            Ok(7)
        } else {
            Err("none".into())
        }
    });
    assert_eq!(c.unwrap().fallback.unwrap().to, Some((7, None)));
    let e = PolicyConfig::resolving(&table, |_| {
        Err::<usize, _>("no service named `cache`".into())
    });
    assert_eq!(e.unwrap_err().path, "fallback.to");
}

#[test]
fn a_limit_refuses_another_algorithms_key_and_suggests_a_name() {
    let limit = |algorithm: &str, queue_size| {
        LimitConfig::from_table(&RawLimit {
            algorithm: algorithm.into(),
            queue_size,
            ..RawLimit::default()
        })
    };
    let e = limit("aimd", Some(4)).unwrap_err();
    assert_eq!(e.path, "queue_size");
    assert_eq!(
        e.message,
        "`queue_size` does not apply to the aimd limit; its keys: initial, min, max, backoff_ratio, timeout"
    );
    assert_eq!(
        limit("gradient", None).unwrap_err().message,
        "unknown limit algorithm `gradient` (did you mean `gradient2`?); valid: aimd, gradient2, vegas"
    );
}

#[test]
fn a_service_protection_checks_its_own_table() {
    let e = CodelConfig::from_table(&RawCodel {
        target: Some(Dur((10 * MS).0)),
        interval: Some(Dur((5 * MS).0)),
    })
    .unwrap_err();
    assert_eq!(e.path, "interval");
    let e = OutlierConfig::from_table(&RawOutlier {
        max_ejection_percent: Some(101),
        ..RawOutlier::default()
    })
    .unwrap_err();
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("max_ejection_percent", "is a percentage: 0 to 100")
    );
}

use crate::codel::CodelConfig;
use crate::hedge::HedgeConfig;
use crate::limit::LimitConfig;
use crate::outlier::OutlierConfig;

/// One table per check, each refused at its field with the scenario language's message.
#[test]
fn each_check_refuses_at_its_field() {
    let retry = |r: RawRetry| RawPolicy {
        retry: Some(r),
        ..RawPolicy::default()
    };
    let budget = |t: RawBudgetTable| {
        retry(RawRetry {
            budget: Some(RawBudget::Table(t)),
            ..RawRetry::default()
        })
    };
    let breaker = |b: RawBreaker| RawPolicy {
        breaker: Some(b),
        ..RawPolicy::default()
    };
    let cases: Vec<(RawPolicy, &str, &str)> = vec![
        (
            RawPolicy {
                timeout: Some(Dur(0)),
                ..RawPolicy::default()
            },
            "timeout",
            "must be longer than zero (leave it out for none)",
        ),
        (
            retry(RawRetry {
                attempts: Some(2),
                retries: Some(1),
                ..RawRetry::default()
            }),
            "retry",
            "give `attempts` (first try included) or `retries` (extra tries), not both",
        ),
        (
            retry(RawRetry {
                base: Some(Dur((2 * S).0)),
                max: Some(Dur(S.0)),
                ..RawRetry::default()
            }),
            "retry.max",
            "must be at least `base`",
        ),
        (
            retry(RawRetry {
                on: Some(vec!["timout".into()]),
                ..RawRetry::default()
            }),
            "retry.on",
            "unknown outcome `timout` (did you mean `timeout`?); valid: timeout, deadline_exceeded, unavailable, overloaded, internal, refused, shed",
        ),
        (
            retry(RawRetry {
                on: Some(vec!["invalid".into()]),
                ..RawRetry::default()
            }),
            "retry.on",
            "`invalid` is never retried",
        ),
        (
            retry(RawRetry {
                backoff: Some(BackoffKind::Constant),
                multiplier: Some(2.0),
                ..RawRetry::default()
            }),
            "retry.multiplier",
            "applies only to exponential backoff without decorrelated jitter",
        ),
        (
            retry(RawRetry {
                jitter_factor: Some(0.3),
                ..RawRetry::default()
            }),
            "retry.jitter_factor",
            "applies only to jitter = \"proportional\"",
        ),
        (
            retry(RawRetry {
                host_reselections: Some(2),
                ..RawRetry::default()
            }),
            "retry.host_reselections",
            "applies only with `other_host = true`",
        ),
        (
            retry(RawRetry {
                other_host: Some(true),
                host_reselections: Some(0),
                ..RawRetry::default()
            }),
            "retry.host_reselections",
            "must be at least 1: with no re-pick the retry goes wherever the balancer's first pick lands, as without `other_host`",
        ),
        (
            retry(RawRetry {
                other_host: Some(true),
                host_reselections: Some(101),
                ..RawRetry::default()
            }),
            "retry.host_reselections",
            "must be at most 100",
        ),
        (
            retry(RawRetry {
                budget: Some(RawBudget::Ratio(1.5)),
                ..RawRetry::default()
            }),
            "retry.budget",
            "a ratio budget must be between 0 and 1",
        ),
        (
            budget(RawBudgetTable {
                kind: Some(BudgetKind::TokenBucket),
                ratio: Some(0.1),
                ..RawBudgetTable::default()
            }),
            "retry.budget.ratio",
            "does not apply to this budget kind, which takes: max_tokens, token_ratio",
        ),
        (
            budget(RawBudgetTable {
                kind: Some(BudgetKind::TokenBucket),
                max_tokens: Some(2000.0),
                ..RawBudgetTable::default()
            }),
            "retry.budget.max_tokens",
            "must be in (0, 1000], as gRPC requires",
        ),
        (
            breaker(RawBreaker {
                window: Some(RawWindow::Calls(0)),
                ..RawBreaker::default()
            }),
            "breaker.window",
            "must be at least 1 call",
        ),
        (
            breaker(RawBreaker {
                failure_rate: Some(0.0),
                ..RawBreaker::default()
            }),
            "breaker.failure_rate",
            "must be in (0, 1]",
        ),
        (
            breaker(RawBreaker {
                wraps: Some(crate::bulkhead::Wraps::Call),
                scope: Some(crate::breaker::BreakerScope::Instance),
                ..RawBreaker::default()
            }),
            "breaker.scope",
            "a breaker around the whole call (wraps = \"call\") cannot be per callee instance: the instance is chosen per attempt",
        ),
        (
            RawPolicy {
                bulkhead: Some(RawBulkhead {
                    queue: Some(5),
                    ..RawBulkhead::default()
                }),
                ..RawPolicy::default()
            },
            "bulkhead.max_wait",
            "a bulkhead queue needs `max_wait`, how long a call may wait for a permit",
        ),
        (
            RawPolicy {
                bulkhead: Some(RawBulkhead {
                    pool: Some("a pool".into()),
                    ..RawBulkhead::default()
                }),
                ..RawPolicy::default()
            },
            "bulkhead.pool",
            "`a pool` is not a valid name: use letters, digits, `-` and `_`",
        ),
        (
            RawPolicy {
                throttle: Some(RawThrottle {
                    k: Some(0.0),
                    ..RawThrottle::default()
                }),
                ..RawPolicy::default()
            },
            "throttle.k",
            "must be positive (the SRE book uses 2)",
        ),
        (
            RawPolicy {
                rate_limit: Some(RawRateLimit {
                    fill_interval: Some(Dur(S.0)),
                    ..RawRateLimit::default()
                }),
                ..RawPolicy::default()
            },
            "rate_limit.max_tokens",
            "is required: the bucket's size and first fill",
        ),
        (
            RawPolicy {
                rate_limit: Some(RawRateLimit {
                    max_tokens: Some(5),
                    ..RawRateLimit::default()
                }),
                ..RawPolicy::default()
            },
            "rate_limit.fill_interval",
            "is required: how often tokens_per_fill is added",
        ),
        (
            RawPolicy {
                rate_limit: Some(RawRateLimit {
                    max_tokens: Some(0),
                    fill_interval: Some(Dur(S.0)),
                    ..RawRateLimit::default()
                }),
                ..RawPolicy::default()
            },
            "rate_limit.max_tokens",
            "must be at least 1",
        ),
        (
            RawPolicy {
                rate_limit: Some(RawRateLimit {
                    max_tokens: Some(5),
                    tokens_per_fill: Some(0),
                    fill_interval: Some(Dur(S.0)),
                    ..RawRateLimit::default()
                }),
                ..RawPolicy::default()
            },
            "rate_limit.tokens_per_fill",
            "must be at least 1",
        ),
        (
            RawPolicy {
                rate_limit: Some(RawRateLimit {
                    max_tokens: Some(5),
                    fill_interval: Some(Dur(0)),
                    ..RawRateLimit::default()
                }),
                ..RawPolicy::default()
            },
            "rate_limit.fill_interval",
            "must be longer than zero",
        ),
        (
            RawPolicy {
                hedge: Some(RawHedge::default()),
                ..RawPolicy::default()
            },
            "hedge",
            "a hedge needs `delay`: a duration like \"50ms\" or a percentile like \"p95\"",
        ),
        (
            RawPolicy {
                hedge: Some(RawHedge {
                    delay: Some("10ms".into()),
                    uses_retry_budget: Some(true),
                    ..RawHedge::default()
                }),
                ..RawPolicy::default()
            },
            "hedge.uses_retry_budget",
            "hedges can draw on the retry budget only when the policy has one (`retry.budget`)",
        ),
        (
            RawPolicy {
                limit: Some(RawLimit {
                    algorithm: "aimd".into(),
                    min: Some(30),
                    max: Some(10),
                    ..RawLimit::default()
                }),
                ..RawPolicy::default()
            },
            "limit",
            "needs 1 <= min <= max (got 30 and 10)",
        ),
        (
            RawPolicy {
                failure_accrual: Some(RawAccrual {
                    consecutive_failures: Some(0),
                    ..RawAccrual::default()
                }),
                ..RawPolicy::default()
            },
            "failure_accrual.consecutive_failures",
            "must be at least 1 (Finagle's default is 5)",
        ),
        (
            RawPolicy {
                fallback: Some(RawFallback {
                    policy: Some("p".into()),
                    ..RawFallback::default()
                }),
                ..RawPolicy::default()
            },
            "fallback.policy",
            "applies only to a fallback that calls a service (`to`)",
        ),
        (
            RawPolicy {
                retry: Some(RawRetry {
                    preset: Some(Preset::Grpc),
                    budget: Some(RawBudget::Table(RawBudgetTable {
                        preset: Some(Preset::Grpc),
                        ..RawBudgetTable::default()
                    })),
                    ..RawRetry::default()
                }),
                ..RawPolicy::default()
            },
            "retry.budget.preset",
            "grpc defines no defaults for `budget`; presets that do: envoy, finagle, tower",
        ),
    ];
    for (table, path, message) in cases {
        assert_eq!(
            refused(table),
            (path.to_string(), message.to_string()),
            "{path}"
        );
    }
}

/// `other_host` off by default; on, Envoy's one re-pick unless `host_reselections` says more.
#[test]
fn other_host_takes_envoys_default_of_one_reselection() {
    let compiled = |r: RawRetry| {
        crate::retry::RetryPolicy::from_table(&r)
            .expect("valid")
            .other_host()
    };
    assert_eq!(compiled(RawRetry::default()), None);
    let on = RawRetry {
        other_host: Some(true),
        ..RawRetry::default()
    };
    assert_eq!(compiled(on.clone()), Some(1));
    let three = RawRetry {
        host_reselections: Some(3),
        ..on
    };
    assert_eq!(compiled(three), Some(3));
    let off = RawRetry {
        other_host: Some(false),
        ..RawRetry::default()
    };
    assert_eq!(compiled(off), None);
}
