//! The search itself: each round runs the replications its candidates lack (as a sweep runs
//! its runs: `sweep::exec::run`, each run a pure function of its plan index, its record written
//! as it ends), then, at the barrier, reads the records back in plan order, judges every
//! racing candidate's expectations and keeps the best of them for the next round. Nothing but
//! the records decides, so the search is the same whatever `--jobs`, and a search resumed in
//! the directory of an interrupted one (its records kept) decides the same again.

use super::candidate::{Candidate, Status, kept_metrics};
use super::halving::{Goal, Standing, rank};
use super::judge::judge;
use super::schedule::Schedule;
use crate::error::Result;
use crate::scenario::Expect;
use crate::stats::summary::summarize;
use crate::sweep::store;
use crate::sweep::{Plan, RunKey, exec};
use std::path::Path;

/// What a search is asked.
pub struct Search<'a> {
    /// The scenario file and the `--set`s the search was given (the winner's commands repeat
    /// them).
    pub scenario: &'a Path,
    pub overrides: &'a [crate::scenario::Override],
    pub plan: &'a Plan,
    pub expects: &'a [Expect],
    pub schedule: &'a Schedule,
    pub objective: &'a str,
    pub goal: Goal,
    /// The candidates never run (`Pruning::by_point` of every point of the plan).
    pub pruning: &'a super::prune::Pruning,
}

/// What one round did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundDone {
    /// Candidates that ran in it.
    pub candidates: usize,
    /// Replications each has at its end.
    pub reps: u32,
    /// Runs it spent (recorded by an earlier sitting or not).
    pub runs: usize,
    pub rejected: usize,
    /// Candidates kept for the next round; `None` for the last.
    pub kept: Option<usize>,
}

pub struct Searched {
    /// In grid order.
    pub candidates: Vec<Candidate>,
    pub rounds: Vec<RoundDone>,
    /// The plan indices of every run spent, ascending.
    pub spent: Vec<usize>,
}

impl Search<'_> {
    /// Runs the rounds into `dir` (prepared for the plan) on `jobs` threads; `tick` after each
    /// run.
    pub fn run(&self, dir: &Path, jobs: usize, tick: &(dyn Fn() + Sync)) -> Result<Searched> {
        let plan = self.plan;
        let mut wanted: Vec<String> = vec![self.objective.to_string()];
        wanted.extend(self.expects.iter().map(|e| e.read_from.clone()));
        let mut candidates: Vec<Candidate> = (0..plan.points())
            .map(|p| {
                let mut c = Candidate::new(p, plan.variants.len());
                if let Some(by) = self.pruning.by_point[p] {
                    c.status = Status::Pruned { by };
                }
                c
            })
            .collect();
        let mut rounds = Vec::new();
        let mut spent = Vec::new();
        for (s, round) in self.schedule.rounds.iter().enumerate() {
            let racing: Vec<usize> = (0..candidates.len())
                .filter(|&p| candidates[p].racing())
                .collect();
            let todo: Vec<usize> = racing
                .iter()
                .flat_map(|&p| {
                    let from = candidates[p].reps();
                    (0..plan.variants.len()).flat_map(move |variant| {
                        (from..round.reps).map(move |rep| {
                            let key = RunKey {
                                point: p,
                                variant,
                                rep,
                            };
                            key.index(plan.variants.len(), plan.reps)
                        })
                    })
                })
                .collect();
            let done = store::completed(dir, plan.runs())?;
            let missing: Vec<usize> = todo.iter().copied().filter(|&i| !done[i]).collect();
            exec::run(plan, dir, &missing, jobs, tick)?;
            for &index in &todo {
                let record = store::read_record(dir, index)?;
                let key = plan.key(index);
                let metrics = kept_metrics(record.metrics, &wanted);
                candidates[key.point].runs[key.variant].push(metrics);
            }
            spent.extend(&todo);
            let mut standings = Vec::new();
            let mut rejected = 0;
            for &p in &racing {
                let judged = judge(&candidates[p], self.expects, &plan.variants)?;
                if !judged.broken.is_empty() {
                    candidates[p].status = Status::Rejected {
                        round: s,
                        broke: judged.broken,
                    };
                    rejected += 1;
                    continue;
                }
                standings.push(Standing {
                    point: p,
                    holds_so_far: judged.holds_so_far,
                    mean: candidates[p]
                        .objective(self.objective)
                        .map(|v| summarize(&v).mean),
                });
            }
            let next = self.schedule.rounds.get(s + 1);
            if let Some(next) = next {
                for out in rank(standings, self.goal).iter().skip(next.candidates) {
                    candidates[out.point].status = Status::Eliminated { round: s };
                }
            }
            rounds.push(RoundDone {
                candidates: racing.len(),
                reps: round.reps,
                runs: todo.len(),
                rejected,
                kept: next.map(|_| candidates.iter().filter(|c| c.racing()).count()),
            });
        }
        spent.sort_unstable();
        Ok(Searched {
            candidates,
            rounds,
            spent,
        })
    }
}
