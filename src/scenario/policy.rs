//! Compiles `[policy.NAME]` into the model's `Policy`. The table's defaults, range checks and
//! presets are the policy crate's (`PolicyConfig::resolving`, `cascade-policy/src/table/`);
//! what only a scenario can resolve stays here: a fallback's `to` names a service of the
//! scenario, and every error is located in the text at `policy.NAME.<field>`.

use super::document::{Located, Source};
use super::schema::RawPolicy;
use crate::error::did_you_mean;
use crate::model::Policy;
use cascade_policy::table::PolicyConfig;
use std::collections::BTreeMap;

pub fn compile_policy(
    src: &Source,
    name: &str,
    p: &RawPolicy,
    services: &BTreeMap<String, usize>,
) -> Located<Policy> {
    let resolve = |to: &str| {
        services.get(to).copied().ok_or_else(|| {
            let hint = did_you_mean(to, services.keys().map(String::as_str));
            format!("no service named `{to}`{hint}")
        })
    };
    let c = PolicyConfig::resolving(p, resolve)
        .map_err(|e| src.error_at(&e.path_under(&format!("policy.{name}")), e.message))?;
    Ok(Policy {
        name: Some(name.to_string()),
        config: c,
    })
}
