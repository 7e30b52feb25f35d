//! `tune.json`'s explaining parts: the trade-off when nothing satisfies every expectation, the
//! parameters with no effect, and the best setting ready to run and export (docs/tune.md,
//! "tune.json").

use super::Tuned;
use crate::json::Pairs;
use serde::Serialize;

#[derive(Serialize)]
pub struct Reached<'a> {
    expectation: String,
    /// The best value measured, and the candidate that measured it (null for `==`, `!=`).
    best: Option<f64>,
    point: Option<usize>,
    params: Option<Pairs<&'a str, String>>,
    met_by: usize,
}

#[derive(Serialize)]
pub struct FrontierPoint<'a> {
    point: usize,
    params: Pairs<&'a str, String>,
    /// Per expectation, in their order: the value judged and whether it holds.
    values: Vec<f64>,
    passed: &'a [bool],
    objective: Option<f64>,
    /// Candidates with exactly the same figures.
    same: &'a [usize],
}

#[derive(Serialize)]
pub struct Tradeoff<'a> {
    candidates: usize,
    reached: Vec<Reached<'a>>,
    /// Expectations no candidate meets (labels).
    met_by_none: Vec<String>,
    /// Pairs each met alone, never together.
    never_together: Vec<[String; 2]>,
    frontier: Vec<FrontierPoint<'a>>,
}

#[derive(Serialize)]
pub struct NoEffect<'a> {
    path: &'a str,
    values: &'a [String],
    pairs: usize,
}

#[derive(Serialize)]
pub struct Export<'a> {
    command: &'a str,
    unexpressed: &'a [String],
}

#[derive(Serialize)]
pub struct Ready<'a> {
    set: &'a [String],
    run: &'a str,
    export: Vec<Export<'a>>,
    not_exportable: &'a [String],
}

pub fn tradeoff<'a>(t: &'a Tuned) -> Option<Tradeoff<'a>> {
    let trade = t.tradeoff.as_ref()?;
    let label = |e: usize| t.expects[e].label();
    Some(Tradeoff {
        candidates: trade.candidates,
        reached: (trade.reached.iter().enumerate())
            .map(|(e, r)| Reached {
                expectation: label(e),
                best: r.best.map(|(_, v)| v),
                point: r.best.map(|(p, _)| p),
                params: r.best.map(|(p, _)| Pairs(t.setting(p))),
                met_by: r.met_by,
            })
            .collect(),
        met_by_none: trade.alone.iter().map(|&e| label(e)).collect(),
        never_together: (trade.together.iter())
            .map(|&(a, b)| [label(a), label(b)])
            .collect(),
        frontier: (trade.frontier.iter())
            .map(|f| FrontierPoint {
                point: f.point,
                params: Pairs(t.setting(f.point)),
                values: f.values.clone(),
                passed: &f.passed,
                objective: f.objective,
                same: &f.same,
            })
            .collect(),
    })
}

pub fn no_effect<'a>(t: &'a Tuned) -> Vec<NoEffect<'a>> {
    (t.no_effect.iter())
        .map(|n| {
            let p = &t.manifest.params[n.param];
            NoEffect {
                path: &p.path,
                values: &p.values,
                pairs: n.pairs,
            }
        })
        .collect()
}

pub fn ready<'a>(t: &'a Tuned) -> Option<Ready<'a>> {
    let r = t.ready.as_ref()?;
    Some(Ready {
        set: &r.sets,
        run: &r.run,
        export: (r.exports.iter())
            .map(|e| Export {
                command: &e.command,
                unexpressed: &e.unexpressed,
            })
            .collect(),
        not_exportable: &r.not_exportable,
    })
}
