//! `tune.json`: what the search did and found, for people and programs (docs/tune.md, "tune.json",
//! gives its shape): one round or candidate a line.

use super::Tuned;
use super::candidate::Status;
use super::explain_json;
use super::outcome::objective_stats;
use super::schedule::ETA;
use crate::json::{self, Entries, Pairs};
use serde::Serialize;

#[derive(Serialize)]
struct File<'a> {
    scenario: &'a str,
    seed: u64,
    objective: Objective<'a>,
    method: Method,
    params: Vec<Param<'a>>,
    /// Per reason a candidate was pruned before the first run (each constraint, then the
    /// lint), the candidates it pruned first.
    pruned: Vec<Pruned>,
    rounds: Vec<Round>,
    runs: usize,
    grid_runs: usize,
    best: Option<Setting<'a>>,
    within_noise: Vec<Setting<'a>>,
    rejected: Vec<Region<'a>>,
    /// Null unless no candidate satisfies every expectation.
    tradeoff: Option<explain_json::Tradeoff<'a>>,
    no_effect: Vec<explain_json::NoEffect<'a>>,
    /// Null when there is no best.
    ready: Option<explain_json::Ready<'a>>,
    candidates: Vec<CandidateRow<'a>>,
}

#[derive(Serialize)]
struct Pruned {
    by: String,
    candidates: Vec<usize>,
}

#[derive(Serialize)]
struct Objective<'a> {
    metric: &'a str,
    goal: &'static str,
}

#[derive(Serialize)]
struct Method {
    kind: &'static str,
    /// Each round keeps 1/keep of its candidates (rounded up)…
    keep_one_in: usize,
    /// …and gives them this many times the replications.
    replications_times: usize,
    /// Welch's two-sided p at or above which a finalist is within noise of the best.
    within_noise_p: f64,
}

#[derive(Serialize)]
struct Param<'a> {
    path: &'a str,
    values: &'a [String],
}

#[derive(Serialize)]
struct Round {
    round: usize,
    candidates: usize,
    replications: u32,
    runs: usize,
    rejected: usize,
    kept: Option<usize>,
}

#[derive(Serialize)]
struct Stats {
    n: usize,
    mean: f64,
    sd: f64,
    ci95_low: f64,
    ci95_high: f64,
}

#[derive(Serialize)]
struct Setting<'a> {
    point: usize,
    params: Pairs<&'a str, String>,
    objective: Option<Stats>,
    /// Welch's p against the best (absent for the best itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    p: Option<f64>,
}

#[derive(Serialize)]
struct Region<'a> {
    expectation: String,
    candidates: &'a [usize],
    /// Parameter values at which every candidate broke it.
    slices: Vec<Slice<'a>>,
    /// Its candidates in no slice.
    others: &'a [usize],
}

#[derive(Serialize)]
struct Slice<'a> {
    path: &'a str,
    values: Vec<&'a str>,
}

#[derive(Serialize)]
struct Broke {
    expectation: String,
    measured: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci95: Option<(f64, f64)>,
}

#[derive(Serialize)]
struct CandidateRow<'a> {
    point: usize,
    params: Pairs<&'a str, String>,
    /// `best`, `within_noise`, `finalist`, `eliminated` or `rejected`.
    status: &'static str,
    /// The round (from 0) it was eliminated or rejected in; absent for a finalist.
    #[serde(skip_serializing_if = "Option::is_none")]
    round: Option<usize>,
    replications: u32,
    objective: Option<Stats>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    broke: Vec<Broke>,
    /// A pruned candidate's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pruned_by: Option<String>,
}

fn stats(t: &Tuned, point: usize) -> Option<Stats> {
    objective_stats(&t.outcome.searched.candidates[point], t.objective).map(|s| Stats {
        n: s.n,
        mean: s.mean,
        sd: s.sd,
        ci95_low: s.ci95.0,
        ci95_high: s.ci95.1,
    })
}

