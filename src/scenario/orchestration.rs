//! Compiles a service's orchestration (probes, restart, readiness, autoscaling) with the
//! defaults of Kubernetes (probes: period 10s, timeout 1s, failure threshold 3, success 1;
//! CrashLoopBackOff 10s doubling to 300s; HPA: sync 15s, tolerance 0.1, scale-up 100% or 4
//! instances per 15s, scale-down 100% per 15s after a 300s stabilization).

use super::compile::Res;
use super::dist::compile_dist;
use super::document::Source;
use super::operation::operation_number;
use super::schema::RawService;
use super::schema_orchestration::*;
use crate::model::Latency;
use crate::model::orchestration::*;
use crate::time::NANOS_PER_SEC;

const SECOND: u64 = NANOS_PER_SEC;

/// The service's orchestration, `None` when it sets none of its keys.
pub fn orchestration(src: &Source, s: &RawService) -> Res<Option<Box<Orchestration>>> {
    let at = |f: &str| format!("service.{}.{f}", s.name);
    let uses = s.probe.is_some()
        || s.restart.is_some()
        || s.cold_start.is_some()
        || s.cold_factor.is_some()
        || s.when_none_ready.is_some()
        || s.autoscale.is_some();
    if !uses {
        return Ok(None);
    }
    let ops: Vec<&str> = (s.operation.iter().flatten())
        .map(|o| o.name.as_str())
        .collect();
    let mut probes = [None, None, None];
    if let Some(p) = &s.probe {
        for (kind, raw) in [
            (ProbeKind::Liveness, &p.liveness),
            (ProbeKind::Readiness, &p.readiness),
            (ProbeKind::Startup, &p.startup),
        ] {
            if let Some(raw) = raw {
                let path = at(&format!("probe.{}", kind.name()));
                probes[kind as usize] = Some(probe(src, &path, &s.name, &ops, kind, raw)?);
            }
        }
    }
    let cold_factor = s.cold_factor.unwrap_or(1.0);
    if !(cold_factor.is_finite() && cold_factor >= 1.0) {
        return Err(src.error_at(
            &at("cold_factor"),
            "must be at least 1 (work is multiplied by it)",
        ));
    }
    let autoscale = s
        .autoscale
        .as_ref()
        .map(|a| autoscale(src, &at("autoscale"), s.instances.unwrap_or(1), a))
        .transpose()?;
    Ok(Some(Box::new(Orchestration {
        probes,
        restart: restart(src, &at("restart"), s.restart.as_ref())?,
        cold_start: s.cold_start.map_or(0, |d| d.0),
        cold_factor,
        none_ready: s.when_none_ready.unwrap_or_default(),
        autoscale,
    })))
}

fn probe(
    src: &Source,
    path: &str,
    service: &str,
    ops: &[&str],
    kind: ProbeKind,
    p: &RawProbe,
) -> Res<Probe> {
    let field = |f: &str| format!("{path}.{f}");
    let out_of_band = p.serve == Some(ProbeServe::OutOfBand);
    let operation = match (&p.operation, out_of_band) {
        (Some(name), false) => operation_number(src, &field("operation"), service, ops, name)?,
        (None, false) if ops.is_empty() => {
            return Err(src.error_at(
                path,
                format!("a probe in the queue requests an operation: give `{service}` one for it (`[[service.operation]]`) and name it in `operation`, or serve the probe out of band (`serve = \"out_of_band\"`)"),
            ));
        }
        (None, false) => {
            return Err(src.error_at(
                path,
                format!(
                    "name the operation the probe requests (`operation`): {}",
                    ops.join(", ")
                ),
            ));
        }
        (Some(_), true) => {
            return Err(src.error_at(
                &field("operation"),
                "a probe served out of band requests no operation: its answer takes `work`",
            ));
        }
        (None, true) => 0,
    };
    if p.work.is_some() && !out_of_band {
        return Err(src.error_at(
            &field("work"),
            "only a probe served out of band has a `work` of its own; a probe in the queue does its operation's",
        ));
    }
    let work = match &p.work {
        Some(d) => compile_dist(d).map_err(|m| src.error_at(&field("work"), m))?,
        None => Latency::Constant(0),
    };
    let period = p.period.map_or(10 * SECOND, |d| d.0);
    let timeout = p.timeout.map_or(SECOND, |d| d.0);
    if timeout == 0 {
        return Err(src.error_at(&field("timeout"), "must be longer than zero"));
    }
    shortest_period(src, &field("period"), period)?;
    let failure_threshold = p.failure_threshold.unwrap_or(3);
    if failure_threshold == 0 {
        return Err(src.error_at(&field("failure_threshold"), "must be at least 1"));
    }
    let success_threshold = p.success_threshold.unwrap_or(1);
    if success_threshold == 0 {
        return Err(src.error_at(&field("success_threshold"), "must be at least 1"));
    }
    if success_threshold != 1 && kind != ProbeKind::Readiness {
        return Err(src.error_at(
            &field("success_threshold"),
            format!(
                "must be 1 for a {} probe (as Kubernetes requires): one success is enough",
                kind.name()
            ),
        ));
    }
    Ok(Probe {
        kind,
        operation,
        out_of_band,
        work,
        period,
        timeout,
        initial_delay: p.initial_delay.map_or(0, |d| d.0),
        failure_threshold,
        success_threshold,
    })
}

