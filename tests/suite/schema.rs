//! `cascade schema`: the JSON Schema of the scenario language accepts every committed
//! scenario, refuses a misspelt key, and names every key a scenario can have.

use crate::support::cascade;
use crate::support::json_schema::{Checked, check, key_paths};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn schema() -> Value {
    cascade::scenario::schema_json::json_schema()
}

/// A scenario as JSON, as an editor's TOML plugin hands it to the schema.
fn as_json(toml: &str) -> Value {
    toml_edit::de::from_str(toml).unwrap_or_else(|e| panic!("not TOML: {e}\n{toml}"))
}

fn checked(toml: &str) -> Checked {
    check(&schema(), &as_json(toml))
}

fn toml_files(dir: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            toml_files(path.to_str().unwrap(), out);
        } else if path.extension().is_some_and(|x| x == "toml") {
            out.push(path);
        }
    }
}

/// Every scenario the repository ships: scenarios/, docs/examples/ and `cascade init`'s
/// templates.
fn committed() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["scenarios", "docs/examples", "src/cli/templates"] {
        toml_files(dir, &mut files);
    }
    files.sort();
    files
}

/// docs/examples/shop.toml is the README's example of an error: `wrkers` for `workers`.
const MISSPELT_EXAMPLE: &str = "docs/examples/shop.toml";

#[test]
fn the_command_prints_the_draft_07_schema() {
    let out = cascade(&["schema"], 0);
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, schema());
    assert_eq!(
        printed["$schema"],
        "http://json-schema.org/draft-07/schema#"
    );
    assert_eq!(printed["required"], serde_json::json!(["scenario"]));
    assert_eq!(printed["additionalProperties"], false);
}

#[test]
fn every_committed_scenario_validates() {
    let files = committed();
    assert!(files.len() >= 25, "only {} scenarios found", files.len());
    for path in files {
        let found = checked(&std::fs::read_to_string(&path).unwrap());
        if path == Path::new(MISSPELT_EXAMPLE) {
            assert_eq!(found.errors, ["service[]: unknown key `wrkers`"]);
        } else {
            assert!(
                found.errors.is_empty(),
                "{}: {:#?}",
                path.display(),
                found.errors
            );
        }
    }
}

const SMALL: &str = r#"
[scenario]
name = "small"
duration = "10s"
seed = "18446744073709551615"

[[client]]
name = "web"
target = "api"
rate = 100
criticality = "sheddable"

[[service]]
name = "api"
workers = 4
discipline = "lifo"
work = { dist = "exponential", mean = "2ms" }
calls = [ { to = "db", policy = "db-client", latency = "1ms" } ]

[[service]]
name = "db"
work = "3ms"

[policy.db-client]
timeout = "100ms"
retry = { attempts = 3, budget = 0.1 }
breaker = { window = "10s", scope = "instance" }

[[fault]]
kind = "latency"
target = "db"
factor = 3
start = "2s"
end = "4s"
"#;

#[test]
fn a_small_scenario_validates_and_every_one_of_its_keys_is_declared() {
    let found = checked(SMALL);
    assert!(found.errors.is_empty(), "{:#?}", found.errors);
    let mut paths = BTreeSet::new();
    key_paths(&as_json(SMALL), "", &mut paths);
    assert_eq!(found.declared, paths);
    assert!(paths.contains("policy.db-client.breaker.scope"));
    assert!(paths.contains("service[].work.mean"));
}

