//! A checker for the subset of JSON Schema draft-07 that `cascade schema` uses: `type`, `enum`,
//! `const`, `properties`, `additionalProperties`, `required`, `items` (one schema or a tuple),
//! `minItems`/`maxItems`, `minimum`/`maximum`, `anyOf`/`oneOf`/`allOf`, `if`/`then`/`else`, `$ref` to
//! `#/definitions/`, and the two `pattern`s it writes. Any other validation keyword panics, so
//! a schema can never pass here by a constraint the checker skipped. Small on purpose: a full
//! validator crate would be a heavy dev-dependency for one test file.

use serde_json::Value;
use std::collections::BTreeSet;

/// Keywords that only annotate: they constrain nothing.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "title",
    "description",
    "default",
    "examples",
    "definitions",
    "format",
];

/// What checking an instance found: its errors (none: it is valid) and every key path the
/// schema declared, by name (`service[].calls[].to`) or as a map's key (`policy.db-client`).
#[derive(Debug, Default)]
pub struct Checked {
    pub errors: Vec<String>,
    pub declared: BTreeSet<String>,
}

pub fn check(schema: &Value, instance: &Value) -> Checked {
    let mut declared = BTreeSet::new();
    let errors = check_at(schema, schema, instance, "", &mut declared);
    Checked { errors, declared }
}

