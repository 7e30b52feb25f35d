//! `cascade import envoy` of the local rate limit filter (`envoy.filters.http.local_ratelimit`):
//! the bucket becomes the `rate_limit` of the service behind the listener, as `--set` lines that
//! a scenario accepts; what cascade cannot express is listed or, where writing the limit would
//! change what it admits, refused with exit 2 naming file, line and field (docs/import.md).

use crate::support::{cascade, scratch};
use std::path::Path;

/// Imports `text` as `name`; returns exit code, stdout and stderr (the scratch dir removed).
fn import(name: &str, text: &str, code: i32) -> (String, String) {
    let dir = scratch(&format!("import-envoy-rl-{}", name.replace('.', "-")));
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let out = cascade(&["import", "envoy", file.to_str().unwrap()], code);
    let strip = |b: Vec<u8>| {
        String::from_utf8(b)
            .unwrap()
            .replace(&format!("{}/", dir.display()), "")
    };
    (strip(out.stdout), strip(out.stderr))
}

fn set_lines(toml: &str) -> Vec<String> {
    toml.lines()
        .filter_map(|l| l.strip_prefix("#   --set '"))
        .map(|l| l[..l.find('\'').unwrap()].to_string())
        .collect()
}

/// A listener whose HTTP connection manager routes to `checkout`, with the filter's
/// `typed_config` body `config` (indented under it).
fn listener(config: &str) -> String {
    let body: String = config.lines().map(|l| format!("          {l}\n")).collect();
    format!(
        "name: inbound\nfilter_chains:\n- filters:\n  - name: envoy.filters.network.http_connection_manager\n    typed_config:\n      http_filters:\n      - name: envoy.filters.http.local_ratelimit\n        typed_config:\n          \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n{body}      route_config:\n        virtual_hosts:\n        - routes:\n          - route: {{ cluster: checkout }}\n"
    )
}

const FULL: &str = "filter_enabled: { default_value: { numerator: 100, denominator: HUNDRED } }\nfilter_enforced: { default_value: { numerator: 100 } }\n";