/// Each misspelling, at every depth, is refused with the key named; so are values of the
/// wrong kind the parser refuses.
#[test]
fn a_misspelt_key_or_a_wrong_value_fails() {
    let cases = [
        ("name = \"small\"", "nmae = \"small\"", "unknown key `nmae`"),
        ("workers = 4", "wrkers = 4", "unknown key `wrkers`"),
        ("mean = \"2ms\" }", "mena = \"2ms\" }", "unknown key `mena`"),
        ("attempts = 3", "attemps = 3", "unknown key `attemps`"),
        (
            "scope = \"instance\"",
            "scoop = \"instance\"",
            "unknown key `scoop`",
        ),
        ("factor = 3", "factr = 3", "unknown key `factr`"),
        ("[[fault]]", "[[faults]]", "unknown key `faults`"),
        (
            "discipline = \"lifo\"",
            "discipline = \"lilo\"",
            "is not one of",
        ),
        (
            "criticality = \"sheddable\"",
            "criticality = \"low\"",
            "is not one of",
        ),
        (
            "timeout = \"100ms\"",
            "timeout = 100",
            "is not of type \"string\"",
        ),
        ("kind = \"latency\"", "kind = \"slow\"", "is not one of"),
        (
            "seed = \"18446744073709551615\"",
            "seed = \"lucky\"",
            "does not match",
        ),
        ("work = \"3ms\"", "work = \"fast\"", "does not match"),
        ("workers = 4", "workers = -4", "outside the minimum"),
        ("workers = 4", "workers = \"many\"", "unbounded"),
    ];
    for (good, bad, why) in cases {
        assert_eq!(SMALL.matches(good).count(), 1, "{good}");
        let found = checked(&SMALL.replace(good, bad));
        assert!(
            found.errors.iter().any(|e| e.contains(why)),
            "{bad}: {:#?}",
            found.errors
        );
    }
}

/// The schema has no gap: each key of the scenario that uses every feature
/// (scenarios/all-features.toml), and of every other committed scenario, is declared by name
/// (or is a map's key: a policy's name, a `[sweep]` path), not let through by a loose schema.
#[test]
fn every_key_of_every_committed_scenario_is_declared_by_the_schema() {
    let files = committed();
    assert!(files.contains(&PathBuf::from("scenarios/all-features.toml")));
    for path in files {
        if path == Path::new(MISSPELT_EXAMPLE) {
            continue;
        }
        let instance = as_json(&std::fs::read_to_string(&path).unwrap());
        let mut paths = BTreeSet::new();
        key_paths(&instance, "", &mut paths);
        let declared = check(&schema(), &instance).declared;
        let undeclared: Vec<_> = paths
            .iter()
            .filter(|p| !declared_or_free(&declared, p))
            .collect();
        assert!(undeclared.is_empty(), "{}: {undeclared:?}", path.display());
    }
}

/// Generated scenarios use every key the generator knows, in combinations nobody wrote by
/// hand: each validates against the schema, with every key declared.
#[test]
fn every_generated_scenario_validates_with_every_key_declared() {
    let schema = schema();
    for i in 0..500 {
        let text = crate::generator::generate(i);
        let instance = as_json(&text);
        let found = check(&schema, &instance);
        assert!(
            found.errors.is_empty(),
            "case {i}: {:#?}\n{text}",
            found.errors
        );
        let mut paths = BTreeSet::new();
        key_paths(&instance, "", &mut paths);
        let undeclared: Vec<_> = paths
            .iter()
            .filter(|p| !declared_or_free(&found.declared, p))
            .collect();
        assert!(undeclared.is_empty(), "case {i}: {undeclared:?}\n{text}");
    }
}

/// Declared by the schema, or inside a variant's `set`, which takes any value at any path.
fn declared_or_free(declared: &BTreeSet<String>, path: &str) -> bool {
    declared.contains(path) || path.starts_with("variant[].set.")
}

