//! An operation's calls written as scenario steps (serial, parallel, `count`, `p`, their
//! network latency and retries), and which calls can be written at all: the call graph a
//! scenario simulates must be acyclic.

use super::emit::{NETWORK_PERCENTILE, dur, pct, round, unique};
use super::plan::{ALWAYS, Step};
use super::samples::percentile;
use super::span::Names;
use super::tally::{Op, Tally};
use crate::import::out::{Fragment, Imported, Skipped, Toml};
use crate::import::prometheus_hist::sig;
use crate::import::read::policy_name;
use std::collections::{BTreeMap, BTreeSet};

/// The calls of an operation as TOML steps, and the comment saying what they came from.
#[allow(clippy::too_many_arguments)]
pub(super) fn calls(
    steps: &[Step],
    handlers: u64,
    op: Op,
    tally: &Tally,
    names: &Names,
    op_names: &BTreeMap<Op, String>,
    policies: &mut Vec<Fragment>,
    out: &mut Imported,
) -> (String, String) {
    let t = &tally.ops[&op];
    let mut items = Vec::new();
    let mut said = Vec::new();
    let mut step_names: Vec<String> = Vec::new();
    for step in steps {
        let mut calls = Vec::new();
        let mut call_keys: Vec<Vec<String>> = Vec::new();
        for c in &step.calls {
            let callee = c.callee;
            let ct = &t.callees[&callee];
            let mut keys = vec![
                format!("to = \"{}\"", policy_name(names.get(callee.0))),
                format!("operation = \"{}\"", op_names[&callee]),
            ];
            if c.count > 1 {
                keys.push(format!("count = {}", c.count));
            }
            if let Some(e) = tally.edges.get(&(op.0, callee.0))
                && e.network.seen > 0
            {
                let ns = percentile(&e.network.sorted(), NETWORK_PERCENTILE);
                if ns >= 1_000 {
                    keys.push(format!(
                        "latency = {{ dist = \"constant\", value = \"{}\" }}",
                        dur(ns)
                    ));
                }
            }
            let retried: u64 = ct
                .attempts
                .iter()
                .filter(|(a, _)| **a > 1)
                .map(|(_, n)| n)
                .sum();
            if retried > 0 {
                let max = *ct.attempts.keys().max().unwrap_or(&1);
                let attempts: u64 = ct.attempts.iter().map(|(a, n)| u64::from(*a) * n).sum();
                let pname = format!(
                    "retry-{}-{}",
                    policy_name(names.get(op.0)),
                    op_names[&callee]
                );
                keys.push(format!("policy = \"{pname}\""));
                let gap = percentile(&ct.gaps.sorted(), 50.0);
                let mut f = Fragment::new(
                    &format!("[policy.{pname}]"),
                    Some(format!(
                        "suggested: `{}` retried `{}` on {retried} of {} calls, {} attempts a call on average",
                        names.get(op.0),
                        names.get(callee.1),
                        ct.calls,
                        sig(attempts as f64 / ct.calls.max(1) as f64)
                    )),
                );
                f.set(
                    "retry",
                    Toml::Raw(format!(
                        "{{ attempts = {max}, backoff = \"constant\", base = \"{}\", jitter = \"none\" }}",
                        dur(gap.max(1_000))
                    )),
                    format!(
                        "the most attempts seen ({max}); base the median gap between a failed attempt and the next ({} gaps)",
                        ct.gaps.seen
                    ),
                );
                policies.push(f);
            }
            calls.push(format!("{{ {} }}", keys.join(", ")));
            call_keys.push(keys);
            said.push(format!(
                "`{}` in {}",
                names.get(callee.1),
                pct(c.present, handlers)
            ));
        }
        let fixed: Vec<usize> = (0..step.calls.len())
            .filter(|i| step.calls[*i].present as f64 / handlers.max(1) as f64 >= ALWAYS)
            .collect();
        if step.calls.len() > 1 && !fixed.is_empty() && fixed.len() < step.calls.len() {
            // Calls in parallel, some in every span and some not: a choice between making
            // them all and making only the constant ones, weighted by how often the others
            // came (a `p` on a parallel step would apply to all of its calls).
            let optional = step.calls.len() - fixed.len();
            let share = step
                .calls
                .iter()
                .filter(|c| (c.present as f64 / handlers.max(1) as f64) < ALWAYS)
                .map(|c| c.present)
                .max()
                .unwrap_or(0) as f64
                / handlers.max(1) as f64;
            let all = (share * 1000.0).round() as u64;
            let only: Vec<String> = fixed.iter().map(|i| calls[*i].clone()).collect();
            let only = if only.len() == 1 {
                only[0].clone()
            } else {
                format!("{{ parallel = [{}] }}", only.join(", "))
            };
            let name = unique(
                &mut step_names,
                format!(
                    "with-{}",
                    op_names[&step.calls[fixed.len().min(step.calls.len() - 1)].callee]
                ),
            );
            let mut options = Vec::new();
            if all > 0 {
                options.push(format!(
                    "{{ weight = {all}, calls = [{{ parallel = [{}] }}] }}",
                    calls.join(", ")
                ));
            }
            if all < 1000 {
                options.push(format!("{{ weight = {}, calls = [{only}] }}", 1000 - all));
            }
            if optional > 1 {
                out.skipped.push(Skipped {
                    at: format!("`{}` `{}`", names.get(op.0), names.get(op.1)),
                    key: "parallel calls".into(),
                    reason: "several calls made in parallel only in some of its spans: they come or go together, at the largest share".into(),
                });
            }
            items.push(format!(
                "{{ name = \"{name}\", choose = [{}] }}",
                options.join(", ")
            ));
            continue;
        }
        let shares: Vec<u64> = step.calls.iter().map(|c| c.present).collect();
        if step.share < ALWAYS && shares.iter().any(|s| *s != shares[0]) {
            out.skipped.push(Skipped {
                at: format!("`{}` `{}`", names.get(op.0), names.get(op.1)),
                key: "parallel calls".into(),
                reason: "calls made in parallel appear in different shares of its spans: the step takes the largest".into(),
            });
        }
        for _ in 0..step.repeat {
            let mut step_keys = Vec::new();
            if step.share < ALWAYS {
                // A step with a `p` is named: its draws stay put when steps move.
                let name = unique(
                    &mut step_names,
                    format!(
                        "{}-{}",
                        policy_name(names.get(step.calls[0].callee.0)),
                        op_names[&step.calls[0].callee]
                    ),
                );
                step_keys.push(format!("p = {}", round(step.share, 4)));
                step_keys.push(format!("name = \"{name}\""));
            }
            let text = if step.calls.len() == 1 && step_keys.is_empty() {
                calls[0].clone()
            } else if step.calls.len() == 1 {
                // The step's keys beside the call's own (never inside its `latency` table).
                let mut keys = call_keys[0].clone();
                keys.extend(step_keys);
                format!("{{ {} }}", keys.join(", "))
            } else {
                let mut keys = vec![format!("parallel = [{}]", calls.join(", "))];
                keys.extend(step_keys);
                format!("{{ {} }}", keys.join(", "))
            };
            items.push(text);
        }
    }
    let parallel = steps.iter().filter(|s| s.calls.len() > 1).count();
    let from = format!(
        "client spans of {handlers} server spans: {}{}",
        said.join(", "),
        if parallel > 0 {
            format!("; {parallel} step(s) in parallel (their calls overlapped)")
        } else {
            String::new()
        }
    );
    (format!("[{}]", items.join(", ")), from)
}

