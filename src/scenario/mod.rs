//! The scenario language: TOML text, `--set` overrides, raw serde types, and the compiler that
//! validates them into a `Scenario`: the `Model` the engine runs, with the expectations,
//! sweep grid and variants that the commands read beside it.

mod alert;
mod branch;
mod client;
mod compile;
pub mod constraint;
mod dist;
pub mod document;
mod edit;
mod expect_compile;
mod expectation;
mod fault;
mod fault_baseline;
mod fault_warm;
mod graph;
pub mod grid;
mod keys;
pub mod limits;
mod margin_expect;
mod messages;
mod names;
mod operation;
mod orchestration;
mod overload;
mod pair;
mod policy;
mod pools;
mod rate_limit;
/// The libraries' presets: the policy crate's (`cascade presets` prints them).
pub use cascade_policy::table::preset;
mod read;
pub mod schema;
mod schema_fault;
pub mod schema_json;
pub mod schema_orchestration;
mod schema_service;
mod service_policy;
mod slow_start;
mod steps;
mod unbounded;
mod warnings;
mod window;
mod workers;

pub use cascade_policy::table::{DEFAULT_BREAKER_COUNT, single_attempt_retry};
pub use constraint::Constraint;
pub use document::{Origin, Override, Source};
pub use expectation::{Against, BASE, Compare, Expect, OPS, Op, Stat};
pub use grid::{Param, SweepTable};
pub use margin_expect::{MARGIN_PREFIX, MarginAlong, MarginExpect, is_margin, margin_metric};
pub use read::{MAX_SCENARIO_BYTES, read_text};
pub use warnings::Warning;

use crate::error::{Error, Result};
use crate::model::Model;
use std::path::Path;

/// A compiled scenario: the model the engine runs, and what the commands read beside it.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub model: Model,
    /// `[[expect]]`: what `cascade check` requires of a run.
    pub expects: Vec<Expect>,
    /// `[[expect]]` on a margin (`margin.fault.<i>.load`): judged by `cascade check --margin`.
    pub margin_expects: Vec<MarginExpect>,
    /// `[sweep]`, when the file has one.
    pub sweep: Option<SweepTable>,
    /// `[[variant]]`s, their names checked, not compiled (`load_with_variants` compiles them).
    pub variants: Vec<Variant>,
    /// `[scenario] allow`: the lint ids not to warn about, each a known lint.
    pub allow: Vec<String>,
    /// The text it was compiled from (its `text` after every override: `--set`, a variant's
    /// `set`, a sweep point's values), kept beside the model rather than in it: lint warnings
    /// are located in it (`Scenario::warnings`), a run's outputs carry its text as
    /// `scenario.toml` (compiling that again gives this model), and a sweep hashes it.
    pub source: std::sync::Arc<Source>,
    /// The run this model is: `base`, or the `[[variant]]` `load_with_variants` compiled it
    /// for. The gate lints judge only the expectations on this run.
    pub run: String,
}

/// Reads, overrides and compiles a scenario file.
pub fn load(path: &Path, overrides: &[Override]) -> Result<Scenario> {
    let text = read::read_scenario(path)?;
    load_str(&path.display().to_string(), &text, overrides)
}

/// Compiles scenario text; `file` is the name errors carry.
pub fn load_str(file: &str, text: &str, overrides: &[Override]) -> Result<Scenario> {
    let src = std::sync::Arc::new(Source::parse(file, text, overrides)?);
    let raw: schema::RawScenario = src.deserialize()?;
    Ok(compile::compile(&raw, &src)?)
}

/// `[policy.NAME]` of a scenario file, compiled with its presets, once the whole scenario is
/// valid (`cascade export`).
pub fn load_policy(
    path: &Path,
    overrides: &[Override],
    name: &str,
) -> Result<crate::model::Policy> {
    let text = read::read_scenario(path)?;
    let src = std::sync::Arc::new(Source::parse(
        &path.display().to_string(),
        &text,
        overrides,
    )?);
    let raw: schema::RawScenario = src.deserialize()?;
    compile::compile(&raw, &src)?;
    let Some(p) = raw.policy.get(name) else {
        let names: Vec<&str> = raw.policy.keys().map(String::as_str).collect();
        let hint = crate::error::did_you_mean(name, names.iter().copied());
        return Err(Error::Usage(format!(
            "{}: no [policy.{name}]{hint}; policies: {}",
            path.display(),
            names.join(", ")
        )));
    };
    let services = raw
        .service
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    Ok(policy::compile_policy(&src, name, p, &services)?)
}