fn setting<'a>(t: &'a Tuned, point: usize, p: Option<f64>) -> Setting<'a> {
    Setting {
        point,
        params: Pairs(t.setting(point)),
        objective: stats(t, point),
        p,
    }
}

fn layout(depth: usize, key: Option<&str>) -> Entries {
    match (depth, key) {
        (1, _) => Entries::pretty(1),
        (
            2,
            Some(
                "params" | "pruned" | "rounds" | "within_noise" | "rejected" | "no_effect"
                | "candidates",
            ),
        ) => Entries::Lines {
            indent: 4,
            close: Some(2),
        },
        _ => Entries::Inline,
    }
}

pub fn tune_json(t: &Tuned) -> String {
    let o = &t.outcome;
    let status = |point: usize| -> (&'static str, Option<usize>) {
        match &o.searched.candidates[point].status {
            Status::Finalist if o.best == Some(point) => ("best", None),
            Status::Finalist if o.within_noise.iter().any(|(p, _)| *p == point) => {
                ("within_noise", None)
            }
            Status::Finalist => ("finalist", None),
            Status::Eliminated { round } => ("eliminated", Some(*round)),
            Status::Rejected { round, .. } => ("rejected", Some(*round)),
            Status::Pruned { .. } => ("pruned", None),
        }
    };
    let file = File {
        scenario: &t.manifest.scenario,
        seed: t.manifest.seed,
        objective: Objective {
            metric: t.objective,
            goal: t.goal.name(),
        },
        method: Method {
            kind: "successive halving",
            keep_one_in: ETA,
            replications_times: ETA,
            within_noise_p: super::noise::ALPHA,
        },
        params: t
            .manifest
            .params
            .iter()
            .map(|p| Param {
                path: &p.path,
                values: &p.values,
            })
            .collect(),
        pruned: (t.pruning.reasons.iter().enumerate())
            .map(|(i, r)| Pruned {
                by: r.label(),
                candidates: t.pruning.points_of(i),
            })
            .collect(),
        rounds: o
            .searched
            .rounds
            .iter()
            .enumerate()
            .map(|(i, r)| Round {
                round: i,
                candidates: r.candidates,
                replications: r.reps,
                runs: r.runs,
                rejected: r.rejected,
                kept: r.kept,
            })
            .collect(),
        runs: t.runs(),
        grid_runs: t.grid_runs(),
        best: o.best.map(|b| setting(t, b, None)),
        within_noise: o
            .within_noise
            .iter()
            .map(|(point, p)| setting(t, *point, Some(*p)))
            .collect(),
        rejected: o
            .regions
            .iter()
            .map(|r| Region {
                expectation: t.expects[r.expect].label(),
                candidates: &r.points,
                slices: r
                    .slices
                    .iter()
                    .map(|(param, values)| {
                        let p = &t.manifest.params[*param];
                        Slice {
                            path: &p.path,
                            values: values.iter().map(|&v| p.values[v].as_str()).collect(),
                        }
                    })
                    .collect(),
                others: &r.others,
            })
            .collect(),
        tradeoff: explain_json::tradeoff(t),
        no_effect: explain_json::no_effect(t),
        ready: explain_json::ready(t),
        candidates: o
            .searched
            .candidates
            .iter()
            .map(|c| {
                let (status, round) = status(c.point);
                let broke = match &c.status {
                    Status::Rejected { broke, .. } => broke
                        .iter()
                        .map(|b| Broke {
                            expectation: b.verdict.label.clone(),
                            measured: b.verdict.measured,
                            ci95: b.verdict.interval,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                CandidateRow {
                    point: c.point,
                    params: Pairs(t.setting(c.point)),
                    status,
                    round,
                    replications: c.reps(),
                    objective: stats(t, c.point),
                    broke,
                    pruned_by: match c.status {
                        Status::Pruned { by } => Some(t.pruning.reasons[by].label()),
                        _ => None,
                    },
                }
            })
            .collect(),
    };
    json::to_text(&file, layout)
}
