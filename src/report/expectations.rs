//! The expectations in a report, judged exactly as `cascade check` judges them
//! (`check::Expect::judge` on the metric's values in the first `reps` replications) and
//! labelled with what is shown. A run's directory holds one run, so an expectation with `reps`
//! shows that run's value, says so, and is left to `cascade check`; a sweep's runs.csv holds
//! every replication of every point, on the seeds `check` uses, so each point is judged as
//! `check` would judge the scenario set to that point.

use super::Block;
use crate::check::Verdict;
use crate::metrics::RunMetrics;
use crate::number::short;
use crate::output::read_run::RunData;
use crate::output::read_sweep::{SweepData, read_replications};
use crate::output::text_table::Table;
use crate::scenario::Expect;
use std::collections::BTreeMap;

/// A run's expectations: the line for "At a glance" and the section's blocks.
pub struct RunExpectations {
    pub glance: Option<String>,
    pub blocks: Vec<Block>,
}

/// The expectations of a run's directory, `runs` its base first and then each variant it
/// holds (`read_run_with_variants`): one on a variant, or comparing two runs, is judged on
/// those runs' directories, as `check` judges it on the same seed.
pub fn of_run(runs: &[RunData]) -> RunExpectations {
    let run = &runs[0];
    if run.expects.is_empty() {
        return RunExpectations {
            glance: None,
            blocks: vec![Block::Text("The scenario states no [[expect]].".into())],
        };
    }
    let metrics: Vec<(String, Vec<RunMetrics>)> = runs
        .iter()
        .map(|r| {
            let m = RunMetrics {
                summary: r.metrics.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                names: Vec::new(),
                series: Vec::new(),
                bucket_ns: 0,
            };
            (r.label.clone(), vec![m])
        })
        .collect();
    let held = |name: &str| metrics.iter().any(|(n, _)| n == name);
    // An expectation naming a run this directory does not hold is left to `cascade check`.
    let missing = |e: &Expect| -> Option<String> {
        std::iter::once(&e.variant)
            .chain(e.against.as_ref().map(|a| &a.run))
            .find(|n| !held(n))
            .cloned()
    };
    let present: Vec<Expect> = run
        .expects
        .iter()
        .filter(|e| missing(e).is_none())
        .cloned()
        .collect();
    let lookup = |name: &str| {
        metrics
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.as_slice())
    };
    let verdicts = match crate::check::evaluate_runs(&present, &lookup) {
        Ok(v) => v,
        Err(e) => {
            return RunExpectations {
                glance: None,
                blocks: vec![Block::Text(format!(
                    "The expectations could not be judged: {e}"
                ))],
            };
        }
    };
    let mut t = Table::with_numeric(&["", "expectation", "measured"], &[false, false, true]);
    let (mut judged, mut passed, mut replicated, mut elsewhere) = (0, 0, 0, 0);
    let mut verdicts = verdicts.into_iter();
    for e in &run.expects {
        if let Some(name) = missing(e) {
            elsewhere += 1;
            t.row(vec![
                "– not judged".into(),
                format!(
                    "{}: needs the run `{name}`, which this directory does not hold (`cascade check` runs it)",
                    e.label()
                ),
                "–".into(),
            ]);
            continue;
        }
        let Some(v) = verdicts.next() else { break };
        if e.reps == 1 {
            judged += 1;
            passed += usize::from(v.passed);
            t.row(vec![
                if v.passed { "✓ pass" } else { "✗ fail" }.into(),
                v.label.clone(),
                short(v.measured),
            ]);
        } else {
            replicated += 1;
            t.row(vec![
                "– not judged".into(),
                format!(
                    "{}: this run's value; `cascade check` judges the {} replications",
                    e.comparison(),
                    e.statistic().trim_end_matches(": ")
                ),
                short(v.measured),
            ]);
        }
    }
    let mark = if passed == judged { "✓" } else { "✗" };
    let mut left = Vec::new();
    if replicated > 0 {
        left.push(format!("{replicated} need replications"));
    }
    if elsewhere > 0 {
        left.push(format!("{elsewhere} need runs not here"));
    }
    let left = left.join(", ");
    let glance = match (judged, left.is_empty()) {
        (_, true) => format!("{mark} expectations: {passed} of {judged} hold"),
        (0, false) => format!("expectations: {left} (`cascade check`), none is judged on one run"),
        (_, false) => {
            format!(
                "{mark} expectations: {passed} of {judged} hold on this run; {left} (`cascade check`)"
            )
        }
    };
    let mut blocks = Vec::new();
    if replicated > 0 {
        blocks.push(Block::Text(
            "An expectation without `reps` is judged on this run, as `cascade check` judges it. One with `reps` is judged on that many replications, which this directory does not hold: its row shows this run's value only.".into(),
        ));
    }
    blocks.push(Block::Table(t));
    RunExpectations {
        glance: Some(glance),
        blocks,
    }
}