/// A `[[variant]]`: its name and the overrides its `set` stands for, in the order applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub name: String,
    pub set: Vec<Override>,
}

/// A scenario and each of its `[[variant]]`s, compiled: `(None, base)` first, then
/// `(Some(name), variant)` in file order. Every variant gets the same overrides (and so the same
/// seed) as the base, then its own `set`.
pub fn load_with_variants(
    path: &Path,
    overrides: &[Override],
) -> Result<Vec<(Option<String>, Scenario)>> {
    let tagged: Vec<(Override, Origin)> = overrides
        .iter()
        .map(|o| (o.clone(), Origin::CommandLine))
        .collect();
    load_with_variants_tagged(path, &tagged)
}

/// `load_with_variants`, each override with who wrote it (a sweep's point values are
/// `Origin::Sweep`), so that an error names it as the user wrote it.
pub fn load_with_variants_tagged(
    path: &Path,
    overrides: &[(Override, Origin)],
) -> Result<Vec<(Option<String>, Scenario)>> {
    let text = read::read_scenario(path)?;
    let file = path.display().to_string();
    let src = std::sync::Arc::new(Source::parse_tagged(&file, &text, overrides)?);
    let raw: schema::RawScenario = src.deserialize()?;
    let base = compile::compile(&raw, &src)?;
    let variants = base.variants.clone();
    let mut models = vec![(None, base)];
    for v in variants {
        let mut all: Vec<(Override, Origin)> = overrides.to_vec();
        all.extend(
            v.set
                .iter()
                .map(|o| (o.clone(), Origin::Variant(v.name.clone()))),
        );
        let model = compile_tagged(&file, &text, &all).map_err(|e| match e {
            // An error the variant's `set` caused names it already; any other is the
            // combination's, and says which variant it came from.
            Error::Scenario(mut s) if !s.message.starts_with(&variant_label(&v.name)) => {
                s.message = format!("in variant `{}`: {}", v.name, s.message);
                Error::Scenario(s)
            }
            other => other,
        })?;
        let model = Scenario {
            run: v.name.clone(),
            ..model
        };
        models.push((Some(v.name), model));
    }
    Ok(models)
}

fn variant_label(name: &str) -> String {
    format!("variant `{name}` set ")
}

fn compile_tagged(file: &str, text: &str, overrides: &[(Override, Origin)]) -> Result<Scenario> {
    let src = std::sync::Arc::new(Source::parse_tagged(file, text, overrides)?);
    let raw: schema::RawScenario = src.deserialize()?;
    Ok(compile::compile(&raw, &src)?)
}

/// Each variant's name (valid, unique, not `base`) and its `set` as overrides. A duplicate
/// name is located at the second variant that has it, not the first.
pub(super) fn variants_of(
    src: &Source,
    raw: &schema::RawScenario,
) -> document::Located<Vec<Variant>> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(raw.variant.len());
    for (i, v) in raw.variant.iter().enumerate() {
        let at = format!("variant.{i}.name");
        // Elements are indexed by name, so the n-th variant of this name is the one meant.
        let earlier = seen.get(v.name.as_str()).copied().unwrap_or(0);
        let written = format!("variant.{}.name", v.name);
        let located = |message: String| {
            let mut e = src.error_at_nth(&written, earlier, message);
            e.field = Some(at.clone());
            e
        };
        if let Err(e) = compile::check_name(src, &at, &v.name) {
            return Err(located(e.message));
        }
        if v.name == "base" || earlier > 0 {
            return Err(located(format!(
                "variant names are unique and not `base`: `{}`",
                v.name
            )));
        }
        *seen.entry(v.name.as_str()).or_default() += 1;
        let mut set = Vec::new();
        for (path, value) in &v.set {
            value.overrides(path, &mut set);
        }
        out.push(Variant {
            name: v.name.clone(),
            set,
        });
    }
    Ok(out)
}
