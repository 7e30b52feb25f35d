//! The work bound: a closed-loop client may not ask far more often than its model implies.
//!
//! A closed-loop user asks again when its answer comes (after its think time), or, paced, at
//! the later of `pace` after its last start and the answer. When the answers come at once (a
//! refusal at `queue = 0`, an outage, a failure without work) and `think` or `pace` is tiny
//! (`pace = "1ns"`), the clock still moves, so the no-progress guard (`watchdog.rs`) never
//! fires, yet the run asks a billion times per user per simulated second and never ends.
//!
//! The model implies how often a user asks: at most once per *gap*, the largest of its
//! `pace`, the median of its think time and the least median answer time of its calls when
//! they are served (`answer_floor`: the target's own work plus the calls every request waits
//! for, each cut at its first attempt's timeout and at the client's deadline). The median is
//! at most twice the mean of any time that cannot be negative, so a user's long-run rate
//! (one request per mean cycle) is at most 2 / gap. The bound allows a thousand times that and
//! a million requests more:
//!
//! `requests by t <= 1,000,000 + 1,000 × users × (1 + t / gap)`
//!
//! with `users` counting those an `overload` fault adds. A run past it is spinning on answers
//! given at once, and stops with an error naming the client and its `pace` or `think`. A gap
//! of zero (no think, no pace, a zero-time answer) is no bound: such a loop stands still and
//! the no-progress guard stops it. Open-loop clients are not bounded here: their requests
//! come at the rate the scenario writes. Looked at once per stride of events with the other
//! guards (`Simulation::must_stop`), from counts the recorder keeps anyway: nothing on the
//! path of each event.

use crate::error::{RunPlace, WorkBound as Exceeded};
use crate::metrics::recorder::Recorder;
use crate::model::fault::{Effect, Target};
use crate::model::{CallSpec, Load, Model};
use crate::time::format_duration;

/// Requests any closed-loop client may make whatever its model.
pub const BASE: u64 = 1_000_000;
/// How many times the rate its model implies a closed-loop user may ask at.
pub const SLACK: u64 = 1_000;

/// One closed-loop client's bound.
struct ClientBound {
    client: usize,
    users: u64,
    /// The least mean time between one user's requests, ns (above zero).
    gap: u64,
    /// What sets `gap`, for the message.
    gap_from: String,
    /// The field to change and its value as written back.
    key: String,
    value: String,
}

/// Every closed-loop client's bound (those with a gap above zero).
pub struct WorkBound {
    clients: Vec<ClientBound>,
}

/// A client past its bound: which (an index into `WorkBound`'s clients), its requests, the
/// bound's value, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Past {
    bound: usize,
    pub requests: u64,
    pub allowed: u64,
    pub at: u64,
}

/// The most requests `users` users at least `gap` ns apart may make by `t`.
pub fn allowed(users: u64, gap: u64, t: u64) -> u64 {
    let per_user = 1.0 + t as f64 / gap as f64;
    let x = BASE as f64 + SLACK as f64 * users as f64 * per_user;
    if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x as u64
    }
}

impl WorkBound {
    pub fn of(model: &Model) -> WorkBound {
        let mut floors = AnswerFloors::new(model);
        let clients = (model.clients.iter().enumerate())
            .filter_map(|(c, client)| {
                let Load::Closed { users, think, pace } = &client.load else {
                    return None;
                };
                let extra: u64 = (model.faults.iter())
                    .filter(|f| f.target == Target::Client(c))
                    .map(|f| match f.effect {
                        Effect::Overload { users, .. } => u64::from(users),
                        _ => 0,
                    })
                    .sum();
                let deadlines = std::iter::once(client.deadline)
                    .chain((client.mix.iter()).flat_map(|m| m.others.iter().map(|e| e.deadline)));
                let (answer, callee) = (client.calls().zip(deadlines))
                    .map(|(call, deadline)| {
                        let t = floors.of_call(call);
                        (deadline.map_or(t, |d| t.min(d as f64)), call.to)
                    })
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .expect("a client makes a call");
                let think_median = think.median();
                // `pace` and `think` exclude each other: a paced user never thinks.
                let wait = match pace {
                    Some(p) => (*p as f64, "its pace"),
                    None => (think_median, "its think time's median"),
                };
                let terms = [wait, (answer, "the least median answer of its calls")];
                let gap = terms.iter().map(|t| t.0).fold(0.0, f64::max) as u64;
                if gap == 0 {
                    return None;
                }
                let [(w, wait), (a, answer)] =
                    terms.map(|(ns, what)| (format_duration(ns as u64), what));
                let gap_from = format!(
                    "{} is the larger of {wait} ({w}) and {answer} ({a}, from `{}`)",
                    format_duration(gap),
                    model.services[callee].name
                );
                let (key, value) = match pace {
                    Some(p) => ("pace", format_duration(*p)),
                    None => ("think", format_duration(think_median as u64)),
                };
                Some(ClientBound {
                    client: c,
                    users: u64::from(*users) + extra,
                    gap,
                    gap_from,
                    key: format!("client.{}.{key}", client.name),
                    value,
                })
            })
            .collect();
        WorkBound { clients }
    }

    /// The first client past its bound at `now`, if any.
    pub fn past(&self, rec: &Recorder, now: u64) -> Option<Past> {
        self.clients.iter().enumerate().find_map(|(i, b)| {
            let requests = rec.client_requests(b.client);
            let allowed = allowed(b.users, b.gap, now);
            (requests > allowed).then_some(Past {
                bound: i,
                requests,
                allowed,
                at: now,
            })
        })
    }

