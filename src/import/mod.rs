//! `cascade import`: production settings in, cascade policies out. An Envoy cluster and route,
//! a gRPC service config or a Spring Boot resilience4j block is read into one tree (`tree`),
//! mapped key by key to `[policy.NAME]` tables (one module per library, after the mappings of
//! docs/policies.md §13) and printed as TOML with a comment on every line naming its source
//! key. Settings that belong to a client or a service come out as `--set` arguments; every
//! source key that is not simulated is listed with its reason; a value cascade cannot accept
//! is an error naming file, line and key. Prometheus histograms (`prometheus`) come in the
//! same way as `[[service]]` work and `[[expect]]` calibration targets. docs/import.md is the
//! user's page.

pub mod envoy;
mod envoy_balancer;
mod envoy_cluster;
mod envoy_rate_limit;
mod envoy_retry;
mod envoy_retry_hosts;
pub mod grpc;
pub mod out;
pub mod prometheus;
pub(crate) mod prometheus_hist;
mod prometheus_json;
mod prometheus_text;
pub mod read;
pub mod resilience4j;
mod resilience4j_breaker;
mod resilience4j_limits;
pub mod traces;
pub mod tree;

use crate::error::Error;
pub use out::Imported;
use read::Ctx;
use tree::Syntax;

/// The libraries whose configuration files import reads (and export writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Envoy,
    Grpc,
    Resilience4j,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Envoy, Format::Grpc, Format::Resilience4j];

    pub fn name(self) -> &'static str {
        match self {
            Format::Envoy => "envoy",
            Format::Grpc => "grpc",
            Format::Resilience4j => "resilience4j",
        }
    }
}

/// Imports `text`, the contents of the file named `file`, as `format`. `name` renames the
/// policy when the file yields exactly one.
pub fn import(
    format: Format,
    file: &str,
    text: &str,
    name: Option<&str>,
) -> Result<Imported, Error> {
    let syntax = Syntax::of_path(file);
    if format != Format::Resilience4j && syntax == Syntax::Properties {
        return Err(Error::Usage(format!(
            "{file}: a .properties file is read only as resilience4j (Spring Boot); {} configs are YAML or JSON",
            format.name()
        )));
    }
    let root = tree::parse(file, text, syntax)?;
    let mut ctx = Ctx::new(file);
    let mut imported = match format {
        Format::Envoy => envoy::import(&mut ctx, &root)?,
        Format::Grpc => grpc::import(&mut ctx, &root)?,
        Format::Resilience4j => resilience4j::import(&mut ctx, &root)?,
    };
    unique_names(&mut imported);
    if let Some(name) = name {
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(Error::Usage(format!(
                "--name `{name}` is not a valid policy name: use letters, digits, `-` and `_`"
            )));
        }
        match imported.policies.as_mut_slice() {
            [one] => one.name = name.to_string(),
            many => {
                let names: Vec<&str> = many.iter().map(|p| p.name.as_str()).collect();
                return Err(Error::Usage(format!(
                    "{file} yields {} policies ({}); --name renames a single one: import without it",
                    names.len(),
                    names.join(", ")
                )));
            }
        }
    }
    // A key of a shared base (`configs.default`) is met once per instance: say it once.
    for s in ctx.skipped {
        if !imported.skipped.contains(&s) {
            imported.skipped.push(s);
        }
    }
    Ok(imported)
}

/// Two routes or methods with one name get `-2`, `-3`…: TOML refuses a table defined twice.
fn unique_names(imported: &mut Imported) {
    let mut seen: Vec<String> = Vec::new();
    for p in &mut imported.policies {
        let mut name = p.name.clone();
        let mut n = 2;
        while seen.contains(&name) {
            name = format!("{}-{n}", p.name);
            n += 1;
        }
        p.name = name.clone();
        seen.push(name);
    }
}
