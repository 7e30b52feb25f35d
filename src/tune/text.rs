//! What `cascade tune` prints: the runs spent against the full grid, the rounds, the best
//! setting, the runners-up within noise and the rejected regions. Nothing in it depends on the
//! wall clock or `--jobs`.

use super::Tuned;
use super::outcome::objective_stats;
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
    out.push_str(&rounds.render());
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
    if !o.regions.is_empty() {
        out.push_str("rejected, by the expectation broken:\n");
        for r in &o.regions {
            let mut parts: Vec<String> = r
                .slices
                .iter()
                .map(|(param, values)| {
                    let p = &m.params[*param];
                    let vs: Vec<&str> = values.iter().map(|&v| p.values[v].as_str()).collect();
                    format!("every candidate with {} = {}", p.path, vs.join(", "))
                })
                .collect();
            parts.extend(r.others.iter().map(|&p| t.setting_text(p)));
            let what = if r.points.len() == m.points {
                "every candidate".to_string()
            } else {
                parts.join("; ")
            };
            out.push_str(&format!(
                "  {} ({} of {}): {what}\n",
                t.expects[r.expect].label(),
                r.points.len(),
                m.points
            ));
        }
    }
    out
}
