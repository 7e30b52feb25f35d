//! Golden outputs of the commands that read and write other libraries' configs: `cascade
//! import` of every fixture in tests/fixtures/import/ and tests/fixtures/traces/, `cascade export` in each format, and
//! `cascade presets`. They pin every printed line (its key, value and source comment) and every
//! "not imported" / "not expressible" note, so a change in a mapping shows up as a diff to
//! review; `CASCADE_BLESS=1 cargo test --profile test-release` regenerates them.

use crate::support::golden::{assert_golden, command_text, repo};
use crate::support::{IMPORT_FIXTURES, cascade, scratch};

#[test]
fn golden_imports_of_every_fixture() {
    let dir = scratch("golden-import");
    for (library, file) in IMPORT_FIXTURES {
        let path = repo().join("tests/fixtures/import").join(file);
        let o = cascade(&["import", library, path.to_str().unwrap()], 0);
        let name = file.replace('.', "-");
        assert_golden(&format!("import/{name}.txt"), &command_text(&o, &dir));
    }
}

/// `cascade import traces` of each trace fixture: the whole scenario and the report of what
/// could not be inferred.
#[test]
fn golden_imports_of_every_trace_fixture() {
    let dir = scratch("golden-import-traces");
    for file in crate::support::TRACE_FIXTURES {
        let path = repo().join("tests/fixtures/traces").join(file);
        let o = cascade(&["import", "traces", path.to_str().unwrap()], 0);
        let name = file.replace('.', "-");
        assert_golden(
            &format!("import/traces-{name}.txt"),
            &command_text(&o, &dir),
        );
    }
}

#[test]
fn golden_exports_in_each_format() {
    let dir = scratch("golden-export");
    for (library, scenario, policy) in [
        ("envoy", "docs/examples/payments.toml", "payments"),
        ("grpc", "scenarios/grpc-hedge-throttling.toml", "app"),
        ("grpc", "scenarios/hedge-p95.toml", "store-client"),
        ("resilience4j", "scenarios/order-api.toml", "payment"),
    ] {
        let path = repo().join(scenario);
        let args = [
            "export",
            library,
            path.to_str().unwrap(),
            "--policy",
            policy,
        ];
        let o = cascade(&args, 0);
        assert_golden(
            &format!("export/{library}-{policy}.txt"),
            &command_text(&o, &dir),
        );
    }
}

#[test]
fn golden_export_of_a_service_rate_limit() {
    let dir = scratch("golden-export-service");
    let path = repo().join("scenarios/sidecar-rate-limit.toml");
    let args = [
        "export",
        "envoy",
        path.to_str().unwrap(),
        "--service",
        "api",
        "--set",
        "service.api.rate_limit.scope=\"instance\"",
    ];
    let o = cascade(&args, 0);
    assert_golden("export/envoy-service-api.txt", &command_text(&o, &dir));
}

#[test]
fn golden_presets_list() {
    let dir = scratch("golden-presets");
    let o = cascade(&["presets"], 0);
    assert_golden("presets/list.txt", &command_text(&o, &dir));
}
