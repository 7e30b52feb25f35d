//! The report's table of what the platform does to each service's instances (docs/scenario.md,
//! "Orchestration"): its probes, how an instance restarts and comes back cold, what the
//! balancer does when none is ready, and its autoscaler. A reviewer of a path with a liveness
//! probe asks first whether a slow instance gets killed, and how long it stays away.

use crate::model::Model;
use crate::model::orchestration::{
    NoneReady, Orchestration, Probe, ProbeKind, ScaleDown, ScaleMetric,
};
use crate::number::short;
use crate::output::text_table::Table;
use crate::time::format_duration as dur;

/// One row per service with orchestration; `None` when no service has any.
pub fn table(model: &Model) -> Option<Table> {
    let with: Vec<(&str, &Orchestration, &crate::model::Service)> = (model.services.iter())
        .filter_map(|s| Some((s.name.as_str(), s.orchestration.as_deref()?, s)))
        .collect();
    if with.is_empty() {
        return None;
    }
    let mut t = Table::with_numeric(
        &[
            "service",
            "probes",
            "restart",
            "cold start",
            "none ready",
            "autoscaling",
        ],
        &[],
    );
    for (name, o, service) in with {
        let probes: Vec<String> = ProbeKind::ALL
            .iter()
            .filter_map(|k| o.probe(*k))
            .map(|p| probe(service, p))
            .collect();
        t.row(vec![
            name.to_string(),
            if probes.is_empty() {
                "none".into()
            } else {
                probes.join("; ")
            },
            restart(o),
            if o.cold_start > 0 && o.cold_factor > 1.0 {
                format!("{}× slower for {}", short(o.cold_factor), dur(o.cold_start))
            } else {
                "none".into()
            },
            match o.none_ready {
                NoneReady::FailOpen => "fail open (sent to every instance)".into(),
                NoneReady::Refuse => "refused at once".into(),
            },
            autoscale(o),
        ]);
    }
    Some(t)
}

/// `liveness every 10s (timeout 1s, first after 5s), 3 failures act, 1 success clears, in the
/// queue as health`.
fn probe(service: &crate::model::Service, p: &Probe) -> String {
    let mut out = format!(
        "{} every {} (timeout {}",
        p.kind.name(),
        dur(p.period),
        dur(p.timeout)
    );
    if p.initial_delay > 0 {
        out += &format!(", first after {}", dur(p.initial_delay));
    }
    out += &format!(
        "), {} failures act, {} {}",
        p.failure_threshold,
        p.success_threshold,
        if p.success_threshold == 1 {
            "success clears"
        } else {
            "successes clear"
        }
    );
    let op = (p.operation as usize)
        .checked_sub(1)
        .and_then(|i| service.operations.get(i));
    out += &match (p.out_of_band, op) {
        (true, _) => ", out of band".to_string(),
        (false, Some(op)) => format!(", in the queue as {}", op.name),
        (false, None) => ", in the queue".to_string(),
    };
    out
}

/// `3s to listen again, work in flight answered unavailable; CrashLoopBackOff 10s doubling to 5m`.
fn restart(o: &Orchestration) -> String {
    let r = &o.restart;
    // Only liveness and startup probes restart an instance.
    if o.probe(ProbeKind::Liveness).is_none() && o.probe(ProbeKind::Startup).is_none() {
        return "never (no liveness or startup probe)".into();
    }
    format!(
        "{} to listen again, work in flight {}; CrashLoopBackOff {} doubling to {}",
        dur(r.time),
        if r.blackhole {
            "never answered"
        } else {
            "answered unavailable"
        },
        dur(r.backoff),
        dur(r.backoff_max)
    )
}

/// `2–10 instances on utilization 0.6, every 15s; new ones start in 30s, drained for 30s`.
fn autoscale(o: &Orchestration) -> String {
    let Some(a) = &o.autoscale else {
        return "none".into();
    };
    let metric = match a.metric {
        ScaleMetric::Utilization => "utilization",
        ScaleMetric::InFlight => "in flight per instance",
        ScaleMetric::Queue => "queue per instance",
    };
    let down = match a.scale_down {
        ScaleDown::Drain => format!("drained for {}", dur(a.drain)),
        ScaleDown::Kill => "killed on scale-down".into(),
    };
    format!(
        "{}–{} instances on {metric} {}, every {}; new ones start in {}, {down}",
        a.min,
        a.max,
        short(a.target),
        dur(a.period),
        dur(a.startup)
    )
}