type Replications = BTreeMap<u64, BTreeMap<String, f64>>;

/// One cell: the verdict on the point's first `reps` replications, as `check` gives it; an
/// expectation `against` another run pairs them with that run's at the same point.
fn cell(e: &Expect, reps: Option<&Replications>, against: Option<&Replications>) -> String {
    let Some(reps) = reps else {
        return "–".into();
    };
    let values = |reps: &Replications| -> Option<Vec<f64>> {
        (0..u64::from(e.reps))
            .map(|r| reps.get(&r)?.get(&e.read_from).copied())
            .collect()
    };
    let samples = match (&e.against, against) {
        (None, _) => values(reps),
        (Some(_), Some(other)) => values(reps)
            .zip(values(other))
            .map(|(o, a)| e.paired(&o, &a)),
        (Some(_), None) => None,
    };
    match samples {
        Some(samples) => {
            let Verdict {
                measured,
                interval,
                passed,
                ..
            } = e.judge(&samples);
            let mark = if passed { "✓" } else { "✗" };
            match interval {
                Some((lo, hi)) => {
                    format!("{mark} {} [{}, {}]", short(measured), short(lo), short(hi))
                }
                None => format!("{mark} {}", short(measured)),
            }
        }
        None if reps.len() < e.reps as usize => {
            format!(
                "– needs {} replications, the sweep ran {}",
                e.reps,
                reps.len()
            )
        }
        None => "–".into(),
    }
}

/// Points × variants × expectations.
pub fn of_sweep(s: &SweepData) -> Vec<Block> {
    let runs = match read_replications(&s.dir, s.params.len()) {
        Ok(r) => r,
        Err(e) => {
            return vec![Block::Text(format!(
                "The expectations could not be judged: they need each replication's values, from runs.csv ({e})."
            ))];
        }
    };
    let labels: Vec<String> = s.expects.iter().map(|e| e.label()).collect();
    let mut header: Vec<&str> = vec!["point", "variant"];
    header.extend(labels.iter().map(String::as_str));
    let mut t = Table::with_numeric(&header, &[]);
    let mut seen: Vec<(usize, String)> = Vec::new();
    for r in &s.rows {
        let key = (r.point, r.variant.clone());
        if seen.contains(&key) {
            continue;
        }
        let mut row = vec![r.point.to_string(), r.variant.clone()];
        // An expectation on a variant is judged in that variant's row alone.
        row.extend(s.expects.iter().map(|e| {
            if e.on_base_only() || e.variant == r.variant {
                let against = e.against.as_ref().map(|a| (r.point, a.run.clone()));
                cell(e, runs.get(&key), against.and_then(|k| runs.get(&k)))
            } else {
                "–".into()
            }
        }));
        t.row(row);
        seen.push(key);
    }
    vec![
        Block::Text(
            "Each [[expect]] judged at each point as `cascade check` judges it: on the point's first `reps` replications (replication 0 alone without `reps`), which run on the seeds `check` uses; a judged interval is shown as [low, high]."
                .into(),
        ),
        Block::Table(t),
    ]
}
