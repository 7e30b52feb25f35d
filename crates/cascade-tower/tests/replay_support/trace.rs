//! The simulated side: a fixture run by the simulator with `--trace`, its rows read back into
//! each call path's calls, their inputs and their decisions.

use super::{Decision, at};
use cascade_policy::breaker::Transition;
use cascade_policy::outcome::Outcome;
use cascade_policy::path::Refusal;
use cascade_policy::table::RawPolicy;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One row of the trace.
#[derive(Debug, Clone)]
pub struct Row {
    pub time: u64,
    pub request: String,
    pub parent: String,
    pub entity: String,
    pub event: String,
    pub outcome: String,
    pub detail: String,
}

impl Row {
    fn get(&self, key: &str) -> Option<&str> {
        (self.detail.split(' ')).find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    }
}

/// An attempt's job as the simulator sent it, and its answer if the call waited for one.
#[derive(Debug, Clone)]
pub struct Job {
    pub sent: u64,
    pub answer: Option<Answer>,
}

#[derive(Debug, Clone, Copy)]
pub struct Answer {
    pub at: u64,
    pub outcome: Outcome,
    pub retry_after: Option<u64>,
}

/// A call of the simulated run: its inputs and its decisions.
#[derive(Debug, Clone)]
pub struct SimCall {
    pub id: String,
    pub start: u64,
    pub caller_deadline: Option<u64>,
    /// Every job sent for it (attempts and hedges), in order.
    pub jobs: Vec<Job>,
    pub decisions: Vec<Decision>,
}

/// The calls of one call path in one caller instance (one `PathPolicies`), in start order.
#[derive(Debug, Clone)]
pub struct SimPath {
    pub name: String,
    /// When the run stopped (ns): calls still going then have no end in the trace, and the
    /// replay's decisions from then on are not compared.
    pub end: u64,
    pub seed: u64,
    pub calls: Vec<SimCall>,
}

impl SimPath {
    pub fn decisions(&self) -> Vec<Vec<Decision>> {
        self.calls.iter().map(|c| c.decisions.clone()).collect()
    }

    /// Keeps the decisions made before the run stopped.
    pub fn before_end(&self, mut calls: Vec<Vec<Decision>>) -> Vec<Vec<Decision>> {
        for c in &mut calls {
            c.retain(|d| at(d) < self.end);
        }
        calls
    }

    /// How many decisions of the run `pick` selects.
    pub fn count(&self, pick: impl Fn(&Decision) -> bool) -> usize {
        (self.calls.iter().flat_map(|c| &c.decisions))
            .filter(|d| pick(d))
            .count()
    }
}

/// A fixture run by the simulator, with its trace.
pub struct Run {
    pub end: u64,
    pub text: String,
    pub rows: Vec<Row>,
}

/// Runs `tests/replay_fixtures/<name>` with the simulator, tracing it.
pub fn simulate(name: &str) -> Run {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/replay_fixtures")
        .join(name);
    let text = std::fs::read_to_string(&file).expect("the fixture");
    let scenario = cascade::scenario::load(&file, &[]).expect("a valid fixture");
    let measured = cascade::Simulation::new(scenario.model)
        .with_trace(1_000_000)
        .run()
        .expect("the run");
    let csv = measured.trace.expect("a trace").expect("within its limit");
    Run {
        end: measured.stopped_at,
        text,
        rows: parse(&csv),
    }
}

fn parse(csv: &str) -> Vec<Row> {
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time_ns,request,parent,entity,event,outcome,detail")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.splitn(7, ',').collect();
            Row {
                time: f[0].parse().expect("time_ns"),
                request: f[1].into(),
                parent: f[2].into(),
                entity: f[3].into(),
                event: f[4].into(),
                outcome: f[5].into(),
                detail: f[6].into(),
            }
        })
        .collect()
}

fn outcome(name: &str) -> Outcome {
    *(Outcome::ALL.iter())
        .find(|o| o.name() == name)
        .unwrap_or_else(|| panic!("an outcome: {name}"))
}

pub fn change(t: Transition) -> String {
    match t {
        Transition::None => "none",
        Transition::Opened => "opened",
        Transition::Reopened => "reopened",
        Transition::HalfOpened => "half_opened",
        Transition::Closed => "closed",
    }
    .into()
}

