//! Connection pools shared by name (`bulkhead.pool`): every path of one caller naming a pool
//! shares its permits and its line, so the paths must describe one pool. Checked once the
//! model is built, when every path of every caller is known.

use super::compile::Res;
use super::document::Source;
use crate::model::{BulkheadConfig, Model};
use std::collections::BTreeMap;

pub fn check(model: &Model, src: &Source) -> Res<()> {
    for caller in model.callers() {
        // The first policy naming each pool, and its settings.
        let mut first: BTreeMap<&str, (&str, &BulkheadConfig)> = BTreeMap::new();
        for spec in &caller.calls {
            let Some(b) = spec.policy.bulkhead() else {
                continue;
            };
            let Some(pool) = b.pool() else {
                continue;
            };
            let policy = spec.policy.name.as_deref().unwrap_or_default();
            let (other, cfg) = *first.entry(pool).or_insert((policy, b));
            if let Some(field) = first_difference(cfg, b) {
                return Err(src.error_at(
                    &format!("policy.{policy}.bulkhead.{field}"),
                    format!(
                        "{} `{}` shares pool `{pool}` between policies `{other}` and `{policy}`, whose `{field}` differ: paths sharing a pool must agree on max_concurrent, queue, max_wait, release and wraps (one pool, one setting); give them equal values or pools of their own",
                        caller.kind, caller.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The first setting two bulkheads of one pool disagree on.
fn first_difference(a: &BulkheadConfig, b: &BulkheadConfig) -> Option<&'static str> {
    [
        ("max_concurrent", a.max_concurrent() == b.max_concurrent()),
        ("queue", a.queue() == b.queue()),
        ("max_wait", a.max_wait() == b.max_wait()),
        ("release", a.release() == b.release()),
        ("wraps", a.wraps() == b.wraps()),
    ]
    .into_iter()
    .find(|(_, same)| !same)
    .map(|(field, _)| field)
}