    /// The error for `past`, of the run of `model`.
    pub fn error(&self, model: &Model, past: Past) -> Exceeded {
        let b = &self.clients[past.bound];
        Exceeded {
            run: RunPlace {
                scenario: model.name.clone(),
                seed: model.seed,
                ..RunPlace::default()
            },
            client: model.clients[b.client].name.clone(),
            key: b.key.clone(),
            value: b.value.clone(),
            requests: past.requests,
            allowed: past.allowed,
            at_ns: past.at,
            formula: format!(
                "{BASE} + {SLACK} × {} users × (1 + t / {})",
                b.users,
                format_duration(b.gap)
            ),
            gap_from: b.gap_from.clone(),
        }
    }
}

/// The least median time (ns) in which each service plan answers a request it serves: its own
/// work's median plus, for each step before the first with a `p` or a choice (the steps every
/// request makes), the slowest of the calls it waits for, each at most its first attempt's
/// timeout, with the network's median both ways. Faults, queueing and retries only add to it.
struct AnswerFloors<'a> {
    model: &'a Model,
    /// Per service and plan (0: its own, k: operation k), once computed.
    known: Vec<Vec<Option<f64>>>,
}

impl<'a> AnswerFloors<'a> {
    fn new(model: &'a Model) -> AnswerFloors<'a> {
        let known = (model.services.iter())
            .map(|s| vec![None; 1 + s.operations.len()])
            .collect();
        AnswerFloors { model, known }
    }

    /// A call's least median answer: its callee's, the network both ways, cut at its first
    /// attempt's timeout.
    fn of_call(&mut self, call: &CallSpec) -> f64 {
        let network = call.latency.as_ref().map_or(0.0, |l| 2.0 * l.median());
        let t = self.of_plan(call.to, call.operation) + network;
        call.policy
            .timeout()
            .map_or(t, |limit| t.min(limit.0 as f64))
    }

    fn of_plan(&mut self, service: usize, operation: u16) -> f64 {
        if let Some(t) = self.known[service][usize::from(operation)] {
            return t;
        }
        // The call graph has no cycle (`scenario/graph.rs`): the recursion ends.
        let plan = self.model.services[service].plan_of(operation);
        let made = (plan.branches.iter())
            .position(Option::is_some)
            .unwrap_or(plan.steps.len());
        let mut t = plan.work.median();
        for step in &plan.steps[..made] {
            t += (step.iter().filter(|c| c.wait))
                .map(|c| self.of_call(c))
                .fold(0.0, f64::max);
        }
        self.known[service][usize::from(operation)] = Some(t);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::scenario::load_str("t.toml", text, &[])
            .unwrap()
            .model
    }

    const LAYERS: &str = r#"
[scenario]
name = "floors"
duration = "1s"
[[client]]
name = "web"
target = "gw"
arrival = "closed"
users = 3
pace = "1ns"
policy = "edge"
[[service]]
name = "gw"
work = "0s"
calls = [ { to = "api", latency = "1ms" }, { to = "cache", p = 0.5 } ]
[[service]]
name = "api"
work = "2ms"
[[service]]
name = "cache"
work = "1s"
[policy.edge]
timeout = "10s"
"#;

    #[test]
    fn an_answer_floor_adds_the_calls_every_request_waits_for() {
        // gw: no work of its own, then api's 2 ms and the network's 1 ms both ways; the
        // cache step is made by half the requests only, and is not counted.
        let m = model(LAYERS);
        let b = WorkBound::of(&m);
        assert_eq!(b.clients.len(), 1);
        assert_eq!((b.clients[0].gap, b.clients[0].users), (4_000_000, 3));
        // A first attempt's timeout cuts it, and so does the client's deadline.
        let cut = model(&LAYERS.replace("timeout = \"10s\"", "timeout = \"3ms\""));
        assert_eq!(WorkBound::of(&cut).clients[0].gap, 3_000_000);
        let hurried = LAYERS.replace(
            "policy = \"edge\"",
            "policy = \"edge\"\ndeadline = \"2500us\"",
        );
        assert_eq!(WorkBound::of(&model(&hurried)).clients[0].gap, 2_500_000);
    }

    #[test]
    fn a_pace_longer_than_the_answer_is_the_gap_and_a_zero_gap_is_no_bound() {
        let slow = model(&LAYERS.replace("pace = \"1ns\"", "pace = \"1s\""));
        assert_eq!(WorkBound::of(&slow).clients[0].gap, 1_000_000_000);
        let instant = LAYERS
            .replace("pace = \"1ns\"", "think = \"0s\"")
            .replace("work = \"2ms\"", "work = \"0s\"")
            .replace(", latency = \"1ms\"", "");
        assert!(WorkBound::of(&model(&instant)).clients.is_empty());
    }

    #[test]
    fn the_bound_is_a_million_plus_a_thousand_per_user_per_gap() {
        assert_eq!(allowed(2, 1_000_000, 0), 1_002_000);
        assert_eq!(
            allowed(2, 1_000_000, 1_000_000_000),
            1_000_000 + 2_000 * 1_001
        );
        assert_eq!(allowed(u64::MAX / 1_000, 1, u64::MAX), u64::MAX);
    }
}
