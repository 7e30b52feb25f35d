//! The `[[fault]]` tables as functions of the run's clock: each fault acts over [start, end)
//! exactly as compiled (no ramps: `support.rs` refuses them), so no state machine runs
//! beside the services. A stall's windows are known in advance too, so the instant paused
//! work ends is computed when it begins (`work_end`), not polled.

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

/// The windows of the stalls on `service#instance`, by start.
fn stalls(model: &Model, service: usize, instance: u32) -> Vec<(u64, u64)> {
    let mut w: Vec<(u64, u64)> = (model.faults.iter())
        .filter(|f| matches!(f.effect, Effect::Stall) && f.hits_service(service, instance))
        .map(|f| (f.start, f.end))
        .collect();
    w.sort_unstable();
    w
}

/// The end of the stall holding `service#instance` at `now` (stalls that overlap or touch
/// run on as one); `None` when no stall holds it.
pub fn stalled_until(model: &Model, service: usize, instance: u32, now: u64) -> Option<u64> {
    let mut until = None;
    for (start, end) in stalls(model, service, instance) {
        let t = until.unwrap_or(now);
        if start <= t && t < end {
            until = Some(end);
        }
    }
    until
}

/// When work of `ns` begun at `start` at `service#instance` ends, paused while a stall holds
/// the instance: the instant its time outside the stalls reaches `ns`. That is the simulator's
/// rule (a job's work "ends later by the time the stall overlapped it", the point its
/// `work_done` settles on).
pub fn work_end(model: &Model, service: usize, instance: u32, start: u64, ns: u64) -> u64 {
    let (mut t, mut left) = (start, ns);
    for (a, b) in stalls(model, service, instance) {
        if b <= t {
            continue;
        }
        if a > t {
            if a - t >= left {
                return t + left;
            }
            left -= a - t;
        }
        t = b;
    }
    t + left
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        let text = r#"
[scenario]
name = "stalls"
duration = "10s"
[[client]]
name = "web"
target = "api"
rate = 1
[[service]]
name = "api"
work = "1ms"
[[fault]]
kind = "stall"
target = "api"
start = "1s"
end = "2s"
[[fault]]
kind = "stall"
target = "api"
start = "2s"
end = "3s"
[[fault]]
kind = "stall"
target = "api"
start = "5s"
end = "6s"
"#;
        cascade::scenario::load_str("s.toml", text, &[])
            .unwrap()
            .model
    }

    const S: u64 = 1_000_000_000;
    const MS: u64 = 1_000_000;

    #[test]
    fn work_pauses_for_the_stalls_it_overlaps() {
        let m = model();
        // Before any stall, untouched.
        assert_eq!(work_end(&m, 0, 0, 0, 500 * MS), 500 * MS);
        // 100 ms before the stall, 100 ms after the two touching ones (1 s to 3 s).
        assert_eq!(work_end(&m, 0, 0, S - 100 * MS, 200 * MS), 3 * S + 100 * MS);
        // Ending exactly as a stall begins: not paused.
        assert_eq!(work_end(&m, 0, 0, 4 * S, S), 5 * S);
        // Across two separate stalls: 0.5 s, stalled 2 s, 2 s, stalled 1 s, 0.5 s.
        assert_eq!(work_end(&m, 0, 0, S / 2, 3 * S), 6 * S + S / 2);
        // Begun at a stall's end: runs at once.
        assert_eq!(work_end(&m, 0, 0, 6 * S, MS), 6 * S + MS);
    }

    #[test]
    fn a_stall_holds_until_its_end_and_touching_ones_run_on() {
        let m = model();
        assert_eq!(stalled_until(&m, 0, 0, S - 1), None);
        assert_eq!(stalled_until(&m, 0, 0, S), Some(3 * S));
        assert_eq!(stalled_until(&m, 0, 0, 2 * S + 1), Some(3 * S));
        assert_eq!(stalled_until(&m, 0, 0, 3 * S), None);
        assert_eq!(stalled_until(&m, 0, 0, 5 * S + 7), Some(6 * S));
    }
}