/// Every key of every table has a description, and every default is a value its key takes.
#[test]
fn every_key_is_described_and_every_default_is_valid() {
    let schema = schema();
    let mut keys = 0;
    for (name, definition) in schema["definitions"].as_object().unwrap() {
        let Some(properties) = definition["properties"].as_object() else {
            continue;
        };
        for (key, property) in properties {
            keys += 1;
            let described = property["description"].as_str().unwrap_or("");
            assert!(described.len() > 5, "{name}.{key} has no description");
            if let Some(default) = property.get("default") {
                let errors = check_with_root(&schema, property, default);
                assert!(
                    errors.is_empty(),
                    "{name}.{key}: default {default}: {errors:?}"
                );
            }
        }
    }
    assert!(keys > 150, "only {keys} keys");
    let service = &schema["definitions"]["Service"]["properties"];
    assert_eq!(service["workers"]["default"], 1);
    assert_eq!(service["balancer"]["default"], "round_robin");
    let retry = &schema["definitions"]["Retry"]["properties"];
    assert_eq!(retry["attempts"]["default"], 3);
    assert_eq!(retry["base"]["default"], "100ms");
    assert_eq!(
        schema["definitions"]["Meta"]["properties"]["bucket"]["default"],
        "1s"
    );
}

/// Checks `instance` against `sub`, a part of `root` (its `$ref`s resolved in `root`).
fn check_with_root(root: &Value, sub: &Value, instance: &Value) -> Vec<String> {
    let mut whole = sub.clone();
    whole["definitions"] = root["definitions"].clone();
    check(&whole, instance).errors
}

/// The names listed in an error of the parser: `…; valid: a, b, c` (cascade's own kinds) or
/// `help: valid values: a, b` (serde's enums).
fn listed_names(error: &str) -> Vec<String> {
    let list = ["; valid: ", "valid values: ", "the lints are: "]
        .iter()
        .find_map(|marker| error.split_once(marker))
        .map(|(_, list)| list.lines().next().unwrap())
        .unwrap_or_else(|| panic!("no list of names in: {error}"));
    list.split(", ")
        .map(|name| {
            name.trim_matches(|c| c == '`' || c == '"' || c == '.')
                .to_string()
        })
        .collect()
}

