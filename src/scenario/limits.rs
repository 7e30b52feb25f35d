//! Limits on every count, and product of counts, that sizes a run's memory: checked once the
//! model is built, so that no scenario can make the engine abort or exhaust memory. Each error
//! names the field to change. docs/scenario.md, "Limits", lists them
//! (`tests/suite/doc_limits.rs` holds the table and the rejection rules to these constants).

use super::compile::Res;
use super::document::Source;
use crate::model::{BreakerScope, Load, Model};
use cascade_policy::breaker::Window;

/// Steps per plan: the engine counts them in 16 bits, `u16::MAX` meaning "after the work".
pub const MAX_STEPS: usize = 1000;
/// Calls per parallel step (`count`s expanded), counted in 16 bits too. Wide enough for the
/// Tail at Scale's 2,000 leaves and more; the scenario's total is held by `MAX_POLICY_COPIES`.
/// The schema's range for `count` is this (`schema_service.rs`).
pub const MAX_CALLS: usize = 10_000;
/// Instances of one service.
pub const MAX_INSTANCES: u64 = 10_000;
/// Instances of all services together.
pub const MAX_TOTAL_INSTANCES: u64 = 100_000;
/// Closed-loop users of all clients, those overload faults add included.
pub const MAX_USERS: u64 = 1_000_000;
/// Time-series cells: buckets × (clients + services + edges). Each cell is one entity's 20 to
/// 40 metrics in one bucket, so this bounds memory (about 300 MB) and `timeseries.csv`.
pub const MAX_SERIES_CELLS: u64 = 1_000_000;
/// Windows, counting those `[[expect]]`s open.
pub const MAX_WINDOWS: u64 = 100;
/// Windows × (clients + services + edges): each holds its own latency histograms.
pub const MAX_WINDOW_CELLS: u64 = 2_000;
/// Copies of call policy state: Σ over call specs of their caller instances.
pub const MAX_POLICY_COPIES: u64 = 1_000_000;
/// Calls remembered by all count-window breakers together (two bytes each).
pub const MAX_BREAKER_CALLS: u64 = 100_000_000;

pub fn check(model: &Model, src: &Source) -> Res<()> {
    let over = |path: &str, what: String, limit: u64| {
        Err(src.error_at(
            path,
            format!("{what}, over the limit of {}", thousands(limit)),
        ))
    };
    let mut instances = 0u64;
    for s in &model.services {
        // The engine keeps state for every slot an autoscaler may fill: twice its max.
        let autoscaled = s
            .orchestration
            .as_ref()
            .is_some_and(|o| o.autoscale.is_some());
        let (at, what) = if autoscaled {
            (
                format!("service.{}.autoscale.max", s.name),
                "instance slots (twice the autoscaler's max)",
            )
        } else {
            (format!("service.{}.instances", s.name), "instances")
        };
        let n = u64::from(s.instance_slots());
        if n > MAX_INSTANCES {
            return over(&at, format!("{} {what}", thousands(n)), MAX_INSTANCES);
        }
        instances += n;
        if instances > MAX_TOTAL_INSTANCES {
            let what = format!("{} instances in all services", thousands(instances));
            return over(&at, what, MAX_TOTAL_INSTANCES);
        }
    }
    let mut users = 0u64;
    let closed = model.clients.iter().filter_map(|c| match c.load {
        Load::Closed { users, .. } => Some((format!("client.{}.users", c.name), users)),
        Load::Open { .. } => None,
    });
    let added = model
        .faults
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match f.effect {
            crate::model::fault::Effect::Overload { users, .. } if users > 0 => {
                Some((format!("fault.{i}.users"), users))
            }
            _ => None,
        });
    for (at, n) in closed.chain(added) {
        users += u64::from(n);
        if users > MAX_USERS {
            return over(
                &at,
                format!("{} closed-loop users", thousands(users)),
                MAX_USERS,
            );
        }
    }
    let entities = model.entities() as u64;
    let buckets = model.end().div_ceil(model.bucket);
    let cells = buckets.saturating_mul(entities);
    if cells > MAX_SERIES_CELLS {
        let what = format!(
            "{} time-series cells ({} buckets × {entities} clients, services and edges)",
            thousands(cells),
            thousands(buckets),
        );
        return over("scenario.bucket", what, MAX_SERIES_CELLS)
            .map_err(|e| hint(e, "make the bucket longer or the run shorter"));
    }
    let windows = model.windows.len() as u64;
    if windows > MAX_WINDOWS {
        let what = format!("{windows} windows (with those [[expect]] opens)");
        return over("window", what, MAX_WINDOWS);
    }
    if windows * entities > MAX_WINDOW_CELLS {
        let what = format!(
            "{windows} windows × {entities} clients, services and edges = {}",
            thousands(windows * entities)
        );
        return over("window", what, MAX_WINDOW_CELLS);
    }
    let (mut copies, mut breaker_calls) = (0u64, 0u64);
    let mut breaker_path = String::from("policy");
    for (spec, callers) in model.specs_with_callers() {
        copies += u64::from(callers);
        if let Some(b) = &spec.policy.breaker()
            && let Window::Calls(n) = b.config().window()
        {
            let per_caller = match b.scope() {
                BreakerScope::Edge => 1,
                BreakerScope::Instance => u64::from(model.services[spec.to].instance_slots()),
            };
            breaker_calls += u64::from(callers) * per_caller * u64::from(n);
            if breaker_calls > MAX_BREAKER_CALLS
                && let Some(name) = &spec.policy.name
            {
                breaker_path = format!("policy.{name}.breaker.window");
                break;
            }
        }
    }
    if copies > MAX_POLICY_COPIES {
        let what = format!(
            "{} copies of call policy state (each call of a service, once per instance)",
            thousands(copies)
        );
        return over("service", what, MAX_POLICY_COPIES);
    }
    if breaker_calls > MAX_BREAKER_CALLS {
        let what = format!(
            "breakers remembering {} calls in all (window × caller instances, × callee instances for scope = \"instance\")",
            thousands(breaker_calls)
        );
        return over(&breaker_path, what, MAX_BREAKER_CALLS);
    }
    Ok(())
}

/// The error with a suggestion of what to change.
fn hint(mut e: Box<crate::error::ScenarioError>, help: &str) -> Box<crate::error::ScenarioError> {
    e.help = Some(help.to_string());
    e
}

fn thousands(n: u64) -> String {
    crate::number::thousands(i64::try_from(n).unwrap_or(i64::MAX))
}
