//! The scenario language: TOML text, `--set` overrides, raw serde types, and the compiler that
//! validates them into a `Model`.

mod breaker;
mod client;
mod compile;
mod dist;
pub mod document;
mod expect;
mod fault;
mod graph;
mod limit;
mod limits;
mod policy;
mod read;
pub mod schema;
pub mod schema_policy;
mod service_policy;
mod window;

pub use document::{Override, Source};
pub use read::MAX_SCENARIO_BYTES;

use crate::error::{Error, Result};
use crate::model::Model;
use std::path::Path;

/// Reads, overrides and compiles a scenario file.
pub fn load(path: &Path, overrides: &[Override]) -> Result<Model> {
    let text = read::read_scenario(path)?;
    load_str(&path.display().to_string(), &text, overrides)
}

/// Compiles scenario text; `file` is the name errors carry.
pub fn load_str(file: &str, text: &str, overrides: &[Override]) -> Result<Model> {
    let src = Source::parse(file, text, overrides)?;
    let raw: schema::RawScenario = src.deserialize()?;
    Ok(compile::compile(&raw, &src)?)
}

/// A scenario and each of its `[[variant]]`s, compiled: `(None, base)` first, then
/// `(Some(name), variant)` in file order. Every variant gets the same overrides (and so the same
/// seed) as the base, then its own `set`.
pub fn load_with_variants(
    path: &Path,
    overrides: &[Override],
) -> Result<Vec<(Option<String>, Model)>> {
    let text = read::read_scenario(path)?;
    let file = path.display().to_string();
    let src = Source::parse(&file, &text, overrides)?;
    let raw: schema::RawScenario = src.deserialize()?;
    let base = compile::compile(&raw, &src)?;
    let mut models = vec![(None, base)];
    for (i, v) in raw.variant.iter().enumerate() {
        let at = format!("variant.{i}.name");
        compile::check_name(&src, &at, &v.name)?;
        if v.name == "base" || raw.variant[..i].iter().any(|o| o.name == v.name) {
            return Err(src
                .error_at(
                    &at,
                    format!("variant names are unique and not `base`: `{}`", v.name),
                )
                .into());
        }
        let mut all = overrides.to_vec();
        for (path, value) in &v.set {
            value.overrides(path, &mut all);
        }
        let model = load_str(&file, &text, &all).map_err(|e| match e {
            Error::Scenario(mut s) => {
                s.message = format!("in variant `{}`: {}", v.name, s.message);
                Error::Scenario(s)
            }
            other => other,
        })?;
        models.push((Some(v.name.clone()), model));
    }
    Ok(models)
}