/// The names a closed set of the schema lists: an inline `enum`, or the definition's it
/// refers to (`allOf: [{$ref}]`): its `enum`, or the `const`s of its `oneOf` (as schemars
/// writes an enum with documented variants).
fn closed_set(definitions: &Value, definition: &str, key: &str) -> Vec<String> {
    let property = &definitions[definition]["properties"][key];
    let names: Vec<&Value> = match property["enum"].as_array() {
        Some(list) => list.iter().collect(),
        None => {
            let target = property["allOf"][0]["$ref"]
                .as_str()
                .unwrap_or_else(|| panic!("{definition}.{key} is not a closed set"))
                .trim_start_matches("#/definitions/");
            let referred = &definitions[target];
            match referred["enum"].as_array() {
                Some(list) => list.iter().collect(),
                None => referred["oneOf"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{target} has neither enum nor oneOf"))
                    .iter()
                    .map(|v| &v["const"])
                    .collect(),
            }
        }
    };
    let mut out: Vec<String> = names
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// For each `(definition, key, good, bad)`: `good` appears once in `base`; with it replaced by
/// `bad`, `validate` refuses the scenario listing exactly the names the schema lists, and the
/// schema refuses it too.
fn assert_closed_sets(base: &str, cases: &[(&str, &str, &str, &str)]) {
    let schema = schema();
    let definitions = &schema["definitions"];
    for &(definition, key, good, bad) in cases {
        let in_schema = closed_set(definitions, definition, key);
        assert_eq!(base.matches(good).count(), 1, "{good}");
        let text = base.replace(good, bad);
        let error = cascade::scenario::load_str("t.toml", &text, &[])
            .err()
            .unwrap_or_else(|| panic!("{bad} was accepted"))
            .to_string();
        let mut accepted = listed_names(&error);
        accepted.sort();
        assert_eq!(in_schema, accepted, "{definition}.{key}: {error}");
        assert!(!check(&schema, &as_json(&text)).errors.is_empty(), "{bad}");
    }
}

/// Each closed set the schema lists is the set the parser accepts, whether the parser's
/// names come from serde (`discipline`) or from cascade's own tables (`dist`, `algorithm`,
/// a window's `phase`): a value refused by the schema is refused by `validate`, and no value
/// `validate` takes is missing from the schema.
#[test]
fn every_closed_set_in_the_schema_is_the_parsers() {
    let with_window = format!("{SMALL}\n[[window]]\nname = \"w\"\nfault = 0\nphase = \"during\"\n");
    let limit = "breaker = { window = \"10s\", scope = \"instance\" }";
    assert_closed_sets(
        &with_window,
        &[
            (
                "Service",
                "discipline",
                "discipline = \"lifo\"",
                "discipline = \"bogus\"",
            ),
            (
                "Client",
                "criticality",
                "criticality = \"sheddable\"",
                "criticality = \"bogus\"",
            ),
            (
                "DistTable",
                "dist",
                "dist = \"exponential\"",
                "dist = \"bogus\"",
            ),
            ("Window", "phase", "phase = \"during\"", "phase = \"bogus\""),
            (
                "Limit",
                "algorithm",
                limit,
                "limit = { algorithm = \"bogus\" }",
            ),
        ],
    );
}

/// A `branch` fault's `warm_curve` likewise, and its `warm_table` as [duration, weight]
/// pairs: the schema takes a table the parser takes and refuses a point of three.
#[test]
fn a_branch_faults_warm_curve_and_table_are_the_parsers() {
    let base = SMALL.replace(
        "latency = \"1ms\" } ]",
        "latency = \"1ms\", p = 0.1, name = \"miss\" } ]",
    ) + "\n[[fault]]\nkind = \"branch\"\ntarget = \"api\"\nstep = \"miss\"\np = 1\nend = \"2s\"\nwarm = \"1s\"\nwarm_curve = \"exponential\"\n";
    assert_closed_sets(
        &base,
        &[(
            "Fault",
            "warm_curve",
            "warm_curve = \"exponential\"",
            "warm_curve = \"bogus\"",
        )],
    );
    let table = base.replace(
        "warm = \"1s\"\nwarm_curve = \"exponential\"",
        "warm_table = [ [\"0s\", 1], [\"2s\", 0.5], [\"5s\", 0] ]",
    );
    cascade::scenario::load_str("t.toml", &table, &[]).unwrap();
    let found = checked(&table);
    assert!(found.errors.is_empty(), "{:#?}", found.errors);
    let three = table.replace("[\"2s\", 0.5]", "[\"2s\", 0.5, 1]");
    assert!(cascade::scenario::load_str("t.toml", &three, &[]).is_err());
    assert!(!checked(&three).errors.is_empty());
}

/// The orchestration keys' closed sets (docs/scenario.md, "Orchestration"), likewise.
#[test]
fn every_closed_set_of_orchestration_is_the_parsers() {
    let base = SMALL.replace(
        "name = \"db\"\n",
        r#"name = "db"
probe = { readiness = { serve = "out_of_band" } }
restart = { mode = "blackhole" }
when_none_ready = "refuse"
autoscale = { target = 0.5, max = 4, metric = "queue", scale_down = "kill", up = { select = "min", policies = [ { type = "percent", value = 50, period = "15s" } ] } }
"#,
    );
    assert_closed_sets(
        &base,
        &[
            (
                "Probe",
                "serve",
                "serve = \"out_of_band\"",
                "serve = \"bogus\"",
            ),
            (
                "Restart",
                "mode",
                "mode = \"blackhole\"",
                "mode = \"bogus\"",
            ),
            (
                "Service",
                "when_none_ready",
                "when_none_ready = \"refuse\"",
                "when_none_ready = \"bogus\"",
            ),
            (
                "Autoscale",
                "metric",
                "metric = \"queue\"",
                "metric = \"bogus\"",
            ),
            (
                "Autoscale",
                "scale_down",
                "scale_down = \"kill\"",
                "scale_down = \"bogus\"",
            ),
            (
                "Behavior",
                "select",
                "select = \"min\"",
                "select = \"bogus\"",
            ),
            (
                "ScalePolicy",
                "type",
                "type = \"percent\"",
                "type = \"bogus\"",
            ),
        ],
    );
}

/// The call and policy keys' closed sets (docs/policies.md: `release`, `wraps`,
/// `retry_after_wait`, a budget's `kind` and `earn_on`), likewise; and a call's `count`
/// bounds, 1 to 1,000, in both.
#[test]
fn every_closed_set_of_call_semantics_is_the_parsers() {
    let base = SMALL.replace(
        "retry = { attempts = 3, budget = 0.1 }",
        r#"retry = { attempts = 3, retry_after = true, retry_after_wait = "max", budget = { kind = "adaptive", earn_on = "call" } }
bulkhead = { release = "answer", wraps = "call" }"#,
    );
    assert_closed_sets(
        &base,
        &[
            (
                "Bulkhead",
                "release",
                "release = \"answer\"",
                "release = \"bogus\"",
            ),
            ("Bulkhead", "wraps", "wraps = \"call\"", "wraps = \"bogus\""),
            (
                "Retry",
                "retry_after_wait",
                "retry_after_wait = \"max\"",
                "retry_after_wait = \"bogus\"",
            ),
            (
                "BudgetTable",
                "kind",
                "kind = \"adaptive\"",
                "kind = \"bogus\"",
            ),
            (
                "BudgetTable",
                "earn_on",
                "earn_on = \"call\"",
                "earn_on = \"bogus\"",
            ),
        ],
    );
    let schema = schema();
    let call = r#"{ to = "db", policy = "db-client", latency = "1ms" }"#;
    for (count, ok) in [(1, true), (10000, true), (0, false), (10001, false)] {
        let with = call.replace("latency", &format!("count = {count}, latency"));
        let text = base.replace(call, &with);
        let parsed = cascade::scenario::load_str("t.toml", &text, &[]).is_ok();
        let in_schema = check(&schema, &as_json(&text)).errors.is_empty();
        assert_eq!((parsed, in_schema), (ok, ok), "count = {count}");
    }
}

/// `[scenario] allow` lists lint ids: the schema's are the parser's, and an unknown one is
/// refused by both.
#[test]
fn the_lint_ids_in_the_schema_are_the_parsers() {
    let schema = schema();
    let mut in_schema: Vec<String> = schema["definitions"]["Meta"]["properties"]["allow"]["items"]
        ["enum"]
        .as_array()
        .expect("allow's items are a closed set")
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let text = SMALL.replace(
        "name = \"small\"\n",
        "name = \"small\"\nallow = [\"bogus\"]\n",
    );
    let Err(error) = cascade::scenario::load_str("t.toml", &text, &[]) else {
        panic!("an unknown lint id was accepted");
    };
    let error = error.to_string();
    let mut accepted = listed_names(&error);
    in_schema.sort();
    accepted.sort();
    assert_eq!(in_schema, accepted, "{error}");
    assert!(!check(&schema, &as_json(&text)).errors.is_empty());
    let good = text.replace("\"bogus\"", "\"budget-floor\"");
    assert!(check(&schema, &as_json(&good)).errors.is_empty());
}

/// What `validate` accepts the schema accepts too: spaces around an expectation's operator,
/// a seed as a string with a `+`, a breaker's window as a count or a duration, `codel = {}`.
#[test]
fn what_the_parser_takes_the_schema_takes() {
    let text = format!(
        "{SMALL}\n[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \" >= \"\nvalue = 0.5\n"
    )
    .replace("workers = 4", "workers = 4\ncodel = {}")
    .replace("window = \"10s\"", "window = 20")
    .replace("seed = \"18446744073709551615\"", "seed = \"+7\"");
    cascade::scenario::load_str("t.toml", &text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let found = checked(&text);
    assert!(found.errors.is_empty(), "{:#?}", found.errors);
}
