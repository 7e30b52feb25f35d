//! `cascade import`: each fixture in tests/fixtures/import/ (a library's documented example
//! config) is imported, every resulting key is checked against the library's documented
//! meaning (docs/policies.md §13), and the printed TOML, pasted into a scenario with its
//! `--set` lines, validates. Bad values and malformed files exit 2 naming file and line.

use crate::support::{cascade, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

/// Imports a fixture; returns stdout and stderr.
fn import(library: &str, name: &str) -> (String, String) {
    let path = fixture(name);
    let out = cascade(&["import", library, path.to_str().unwrap()], 0);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Every key of the printed TOML by dotted path (`policy.p.retry.attempts`), as TOML text.
fn keys(toml: &str) -> BTreeMap<String, String> {
    let doc: toml_edit::DocumentMut = toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut out = BTreeMap::new();
    fn walk(prefix: &str, t: &dyn toml_edit::TableLike, out: &mut BTreeMap<String, String>) {
        for (k, item) in t.iter() {
            let path = if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            };
            match item {
                toml_edit::Item::Table(t) => walk(&path, t, out),
                toml_edit::Item::Value(toml_edit::Value::InlineTable(t)) => walk(&path, t, out),
                toml_edit::Item::Value(v) => {
                    out.insert(path, v.clone().decorated("", "").to_string());
                }
                _ => {}
            }
        }
    }
    walk("", doc.as_table(), &mut out);
    out
}

/// The `--set` arguments printed as comments, `<CLIENT>` made `web`.
fn set_lines(toml: &str) -> Vec<String> {
    toml.lines()
        .filter_map(|l| l.strip_prefix("#   --set '"))
        .map(|l| l[..l.find('\'').unwrap()].replace("<CLIENT>", "web"))
        .collect()
}

/// Asserts the policies hold exactly `want` (no key more, none less).
fn assert_keys(toml: &str, want: &[(&str, &str)]) {
    let got = keys(toml);
    let want: BTreeMap<String, String> = want
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for (k, v) in &want {
        assert_eq!(got.get(k), Some(v), "key {k}\n{toml}");
    }
    let extra: Vec<&String> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(extra.is_empty(), "keys not checked: {extra:?}\n{toml}");
}

/// Pastes the imported tables into a scenario whose client `web` calls `service` with
/// `policy`, applies the `--set` lines, and validates it (exit 0).
fn validates(toml: &str, policy: &str, service: &str) {
    let dir = scratch(&format!("import-{policy}"));
    let scenario = format!(
        "[scenario]\nname = \"imported\"\nduration = \"5s\"\n\n[[client]]\nname = \"web\"\ntarget = \"{service}\"\nrate = 50\npolicy = \"{policy}\"\n\n[[service]]\nname = \"{service}\"\ninstances = 4\nworkers = 4\nwork = \"2ms\"\n\n{toml}"
    );
    let file = dir.join("s.toml");
    std::fs::write(&file, scenario).unwrap();
    let mut args = vec!["validate".to_string(), file.to_str().unwrap().to_string()];
    for s in set_lines(toml) {
        args.push("--set".into());
        args.push(s);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    cascade(&args, 0);
}

#[test]
fn an_envoy_bootstrap_gives_the_route_policy_and_the_cluster_caps() {
    let (toml, notes) = import("envoy", "envoy-bootstrap.yaml");
    let p = "policy.payments";
    assert_keys(
        &toml,
        &[
            // per_try_timeout 0.25s is the per-attempt timeout, the route's 3s the total.
            (&format!("{p}.timeout"), "\"250ms\""),
            (&format!("{p}.total_timeout"), "\"3s\""),
            // num_retries 2 does not count the first try.
            (&format!("{p}.retry.retries"), "2"),
            // 5xx → internal, unavailable, timeout (a per-try timeout is a 504); reset and
            // connect-failure → refused; retriable-status-codes 429 → overloaded (409: none).
            (
                &format!("{p}.retry.on"),
                "[\"internal\", \"unavailable\", \"timeout\", \"refused\", \"overloaded\"]",
            ),
            (&format!("{p}.retry.backoff"), "\"exponential\""),
            (&format!("{p}.retry.multiplier"), "2.0"),
            (&format!("{p}.retry.base"), "\"50ms\""),
            (&format!("{p}.retry.max"), "\"1s\""),
            (&format!("{p}.retry.jitter"), "\"full\""),
            // No rate_limited_retry_back_off: Envoy ignores Retry-After.
            (&format!("{p}.retry.retry_after"), "false"),
            // retry_host_predicate previous_hosts, host_selection_retry_max_attempts unset:
            // Envoy's one re-pick.
            (&format!("{p}.retry.other_host"), "true"),
            (&format!("{p}.retry.host_reselections"), "1"),
            // The DEFAULT priority's retry_budget (25 %, 5) and max_requests 200.
            (&format!("{p}.retry.budget.kind"), "\"concurrency\""),
            (&format!("{p}.retry.budget.percent"), "25.0"),
            (&format!("{p}.retry.budget.min"), "5"),
            (&format!("{p}.bulkhead.max_concurrent"), "200"),
        ],
    );
    assert_eq!(
        set_lines(&toml),
        [
            "service.payments.outlier.consecutive_failures=7",
            "service.payments.outlier.interval=5s",
            "service.payments.outlier.base_ejection_time=15s",
            "service.payments.outlier.max_ejection_percent=50",
            // lb_policy ROUND_ROBIN, written: cascade's round robin.
            "service.payments.balancer=round_robin",
        ]
    );
    for skipped in [
        "`admin`",
        "`connect_timeout`",
        "`circuit_breakers.thresholds.max_connections`",
        "`circuit_breakers.thresholds.max_pending_requests`",
        "`circuit_breakers.thresholds (priority HIGH)`",
        "`outlier_detection.success_rate_minimum_hosts`",
        "`route.retry_policy.retriable_status_codes: 409`",
    ] {
        assert!(notes.contains(skipped), "{skipped} not listed:\n{notes}");
    }
    assert!(
        notes.contains(
            "envoy-bootstrap.yaml:52: not imported: `circuit_breakers.thresholds (priority HIGH)`"
        ),
        "{notes}"
    );
    validates(&toml, "payments", "payments");
}

#[test]
fn an_envoy_route_without_its_cluster_takes_envoy_defaults() {
    let (toml, notes) = import("envoy", "envoy-route.json");
    let p = "policy.inventory";
    assert_keys(
        &toml,
        &[
            (&format!("{p}.timeout"), "\"200ms\""),
            // The route timeout {seconds: 2, nanos: 500000000}: every attempt and backoff.
            (&format!("{p}.total_timeout"), "\"2500ms\""),
            // The route's retry_policy replaces the virtual host's (3 retries, gateway-error).
            (&format!("{p}.retry.retries"), "1"),
            (
                &format!("{p}.retry.on"),
                "[\"internal\", \"unavailable\", \"timeout\"]",
            ),
            (&format!("{p}.retry.backoff"), "\"exponential\""),
            (&format!("{p}.retry.multiplier"), "2.0"),
            // Envoy's default back-off: 25 ms, max 10 × base.
            (&format!("{p}.retry.base"), "\"25ms\""),
            (&format!("{p}.retry.max"), "\"250ms\""),
            (&format!("{p}.retry.jitter"), "\"full\""),
            (&format!("{p}.retry.retry_after"), "true"),
            // circuit_breakers defaults: max_retries 3 retries in flight, max_requests 1024.
            (&format!("{p}.retry.budget.kind"), "\"concurrency\""),
            (&format!("{p}.retry.budget.percent"), "0.0"),
            (&format!("{p}.retry.budget.min"), "3"),
            (&format!("{p}.bulkhead.max_concurrent"), "1024"),
        ],
    );
    assert!(set_lines(&toml).is_empty());
    assert!(
        notes.contains("rate_limited_retry_back_off.max_interval"),
        "{notes}"
    );
    validates(&toml, "inventory", "inventory");
}

#[test]
fn an_envoy_clusters_balancer_and_slow_start_go_to_its_service() {
    let (toml, notes) = import("envoy", "envoy-cluster-slow-start.yaml");
    assert_keys(&toml, &[("policy.catalog.bulkhead.max_concurrent", "1024")]);
    assert_eq!(
        set_lines(&toml),
        [
            // LEAST_REQUEST with slow start: Envoy weighs hosts by weight / (active + 1) while
            // weights differ, which is cascade's least_outstanding under slow start (power_of_two
            // takes none).
            "service.catalog.balancer=least_outstanding",
            // slow_start_config: the window, the RuntimeDouble's default_value, the Percent.
            "service.catalog.slow_start.window=60s",
            "service.catalog.slow_start.aggression=2.0",
            "service.catalog.slow_start.min_weight_percent=20.0",
        ]
    );
    for skipped in [
        "`round_robin_lb_config`: applies only with lb_policy ROUND_ROBIN",
        "`least_request_lb_config.slow_start_config.aggression.runtime_key`",
        "`least_request_lb_config.active_request_bias.runtime_key`",
    ] {
        assert!(notes.contains(skipped), "{skipped} not listed:\n{notes}");
    }
    // The printed lines, applied to a scenario, are accepted.
    validates(&toml, "catalog", "catalog");
}

#[test]
fn envoy_balancers_map_one_to_one_and_refuse_what_they_cannot() {
    let dir = scratch("import-envoy-lb");
    let one = |policy: &str, extra: &str| {
        let file = dir.join(format!("{policy}.yaml"));
        let text = format!("name: c\nconnect_timeout: 1s\nlb_policy: {policy}\n{extra}");
        std::fs::write(&file, text).unwrap();
        let out = cascade(&["import", "envoy", file.to_str().unwrap()], 0);
        let toml = String::from_utf8(out.stdout).unwrap();
        let notes = String::from_utf8(out.stderr).unwrap();
        (set_lines(&toml), notes)
    };
    // Without slow start, least request is the power of two choices (choice_count 2).
    let (sets, _) = one("LEAST_REQUEST", "");
    assert_eq!(sets, ["service.c.balancer=power_of_two"]);
    let (sets, notes) = one(
        "LEAST_REQUEST",
        "least_request_lb_config:\n  choice_count: 3\n",
    );
    assert_eq!(sets, ["service.c.balancer=power_of_two"]);
    assert!(notes.contains("draws 2 hosts"), "{notes}");
    let (sets, _) = one("RANDOM", "");
    assert_eq!(sets, ["service.c.balancer=random"]);
    // A round robin slow start without aggression or floor: Envoy's defaults are cascade's.
    let (sets, _) = one(
        "ROUND_ROBIN",
        "round_robin_lb_config:\n  slow_start_config:\n    slow_start_window: 90s\n",
    );
    assert_eq!(
        sets,
        [
            "service.c.balancer=round_robin",
            "service.c.slow_start.window=90s"
        ]
    );
    // Hashing has no equivalent: listed, no balancer set, and a config block beside it is
    // listed too (Envoy ignores it).
    let (sets, notes) = one(
        "RING_HASH",
        "round_robin_lb_config:\n  slow_start_config:\n    slow_start_window: 90s\n",
    );
    assert!(sets.is_empty(), "{sets:?}");
    assert!(
        notes.contains("`lb_policy`: RING_HASH is not simulated"),
        "{notes}"
    );
    assert!(
        notes.contains("`round_robin_lb_config`: applies only with lb_policy ROUND_ROBIN"),
        "{notes}"
    );
    // The enum by number, as protobuf's mappings accept it: 3 is RANDOM.
    let (sets, _) = one("3", "");
    assert_eq!(sets, ["service.c.balancer=random"]);
    // A slow start without its window is off in Envoy: listed, no slow start set. An
    // aggression of 0 makes Envoy ramp with 1.0, cascade's default: listed, not written.
    let (sets, notes) = one(
        "ROUND_ROBIN",
        "round_robin_lb_config:\n  slow_start_config:\n    aggression: { default_value: 2 }\n",
    );
    assert_eq!(sets, ["service.c.balancer=round_robin"]);
    assert!(notes.contains("no slow_start_window"), "{notes}");
    let (sets, notes) = one(
        "ROUND_ROBIN",
        "round_robin_lb_config:\n  slow_start_config:\n    slow_start_window: 9s\n    aggression: { default_value: 0 }\n",
    );
    assert_eq!(
        sets,
        [
            "service.c.balancer=round_robin",
            "service.c.slow_start.window=9s"
        ]
    );
    assert!(notes.contains("Envoy ramps with 1.0"), "{notes}");
    // A cluster with nothing but its balancer is still a cluster.
    let bare = dir.join("bare.yaml");
    std::fs::write(&bare, "name: c\nlb_policy: RANDOM\n").unwrap();
    let out = cascade(&["import", "envoy", bare.to_str().unwrap()], 0);
    let toml = String::from_utf8(out.stdout).unwrap();
    assert_eq!(set_lines(&toml), ["service.c.balancer=random"]);
    let err = import_text(
        "envoy",
        "c.yaml",
        "name: c\nconnect_timeout: 1s\nlb_policy: FASTEST\n",
    );
    assert!(
        err.contains("c.yaml:3:12: field `lb_policy`: unknown lb_policy \"FASTEST\""),
        "{err}"
    );
    // A config block written as a scalar is an error naming it, not silence.
    let err = import_text(
        "envoy",
        "c.yaml",
        "name: c\nlb_policy: LEAST_REQUEST\nleast_request_lb_config: 5\n",
    );
    assert!(
        err.contains("field `least_request_lb_config`: expected a table"),
        "{err}"
    );
    let err = import_text(
        "envoy",
        "c.yaml",
        "name: c\nround_robin_lb_config:\n  slow_start_config: 5\n",
    );
    assert!(
        err.contains("field `round_robin_lb_config.slow_start_config`: expected a table"),
        "{err}"
    );
}

#[test]
fn a_grpc_retry_config_counts_attempts_and_shares_its_throttling() {
    let (toml, notes) = import("grpc", "grpc-retry.json");
    let p = "policy.grpc-examples-echo-Echo";
    assert_keys(
        &toml,
        &[
            // maxAttempts counts the original call, as cascade's attempts does.
            (&format!("{p}.retry.attempts"), "4"),
            (&format!("{p}.retry.base"), "\"100ms\""),
            (&format!("{p}.retry.max"), "\"1s\""),
            (&format!("{p}.retry.multiplier"), "2.0"),
            (
                &format!("{p}.retry.on"),
                "[\"unavailable\", \"overloaded\"]",
            ),
            (&format!("{p}.retry.backoff"), "\"exponential\""),
            // A6 since 2024-08-29: ×U(0.8, 1.2).
            (&format!("{p}.retry.jitter"), "\"proportional\""),
            (&format!("{p}.retry.jitter_factor"), "0.2"),
            (&format!("{p}.retry.retry_after"), "true"),
            (&format!("{p}.retry.budget.kind"), "\"token_bucket\""),
            (&format!("{p}.retry.budget.max_tokens"), "10.0"),
            (&format!("{p}.retry.budget.token_ratio"), "0.1"),
            // The method timeout spans every attempt: the call's own deadline.
            (&format!("{p}.total_timeout"), "\"2s\""),
        ],
    );
    assert!(set_lines(&toml).is_empty());
    assert!(notes.contains("`methodConfig[0].waitForReady`"), "{notes}");
    validates(&toml, "grpc-examples-echo-Echo", "echo");
}

#[test]
fn a_grpc_hedging_config_hedges_on_the_throttled_budget() {
    let (toml, notes) = import("grpc", "grpc-hedging.json");
    let p = "policy.helloworld-Greeter-SayHello";
    assert_keys(
        &toml,
        &[
            // maxAttempts 3 counts the original: two hedged copies.
            (&format!("{p}.hedge.max"), "2"),
            (&format!("{p}.hedge.delay"), "\"500ms\""),
            (&format!("{p}.hedge.uses_retry_budget"), "true"),
            (&format!("{p}.retry.attempts"), "1"),
            (&format!("{p}.retry.budget.kind"), "\"token_bucket\""),
            (&format!("{p}.retry.budget.max_tokens"), "20.0"),
            (&format!("{p}.retry.budget.token_ratio"), "0.25"),
        ],
    );
    assert!(notes.contains("nonFatalStatusCodes"), "{notes}");
    validates(&toml, "helloworld-Greeter-SayHello", "greeter");
}

#[test]
fn the_resilience4j_demo_resolves_base_configs_and_writes_its_defaults() {
    let (toml, notes) = import("resilience4j", "resilience4j-demo.yml");
    let retry_all = "[\"timeout\", \"unavailable\", \"overloaded\", \"internal\", \"refused\"]";
    assert_keys(
        &toml,
        &[
            // backendA: every module from `configs.default` via baseConfig.
            ("policy.backendA.timeout", "\"2s\""),
            ("policy.backendA.cancel", "false"),
            ("policy.backendA.breaker.window", "10"),
            ("policy.backendA.breaker.min_calls", "5"),
            // failureRateThreshold 50 (percent) is a share of 0.5.
            ("policy.backendA.breaker.failure_rate", "0.5"),
            ("policy.backendA.breaker.slow_call_rate", "1.0"),
            ("policy.backendA.breaker.slow_call_duration", "\"60s\""),
            ("policy.backendA.breaker.open", "\"5s\""),
            ("policy.backendA.breaker.half_open_calls", "3"),
            // maxAttempts 3 counts the first call; waitDuration 100 is milliseconds, fixed.
            ("policy.backendA.retry.attempts", "3"),
            ("policy.backendA.retry.on", retry_all),
            ("policy.backendA.retry.base", "\"100ms\""),
            ("policy.backendA.retry.backoff", "\"constant\""),
            ("policy.backendA.retry.max", "\"100ms\""),
            ("policy.backendA.retry.jitter", "\"none\""),
            ("policy.backendA.retry.retry_after", "false"),
            // The instance's own maxConcurrentCalls beats configs.default's 100.
            ("policy.backendA.bulkhead.max_concurrent", "10"),
            ("policy.backendA.bulkhead.max_wait", "\"0\""),
            // backendB: its own keys over configs.default.
            ("policy.backendB.timeout", "\"500ms\""),
            ("policy.backendB.cancel", "false"),
            ("policy.backendB.breaker.window", "10"),
            ("policy.backendB.breaker.min_calls", "10"),
            ("policy.backendB.breaker.failure_rate", "0.5"),
            ("policy.backendB.breaker.slow_call_rate", "1.0"),
            ("policy.backendB.breaker.slow_call_duration", "\"60s\""),
            ("policy.backendB.breaker.open", "\"5s\""),
            ("policy.backendB.breaker.half_open_calls", "3"),
            ("policy.backendB.retry.attempts", "4"),
            ("policy.backendB.retry.on", retry_all),
            ("policy.backendB.retry.base", "\"200ms\""),
            ("policy.backendB.retry.backoff", "\"exponential\""),
            ("policy.backendB.retry.multiplier", "2.0"),
            ("policy.backendB.retry.max", "\"2s\""),
            ("policy.backendB.retry.jitter", "\"proportional\""),
            ("policy.backendB.retry.jitter_factor", "0.25"),
            ("policy.backendB.retry.retry_after", "false"),
            ("policy.backendB.bulkhead.max_concurrent", "20"),
            // maxWaitDuration 10ms with waiters unbounded in resilience4j.
            ("policy.backendB.bulkhead.queue", "1000"),
            ("policy.backendB.bulkhead.max_wait", "\"10ms\""),
            // backendC: `shared` over `default`? No: baseConfig replaces default as the base.
            ("policy.backendC.breaker.window", "\"20s\""),
            ("policy.backendC.breaker.min_calls", "100"),
            ("policy.backendC.breaker.failure_rate", "0.5"),
            ("policy.backendC.breaker.slow_call_rate", "0.8"),
            ("policy.backendC.breaker.slow_call_duration", "\"2s\""),
            ("policy.backendC.breaker.open", "\"1s\""),
            ("policy.backendC.breaker.half_open_calls", "30"),
            // backendD: a thread-pool bulkhead, core threads and queue.
            ("policy.backendD.bulkhead.max_concurrent", "1"),
            ("policy.backendD.bulkhead.queue", "1"),
            ("policy.backendD.bulkhead.max_wait", "\"1h\""),
        ],
    );
    for skipped in [
        "`management`",
        "`resilience4j.ratelimiter.instances.backendA`",
        "`resilience4j.circuitbreaker.configs.default.recordExceptions`",
        "`resilience4j.circuitbreaker.configs.default.automaticTransitionFromOpenToHalfOpenEnabled`",
        "`resilience4j.thread-pool-bulkhead.instances.backendA`",
        "`resilience4j.thread-pool-bulkhead.instances.backendD.maxThreadPoolSize`",
    ] {
        assert!(notes.contains(skipped), "{skipped} not listed:\n{notes}");
    }
    let once = notes.matches("configs.default.recordExceptions`").count();
    assert_eq!(once, 1, "a base's key is listed once:\n{notes}");
    validates(&toml, "backendB", "backend");
}

#[test]
fn resilience4j_properties_bind_relaxed_and_read_spring_durations() {
    let (toml, notes) = import("resilience4j", "resilience4j.properties");
    let (yaml, _) = import("resilience4j", "resilience4j-demo.yml");
    let props = keys(&toml);
    let demo = keys(&yaml);
    // The same backendB breaker and retry as the YAML demo (kebab-case, PT0.2S).
    for k in [
        "window",
        "min_calls",
        "failure_rate",
        "open",
        "half_open_calls",
    ] {
        let key = format!("policy.backendB.breaker.{k}");
        assert_eq!(props[&key], demo[&key], "{key}");
    }
    assert_eq!(props["policy.backendB.retry.attempts"], "4");
    assert_eq!(props["policy.backendB.retry.base"], "\"200ms\"");
    // timeout-duration=500: bare numbers are milliseconds; cancelRunningFuture defaults true.
    assert_eq!(props["policy.backendB.timeout"], "\"500ms\"");
    assert_eq!(props["policy.backendB.cancel"], "true");
    assert!(notes.contains("resilience4j.properties:9: not imported: `resilience4j.retry.instances.backendB.retry-exceptions`"), "{notes}");
    validates(&toml, "backendB", "backend");
}

#[test]
fn every_printed_line_names_its_source() {
    for (lib, f) in crate::support::IMPORT_FIXTURES {
        let (toml, _) = import(lib, f);
        for line in toml.lines().filter(|l| l.contains(" = ")) {
            let (_, comment) = line
                .split_once("  # ")
                .unwrap_or_else(|| panic!("{f}: no comment: {line}"));
            assert!(!comment.trim().is_empty(), "{f}: {line}");
        }
    }
}

/// Regression: an instance name is written into the comments as the source spells it, and a
/// newline or a control character in it (a quoted YAML key takes escapes) made the printed
/// TOML fail to parse; so did one in the file's name, which every comment quotes.
#[test]
fn names_with_control_characters_print_as_toml_that_parses() {
    let dir = scratch("import-odd-names");
    let file = dir.join("odd\tnames\n\u{7}é.yml");
    std::fs::write(
        &file,
        "resilience4j.retry:\n  instances:\n    \"back\\nend\\u0007\\tA ✓\":\n      maxAttempts: 3\n",
    )
    .unwrap();
    let out = cascade(&["import", "resilience4j", file.to_str().unwrap()], 0);
    let toml = String::from_utf8(out.stdout).unwrap();
    // The policy's name is made of letters, digits, `-` and `_`, as before.
    assert_eq!(
        keys(&toml)["policy.back-end--A.retry.attempts"],
        "3",
        "{toml}"
    );
    assert!(
        toml.contains("# resilience4j.retry.instances.back\\nend\\u{7}\tA ✓.maxAttempts (")
            && toml.contains("odd\tnames\\n\\u{7}é.yml:4)"),
        "{toml}"
    );
    validates(&toml, "back-end--A", "backend");
}

fn import_text(library: &str, name: &str, text: &str) -> String {
    let dir = scratch(&format!("import-bad-{library}-{}", name.replace('.', "-")));
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let out = cascade(&["import", library, file.to_str().unwrap()], 2);
    assert!(out.stdout.is_empty(), "nothing on stdout on an error");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err.replace(&format!("{}/", dir.display()), "")
}

#[test]
fn a_bad_value_exits_2_naming_file_line_and_key() {
    let err = import_text(
        "envoy",
        "route.yaml",
        "route:\n  cluster: a\n  retry_policy:\n    num_retries: -1\n",
    );
    assert!(err.starts_with("error: route.yaml:4:18: field `route.retry_policy.num_retries`: expected a whole number"), "{err}");
    let err = import_text(
        "envoy",
        "route.yaml",
        "route:\n  retry_policy:\n    retry_on: 5xx,teapot\n",
    );
    assert!(
        err.contains(
            "route.yaml:3:15: field `route.retry_policy.retry_on`: unknown retry condition `teapot`"
        ),
        "{err}"
    );
    let err = import_text(
        "envoy",
        "c.yaml",
        "name: c\noutlier_detection:\n  enforcing_consecutive_5xx: 50\n",
    );
    assert!(
        err.contains("c.yaml:3:30: field `outlier_detection.enforcing_consecutive_5xx`"),
        "{err}"
    );
    let err = import_text(
        "grpc",
        "sc.json",
        "{\"methodConfig\": [{\"retryPolicy\": {\n \"maxAttempts\": 1}}]}",
    );
    assert!(
        err.contains(
            "sc.json:2:17: field `methodConfig[0].retryPolicy.maxAttempts`: must be at least 2"
        ),
        "{err}"
    );
    let err = import_text(
        "grpc",
        "sc.json",
        "{\"methodConfig\": [{\"retryPolicy\": {\"maxAttempts\": 3}}]}",
    );
    assert!(err.contains("gRPC requires `initialbackoff`"), "{err}");
    let err = import_text(
        "resilience4j",
        "a.yml",
        "resilience4j:\n  retry:\n    instances:\n      x:\n        waitDuration: 10 parsecs\n",
    );
    assert!(err.contains("a.yml:5:23: field `resilience4j.retry.instances.x.waitDuration`: cannot read \"10 parsecs\""), "{err}");
    let err = import_text(
        "resilience4j",
        "a.yml",
        "resilience4j.circuitbreaker.instances.x:\n  baseConfig: nope\n",
    );
    assert!(err.contains("no config named `nope`"), "{err}");
    let err = import_text(
        "resilience4j",
        "a.properties",
        "resilience4j.circuitbreaker.instances.x.failure-rate-threshold=150\n",
    );
    assert!(
        err.contains("a.properties:1:") && err.contains("a percentage in (0, 100]"),
        "{err}"
    );
}

#[test]
fn malformed_yaml_and_json_exit_2_never_panic() {
    let err = import_text("envoy", "bad.yaml", "route:\n  retry_policy: [1, 2\n");
    assert!(
        err.starts_with("error: bad.yaml:") && err.contains("not valid YAML"),
        "{err}"
    );
    let err = import_text("grpc", "bad.json", "{\"methodConfig\": [}\n");
    assert!(
        err.starts_with("error: bad.json:1:") && err.contains("not valid JSON"),
        "{err}"
    );
    let err = import_text("envoy", "empty.yaml", "");
    assert!(err.contains("no Envoy cluster or route found"), "{err}");
    let err = import_text("grpc", "list.json", "[1, 2]");
    assert!(err.contains("a service config is a JSON object"), "{err}");
}

#[test]
fn name_renames_a_single_policy_and_refuses_several() {
    let path = fixture("grpc-retry.json");
    let out = cascade(
        &[
            "import",
            "grpc",
            path.to_str().unwrap(),
            "--name",
            "echo-client",
        ],
        0,
    );
    let toml = String::from_utf8(out.stdout).unwrap();
    assert!(
        keys(&toml).contains_key("policy.echo-client.retry.attempts"),
        "{toml}"
    );
    let path = fixture("resilience4j-demo.yml");
    let out = cascade(
        &[
            "import",
            "resilience4j",
            path.to_str().unwrap(),
            "--name",
            "x",
        ],
        2,
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("yields 4 policies (backendA, backendB, backendC, backendD)"),
        "{err}"
    );
}

/// docs/examples/payments.toml (the README's walk-through) holds the import of the Envoy fixture
/// as printed: its `[policy.payments]` tables are what `cascade import envoy` prints today.
#[test]
fn the_readme_example_holds_the_import_as_printed() {
    let out = crate::support::cascade(
        &[
            "import",
            "envoy",
            "tests/fixtures/import/envoy-bootstrap.yaml",
        ],
        0,
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let tables = |text: &str| -> String {
        let from = text.find("\n[policy.payments]\n").expect("the policy") + 1;
        let rest = &text[from..];
        let to = rest.find("\n# Not part of a policy").unwrap_or(rest.len());
        rest[..to].trim_end().to_string()
    };
    let example = std::fs::read_to_string("docs/examples/payments.toml").unwrap();
    assert_eq!(tables(&example), tables(&printed));
}

/// The fixture list the import tests, goldens and fuzzer share is the directory's contents:
/// a fixture added there cannot be left out of them.
#[test]
fn the_shared_fixture_list_is_every_fixture() {
    let mut on_disk: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = crate::support::IMPORT_FIXTURES
        .iter()
        .map(|(_, f)| f.to_string())
        .collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}
