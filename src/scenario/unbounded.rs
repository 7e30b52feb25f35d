//! What an unbounded service (`workers = "unbounded"`, M/G/∞) cannot take: everything that
//! needs a finite number of workers. A capacity fault removes a count or a share of them (of
//! infinity, nothing or everything: not a fault anyone means); utilization is busy workers
//! over workers, 0 forever, so an autoscaler on it never acts and a gate on it never bites
//! (it is not emitted: `ServiceAcc::emits_utilization`). Each is refused at its field
//! rather than simulated as a number that looks like an answer.

use super::document::{Located, Source};
use super::schema::RawScenario;
use crate::model::Model;
use crate::model::fault::{Effect, Target};
use crate::model::orchestration::ScaleMetric;

/// Refuses, at the field that asks for it, anything needing an unbounded service's workers.
pub fn check(src: &Source, raw: &RawScenario, model: &Model) -> Located<()> {
    for (i, f) in model.faults.iter().enumerate() {
        let (Effect::Capacity(_), Target::Service(s) | Target::Instance(s, _)) =
            (&f.effect, f.target)
        else {
            continue;
        };
        if model.services[s].unbounded() {
            return Err(src.error_at(
                &format!("fault.{i}.kind"),
                format!(
                    "a capacity fault removes workers, and `{}` has unbounded workers: model a slowdown (`latency`), errors (`errors`) or a `stall` instead",
                    model.services[s].name
                ),
            ));
        }
    }
    for s in model.services.iter().filter(|s| s.unbounded()) {
        let autoscale = (s.orchestration.as_ref()).and_then(|o| o.autoscale.as_ref());
        if autoscale.is_some_and(|a| a.metric == ScaleMetric::Utilization) {
            return Err(src.error_at(
                &format!("service.{}.autoscale.metric", s.name),
                "utilization (the default) is busy workers over workers, always 0 with unbounded workers: scale on `in_flight` instead",
            ));
        }
    }
    for (i, e) in raw.expect.iter().enumerate() {
        let unbounded = e.metric.strip_prefix("service.").and_then(|rest| {
            let (name, metric) = rest.split_once('.')?;
            let s = model.services.iter().find(|s| s.name == name)?;
            (s.unbounded() && metric.ends_with("utilization")).then_some(name)
        });
        if let Some(name) = unbounded {
            return Err(src.error_at(
                &format!("expect.{i}.metric"),
                format!("`{name}` has unbounded workers, so no utilization: gate its `in_system_mean` or `sojourn_mean_ms` instead"),
            ));
        }
    }
    Ok(())
}