/// The shortest probe or sync period simulated: Kubernetes' own is 1 s; one every few
/// nanoseconds would spend the run on probes and syncs alone.
const SHORTEST_PERIOD: u64 = 1_000_000;

fn shortest_period(src: &Source, path: &str, period: u64) -> Res<()> {
    if period < SHORTEST_PERIOD {
        return Err(src.error_at(
            path,
            "must be at least 1ms (Kubernetes' shortest is 1s): shorter, the run would be spent on it",
        ));
    }
    Ok(())
}

fn restart(src: &Source, path: &str, r: Option<&RawRestart>) -> Res<Restart> {
    let backoff = r.and_then(|r| r.backoff).map_or(10 * SECOND, |d| d.0);
    let backoff_max = r.and_then(|r| r.backoff_max).map_or(300 * SECOND, |d| d.0);
    if backoff == 0 {
        return Err(src.error_at(&format!("{path}.backoff"), "must be longer than zero"));
    }
    if backoff_max < backoff {
        return Err(src.error_at(&format!("{path}.backoff_max"), "must be at least `backoff`"));
    }
    Ok(Restart {
        time: r.and_then(|r| r.time).map_or(0, |d| d.0),
        blackhole: r.and_then(|r| r.mode) == Some(RestartMode::Blackhole),
        backoff,
        backoff_max,
    })
}

fn autoscale(src: &Source, path: &str, instances: u32, a: &RawAutoscale) -> Res<Autoscale> {
    let field = |f: &str| format!("{path}.{f}");
    let metric = a.metric.unwrap_or_default();
    if !(a.target.is_finite() && a.target > 0.0) {
        return Err(src.error_at(&field("target"), "must be above zero"));
    }
    if metric == ScaleMetric::Utilization && a.target > 1.0 {
        return Err(src.error_at(&field("target"), "is a utilization: above 0, at most 1"));
    }
    let min = a.min.unwrap_or(1);
    if min == 0 {
        return Err(src.error_at(&field("min"), "must be at least 1"));
    }
    if a.max < min {
        return Err(src.error_at(&field("max"), format!("must be at least `min` ({min})")));
    }
    if !(min..=a.max).contains(&instances) {
        return Err(src.error_at(
            &format!("{}.instances", path.trim_end_matches(".autoscale")),
            format!(
                "is the initial count: between the autoscaler's min ({min}) and max ({})",
                a.max
            ),
        ));
    }
    let period = a.period.map_or(15 * SECOND, |d| d.0);
    shortest_period(src, &field("period"), period)?;
    let window = a.window.map_or(period, |d| d.0);
    if window == 0 || !window.is_multiple_of(period) {
        return Err(src.error_at(
            &field("window"),
            "must be a whole number of periods (the metric is read at each sync)",
        ));
    }
    let tolerance = a.tolerance.unwrap_or(0.1);
    if !(tolerance.is_finite() && (0.0..1.0).contains(&tolerance)) {
        return Err(src.error_at(&field("tolerance"), "must be in [0, 1)"));
    }
    let hpa_period = 15 * SECOND;
    let up_default = ScaleBehavior {
        stabilization: 0,
        policies: vec![
            ScalePolicy {
                percent: true,
                value: 100,
                period: hpa_period,
            },
            ScalePolicy {
                percent: false,
                value: 4,
                period: hpa_period,
            },
        ],
        select: SelectPolicy::Max,
    };
    let down_default = ScaleBehavior {
        stabilization: 300 * SECOND,
        policies: vec![ScalePolicy {
            percent: true,
            value: 100,
            period: hpa_period,
        }],
        select: SelectPolicy::Max,
    };
    Ok(Autoscale {
        metric,
        target: a.target,
        min,
        max: a.max,
        period,
        window,
        tolerance,
        startup: a.startup.map_or(0, |d| d.0),
        scale_down: a.scale_down.unwrap_or_default(),
        drain: a.drain.map_or(30 * SECOND, |d| d.0),
        up: behavior(src, &field("up"), a.up.as_ref(), up_default)?,
        down: behavior(src, &field("down"), a.down.as_ref(), down_default)?,
    })
}

fn behavior(
    src: &Source,
    path: &str,
    b: Option<&RawBehavior>,
    default: ScaleBehavior,
) -> Res<ScaleBehavior> {
    let Some(b) = b else {
        return Ok(default);
    };
    let policies = match &b.policies {
        None => default.policies,
        Some(list) => {
            if list.is_empty() {
                return Err(src.error_at(
                    &format!("{path}.policies"),
                    "give at least one policy (or `select = \"disabled\"` to stop scaling this way)",
                ));
            }
            let mut out = Vec::new();
            for (i, p) in list.iter().enumerate() {
                let at = |f: &str| format!("{path}.policies.{i}.{f}");
                if p.value == 0 {
                    return Err(src.error_at(&at("value"), "must be at least 1"));
                }
                if p.period.0 == 0 {
                    return Err(src.error_at(&at("period"), "must be longer than zero"));
                }
                out.push(ScalePolicy {
                    percent: p.kind == PolicyKind::Percent,
                    value: p.value,
                    period: p.period.0,
                });
            }
            out
        }
    };
    Ok(ScaleBehavior {
        stabilization: b.stabilization.map_or(default.stabilization, |d| d.0),
        policies,
        select: b.select.unwrap_or_default(),
    })
}
