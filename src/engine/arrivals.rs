//! The arrival instants of an open-loop client, as the simulator draws them, for a run outside
//! the engine to replay (`cascade-mesh` sends its requests at exactly these instants, so a
//! simulated and a measured run of one seed see the same arrivals: common random numbers).
//!
//! It walks the client's own `arrivals` stream the way `Simulation::schedule_arrival` does
//! (an Exp(1) draw, or 1 for constant arrivals, through `RateSchedule::next_after`, rounded up
//! to a nanosecond) without touching the engine's hot path; `tests` below holds the two to the
//! same count.

use super::kernel::rng::stream;
use crate::model::{Load, Model};
use rand_distr::{Distribution, Exp1};

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
    loop {
        let e = if *poisson { Exp1.sample(&mut rng) } else { 1.0 };
        let Some(exact) = rate.next_after(last, e, &mut cursor) else {
            return Some(times);
        };
        last = exact;
        if exact >= end as f64 {
            return Some(times);
        }
        let t = exact.ceil() as u64;
        if t >= end {
            return Some(times);
        }
        if times.len() == limit {
            return None;
        }
        times.push(t);
    }
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
