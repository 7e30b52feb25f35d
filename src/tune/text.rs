//! What `cascade tune` prints: the runs spent against the full grid, the rounds, the best
//! setting, the runners-up within noise and the rejected regions. Nothing in it depends on the
//! wall clock or `--jobs`.

use super::Tuned;
use super::deploy::Ready;
use super::outcome::objective_stats;
use super::tradeoff::Tradeoff;
use crate::number::sig3;
use crate::output::text_table::Table;

fn objective_cell(t: &Tuned, point: usize) -> String {
    match objective_stats(&t.outcome.searched.candidates[point], t.objective) {
        Some(s) if s.n > 1 => format!("{} [{}, {}]", sig3(s.mean), sig3(s.ci95.0), sig3(s.ci95.1)),
        Some(s) => sig3(s.mean),
        None => "–".into(),
    }
}

pub fn summary(t: &Tuned) -> String {
    let m = &t.manifest;
    let o = &t.outcome;
    let pct = 100.0 * t.runs() as f64 / t.grid_runs().max(1) as f64;
    let per_point = if m.variants.len() > 1 {
        format!(" x {} runs ({})", m.variants.len(), m.variants.join(", "))
    } else {
        String::new()
    };
    let mut out = format!(
        "tune {}: {} candidates, successive halving: {} runs, {pct:.0}% of the full grid's {} ({} candidates x {} replications{per_point})\n\n",
        m.scenario,
        m.points,
        t.runs(),
        t.grid_runs(),
        m.points,
        m.reps,
    );
    let mut rounds = Table::with_numeric(
        &[
            "round",
            "candidates",
            "replications",
            "runs",
            "rejected",
            "kept",
        ],
        &[true; 6],
    );
    for (i, r) in o.searched.rounds.iter().enumerate() {
        rounds.row(vec![
            i.to_string(),
            r.candidates.to_string(),
            r.reps.to_string(),
            r.runs.to_string(),
            r.rejected.to_string(),
            r.kept.map_or("–".into(), |k| k.to_string()),
        ]);
    }
    out.push_str(&pruned_text(t));
    if !t.pruning.reasons.is_empty() {
        out.push('\n');
    }
    out.push_str(&rounds.render());
    out.push_str(&idle_rounds(t));
    out.push('\n');
    let goal = format!("{} {}", t.goal.name(), t.objective);
    match o.best {
        Some(b) => {
            let reps = o.searched.candidates[b].reps();
            out.push_str(&format!(
                "best ({goal}; mean of {reps} replications [95% CI]):\n  {}  {}\n",
                t.setting_text(b),
                objective_cell(t, b)
            ));
            if o.within_noise.is_empty() {
                out.push_str(
                    "no other finalist is within noise of the best (Welch's t-test, p >= 0.05)\n",
                );
            } else {
                out.push_str("within noise of the best (Welch's t-test, p >= 0.05):\n");
                for (p, welch_p) in &o.within_noise {
                    out.push_str(&format!(
                        "  {}  {}  p = {}\n",
                        t.setting_text(*p),
                        objective_cell(t, *p),
                        sig3(*welch_p)
                    ));
                }
            }
        }
        None => out.push_str(&format!(
            "no candidate satisfies every expectation ({goal})\n"
        )),
    }
    if let Some(trade) = &t.tradeoff {
        out.push_str(&tradeoff_text(t, trade));
    }
    out.push_str(&no_effect_text(t));
    if !o.regions.is_empty() {
        out.push_str("rejected, by the expectation broken:\n");
        for r in &o.regions {
            let label = t.expects[r.expect].label();
            out.push_str(&grouped(t, &label, r.points.len(), &r.slices, &r.others));
        }
    }
    if let Some(ready) = &t.ready {
        out.push_str(&ready_text(ready));
    }
    out
}

/// One group of candidates (those that broke an expectation, or a constraint pruned), `n` of
/// them: on its line when one slice or candidate says it, else a slice or candidate a line.
fn grouped(
    t: &Tuned,
    label: &str,
    n: usize,
    slices: &[(usize, Vec<usize>)],
    others: &[usize],
) -> String {
    let m = &t.manifest;
    let mut parts: Vec<String> = slices
        .iter()
        .map(|(param, values)| {
            let p = &m.params[*param];
            let vs: Vec<&str> = values.iter().map(|&v| p.values[v].as_str()).collect();
            format!("every candidate with {} = {}", p.path, vs.join(", "))
        })
        .collect();
    parts.extend(others.iter().map(|&p| t.setting_text(p)));
    let of = m.points;
    if n == of || parts.len() == 1 {
        let what = if n == of {
            "every candidate"
        } else {
            &parts[0]
        };
        return format!("  {label} ({n} of {of}): {what}\n");
    }
    let mut out = format!("  {label} ({n} of {of}):\n");
    for part in parts {
        out.push_str(&format!("    {part}\n"));
    }
    out
}

