//! An alert's firings as metrics: `alert.<name>.fired`, `.firing_s`, `.first_fire_s` (only when
//! it fired), `.false_pages`, and per fault `fault.<i>.alert.<name>.detect_s` (only when it
//! fired in the fault's window).
//!
//! A fault's window runs from its start to where the system is known to be back: the first
//! bucket of the recovery hold of its episode (`metrics::recovery`: goodput back at its
//! baseline and held there for `recovery_hold`), or, when the episode was not judged or did not
//! recover, the next episode's start, or the run's end. So the window covers the fault and its
//! recovery tail, never less than the fault itself.

use super::AlertRun;
use crate::metrics::RunMetrics;
use crate::metrics::names::{alert_metric, fault_alert_detect};
use crate::metrics::recovery::EpisodeVerdict;
use crate::model::Model;

/// Each fault's window [start, end) ns, in `[[fault]]` order.
pub fn fault_windows(model: &Model, verdicts: &[EpisodeVerdict], run_end: u64) -> Vec<(u64, u64)> {
    (model.faults.iter().enumerate())
        .map(|(i, f)| {
            let k = verdicts.iter().position(|v| v.episode.faults.contains(&i));
            let back = k.and_then(|k| {
                let v = &verdicts[k];
                let settled = v.all.as_ref().and_then(|j| j.settled_at);
                let next = verdicts.get(k + 1).map(|n| n.episode.start);
                settled.or(next)
            });
            let end = back.unwrap_or(run_end).max(f.end);
            (f.start, end)
        })
        .collect()
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Adds every alert's metrics to the run's summary.
pub fn add_to_summary(
    model: &Model,
    alerts: &[AlertRun],
    verdicts: &[EpisodeVerdict],
    run_end: u64,
    m: &mut RunMetrics,
) {
    let windows = fault_windows(model, verdicts, run_end);
    for a in alerts {
        let fired = !a.firings.is_empty();
        let firing: u64 = a.firings.iter().map(|(s, e)| e - s).sum();
        let false_pages = (a.firings.iter())
            .filter(|(s, _)| !windows.iter().any(|(ws, we)| (ws..we).contains(&s)))
            .count();
        m.summary
            .push((alert_metric(&a.name, "fired"), f64::from(u8::from(fired))));
        m.summary
            .push((alert_metric(&a.name, "firing_s"), seconds(firing)));
        if let Some((first, _)) = a.firings.first() {
            m.summary
                .push((alert_metric(&a.name, "first_fire_s"), seconds(*first)));
        }
        m.summary
            .push((alert_metric(&a.name, "false_pages"), false_pages as f64));
    }
    for (i, (ws, we)) in windows.iter().enumerate() {
        for a in alerts {
            let detected = a.firings.iter().find(|(s, _)| (ws..we).contains(&s));
            if let Some((s, _)) = detected {
                m.summary
                    .push((fault_alert_detect(i, &a.name), seconds(s - ws)));
            }
        }
    }
}
