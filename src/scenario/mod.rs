//! The scenario language: TOML text, `--set` overrides, raw serde types, and the compiler that
//! validates them into a `Model`.

mod compile;
mod dist;
pub mod document;
mod expect;
mod fault;
mod graph;
mod limit;
mod policy;
pub mod schema;
pub mod schema_policy;
mod service_policy;
mod window;

pub use document::{Override, Source};

use crate::error::{Error, Result};
use crate::model::Model;
use std::path::Path;

/// Reads, overrides and compiles a scenario file.
pub fn load(path: &Path, overrides: &[Override]) -> Result<Model> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_str(&path.display().to_string(), &text, overrides)
}

/// Compiles scenario text; `file` is the name errors carry.
pub fn load_str(file: &str, text: &str, overrides: &[Override]) -> Result<Model> {
    let src = Source::parse(file, text, overrides)?;
    let raw: schema::RawScenario = src.deserialize()?;
    Ok(compile::compile(&raw, &src)?)
}