/// The candidates pruned before the first run, by the first reason each met.
fn pruned_text(t: &Tuned) -> String {
    let pruning = &t.pruning;
    if pruning.reasons.is_empty() {
        return String::new();
    }
    let sizes: Vec<usize> = t.manifest.params.iter().map(|p| p.values.len()).collect();
    let mut out = format!(
        "pruned before running: {} of {} candidates, by the first constraint each breaks ({} searched):\n",
        pruning.pruned(),
        t.manifest.points,
        pruning.kept()
    );
    for (i, reason) in pruning.reasons.iter().enumerate() {
        let points = pruning.points_of(i);
        if points.is_empty() {
            out.push_str(&format!(
                "  {} (0 of {}): none\n",
                reason.label(),
                t.manifest.points
            ));
            continue;
        }
        let (slices, others) = super::regions::slices(&points, t.manifest.points, &sizes);
        out.push_str(&grouped(t, &reason.label(), points.len(), &slices, &others));
    }
    out
}

/// Why a round ran no runs: every candidate it held already had its replications (it ranked
/// them again on the same runs), or none was left.
fn idle_rounds(t: &Tuned) -> String {
    let mut out = String::new();
    for (i, r) in t.outcome.searched.rounds.iter().enumerate() {
        if r.runs > 0 {
            continue;
        }
        let why = match r.candidates {
            0 => "no candidate was left to run".to_string(),
            n => format!(
                "its {n} candidates already had {} replication{} each, so it only ranked them again",
                r.reps,
                if r.reps == 1 { "" } else { "s" }
            ),
        };
        out.push_str(&format!("round {i} ran 0 runs: {why}\n"));
    }
    out
}

fn tradeoff_text(t: &Tuned, trade: &Tradeoff) -> String {
    let label = |e: usize| t.expects[e].label();
    let mut out = format!(
        "closest to each expectation (of the {} candidates, on the replications each ran):\n",
        trade.candidates
    );
    for (e, r) in trade.reached.iter().enumerate() {
        let best = match r.best {
            Some((p, v)) => format!("best {} ({}); ", sig3(v), t.setting_text(p)),
            None => String::new(),
        };
        out.push_str(&format!(
            "  {}: {best}met by {} of {}\n",
            label(e),
            r.met_by,
            trade.candidates
        ));
    }
    if !trade.alone.is_empty() {
        let names: Vec<String> = trade.alone.iter().map(|&e| label(e)).collect();
        out.push_str(&format!(
            "met by no candidate, even alone: {}\n",
            names.join("; ")
        ));
    }
    for &(a, b) in &trade.together {
        out.push_str(&format!(
            "each met alone, never together: {} and {}\n",
            label(a),
            label(b)
        ));
    }
    out.push_str(&format!(
        "the trade-off ({} on the Pareto frontier over the expectations' values and the objective; * breaks the expectation):\n",
        trade.frontier.len()
    ));
    let mut head: Vec<String> = vec!["setting".into()];
    head.extend((0..t.expects.len()).map(label));
    head.push(format!("{} {}", t.goal.name(), t.objective));
    let names: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut numeric = vec![true; names.len()];
    numeric[0] = false;
    let mut table = Table::with_numeric(&names, &numeric);
    for f in &trade.frontier {
        let mut setting = t.setting_text(f.point);
        if !f.same.is_empty() {
            setting.push_str(&format!(" (and {} alike)", f.same.len()));
        }
        let mut row = vec![setting];
        row.extend((f.values.iter().zip(&f.passed)).map(|(v, ok)| match ok {
            true => sig3(*v),
            false => format!("{}*", sig3(*v)),
        }));
        row.push(f.objective.map_or("–".into(), sig3));
        table.row(row);
    }
    out.push_str(&table.render());
    out
}

fn no_effect_text(t: &Tuned) -> String {
    if t.no_effect.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "no effect within noise (every pair of candidates differing in it alone measured the same objective and expectations; Welch's t-test, p >= 0.05):\n",
    );
    for n in &t.no_effect {
        let p = &t.manifest.params[n.param];
        out.push_str(&format!(
            "  {} (tried {}; {} pairs)\n",
            p.path,
            p.values.join(", "),
            n.pairs
        ));
    }
    out
}

fn ready_text(r: &Ready) -> String {
    let mut out = format!(
        "the best, ready to use:\n  {}\n  {}   (its replication 0, on the scenario's seed)\n",
        r.sets.join(" "),
        r.run
    );
    for e in &r.exports {
        out.push_str(&format!("  {}\n", e.command));
        for u in &e.unexpressed {
            out.push_str(&format!("      not expressible there: {u}\n"));
        }
    }
    for name in &r.not_exportable {
        out.push_str(&format!(
            "  policy `{name}`: no library's format expresses what it sets\n"
        ));
    }
    out
}
