//! The `[[fault]]` tables as functions of the run's clock: each fault acts over [start, end)
//! exactly as compiled (no ramps: `support.rs` refuses them), so no state machine runs
//! beside the services.

use cascade::model::Model;
use cascade::model::fault::{Effect, Fault, Slowdown};

/// What the faults do to a request arriving at `service#instance` for `operation` at `now`.
pub fn active(
    model: &Model,
    service: usize,
    instance: u32,
    operation: u16,
    now: u64,
) -> impl Iterator<Item = &Fault> {
    (model.faults.iter()).filter(move |f| {
        f.active(now)
            && f.hits_service(service, instance)
            && (f.operation == 0 || f.operation == operation)
    })
}

/// Work of `ns` under the latency faults and cold starts acting at `now`.
pub fn work(
    model: &Model,
    service: usize,
    instance: u32,
    operation: u16,
    ns: u64,
    now: u64,
) -> u64 {
    let mut ns = ns as f64;
    for f in model.faults.iter().filter(|f| {
        f.hits_service(service, instance) && (f.operation == 0 || f.operation == operation)
    }) {
        match &f.effect {
            Effect::Latency(Slowdown::Factor(k)) if f.active(now) => ns *= k,
            Effect::Latency(Slowdown::Add(add)) if f.active(now) => ns += *add as f64,
            Effect::Crash {
                cold_start,
                cold_factor,
                ..
            } if f.end <= now && now < f.end.saturating_add(*cold_start) => ns *= cold_factor,
            _ => {}
        }
    }
    ns as u64
}

/// A crash of `service#instance` that began in (from, to]: the work in between is lost;
/// whether its answer is swallowed (blackhole).
pub fn crashed_between(
    model: &Model,
    service: usize,
    instance: u32,
    from: u64,
    to: u64,
) -> Option<bool> {
    model.faults.iter().find_map(|f| match f.effect {
        Effect::Crash { blackhole, .. }
            if f.hits_service(service, instance) && from < f.start && f.start <= to =>
        {
            Some(blackhole)
        }
        _ => None,
    })
}

/// Whether `service#instance` is down (crashed) at `now`: the balancer sends it nothing.
pub fn down(model: &Model, service: usize, instance: u32, now: u64) -> bool {
    active(model, service, instance, 0, now).any(|f| matches!(f.effect, Effect::Crash { .. }))
}
