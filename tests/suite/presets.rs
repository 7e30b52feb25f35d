//! `preset = "LIBRARY"`: each library's defaults pinned on the compiled policy, the scenario's
//! own keys winning, a part's preset over its policy's, and Polly's retries-versus-attempts
//! count (MaxRetryAttempts 3 is 4 attempts).

use cascade::model::{BudgetConfig, Policy};
use cascade_policy::Nanos;
use cascade_policy::backoff::{Jitter, Schedule};
use cascade_policy::breaker::Window;

const MS: Nanos = Nanos::from_ms(1);
const S: Nanos = Nanos::from_secs(1);

/// Compiles `[policy.p]` written as `policy` and returns it.
fn policy(policy: &str) -> Policy {
    let text = format!(
        "[scenario]\nname = \"p\"\nduration = \"5s\"\n\n[[client]]\nname = \"c\"\ntarget = \"s\"\nrate = 10\npolicy = \"p\"\n\n[[service]]\nname = \"s\"\nwork = \"1ms\"\n\n[policy.p]\n{policy}\n"
    );
    let scenario =
        cascade::scenario::load_str("p.toml", &text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let specs = scenario.model.specs_with_callers();
    specs
        .iter()
        .find(|(s, _)| s.policy.name.as_deref() == Some("p"))
        .unwrap()
        .0
        .policy
        .clone()
}

fn rejects(text: &str) -> String {
    let text = format!(
        "[scenario]\nname = \"p\"\nduration = \"5s\"\n\n[[client]]\nname = \"c\"\ntarget = \"s\"\nrate = 10\npolicy = \"p\"\n\n[[service]]\nname = \"s\"\nwork = \"1ms\"\n\n[policy.p]\n{text}\n"
    );
    match cascade::scenario::load_str("p.toml", &text, &[]) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn on(p: &Policy) -> Vec<&'static str> {
    let r = p.retry.as_ref().unwrap();
    r.on.iter().map(|o| o.name()).collect()
}

#[test]
fn resilience4j_retry_breaker_and_bulkhead() {
    let p = policy("preset = \"resilience4j\"\nretry = {}\nbreaker = {}\nbulkhead = {}");
    let r = p.retry.as_ref().unwrap();
    assert_eq!(r.attempts, 3, "maxAttempts 3, the first call counted");
    assert_eq!(r.backoff.schedule, Schedule::Constant);
    assert_eq!(r.backoff.base, 500 * MS, "waitDuration 500ms");
    assert_eq!(r.backoff.jitter, Jitter::None);
    assert!(!r.retry_after);
    assert_eq!(
        on(&p),
        [
            "timeout",
            "unavailable",
            "overloaded",
            "internal",
            "refused"
        ]
    );
    let b = &p.breaker.as_ref().unwrap().config;
    assert_eq!(b.window, Window::Calls(100));
    assert_eq!(
        (b.min_calls, b.failure_rate, b.slow_call_rate),
        (100, 0.5, 1.0)
    );
    assert_eq!(
        (b.slow_call_duration, b.open, b.half_open_calls),
        (60 * S, 60 * S, 10)
    );
    let bh = p.bulkhead.as_ref().unwrap();
    assert_eq!(
        (bh.max_concurrent, bh.queue, bh.max_wait),
        (25, 0, Nanos::ZERO)
    );
    assert_eq!(p.timeout, None, "a preset adds no timeout");
    assert!(
        p.throttle.is_none() && p.hedge.is_none(),
        "nor a part not written"
    );
    // IntervalFunction's 1.5 and 0.5 where the scenario picks those schedules.
    let p = policy(
        "retry = { preset = \"resilience4j\", backoff = \"exponential\", jitter = \"proportional\" }",
    );
    let r = p.retry.as_ref().unwrap();
    assert_eq!(
        r.backoff.schedule,
        Schedule::Exponential { multiplier: 1.5 }
    );
    assert_eq!(r.backoff.jitter, Jitter::Proportional { factor: 0.5 });
}

#[test]
fn polly_counts_retries_so_three_is_four_attempts() {
    let p = policy("preset = \"polly\"\nretry = {}\nbreaker = {}\nhedge = {}\nbulkhead = {}");
    let r = p.retry.as_ref().unwrap();
    assert_eq!(
        r.attempts, 4,
        "MaxRetryAttempts 3 does not count the first attempt"
    );
    assert_eq!(r.backoff.schedule, Schedule::Constant);
    assert_eq!((r.backoff.base, r.backoff.jitter), (2 * S, Jitter::None));
    let b = &p.breaker.as_ref().unwrap().config;
    assert_eq!(b.window, Window::Time(30 * S));
    assert_eq!(
        (b.failure_rate, b.min_calls, b.open, b.half_open_calls),
        (0.1, 100, 5 * S, 1)
    );
    let h = p.hedge.as_ref().unwrap();
    assert_eq!(
        (h.max, h.delay),
        (1, cascade::model::HedgeDelay::Fixed(2 * S))
    );
    assert_eq!(p.bulkhead.as_ref().unwrap().max_concurrent, 1000);
    // The other way: a scenario's `attempts` stands over the preset's `retries`.
    let p = policy("retry = { preset = \"polly\", attempts = 2 }");
    assert_eq!(p.retry.as_ref().unwrap().attempts, 2);
    // UseJitter with Constant: U[0.75d, 1.25d).
    let p = policy("retry = { preset = \"polly\", jitter = \"proportional\" }");
    assert_eq!(
        p.retry.as_ref().unwrap().backoff.jitter,
        Jitter::Proportional { factor: 0.25 }
    );
}

#[test]
fn envoy_backoff_caps_at_ten_bases_and_budgets_max_retries() {
    let p = policy("preset = \"envoy\"\nretry = {}\nbulkhead = {}\nthrottle = {}");
    let r = p.retry.as_ref().unwrap();
    assert_eq!(r.attempts, 2, "num_retries 1 does not count the first try");
    assert_eq!(
        r.backoff.schedule,
        Schedule::Exponential { multiplier: 2.0 }
    );
    assert_eq!(
        (r.backoff.base, r.backoff.max, r.backoff.jitter),
        (25 * MS, 250 * MS, Jitter::Full)
    );
    assert!(!r.retry_after);
    assert_eq!(
        p.budget,
        Some(BudgetConfig::Concurrency {
            percent: 0.0,
            min: 3
        }),
        "max_retries 3"
    );
    assert_eq!(p.bulkhead.as_ref().unwrap().max_concurrent, 1024);
    let t = p.throttle.as_ref().unwrap();
    assert!(
        (t.k - 1.0 / 0.95).abs() < 1e-12 && t.window == 30 * S,
        "sr_threshold 95 %, 30 s"
    );
    // max_interval defaults to 10 × the base written.
    let p = policy("retry = { preset = \"envoy\", base = \"100ms\" }");
    assert_eq!(p.retry.as_ref().unwrap().backoff.max, S);
    // A budget table written under the preset is retry_budget's 20 % / 3.
    let p = policy("retry = { preset = \"envoy\", budget = { min = 5 } }");
    assert_eq!(
        p.budget,
        Some(BudgetConfig::Concurrency {
            percent: 0.2,
            min: 5
        })
    );
}

#[test]
fn grpc_finagle_aws_and_tower() {
    let p = policy("preset = \"grpc\"\nretry = { attempts = 4 }\nhedge = {}");
    let r = p.retry.as_ref().unwrap();
    assert_eq!(
        r.backoff.schedule,
        Schedule::Exponential { multiplier: 2.0 }
    );
    assert_eq!(r.backoff.jitter, Jitter::Proportional { factor: 0.2 });
    assert!(r.retry_after);
    assert_eq!(
        p.hedge.as_ref().unwrap().delay,
        cascade::model::HedgeDelay::Fixed(Nanos::ZERO)
    );

    let p = policy("retry = { preset = \"finagle\" }");
    assert_eq!(
        p.budget,
        Some(BudgetConfig::Ratio {
            ratio: 0.2,
            min_per_s: 10.0,
            window: 10 * S
        })
    );
    let p = policy("retry = { budget = { preset = \"tower\" } }");
    assert_eq!(
        p.budget,
        Some(BudgetConfig::Ratio {
            ratio: 0.2,
            min_per_s: 10.0,
            window: 10 * S
        })
    );
    let p = policy("preset = \"tower\"\nhedge = { delay = \"p90\" }");
    assert_eq!(p.hedge.as_ref().unwrap().max, 1);

    let p = policy("preset = \"aws-sdk-standard\"\nretry = {}");
    let r = p.retry.as_ref().unwrap();
    assert_eq!(r.attempts, 3);
    assert_eq!(
        (r.backoff.base, r.backoff.max, r.backoff.jitter),
        (S, 20 * S, Jitter::Full)
    );
    assert_eq!(
        r.backoff.schedule,
        Schedule::Exponential { multiplier: 2.0 }
    );
    assert_eq!(
        on(&p),
        [
            "timeout",
            "unavailable",
            "overloaded",
            "internal",
            "refused"
        ]
    );
}

#[test]
fn the_scenario_and_the_part_win() {
    // Own keys over the preset; a part's preset over its policy's.
    let p = policy(
        "preset = \"polly\"\nretry = { base = \"1s\" }\nbreaker = { preset = \"resilience4j\", open = \"9s\" }",
    );
    assert_eq!(p.retry.as_ref().unwrap().backoff.base, S);
    let b = &p.breaker.as_ref().unwrap().config;
    assert_eq!(
        (b.failure_rate, b.open, b.half_open_calls),
        (0.5, 9 * S, 10)
    );
    // Without a preset nothing changes: cascade's defaults.
    let p = policy("retry = {}");
    assert_eq!(p.retry.as_ref().unwrap().backoff.base, 100 * MS);
}

#[test]
fn a_preset_without_defaults_for_a_part_is_refused() {
    let e = rejects("breaker = { preset = \"envoy\" }");
    assert!(e.contains("field `policy.p.breaker.preset`: envoy defines no defaults for `breaker`; presets that do: resilience4j, polly"), "{e}");
    let e = rejects("retry = { budget = { preset = \"grpc\" } }");
    assert!(
        e.contains("grpc defines no defaults for `budget`; presets that do: envoy, finagle, tower"),
        "{e}"
    );
    let e = rejects("retry = { budget = { preset = \"finagle\", kind = \"token_bucket\" } }");
    assert!(e.contains("finagle's budget is kind `ratio`"), "{e}");
    let e = rejects("preset = \"resilience5j\"");
    assert!(e.contains("resilience5j"), "{e}");
    let e = rejects("hedge = { preset = \"tower\" }");
    assert!(
        e.contains("field `policy.p.hedge`: a hedge needs `delay`"),
        "{e}"
    );
}

#[test]
fn cascade_presets_lists_every_value_with_version_and_source() {
    let out = crate::support::cascade(&["presets"], 0);
    let text = String::from_utf8(out.stdout).unwrap();
    for d in &cascade::scenario::preset::PRESETS {
        let at = text
            .find(&format!("\n{}\n", d.name))
            .unwrap_or_else(|| panic!("{}", d.name));
        let entry = &text[at..];
        assert!(
            entry.contains(d.version) && entry.contains(d.source),
            "{}",
            d.name
        );
        for line in d.parts.lines() {
            assert!(entry.contains(line), "{}: {line}", d.name);
        }
    }
}

#[test]
fn each_presets_printed_fragment_parses_as_its_values() {
    // `cascade presets` prints `PresetDef::parts`; what a preset fills is `preset::parts`, a
    // value of the table types: the scenario language's own parser holds the two equal.
    use cascade_policy::table::{RawBudgetTable, RawPolicy, preset};
    #[derive(serde::Deserialize)]
    struct Budget {
        budget: RawBudgetTable,
    }
    for d in &preset::PRESETS {
        let read: RawPolicy = toml_edit::de::from_str(d.parts).unwrap();
        assert_eq!(read, preset::parts(d.preset), "{}", d.name);
        let budget = d.budget.map(|b| {
            toml_edit::de::from_str::<Budget>(&format!("budget = {b}"))
                .unwrap()
                .budget
        });
        assert_eq!(budget, preset::budget(d.preset), "{}", d.name);
    }
}
