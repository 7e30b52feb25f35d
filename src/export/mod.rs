//! `cascade export`: a compiled policy written back in a library's format (Envoy's route and
//! cluster parts, a gRPC service config, resilience4j Spring Boot YAML), the inverse of
//! `cascade::import`'s mappings (docs/policies.md §13), plus the list of what the format cannot
//! express. What a format expresses is defined once, in `expressible`; the writers write that
//! restricted policy as it is, so `import` of what `export` writes compiles back to it
//! (tests/suite/export.rs checks every policy of scenarios/ in every format).

pub mod envoy;
pub mod envoy_rate_limit;
pub mod expressible;
pub mod grpc;
pub mod resilience4j;
mod yaml;

use crate::error::Error;
use crate::import::Format;
use crate::model::Policy;
use cascade_policy::outcome::Outcome;
pub use expressible::{Restricted, expressible};

/// A policy in a library's format, and what that format cannot say.
pub struct Exported {
    pub text: String,
    /// `key: reason`, one per setting not written.
    pub unexpressed: Vec<String>,
}

/// Writes `policy` (named `name`) as `format`: its restriction to what the format expresses.
/// A policy the format keeps nothing of is an error naming what it could not express, rather
/// than a config that says nothing (a bare `resilience4j:`, which import refuses).
pub fn export(format: Format, name: &str, policy: &Policy) -> Result<Exported, Error> {
    let Restricted {
        policy: p,
        unexpressed,
        nothing_left,
    } = expressible(format, policy);
    if nothing_left {
        let what = if unexpressed.is_empty() {
            "it sets nothing".to_string()
        } else {
            format!("not expressible: {}", unexpressed.join("; "))
        };
        return Err(Error::Usage(format!(
            "policy `{name}` has nothing {} expresses, so there is nothing to export: {what}",
            format.name()
        )));
    }
    let text = match format {
        Format::Envoy => envoy::export(name, &p),
        Format::Grpc => grpc::export(name, &p),
        Format::Resilience4j => resilience4j::export(name, &p),
    };
    Ok(Exported { text, unexpressed })
}

/// Service `name`'s admission `rate_limit` (in `model`, read from `file`) as `format`: only
/// Envoy has a listener filter for it (`envoy_rate_limit.rs`).
pub fn service_rate_limit(
    format: Format,
    file: &str,
    name: &str,
    model: &crate::model::Model,
) -> Result<Exported, Error> {
    let Some(service) = model.services.iter().find(|s| s.name == name) else {
        let names = model.services.iter().map(|s| s.name.as_str());
        let hint = crate::error::did_you_mean(name, names.clone());
        return Err(Error::Usage(format!(
            "{file}: no [[service]] named `{name}`{hint}; services: {}",
            names.collect::<Vec<_>>().join(", ")
        )));
    };
    let Some(limit) = &service.rate_limit else {
        return Err(Error::Usage(format!(
            "{file}: service `{name}` has no rate_limit, so there is nothing to export"
        )));
    };
    match format {
        Format::Envoy => envoy_rate_limit::export(name, limit),
        _ => Err(Error::Usage(format!(
            "--service exports a service's rate_limit as Envoy's local rate limit filter; {} has no such setting (use envoy)",
            format.name()
        ))),
    }
}

/// The outcome kinds a retry retries, in `Outcome::ALL`'s order.
pub(crate) fn retried(policy: &Policy) -> Vec<Outcome> {
    policy.retry().map_or_else(Vec::new, |r| {
        Outcome::ALL
            .iter()
            .copied()
            .filter(|o| r.retries(*o))
            .collect()
    })
}

/// Seconds as protobuf JSON writes a Duration (`"0.25s"`).
pub(crate) fn proto_seconds(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let frac = ns % 1_000_000_000;
    if frac == 0 {
        format!("{secs}s")
    } else {
        let digits = format!("{frac:09}");
        format!("{secs}.{}s", digits.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every policy of scenarios/, written as Envoy and as resilience4j YAML under its own name
    /// and under names a hand emitter gets wrong, reads back through saphyr as the documents
    /// the writer was given: every key, list and value.
    #[test]
    fn every_yaml_export_reads_back_as_written() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut files: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        let mut checked = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let doc: toml_edit::DocumentMut = text.parse().unwrap();
            let Some(policies) = doc.get("policy").and_then(|p| p.as_table_like()) else {
                continue;
            };
            for (name, _) in policies.iter() {
                let policy = crate::scenario::load_policy(&file, &[], name)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                for format in [Format::Envoy, Format::Resilience4j] {
                    let restricted = expressible(format, &policy);
                    if restricted.nothing_left {
                        continue;
                    }
                    for as_name in [name, "007", "null", "-db", "a: b #c", "new\nline \"q\""] {
                        let text = export(format, as_name, &policy).unwrap().text;
                        let docs = match format {
                            Format::Envoy => envoy::documents(as_name, &restricted.policy),
                            _ => resilience4j::documents(as_name, &restricted.policy),
                        };
                        yaml::assert_reads_back(&text, &docs);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked} exports");
    }

    #[test]
    fn proto_seconds_are_exact() {
        assert_eq!(super::proto_seconds(250_000_000), "0.25s");
        assert_eq!(super::proto_seconds(15_000_000_000), "15s");
        assert_eq!(super::proto_seconds(1), "0.000000001s");
    }
}
