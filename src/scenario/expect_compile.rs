//! Compiles what a scenario asks of its runs, `[[expect]]`: the comparison checked, and a
//! window of its own when it has one, measured like any `[[window]]` under the name
//! `expect-<i>`. An expectation on a margin (`margin.fault.<i>.load`) is compiled apart, by
//! `margin_expect.rs`: no run reports it.

use super::document::{Located, Source};
use super::expectation::{Against, BASE, Compare, Expect, OPS, Op, Stat};
use super::margin_expect::{MarginExpect, is_margin};
use super::schema::{RawScenario, RawWindow};
use crate::model::Window;
use crate::model::fault::Fault;

/// The expectations on runs, and those on margins, each in file order.
pub struct Expectations {
    pub runs: Vec<Expect>,
    pub margins: Vec<MarginExpect>,
}

pub fn compile_expects(
    src: &Source,
    scenario: &RawScenario,
    faults: &[Fault],
    warmup: u64,
    end: u64,
    windows: &mut Vec<Window>,
) -> Located<Expectations> {
    let parse_op = |i: usize, op: &str| {
        Op::parse(op.trim()).ok_or_else(|| {
            src.error_at(
                &format!("expect.{i}.op"),
                format!("unknown comparison `{op}`; valid: {}", OPS.join(" ")),
            )
        })
    };
    let mut margins = Vec::new();
    for (i, e) in scenario.expect.iter().enumerate() {
        if is_margin(&e.metric) {
            let op = parse_op(i, &e.op)?;
            margins.push(super::margin_expect::compile(src, i, e, op, faults.len())?);
        }
    }
    // The runs an expectation may name: the base and each `[[variant]]`, in file order.
    let runs: Vec<&str> = std::iter::once(BASE)
        .chain(scenario.variant.iter().map(|v| v.name.as_str()))
        .collect();
    let on_runs = scenario
        .expect
        .iter()
        .enumerate()
        .filter(|(_, e)| !is_margin(&e.metric))
        .map(|(i, e)| {
            let at = |k: &str| format!("expect.{i}.{k}");
            let run_named = |key: &str, name: &Option<String>| match name {
                None => Ok(BASE.to_string()),
                Some(n) if runs.contains(&n.as_str()) => Ok(n.clone()),
                Some(n) => Err(src.error_at(
                    &at(key),
                    format!(
                        "no run named `{n}`{}: this scenario's runs are {}",
                        crate::error::did_you_mean(n, runs.iter().copied()),
                        runs.iter()
                            .map(|r| format!("`{r}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
            };
            let variant = run_named("variant", &e.variant)?;
            let against = match (&e.against, &e.compare) {
                (None, None) => None,
                (None, Some(_)) => {
                    return Err(src.error_at(
                        &at("compare"),
                        "`compare` compares two runs: add `against` (`base` or a variant's name)",
                    ));
                }
                (Some(_), None) => {
                    return Err(src.error_at(
                        &at("against"),
                        "`against` needs `compare = \"ratio\"` (variant / against) or `compare = \"difference\"` (variant - against)",
                    ));
                }
                (Some(_), Some(c)) => {
                    let run = run_named("against", &e.against)?;
                    if run == variant {
                        return Err(src.error_at(
                            &at("against"),
                            format!("compares the run `{run}` with itself: name another run (`variant` is `{variant}`)"),
                        ));
                    }
                    let compare = Compare::parse(c.trim()).ok_or_else(|| {
                        src.error_at(
                            &at("compare"),
                            format!("unknown comparison of runs `{c}`; valid: ratio, difference"),
                        )
                    })?;
                    Some(Against { run, compare })
                }
            };
            let op = parse_op(i, &e.op)?;
            if !e.value.is_finite() {
                return Err(src.error_at(&at("value"), "must be a finite number"));
            }
            let read_from = match &e.window {
                None => e.metric.clone(),
                Some(w) => {
                    let name = format!("expect-{i}");
                    let raw = RawWindow {
                        name: name.clone(),
                        start: w.start,
                        end: w.end,
                        fault: w.fault,
                        phase: w.phase.clone(),
                    };
                    let window = super::window::compile_window(
                        src,
                        &at("window"),
                        &raw,
                        faults,
                        warmup,
                        end,
                    )?;
                    windows.push(window);
                    format!("window.{name}.{}", e.metric)
                }
            };
            let reps = e.reps.unwrap_or(1);
            if reps == 0 {
                return Err(src.error_at(&at("reps"), "must be at least 1"));
            }
            let stat = match &e.stat {
                None => Stat::Mean,
                Some(_) if reps < 2 => {
                    return Err(src.error_at(
                        &at("stat"),
                        "a statistic needs replications: add `reps` (2 or more)",
                    ));
                }
                Some(s) => Stat::parse(s.trim()).ok_or_else(|| {
                    src.error_at(
                        &at("stat"),
                        format!("unknown statistic `{s}`; valid: mean, min, max, median, p0 to p100 (like p95)"),
                    )
                })?,
            };
            let whole_interval = e.ci.unwrap_or(false);
            if whole_interval && (reps < 2 || stat != Stat::Mean) {
                return Err(src.error_at(
                    &at("ci"),
                    "`ci = true` judges the confidence interval of the mean: it needs `reps` of 2 or more and `stat` mean",
                ));
            }
            Ok(Expect {
                metric: e.metric.clone(),
                read_from,
                op,
                value: e.value,
                reps,
                stat,
                whole_interval,
                variant,
                against,
                at: src.error_at(&at("metric"), ""),
            })
        })
        .collect::<Located<Vec<Expect>>>()?;
    Ok(Expectations {
        runs: on_runs,
        margins,
    })
}