/// Every key path of an instance, arrays as `[]`, in the form `Checked::declared` has them.
pub fn key_paths(instance: &Value, path: &str, out: &mut BTreeSet<String>) {
    match instance {
        Value::Object(map) => {
            for (key, value) in map {
                let here = join(path, key);
                out.insert(here.clone());
                key_paths(value, &here, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn check_at(
    root: &Value,
    schema: &Value,
    instance: &Value,
    path: &str,
    declared: &mut BTreeSet<String>,
) -> Vec<String> {
    let map = match schema {
        Value::Bool(true) => return vec![],
        Value::Bool(false) => return vec![format!("{path}: nothing is allowed here")],
        Value::Object(map) => map,
        other => panic!("{path}: not a schema: {other}"),
    };
    if let Some(target) = map.get("$ref") {
        // Draft-07: a `$ref` replaces its siblings.
        let name = target
            .as_str()
            .and_then(|t| t.strip_prefix("#/definitions/"))
            .unwrap_or_else(|| panic!("{path}: a $ref outside #/definitions/: {target}"));
        let definition = root["definitions"]
            .get(name)
            .unwrap_or_else(|| panic!("{path}: $ref to a missing definition {name}"));
        return check_at(root, definition, instance, path, declared);
    }
    let mut errors = Vec::new();
    for (keyword, value) in map {
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "type" => check_type(value, instance, path, &mut errors),
            "enum" => {
                if !value.as_array().unwrap().contains(instance) {
                    errors.push(format!("{path}: {instance} is not one of {value}"));
                }
            }
            "const" => {
                if value != instance {
                    errors.push(format!("{path}: {instance} is not {value}"));
                }
            }
            "minimum" | "maximum" => {
                let (Some(bound), Some(x)) = (value.as_f64(), instance.as_f64()) else {
                    continue;
                };
                if (keyword == "minimum" && x < bound) || (keyword == "maximum" && x > bound) {
                    errors.push(format!("{path}: {x} is outside the {keyword} {bound}"));
                }
            }
            "pattern" => {
                if let Some(text) = instance.as_str()
                    && !matches_pattern(value.as_str().unwrap(), text)
                {
                    errors.push(format!("{path}: \"{text}\" does not match {value}"));
                }
            }
            "required" => {
                if let Some(object) = instance.as_object() {
                    for key in value.as_array().unwrap() {
                        if !object.contains_key(key.as_str().unwrap()) {
                            errors.push(format!("{path}: the required key {key} is missing"));
                        }
                    }
                }
            }
            "if" => {
                let mut ignored = BTreeSet::new();
                let holds = check_at(root, value, instance, path, &mut ignored).is_empty();
                if let Some(branch) = map.get(if holds { "then" } else { "else" }) {
                    errors.extend(check_at(root, branch, instance, path, declared));
                }
            }
            "then" | "else" => {}
            "properties" | "additionalProperties" => {}
            "items" | "minItems" | "maxItems" => {}
            "allOf" => {
                for branch in value.as_array().unwrap() {
                    errors.extend(check_at(root, branch, instance, path, declared));
                }
            }
            "anyOf" | "oneOf" => {
                let mut passing = Vec::new();
                let mut failures = Vec::new();
                for branch in value.as_array().unwrap() {
                    let mut seen = BTreeSet::new();
                    let branch_errors = check_at(root, branch, instance, path, &mut seen);
                    if branch_errors.is_empty() {
                        passing.push(seen);
                    } else {
                        failures.push(branch_errors.join("; "));
                    }
                }
                match passing.len() {
                    0 => errors.push(format!(
                        "{path}: matches none of {keyword}: ({})",
                        failures.join(") or (")
                    )),
                    n if n > 1 && keyword == "oneOf" => {
                        errors.push(format!("{path}: {instance} matches {n} branches of oneOf"))
                    }
                    // A key counts as declared only if every passing branch declares it:
                    // a loose branch that lets a table through unread leaves its keys out.
                    _ => {
                        let first = passing[0].clone();
                        declared.extend(
                            first
                                .into_iter()
                                .filter(|k| passing.iter().all(|p| p.contains(k))),
                        );
                    }
                }
            }
            other => panic!("{path}: the checker does not know the keyword `{other}`"),
        }
    }
    if let Some(object) = instance.as_object() {
        let properties = map.get("properties").and_then(Value::as_object);
        let additional = map.get("additionalProperties");
        if properties.is_some() || additional.is_some() {
            for (key, value) in object {
                if let Some(property) = properties.and_then(|p| p.get(key)) {
                    declared.insert(join(path, key));
                    errors.extend(check_at(root, property, value, &join(path, key), declared));
                } else {
                    match additional {
                        Some(Value::Bool(false)) => {
                            errors.push(format!("{path}: unknown key `{key}`"));
                        }
                        Some(schema) => {
                            declared.insert(join(path, key));
                            errors.extend(check_at(
                                root,
                                schema,
                                value,
                                &join(path, key),
                                declared,
                            ));
                        }
                        None => {}
                    }
                }
            }
        }
    }
    if let Some(items) = instance.as_array() {
        let at = format!("{path}[]");
        match map.get("items") {
            Some(Value::Array(tuple)) => {
                for (item, schema) in items.iter().zip(tuple) {
                    errors.extend(check_at(root, schema, item, &at, declared));
                }
            }
            Some(schema) => {
                for item in items {
                    errors.extend(check_at(root, schema, item, &at, declared));
                }
            }
            None => {}
        }
        let len = items.len() as u64;
        if map
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| len < n)
        {
            errors.push(format!("{path}: {len} items, fewer than minItems"));
        }
        if map
            .get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| len > n)
        {
            errors.push(format!("{path}: {len} items, more than maxItems"));
        }
    }
    errors
}

/// The patterns the schema writes, each matched by hand (no regex crate for two patterns).
fn matches_pattern(pattern: &str, text: &str) -> bool {
    match pattern {
        // A seed as a string: what `u64::from_str` takes.
        "^\\+?[0-9]+$" => {
            let digits = text.strip_prefix('+').unwrap_or(text);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        }
        // A duration starts with its number.
        "^\\s*[0-9.]" => text
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit() || c == '.'),
        other => panic!("the checker does not know the pattern {other}"),
    }
}

fn check_type(types: &Value, instance: &Value, path: &str, errors: &mut Vec<String>) {
    let is = |t: &str| match t {
        "object" => instance.is_object(),
        "array" => instance.is_array(),
        "string" => instance.is_string(),
        "boolean" => instance.is_boolean(),
        "number" => instance.is_number(),
        "integer" => instance.is_i64() || instance.is_u64(),
        "null" => instance.is_null(),
        other => panic!("{path}: unknown type {other}"),
    };
    let ok = match types {
        Value::String(t) => is(t),
        Value::Array(ts) => ts.iter().any(|t| is(t.as_str().unwrap())),
        other => panic!("{path}: a type that is not a name: {other}"),
    };
    if !ok {
        errors.push(format!("{path}: {instance} is not of type {types}"));
    }
}
