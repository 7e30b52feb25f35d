//! The rows of a timeline's strips, read from a run's files: one per guarded call (the
//! buckets its breaker was open), one per `[[alert]]` (its firing intervals, from alerts.csv)
//! and one per service whose instance count moved (its time-average count per bucket), with
//! its ready instances, restarts and failing probes where they moved. `strips.rs` draws them.

use super::strips::{Bar, Row};
use crate::metrics::names;
use crate::model::orchestration::ProbeKind;
use crate::number::short;
use crate::output::describe;
use crate::output::read_run::RunData;

/// One row per edge with a breaker (from the model; without one, per edge whose breaker was
/// ever open): a bar for each bucket in which it was open, darker the longer.
pub fn breakers(run: &RunData, edges: &[String]) -> Vec<Row> {
    let b = run.bucket_s;
    let with_breaker: Vec<&String> = match &run.model {
        Some(m) => {
            let calls = describe::edge_calls(m);
            edges
                .iter()
                .filter(|e| {
                    calls
                        .iter()
                        .any(|c| &c.edge == *e && c.call.policy.breaker().is_some())
                })
                .collect()
        }
        None => edges
            .iter()
            .filter(|e| {
                run.series(&names::edge_metric(e, "breaker_open_s"))
                    .is_some_and(|v| v.iter().any(|x| *x > 0.0))
            })
            .collect(),
    };
    with_breaker
        .into_iter()
        .map(|e| {
            let bars: Vec<Bar> = run
                .series(&names::edge_metric(e, "breaker_open_s"))
                .map(|v| {
                    run.times
                        .iter()
                        .zip(v)
                        .filter(|(_, x)| **x > 0.0)
                        .map(|(t, x)| Bar {
                            start: *t,
                            end: t + b,
                            strength: (x / b).min(1.0),
                            text: String::new(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let edge = e.replacen('.', "→", 1);
            Row {
                label: if bars.is_empty() {
                    format!("{edge} (never open)")
                } else {
                    edge
                },
                bars,
            }
        })
        .collect()
}

/// One row per `[[alert]]`, in the scenario's order (without scenario.toml, in alerts.csv's):
/// a bar for each of its firing intervals as alerts.csv holds them, [start, end) s. An alert
/// that never fired keeps its row, named so. None for a run without alerts.
pub fn alerts(run: &RunData) -> Vec<Row> {
    let mut names: Vec<String> = match &run.model {
        Some(m) => m.alerts.iter().map(|a| a.name.clone()).collect(),
        None => Vec::new(),
    };
    for f in &run.alert_firings {
        if !names.contains(&f.alert) {
            names.push(f.alert.clone());
        }
    }
    (names.into_iter())
        .map(|name| {
            let bars: Vec<Bar> = (run.alert_firings.iter())
                .filter(|f| f.alert == name)
                .map(|f| Bar {
                    start: f.start_s,
                    end: f.end_s,
                    strength: 1.0,
                    text: String::new(),
                })
                .collect();
            Row {
                label: if bars.is_empty() {
                    format!("{name} (never fired)")
                } else {
                    name
                },
                bars,
            }
        })
        .collect()
}

/// One row per service whose `instances_mean` (written only for a service with orchestration)
/// takes more than one value over the run, warm-up included: a service whose count never moves
/// would only repeat its `instances`. Consecutive buckets of the same mean make one bar,
/// labelled with it, so the count is written where it changes; a bar is darker the nearer its
/// mean is to the row's highest. Below it, where some of those instances were out of rotation
/// (starting, restarting, failing readiness, draining: `not_ready_s`), a row of the instances
/// ready, the bucket's mean less its not-ready instance-seconds over the bucket.
pub fn instances(run: &RunData, services: &[String]) -> Vec<Row> {
    let b = run.bucket_s;
    let mut rows = Vec::new();
    for s in services {
        let Some(existing) = run.series(&names::service_metric(s, "instances_mean")) else {
            continue;
        };
        if let Some(row) = count_row(run, s, existing) {
            rows.push(row);
        }
        if let Some(not_ready) = run.series(&names::service_metric(s, "not_ready_s"))
            && not_ready.iter().any(|x| *x > 0.0)
        {
            let ready: Vec<f64> = existing
                .iter()
                .zip(not_ready)
                // Rounded to a millionth of an instance: the two series are written apart, and
                // a difference in the last bits would split a bar.
                .map(|(x, nr)| ((x - nr / b).max(0.0) * 1e6).round() / 1e6)
                .collect();
            if let Some(row) = count_row(run, &format!("{s} ready"), &ready) {
                rows.push(row);
            }
        }
        rows.extend(platform_events(run, s));
    }
    rows
}

/// Where the platform acted on service `s`: a row of the buckets with restarts (a liveness or
/// startup probe gave up on an instance; darker with more of them, the count written), then,
/// per probe kind that ever failed, a row of the buckets with failures (darker as a larger
/// share of that bucket's probes failed). None for a service where nothing failed: a row of
/// nothing would only say so.
pub fn platform_events(run: &RunData, s: &str) -> Vec<Row> {
    let b = run.bucket_s;
    let mut rows = Vec::new();
    if let Some(restarts) = run.series(&names::service_metric(s, "restarts")) {
        let most = restarts.iter().fold(0.0, |m: f64, x| m.max(*x));
        if most > 0.0 {
            rows.push(Row {
                label: format!(
                    "{s} restarts ({} in all)",
                    short(restarts.iter().sum::<f64>())
                ),
                bars: (run.times.iter().zip(restarts))
                    .filter(|(_, x)| **x > 0.0)
                    .map(|(t, x)| Bar {
                        start: *t,
                        end: t + b,
                        strength: x / most,
                        text: short(*x),
                    })
                    .collect(),
            });
        }
    }
    for kind in ProbeKind::ALL.map(ProbeKind::name) {
        let metric = |what: &str| names::service_metric(s, &format!("{what}.{kind}"));
        let (Some(failed), Some(sent)) = (
            run.series(&metric("probe_failures")),
            run.series(&metric("probes")),
        ) else {
            continue;
        };
        if failed.iter().all(|x| *x <= 0.0) {
            continue;
        }
        rows.push(Row {
            label: format!(
                "{s} {kind} probes failing ({} of {})",
                short(failed.iter().sum::<f64>()),
                short(sent.iter().sum::<f64>())
            ),
            bars: (run.times.iter().zip(failed.iter().zip(sent)))
                .filter(|(_, (f, _))| **f > 0.0)
                .map(|(t, (f, n))| Bar {
                    start: *t,
                    end: t + b,
                    strength: (f / n.max(1.0)).min(1.0),
                    text: String::new(),
                })
                .collect(),
        });
    }
    rows
}

/// A row of per-bucket counts `v` named `name`, or none when the count never moves.
fn count_row(run: &RunData, name: &str, v: &[f64]) -> Option<Row> {
    let b = run.bucket_s;
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(*x), hi.max(*x))
        });
    // Means of a constant count are exact (a whole number of instance-ns over the bucket's
    // ns), so any difference is a change, not rounding.
    if hi <= lo {
        return None;
    }
    let mut bars: Vec<Bar> = Vec::new();
    for (i, (t, x)) in run.times.iter().zip(v).enumerate() {
        match bars.last_mut() {
            Some(last) if v[i - 1] == *x => last.end = t + b,
            _ => bars.push(Bar {
                start: *t,
                end: t + b,
                strength: x / hi,
                text: short(*x),
            }),
        }
    }
    Some(Row {
        label: format!("{name} ({}–{})", short(lo), short(hi)),
        bars,
    })
}
