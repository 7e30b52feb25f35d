//! `cascade export`: each import fixture imported, pasted into a scenario, exported to its
//! library's format and imported again gives the same keys (compared as parsed TOML values,
//! `on` lists as sets); what a format cannot express is listed on stderr.

use crate::support::{cascade, scratch};
use std::collections::BTreeMap;
use std::path::Path;

const BASE: &str = "[scenario]\nname = \"x\"\nduration = \"5s\"\n\n[[client]]\nname = \"c\"\ntarget = \"s\"\nrate = 1\n\n[[service]]\nname = \"s\"\nwork = \"1ms\"\n\n";

fn stdout(out: std::process::Output) -> String {
    String::from_utf8(out.stdout).unwrap()
}

/// Every policy key of imported TOML by path, `on`/`count` lists sorted.
fn keys(toml: &str) -> BTreeMap<String, String> {
    let doc: toml_edit::DocumentMut = toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut out = BTreeMap::new();
    fn walk(prefix: &str, t: &dyn toml_edit::TableLike, out: &mut BTreeMap<String, String>) {
        for (k, item) in t.iter() {
            let path = format!("{prefix}.{k}");
            match item {
                toml_edit::Item::Table(t) => walk(&path, t, out),
                toml_edit::Item::Value(toml_edit::Value::Array(a)) => {
                    let mut items: Vec<String> = a
                        .iter()
                        .map(|v| v.clone().decorated("", "").to_string())
                        .collect();
                    items.sort();
                    out.insert(path, items.join(","));
                }
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

fn import(library: &str, path: &Path) -> String {
    stdout(cascade(&["import", library, path.to_str().unwrap()], 0))
}

fn round_trip(library: &str, fixture: &str, ext: &str) {
    let dir = scratch(&format!("export-{}", fixture.replace('.', "-")));
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(fixture);
    let first = import(library, &src);
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, format!("{BASE}{first}")).unwrap();
    let before = keys(&first);
    let names: Vec<String> = before
        .keys()
        .map(|k| k.split('.').nth(2).unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(!names.is_empty());
    for name in names {
        let out = cascade(
            &[
                "export",
                library,
                scenario.to_str().unwrap(),
                "--policy",
                &name,
            ],
            0,
        );
        let file = dir.join(format!("{name}.{ext}"));
        std::fs::write(&file, stdout(out)).unwrap();
        let again = keys(&import(library, &file));
        let mine = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> {
            m.iter()
                .filter(|(k, _)| k.starts_with(&format!(".policy.{name}.")))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        assert_eq!(
            mine(&again),
            mine(&before),
            "{fixture}: policy {name} after export and import"
        );
    }
}

#[test]
fn envoy_round_trips() {
    round_trip("envoy", "envoy-bootstrap.yaml", "yaml");
    round_trip("envoy", "envoy-route.json", "yaml");
}

#[test]
fn grpc_round_trips() {
    round_trip("grpc", "grpc-retry.json", "json");
    round_trip("grpc", "grpc-hedging.json", "json");
}

#[test]
fn resilience4j_round_trips() {
    round_trip("resilience4j", "resilience4j-demo.yml", "yml");
    round_trip("resilience4j", "resilience4j.properties", "yml");
}

#[test]
fn what_a_format_cannot_say_is_listed() {
    let dir = scratch("export-unexpressed");
    let scenario = dir.join("s.toml");
    let policy = "[policy.p]\ntimeout = \"100ms\"\nreserve = \"10ms\"\nretry = { attempts = 7, backoff = \"linear\", jitter = \"equal\", budget = 0.1 }\nbreaker = { window = 20 }\nthrottle = {}\nhedge = { delay = \"p95\" }\n";
    std::fs::write(&scenario, format!("{BASE}{policy}")).unwrap();
    let s = scenario.to_str().unwrap();
    let err = |lib: &str| {
        String::from_utf8(cascade(&["export", lib, s, "--policy", "p"], 0).stderr).unwrap()
    };
    let envoy = err("envoy");
    for key in [
        "`reserve`",
        "`retry.backoff`",
        "`retry.jitter`",
        "`retry.budget`",
        "`breaker`",
        "`throttle`",
        "`hedge`",
    ] {
        assert!(
            envoy.contains(&format!("not expressible in envoy: {key}")),
            "{key}:\n{envoy}"
        );
    }
    let grpc = err("grpc");
    for key in [
        "`retry.attempts`: gRPC clamps maxAttempts to 5",
        "`retry.backoff`",
        "`hedge`",
        "`breaker`",
        "`throttle`",
    ] {
        assert!(grpc.contains(key), "{key}:\n{grpc}");
    }
    let r4j = err("resilience4j");
    for key in [
        "`retry.backoff`",
        "`retry.jitter`",
        "`retry.on`",
        "`retry.retry_after`",
        "`retry.budget`",
        "`throttle`",
        "`hedge`",
    ] {
        assert!(r4j.contains(key), "{key}:\n{r4j}");
    }
    // gRPC's maxAttempts of 7 is written clamped, as gRPC would read it.
    let json = stdout(cascade(&["export", "grpc", s, "--policy", "p"], 0));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["methodConfig"][0]["retryPolicy"]["maxAttempts"], 5);
    assert_eq!(v["methodConfig"][0]["perAttemptRecvTimeout"], "0.1s");
    let out = cascade(&["export", "envoy", s, "--policy", "nope"], 2);
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        e.contains("no [policy.nope]") && e.contains("policies: p"),
        "{e}"
    );
}

#[test]
fn a_preset_is_exported_resolved() {
    // Polly's 3 retries come out as Envoy's num_retries 3 and resilience4j's maxAttempts 4.
    let dir = scratch("export-preset");
    let scenario = dir.join("s.toml");
    std::fs::write(
        &scenario,
        format!("{BASE}[policy.p]\npreset = \"polly\"\nretry = {{}}\n"),
    )
    .unwrap();
    let s = scenario.to_str().unwrap();
    let yaml = stdout(cascade(&["export", "envoy", s, "--policy", "p"], 0));
    assert!(yaml.contains("num_retries: 3\n"), "{yaml}");
    let yaml = stdout(cascade(&["export", "resilience4j", s, "--policy", "p"], 0));
    assert!(
        yaml.contains("maxAttempts: 4\n") && yaml.contains("waitDuration: \"2s\"\n"),
        "{yaml}"
    );
}
