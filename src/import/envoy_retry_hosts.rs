//! An Envoy retry policy's host selection: `retry_host_predicate` with the `previous_hosts`
//! predicate and `host_selection_retry_max_attempts`, as `retry.other_host` and
//! `retry.host_reselections` (docs/import.md). Envoy's load balancer makes
//! `host_selection_retry_max_attempts + 1` picks (1 when unset) while the predicate rejects a
//! host the request already tried, and routes to the last pick: cascade's re-picks are that
//! count itself.

use super::out::{PolicyOut, Toml};
use super::read::{Ctx, Read};
use super::tree::{Node, Value};
use cascade_policy::table::MAX_HOST_RESELECTIONS;

/// The extension's name, and its typed config's type name (v3; v2's ends the same way).
const PREVIOUS_HOSTS: &str = "envoy.retry_host_predicates.previous_hosts";
const PREVIOUS_HOSTS_TYPE: &str = "PreviousHostsPredicate";
/// Envoy's default `host_selection_retry_max_attempts`.
const HOST_SELECTION_ATTEMPTS: u32 = 1;

/// Reads `predicates` (`retry_host_predicate`) and `max_attempts`
/// (`host_selection_retry_max_attempts`) of the retry policy at `key` into `p`'s `retry`.
pub(super) fn read_host_selection(
    ctx: &mut Ctx,
    predicates: Option<&Node>,
    max_attempts: Option<&Node>,
    key: &str,
    p: &mut PolicyOut,
) -> Read<()> {
    let mut previous = None;
    if let Some(list) = predicates {
        let path = format!("{key}.retry_host_predicate");
        let Value::List(items) = &list.value else {
            return Err(ctx.error(list, &path, "expected a list of retry host predicates"));
        };
        for item in items {
            if is_previous_hosts(ctx, item, &path)? {
                previous = Some(item);
            } else {
                ctx.skip(
                    item,
                    &path,
                    "only the previous_hosts predicate is simulated (hosts have no canary flag or metadata)",
                );
            }
        }
    }
    let max_path = format!("{key}.host_selection_retry_max_attempts");
    let Some(previous) = previous else {
        if let Some(v) = max_attempts {
            ctx.skip(
                v,
                &max_path,
                "used by Envoy only with a retry host predicate, and there is no previous_hosts one",
            );
        }
        return Ok(());
    };
    let (n, from) = match max_attempts {
        Some(v) => (
            ctx.count(v, &max_path)?,
            format!("{max_path} ({}): the picks after the first", ctx.at(v)),
        ),
        None => (
            HOST_SELECTION_ATTEMPTS,
            format!("{max_path}: Envoy's default, one pick after the first"),
        ),
    };
    if n == 0 {
        // One pick in all: the predicate is asked nothing, as without it.
        ctx.skip(
            previous,
            &format!("{key}.retry_host_predicate"),
            "with host_selection_retry_max_attempts 0 Envoy picks once and the predicate never acts",
        );
        return Ok(());
    }
    if n > MAX_HOST_RESELECTIONS {
        let at = max_attempts.expect("only a written count exceeds the default");
        return Err(ctx.error(
            at,
            &max_path,
            format!("{n} is more than cascade's {MAX_HOST_RESELECTIONS} re-picks"),
        ));
    }
    p.set(
        "retry",
        "other_host",
        Toml::Bool(true),
        format!(
            "{key}.retry_host_predicate: previous_hosts ({})",
            ctx.at(previous)
        ),
    );
    p.set("retry", "host_reselections", Toml::Int(n.into()), from);
    Ok(())
}

/// Whether one `retry_host_predicate` entry is `previous_hosts`, by its `name` or its
/// `typed_config`'s `@type` (Envoy selects an extension by the latter when it is given).
fn is_previous_hosts(ctx: &Ctx, item: &Node, path: &str) -> Read<bool> {
    let mut found = false;
    for (k, v) in item.entries() {
        match k.text.as_str() {
            "name" => found |= ctx.text(v, &format!("{path}.name"))? == PREVIOUS_HOSTS,
            "typed_config" => {
                for (tk, tv) in v.entries() {
                    if tk.text == "@type" {
                        let t = ctx.text(tv, &format!("{path}.typed_config.@type"))?;
                        found |= t.ends_with(PREVIOUS_HOSTS_TYPE);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(found)
}