#[test]
fn the_fixtures_filter_is_the_services_rate_limit_and_a_scenario_takes_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import/envoy-local-ratelimit.yaml");
    let out = cascade(&["import", "envoy", path.to_str().unwrap()], 0);
    let toml = String::from_utf8(out.stdout).unwrap();
    let notes = String::from_utf8(out.stderr).unwrap();
    // The routes' one cluster, checkout, is the service behind the inbound listener.
    let sets = set_lines(&toml);
    assert_eq!(
        sets,
        [
            "service.checkout.rate_limit.max_tokens=100",
            "service.checkout.rate_limit.tokens_per_fill=50",
            "service.checkout.rate_limit.fill_interval=500ms",
            "service.checkout.rate_limit.refill=continuous",
            "service.checkout.rate_limit.scope=instance",
        ]
    );
    for listed in [
        "envoy-local-ratelimit.yaml:22: not imported: `local_ratelimit.filter_enabled.runtime_key`",
        "envoy-local-ratelimit.yaml:32: not imported: `local_ratelimit.response_headers_to_add`",
    ] {
        assert!(notes.contains(listed), "{listed} not listed:\n{notes}");
    }
    // The router filter carries the routes read: not listed as skipped.
    assert!(!notes.contains("envoy.filters.http.router"), "{notes}");
    // The lines, applied to a scenario with service checkout, validate.
    let dir = scratch("import-envoy-rl-validate");
    let scenario = dir.join("s.toml");
    std::fs::write(
        &scenario,
        "[scenario]\nname = \"rl\"\nduration = \"5s\"\n\n[[client]]\nname = \"web\"\ntarget = \"checkout\"\nrate = 50\n\n[[service]]\nname = \"checkout\"\ninstances = 2\nworkers = 4\nwork = \"2ms\"\n",
    )
    .unwrap();
    let mut args = vec!["validate".to_string(), scenario.to_str().unwrap().into()];
    for s in &sets {
        args.push("--set".into());
        args.push(s.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    cascade(&args, 0);
}

#[test]
fn tokens_per_fill_defaults_to_one_and_other_status_and_headers_are_listed() {
    let (toml, notes) = import(
        "a.yaml",
        &listener(&format!(
            "token_bucket: {{ max_tokens: 5, fill_interval: {{ seconds: 2 }} }}\n{FULL}status: {{ code: 503 }}\nenable_x_ratelimit_headers: DRAFT_VERSION_03\n"
        )),
        0,
    );
    assert_eq!(
        set_lines(&toml)[..3],
        [
            "service.checkout.rate_limit.max_tokens=5",
            "service.checkout.rate_limit.tokens_per_fill=1",
            "service.checkout.rate_limit.fill_interval=2s",
        ]
    );
    assert!(toml.contains("tokens_per_fill: Envoy's default"), "{toml}");
    assert!(
        notes.contains("a.yaml:13: not imported: `local_ratelimit.status.code`: 503"),
        "{notes}"
    );
    assert!(
        notes.contains("`local_ratelimit.enable_x_ratelimit_headers`: DRAFT_VERSION_03 sends X-RateLimit-Reset, not Retry-After"),
        "{notes}"
    );
}

#[test]
fn a_filter_envoy_leaves_disabled_or_in_shadow_mode_writes_no_limit() {
    // Without filter_enabled, Envoy enables the filter for 0 % of requests.
    let (toml, notes) = import(
        "off.yaml",
        &listener("token_bucket: { max_tokens: 5, fill_interval: 1s }\n"),
        0,
    );
    assert!(set_lines(&toml).is_empty(), "{toml}");
    assert!(
        notes.contains("`local_ratelimit.filter_enabled`: not set: Envoy's default is 0 %"),
        "{notes}"
    );
    // Enabled but enforced for 0 %: shadow mode, nothing refused.
    let (toml, notes) = import(
        "shadow.yaml",
        &listener(
            "token_bucket: { max_tokens: 5, fill_interval: 1s }\nfilter_enabled: { default_value: { numerator: 100 } }\nfilter_enforced: { default_value: { numerator: 0 } }\n",
        ),
        0,
    );
    assert!(set_lines(&toml).is_empty(), "{toml}");
    assert!(
        notes.contains("shadow.yaml:12: not imported: `local_ratelimit.filter_enforced`: 0 %"),
        "{notes}"
    );
}

#[test]
fn what_would_change_the_admitted_rate_exits_2_naming_file_line_and_field() {
    for (config, want) in [
        (
            format!("token_bucket: {{ max_tokens: 5 }}\n{FULL}"),
            "b.yaml:10:25: field `local_ratelimit.token_bucket.fill_interval`: required",
        ),
        (
            format!("token_bucket: {{ max_tokens: 0, fill_interval: 1s }}\n{FULL}"),
            "b.yaml:10:39: field `local_ratelimit.token_bucket.max_tokens`: must be at least 1",
        ),
        (
            format!("token_bucket: {{ max_tokens: 5, fill_interval: 1 }}\n{FULL}"),
            "b.yaml:10:57: field `local_ratelimit.token_bucket.fill_interval`: found an integer",
        ),
        (
            format!("token_bucket: {{ max_tokens: 5, fill_interval: 0s }}\n{FULL}"),
            "field `local_ratelimit.token_bucket.fill_interval`: must be more than 0s",
        ),
        (
            "token_bucket: { max_tokens: 5, fill_interval: 1s }\nfilter_enabled: { default_value: { numerator: 50 } }\nfilter_enforced: { default_value: { numerator: 100 } }\n".to_string(),
            "b.yaml:11:",
        ),
        (
            format!("token_bucket: {{ max_tokens: 5, fill_interval: 1s }}\n{FULL}descriptors:\n- entries: [{{ key: client, value: a }}]\n  token_bucket: {{ max_tokens: 1, fill_interval: 1s }}\n"),
            "field `local_ratelimit.descriptors`: per-descriptor buckets",
        ),
        (
            format!("token_bucket: {{ max_tokens: 5, fill_interval: 1s }}\n{FULL}local_rate_limit_per_downstream_connection: true\n"),
            "field `local_ratelimit.local_rate_limit_per_downstream_connection`: a bucket per downstream connection",
        ),
    ] {
        let (out, err) = import("b.yaml", &listener(&config), 2);
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(want), "want {want}\n{err}\n{}", listener(&config));
    }
    // A fraction between 0 and 100 % is refused, naming why.
    let (_, err) = import(
        "b.yaml",
        &listener(
            "token_bucket: { max_tokens: 5, fill_interval: 1s }\nfilter_enabled: { default_value: { numerator: 50 } }\nfilter_enforced: { default_value: { numerator: 100 } }\n",
        ),
        2,
    );
    assert!(
        err.contains("field `local_ratelimit.filter_enabled`: only 100 % (or 0 %) can be imported"),
        "{err}"
    );
}
