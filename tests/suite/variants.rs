//! `[[variant]]`: the scenario again with some fields set otherwise, on the same random draws.

use std::path::Path;
use std::process::Command;

const SCENARIO: &str = r#"[scenario]
name = "variants"
duration = "30s"
seed = 7

[[client]]
name = "app"
target = "api"
rate = 500
policy = "p"

[policy.p]
timeout = "50ms"
retry = { attempts = 3 }

[[service]]
name = "api"
workers = 6
work = { dist = "exponential", mean = "10ms" }

[[variant]]
name = "wider"
set = { service.api.workers = 12 }

[[variant]]
name = "no-retry"
set = { "policy.p.retry.attempts" = 1, "policy.p.timeout" = "80ms" }
"#;

fn write(tag: &str, text: &str) -> crate::support::Scratch {
    let d = crate::support::scratch(&format!("variants-{tag}"));
    std::fs::write(d.join("v.toml"), text).unwrap();
    d
}

#[test]
fn variants_run_on_the_same_draws_with_their_own_settings() {
    let d = write("same", SCENARIO);
    let models: Vec<_> = cascade::scenario::load_with_variants(&d.join("v.toml"), &[])
        .unwrap()
        .into_iter()
        .map(|(n, s)| (n, s.model))
        .collect();
    let names: Vec<Option<&str>> = models.iter().map(|(n, _)| n.as_deref()).collect();
    assert_eq!(names, vec![None, Some("wider"), Some("no-retry")]);
    assert_eq!(models[1].1.services[0].workers, 12);
    assert_eq!(
        models[2].1.clients[0].call.policy.timeout(),
        Some(cascade_policy::Nanos(80_000_000))
    );
    let runs: Vec<_> = models
        .iter()
        .map(|(_, m)| cascade::simulate(m).unwrap().metrics)
        .collect();
    // Common random numbers: the same seed gives every variant the same arrivals.
    let requests: Vec<f64> = runs
        .iter()
        .map(|m| m.get("client.app.requests").unwrap())
        .collect();
    assert_eq!(requests[0], requests[1]);
    assert_eq!(requests[0], requests[2]);
    // Doubling the workers takes the overloaded api (ρ = 0.83 with retries on top) to ρ < 0.5.
    let success = |m: &cascade::metrics::RunMetrics| m.get("client.app.success_ratio").unwrap();
    assert!(success(&runs[1]) > success(&runs[0]));
}

