//! The arrival instants of an open-loop client, as the simulator draws them, for a run outside
//! the engine to replay (`cascade-mesh` sends its requests at exactly these instants, so a
//! simulated and a measured run of one seed see the same arrivals: common random numbers).
//!
//! It walks the client's own `arrivals` stream through `next_arrival`, the step
//! `Simulation::schedule_arrival` takes; `tests` below holds the two to the same count.

use super::kernel::rng::{Stream, stream};
use crate::model::{Load, Model, RateSchedule};
use rand_distr::{Distribution, Exp1};

/// The next arrival of an open-loop client after the exact instant `last` (ns, fractional),
/// which it moves on: an Exp(1) draw from `rng` when `poisson`, else 1, through
/// `RateSchedule::next_after`, rounded up to a nanosecond; `None` once the schedule ends or the
/// arrival falls at or past `end`. The next gap counts from the exact instant, so rounding never
/// accumulates into the rate. The engine's `schedule_arrival` and `open_arrivals` both call it,
/// so a replay sees the instants the simulator schedules.
#[inline(always)]
pub(in crate::engine) fn next_arrival(
    poisson: bool,
    rate: &RateSchedule,
    rng: &mut Stream,
    last: &mut f64,
    cursor: &mut usize,
    end: u64,
) -> Option<u64> {
    let e = if poisson { Exp1.sample(rng) } else { 1.0 };
    let exact = rate.next_after(*last, e, cursor)?;
    *last = exact;
    // Simulated times stay far below 2^63 ns, so they convert through i64: one instruction
    // each way, where u64 takes a branch and several.
    if exact >= end as i64 as f64 {
        return None;
    }
    // Rounded up without a libm call: the cast truncates a positive value.
    let whole = exact as i64;
    let t = (whole + i64::from((whole as f64) < exact)) as u64;
    (t < end).then_some(t)
}

/// The instants (ns since the run's start, warm-up included) at which client `client` of
/// `model` starts a request, up to `model.end()`; at most `limit` of them (`None` past it, so
/// a caller bounds its memory). Empty for a closed-loop client, whose users start requests
/// when earlier ones end.
pub fn open_arrivals(model: &Model, client: usize, limit: usize) -> Option<Vec<u64>> {
    let c = &model.clients[client];
    let Load::Open { poisson, rate } = &c.load else {
        return Some(Vec::new());
    };
    let mut rng = stream(model.seed, &format!("client.{}", c.name), "arrivals");
    let (mut last, mut cursor, end) = (0.0_f64, 0_usize, model.end());
    let mut times = Vec::new();
    while let Some(t) = next_arrival(*poisson, rate, &mut rng, &mut last, &mut cursor, end) {
        if times.len() == limit {
            return None;
        }
        times.push(t);
    }
    Some(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
[scenario]
name = "arrivals"
duration = "3s"
warmup = "0s"
seed = 7

[[client]]
name = "web"
target = "api"
rate = 200
phases = [ { at = "1s", rate = 400, ramp = "500ms" } ]

[[service]]
name = "api"
workers = 100
work = "1ms"
"#;

    #[test]
    fn replays_as_many_arrivals_as_the_simulator_starts() {
        let model = crate::scenario::load_str("arrivals.toml", TEXT, &[])
            .expect("valid")
            .model;
        let times = open_arrivals(&model, 0, 1_000_000).expect("under the limit");
        let run = crate::simulate(&model).expect("runs");
        assert_eq!(
            times.len() as f64,
            run.metrics.get("client.web.requests").expect("metric")
        );
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        // 200/s for 1 s, the ramp to 400/s (150 expected), then 400/s for 1.5 s: about 950.
        assert!((850..1050).contains(&times.len()), "{}", times.len());
        assert_eq!(open_arrivals(&model, 0, 10), None);
    }
}
