//! `cascade import envoy` of a retry policy's host selection (docs/import.md):
//! `retry_host_predicate` with `previous_hosts` and `host_selection_retry_max_attempts` become
//! `retry.other_host` and `retry.host_reselections`; what cascade cannot simulate is listed,
//! and a count cascade refuses exits 2 naming file, line and key.

use crate::support::{cascade, scratch};

/// A route whose retry policy carries `host_selection` (YAML lines under `retry_policy`),
/// imported: exit code `code`, stdout and stderr (the scratch path taken out).
fn import_route(tag: &str, host_selection: &str, code: i32) -> (String, String) {
    let dir = scratch(&format!("import-envoy-hosts-{tag}"));
    let file = dir.join("route.yaml");
    let text = format!(
        "name: api\nroute:\n  cluster: api\n  retry_policy:\n    retry_on: 5xx\n{host_selection}"
    );
    std::fs::write(&file, text).unwrap();
    let out = cascade(&["import", "envoy", file.to_str().unwrap()], code);
    let clean = |b: Vec<u8>| {
        String::from_utf8(b)
            .unwrap()
            .replace(&format!("{}/", dir.display()), "")
    };
    (clean(out.stdout), clean(out.stderr))
}

/// The value of `key` in the printed `[policy.api.retry]` table, if written.
fn retry_key(toml: &str, key: &str) -> Option<String> {
    let doc: toml_edit::DocumentMut = toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let v = doc.get("policy")?.get("api")?.get("retry")?.get(key)?;
    Some(v.as_value()?.clone().decorated("", "").to_string())
}

#[test]
fn previous_hosts_by_its_typed_config_with_a_count() {
    let (toml, _) = import_route(
        "typed",
        "    retry_host_predicate:\n    - name: anything\n      typed_config:\n        \"@type\": type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate\n    host_selection_retry_max_attempts: 3\n",
        0,
    );
    assert_eq!(retry_key(&toml, "other_host").as_deref(), Some("true"));
    assert_eq!(retry_key(&toml, "host_reselections").as_deref(), Some("3"));
    assert!(
        toml.contains("host_selection_retry_max_attempts (route.yaml:10)"),
        "{toml}"
    );
}

#[test]
fn other_predicates_and_a_lone_count_are_listed_not_imported() {
    let (toml, notes) = import_route(
        "canary",
        "    retry_host_predicate:\n    - name: envoy.retry_host_predicates.omit_canary_hosts\n    host_selection_retry_max_attempts: 2\n",
        0,
    );
    assert_eq!(retry_key(&toml, "other_host"), None);
    assert_eq!(retry_key(&toml, "host_reselections"), None);
    assert!(
        notes.contains("route.yaml:7: not imported: `route.retry_policy.retry_host_predicate`: only the previous_hosts predicate is simulated"),
        "{notes}"
    );
    assert!(
        notes.contains(
            "route.yaml:8: not imported: `route.retry_policy.host_selection_retry_max_attempts`"
        ),
        "{notes}"
    );
}

#[test]
fn a_count_of_zero_leaves_the_predicate_nothing_to_do() {
    // Envoy makes host_selection_retry_max_attempts + 1 picks: one, which the predicate
    // never rejects.
    let (toml, notes) = import_route(
        "zero",
        "    retry_host_predicate:\n    - name: envoy.retry_host_predicates.previous_hosts\n    host_selection_retry_max_attempts: 0\n",
        0,
    );
    assert_eq!(retry_key(&toml, "other_host"), None);
    assert!(
        notes.contains("Envoy picks once and the predicate never acts"),
        "{notes}"
    );
}

#[test]
fn a_count_above_cascades_bound_exits_2() {
    let (out, err) = import_route(
        "many",
        "    retry_host_predicate:\n    - name: envoy.retry_host_predicates.previous_hosts\n    host_selection_retry_max_attempts: 1000\n",
        2,
    );
    assert!(out.is_empty());
    assert!(
        err.contains("route.yaml:8:40: field `route.retry_policy.host_selection_retry_max_attempts`: 1000 is more than cascade's 100 re-picks"),
        "{err}"
    );
}