/// Which (caller, callee) calls can be written: a service calling itself, or a call closing
/// a cycle of services, cannot be simulated (the call graph must be acyclic).
pub(super) fn allowed_calls(
    tally: &Tally,
    names: &Names,
    at: &str,
    out: &mut Imported,
) -> BTreeSet<(Op, Op)> {
    let mut keep = BTreeSet::new();
    // Service edges, added in order of how many handlers made them; one that closes a cycle
    // is refused.
    let mut calls: Vec<(u64, Op, Op)> = Vec::new();
    for (op, t) in &tally.ops {
        for (callee, c) in &t.callees {
            calls.push((c.present, *op, *callee));
        }
    }
    calls.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut graph: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for (_, op, callee) in calls {
        let (from, to) = (op.0, callee.0);
        let cycle = from == to || reaches(&graph, to, from);
        if cycle {
            out.skipped.push(Skipped {
                at: at.to_string(),
                key: format!(
                    "`{}` `{}` calling `{}` `{}`",
                    names.get(op.0),
                    names.get(op.1),
                    names.get(callee.0),
                    names.get(callee.1)
                ),
                reason: "it closes a cycle of services (a scenario's calls form no cycle)".into(),
            });
            continue;
        }
        graph.entry(from).or_default().insert(to);
        keep.insert((op, callee));
    }
    keep
}

fn reaches(graph: &BTreeMap<u32, BTreeSet<u32>>, from: u32, to: u32) -> bool {
    let mut stack = vec![from];
    let mut seen = BTreeSet::new();
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if seen.insert(n) {
            stack.extend(graph.get(&n).into_iter().flatten().copied());
        }
    }
    false
}
