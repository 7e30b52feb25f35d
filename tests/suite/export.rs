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
    // perAttemptRecvTimeout is a field of the RetryPolicy message (A6), where import reads
    // it: written beside it, on the method config, it was lost on the way back.
    assert_eq!(
        v["methodConfig"][0]["retryPolicy"]["perAttemptRecvTimeout"],
        "0.1s"
    );
    assert!(v["methodConfig"][0].get("perAttemptRecvTimeout").is_none());
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

/// Every `[policy.NAME]` of every scenario in scenarios/, by file and name.
fn library_policies() -> Vec<(std::path::PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let doc: toml_edit::DocumentMut = std::fs::read_to_string(&file).unwrap().parse().unwrap();
        if let Some(policies) = doc.get("policy").and_then(|p| p.as_table_like()) {
            for (name, _) in policies.iter() {
                out.push((file.clone(), name.to_string()));
            }
        }
    }
    out
}

/// The round trip the export promises: for every policy of scenarios/ and every format,
/// importing what export wrote and compiling it gives `export::expressible`'s restriction of
/// the policy (compared as compiled `Policy` values, every field); a policy the format keeps
/// nothing of is refused by export instead, naming what it could not express.
#[test]
fn every_library_policy_round_trips_through_every_format_as_restricted() {
    use cascade::export::expressible;
    use cascade::import::Format;
    let dir = scratch("export-library-round-trip");
    let policies = library_policies();
    assert!(policies.len() > 50, "{} policies", policies.len());
    let (mut checked, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for (file, name) in &policies {
        let policy = cascade::scenario::load_policy(file, &[], name)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for format in Format::ALL {
            let case = format!("{} [policy.{name}] as {}", file.display(), format.name());
            let restricted = expressible(format, &policy);
            let exported = match cascade::export::export(format, name, &policy) {
                Ok(e) => e,
                Err(e) => {
                    assert!(restricted.nothing_left, "{case}: {e}");
                    refused += 1;
                    continue;
                }
            };
            assert!(!restricted.nothing_left, "{case}: exported");
            assert_eq!(exported.unexpressed, restricted.unexpressed, "{case}");
            let ext = if format == Format::Grpc {
                "json"
            } else {
                "yaml"
            };
            let imported =
                cascade::import::import(format, &format!("x.{ext}"), &exported.text, Some("p"))
                    .unwrap_or_else(|e| panic!("{case}: {e}\n{}", exported.text));
            let scenario = dir.join("s.toml");
            std::fs::write(&scenario, format!("{BASE}{}", imported.toml("import"))).unwrap();
            let mut back = cascade::scenario::load_policy(&scenario, &[], "p")
                .unwrap_or_else(|e| panic!("{case}: {e}"));
            back.name = restricted.policy.name.clone();
            if back != restricted.policy {
                failures.push(format!(
                    "{case}:\n  exported  {}\n  restricted {:?}\n  imported   {back:?}",
                    exported.text.replace('\n', "\n    "),
                    restricted.policy
                ));
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} round trips differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        checked > 150 && refused > 0,
        "{checked} checked, {refused} refused"
    );
}

/// A policy a format keeps nothing of is refused, naming what it could not express: it used to
/// print a bare `resilience4j:` and exit 0, which `cascade import` then refused (exit 2).
#[test]
fn an_export_with_nothing_left_exits_2_naming_what_it_could_not_express() {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/sre-throttling.toml");
    let s = scenario.to_str().unwrap();
    let out = cascade(&["export", "resilience4j", s, "--policy", "throttled"], 2);
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("policy `throttled` has nothing resilience4j expresses")
            && err.contains("`throttle`: resilience4j has no such module"),
        "{err}"
    );
}

/// Regression: a resilience4j instance is a map key named after the policy, and keys were
/// written bare, so a policy named `007` came back from the YAML as the instance 7 (and
/// Spring's YAML 1.1 reads `on` as true), and `null` or `1e3` as no string at all, which import
/// refused. Such keys are quoted now; every name reads back as itself.
#[test]
fn a_policy_named_like_a_number_or_a_keyword_exports_under_its_name() {
    use saphyr::{LoadableYamlNode, Yaml};
    let dir = scratch("export-odd-names");
    let scenario = dir.join("s.toml");
    let names = ["007", "null", "1e3", "0x1F", "on", "-db", "plain"];
    let policies: String = names
        .iter()
        .map(|n| format!("[policy.{n}]\ntimeout = \"1s\"\n"))
        .collect();
    std::fs::write(&scenario, format!("{BASE}{policies}")).unwrap();
    let s = scenario.to_str().unwrap();
    for name in names {
        let policy = format!("--policy={name}");
        let yaml = stdout(cascade(&["export", "resilience4j", s, &policy], 0));
        let docs = Yaml::load_from_str(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        let instances = docs[0]["resilience4j"]["timelimiter"]["instances"]
            .as_mapping()
            .unwrap_or_else(|| panic!("{name}: no instances\n{yaml}"));
        let keys: Vec<Option<&str>> = instances.keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, [Some(name)], "{yaml}");
        // Import names a policy with letters, digits, `-` and `_`, without a leading `-`.
        let file = dir.join(format!("{name}.yml"));
        std::fs::write(&file, &yaml).unwrap();
        let back = import("resilience4j", &file);
        let want = format!("\n[policy.{}]\n", name.trim_start_matches('-'));
        assert!(back.contains(&want), "{name}:\n{yaml}\n{back}");
    }
}

/// A service's admission `rate_limit` written as the inbound listener's local rate limit
/// filter (`cascade export envoy --service`) and imported again gives the same `--set`
/// lines, and run with them the same limit; what the filter cannot say is refused or listed.
#[test]
fn a_service_rate_limit_round_trips_through_envoys_local_rate_limit_filter() {
    let dir = scratch("export-service-rate-limit");
    let scenario = dir.join("s.toml");
    let limited =
        "rate_limit = { max_tokens = 7, tokens_per_fill = 3, fill_interval = \"250ms\" }\n";
    std::fs::write(&scenario, format!("{BASE}{limited}")).unwrap();
    let s = scenario.to_str().unwrap();
    let out = cascade(&["export", "envoy", s, "--service", "s"], 0);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dir.join("listener.yaml");
    std::fs::write(&file, stdout(out)).unwrap();
    let imported = cascade(&["import", "envoy", file.to_str().unwrap()], 0);
    let sets: Vec<String> = stdout(imported.clone())
        .lines()
        .filter_map(|l| l.trim_start_matches(['#', ' ']).strip_prefix("--set '"))
        .map(|l| l.split('\'').next().unwrap().to_string())
        .collect();
    assert_eq!(
        sets,
        [
            "service.s.rate_limit.max_tokens=7",
            "service.s.rate_limit.tokens_per_fill=3",
            "service.s.rate_limit.fill_interval=250ms",
            "service.s.rate_limit.refill=continuous",
            "service.s.rate_limit.scope=instance",
        ]
    );
    // The connection manager's stat_prefix named the service: it was read, not skipped.
    let notes = String::from_utf8(imported.stderr).unwrap();
    assert!(!notes.contains("stat_prefix"), "{notes}");
    // Run with the imported lines, the limit is the one exported.
    let bare = dir.join("bare.toml");
    std::fs::write(&bare, BASE).unwrap();
    let mut overrides = Vec::new();
    for set in &sets {
        overrides.push(cascade::scenario::Override::parse(set).unwrap());
    }
    let again = cascade::scenario::load(&bare, &overrides).unwrap();
    let original = cascade::scenario::load(&scenario, &[]).unwrap();
    assert_eq!(
        again.model.services[0].rate_limit,
        original.model.services[0].rate_limit
    );
    // Refused: a fleet bucket and a keyed one are not the filter's single bucket.
    for (extra, says) in [
        ("scope = \"fleet\"", "scope = \"fleet\""),
        ("key = \"client\"", "keyed by tenant"),
    ] {
        let text =
            format!("{BASE}rate_limit = {{ max_tokens = 7, fill_interval = \"1s\", {extra} }}\n");
        std::fs::write(&scenario, text).unwrap();
        let err = String::from_utf8(cascade(&["export", "envoy", s, "--service", "s"], 2).stderr)
            .unwrap();
        assert!(err.contains(says), "{err}");
    }
    // Listed: Retry-After and tick refill are written without what Envoy cannot say.
    let text = format!(
        "{BASE}rate_limit = {{ max_tokens = 7, fill_interval = \"1s\", refill = \"tick\", retry_after = true }}\n"
    );
    std::fs::write(&scenario, text).unwrap();
    let err =
        String::from_utf8(cascade(&["export", "envoy", s, "--service", "s"], 0).stderr).unwrap();
    assert!(
        err.contains("not expressible in envoy: `rate_limit.retry_after`"),
        "{err}"
    );
    assert!(
        err.contains("not expressible in envoy: `rate_limit.refill`"),
        "{err}"
    );
    // Only Envoy has such a filter; a service without a limit has nothing to export.
    let err =
        String::from_utf8(cascade(&["export", "grpc", s, "--service", "s"], 2).stderr).unwrap();
    assert!(err.contains("use envoy"), "{err}");
    std::fs::write(&scenario, BASE).unwrap();
    let err =
        String::from_utf8(cascade(&["export", "envoy", s, "--service", "s"], 2).stderr).unwrap();
    assert!(err.contains("has no rate_limit"), "{err}");
}