#[test]
fn cascade_run_writes_each_variant_apart_and_compares_them() {
    let d = write("cli", SCENARIO);
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("run")
        .arg(d.join("v.toml"))
        .arg("--out")
        .arg(d.join("out"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("variants (same seed as the base)"),
        "{stdout}"
    );
    assert!(stdout.contains("wider") && stdout.contains("no-retry") && stdout.contains("Δ%"));
    for sub in ["", "wider", "no-retry"] {
        assert!(
            Path::new(&d.join("out").join(sub).join("summary.json")).exists(),
            "{sub}"
        );
    }
}

#[test]
fn a_bad_variant_is_named_in_the_error() {
    let d = write(
        "bad",
        &SCENARIO.replace("service.api.workers = 12", "service.api.wrkers = 12"),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("run")
        .arg(d.join("v.toml"))
        .arg("--out")
        .arg(d.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("variant `wider` set service.api.wrkers=12"),
        "{err}"
    );
    assert!(err.contains("wrkers"), "{err}");
    assert!(!d.join("out").exists());
}

#[test]
fn an_empty_table_in_a_variant_set_turns_the_feature_on_with_its_defaults() {
    let text = SCENARIO.replace(
        "retry = { attempts = 3 }",
        "limit = { algorithm = \"aimd\" }",
    ) + r#"
[[variant]]
name = "codel"
set = { service.api.codel = {} }

[[variant]]
name = "outlier"
set = { "service.api.outlier" = {} }

[[variant]]
name = "windowed"
set = { policy.p.limit.window = {} }
"#;
    let d = write("empty", &text);
    let models: Vec<_> = cascade::scenario::load_with_variants(&d.join("v.toml"), &[])
        .unwrap()
        .into_iter()
        .map(|(n, s)| (n, s.model))
        .collect();
    let by = |n: &str| {
        &models
            .iter()
            .find(|(v, _)| v.as_deref() == Some(n))
            .unwrap()
            .1
    };
    let base = &models[0].1;
    assert!(base.services[0].codel.is_none() && base.services[0].outlier.is_none());
    let limit = |m: &cascade::Model| m.clients[0].call.policy.limit.clone().unwrap();
    assert!(limit(base).window.is_none());
    assert!(by("codel").services[0].codel.is_some());
    assert!(by("outlier").services[0].outlier.is_some());
    assert!(limit(by("windowed")).window.is_some());
    // `--set` with the same empty table agrees with the variant.
    let set = cascade::scenario::Override::parse("service.api.codel={}").unwrap();
    let m = cascade::scenario::load(&d.join("v.toml"), &[set])
        .unwrap()
        .model;
    assert_eq!(m.services[0].codel, by("codel").services[0].codel);
}

#[test]
fn a_variant_sets_strings_exactly_as_written() {
    // Escapes TOML has and Rust's debug form spells otherwise (`\u{1b}`, `\0`).
    let text = format!(
        "{SCENARIO}\n[[variant]]\nname = \"described\"\nset = {{ \"scenario.description\" = \"esc \\u001b nul \\u0000 quote \\\" tab \\t\" }}\n"
    );
    let d = write("escape", &text);
    let models = cascade::scenario::load_with_variants(&d.join("v.toml"), &[]).unwrap();
    let effective: toml_edit::DocumentMut = models[3].1.source.text.parse().unwrap();
    assert_eq!(
        effective["scenario"]["description"].as_str(),
        Some("esc \u{1b} nul \u{0} quote \" tab \t")
    );
}

#[test]
fn a_bad_variant_set_points_at_its_entry_in_user_terms() {
    let cases = [
        // (set, line:column of the entry, words the message must have)
        (
            r#""policy.p.retry" = { budget = { ratio = "x" } }"#,
            "v.toml:31:41:",
            "field `policy.p.retry.budget.ratio`",
        ),
        (
            r#"policy.p.retry = { attempts = 2, budget = "all" }"#,
            "v.toml:31:",
            "expected a budget",
        ),
        (
            r#""policy.p.breaker" = { window = [1] }"#,
            "v.toml:31:",
            "expected a window: a number of calls",
        ),
        (
            r#"service.api.wrkers = 3"#,
            "v.toml:31:21:",
            "did you mean `workers`",
        ),
    ];
    for (set, at, words) in cases {
        let text = format!("{SCENARIO}\n[[variant]]\nname = \"bad\"\nset = {{ {set} }}\n");
        let d = write("badset", &text);
        let v = d.join("v.toml");
        let out = crate::support::cascade(&["validate", v.to_str().unwrap()], 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(at), "{set}: not at {at}:\n{err}");
        assert!(err.contains("variant `bad` set "), "{set}:\n{err}");
        assert!(err.contains(words), "{set}:\n{err}");
        assert!(
            !err.contains("--set") && !err.contains("Raw"),
            "{set}:\n{err}"
        );
    }
}

#[test]
fn a_duplicate_variant_name_points_at_the_duplicate() {
    let text = format!(
        "{SCENARIO}\n[[variant]]\nname = \"wider\"\nset = {{ \"service.api.workers\" = 3 }}\n"
    );
    let d = write("dup", &text);
    let (v, o) = (d.join("v.toml"), d.join("o"));
    let (v, o) = (v.to_str().unwrap(), o.to_str().unwrap());
    // validate finds it as run does, without running anything.
    for args in [&["validate", v][..], &["run", v, "--out", o]] {
        let out = crate::support::cascade(args, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("v.toml:30:1:"), "{args:?}: {err}");
        assert!(
            err.contains("variant.2.name") && err.contains("unique"),
            "{args:?}: {err}"
        );
    }
    assert!(!d.join("o").exists());
}