pub fn policy(r: Refusal) -> String {
    match r {
        Refusal::BreakerOpen => "breaker",
        Refusal::Throttled => "throttle",
        Refusal::Limited => "limit",
        Refusal::BulkheadFull => "bulkhead",
        Refusal::RateLimited => "rate_limit",
    }
    .into()
}

impl Run {
    /// The calls on edge `from.to` (`from` with one instance, calling `to` from one place).
    /// A path without policy state is named `none`; it draws nothing.
    pub fn path(&self, edge: &str) -> SimPath {
        let entity = format!("edge.{edge}");
        let mut name: Option<String> = None;
        let mut seed = 0;
        let mut calls: Vec<SimCall> = Vec::new();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        let mut jobs: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for row in &self.rows {
            if row.event == "call_start" {
                if row.entity != entity {
                    continue;
                }
                let path = row.get("path").expect("call_start names its path");
                assert!(
                    name.as_deref().is_none_or(|n| n == path),
                    "one path on {edge}"
                );
                name = Some(path.to_string());
                seed = row.get("seed").expect("a seed").parse().unwrap();
                let caller_deadline = match row.get("caller_deadline") {
                    Some("none") | None => None,
                    Some(ns) => Some(ns.parse().unwrap()),
                };
                index.insert(row.request.clone(), calls.len());
                calls.push(SimCall {
                    id: row.request.clone(),
                    start: row.time,
                    caller_deadline,
                    jobs: Vec::new(),
                    decisions: Vec::new(),
                });
                continue;
            }
            let at = row.time;
            // A job's rows: its parent is the call.
            if let Some(&k) = index.get(&row.parent)
                && row.request.starts_with('j')
            {
                let call = &mut calls[k];
                match row.event.as_str() {
                    "attempt" | "hedge" => {
                        jobs.insert(row.request.clone(), (k, call.jobs.len()));
                        call.jobs.push(Job {
                            sent: at,
                            answer: None,
                        });
                        call.decisions.push(if row.event == "attempt" {
                            let n = 1
                                + (call.decisions.iter())
                                    .filter(|d| matches!(d, Decision::Attempt { .. }))
                                    .count() as u32;
                            Decision::Attempt { at, n }
                        } else {
                            Decision::Hedge { at }
                        });
                    }
                    "answer" => {
                        let (k, j) = jobs[&row.request];
                        calls[k].jobs[j].answer = Some(Answer {
                            at,
                            outcome: outcome(&row.outcome),
                            retry_after: row.get("retry_after").map(|v| v.parse().unwrap()),
                        });
                    }
                    _ => {}
                }
                continue;
            }
            let Some(&k) = index.get(&row.request) else {
                continue;
            };
            let decision = match row.event.as_str() {
                "refused" => Decision::Refused {
                    at,
                    policy: row.get("policy").unwrap().into(),
                },
                "retry" => Decision::Retry {
                    at,
                    wait: row.get("wait").unwrap().parse().unwrap(),
                },
                "budget_exhausted" => Decision::BudgetExhausted { at },
                "hedge_budget_exhausted" => Decision::HedgeBudgetExhausted { at },
                "breaker" => Decision::Breaker {
                    at,
                    change: row.detail.clone(),
                },
                "half_open_probe" => Decision::HalfOpenProbe { at },
                "limit" => Decision::Limit {
                    at,
                    value: row.get("limit").unwrap().parse().unwrap(),
                },
                "call_end" => Decision::End {
                    at,
                    outcome: row.outcome.clone(),
                },
                _ => continue,
            };
            calls[k].decisions.push(decision);
        }
        SimPath {
            end: self.end,
            name: name.unwrap_or_else(|| panic!("no call on {edge}")),
            seed,
            calls,
        }
    }

    /// The fixture's `[policy.<name>]` table.
    pub fn table(&self, name: &str) -> RawPolicy {
        let doc: toml_edit::DocumentMut = self.text.parse().expect("TOML");
        let table = doc["policy"][name].as_table().expect("the policy table");
        let mut alone = toml_edit::DocumentMut::new();
        *alone.as_table_mut() = table.clone();
        toml_edit::de::from_str(&alone.to_string()).expect("a policy table")
    }
}
