//! The report of a `cascade tune` directory: the sweep's sections (the grid, the design, the
//! charts, the points) with what the search found put after its overview: the best and how to
//! deploy it, or the trade-off (the Pareto frontier as a table and as charts with the
//! thresholds drawn), the rejected regions, the parameters with no effect and the candidates
//! pruned before running. Read from `tune.json` and the sweep's files alone.

use super::{Block, Doc, Section};
use crate::chart::Chart;
use crate::number::sig3;
use crate::output::read_sweep::SweepData;
use crate::output::read_tune::{Region, TuneData};
use crate::output::text_table::Table;

fn section(id: &str, title: &str, blocks: Vec<Block>) -> Section {
    Section {
        id: id.into(),
        title: title.into(),
        blocks,
    }
}

/// `charts`: the sweep's charts, then the frontier's at `frontier` (their indices).
pub fn tune_doc(s: &SweepData, t: &TuneData, charts: &[Chart], frontier: Vec<usize>) -> Doc {
    let sweep_charts: Vec<usize> = (0..charts.len())
        .filter(|i| !frontier.contains(i))
        .collect();
    let mut doc = super::build::sweep_doc(s, &charts[..sweep_charts.len()]);
    doc.title = format!("{} — tune", s.scenario);
    doc.subtitle = doc
        .subtitle
        .replace("parameter sweep", "tune: successive halving");
    let setting = |p: &std::collections::BTreeMap<String, String>| t.setting_text(p);
    let of_point = |point: usize| {
        t.candidates
            .iter()
            .find(|c| c.point == point)
            .map_or_else(|| format!("point {point}"), |c| setting(&c.params))
    };
    let mut found = vec![Block::Text(format!(
        "{} {}: {} runs spent, of the full grid's {} ({} candidates).",
        t.objective.goal,
        t.objective.metric,
        t.runs,
        t.grid_runs,
        t.candidates.len()
    ))];
    match &t.best {
        Some(b) => {
            let stats = b.objective.as_ref().map_or("–".into(), |o| {
                format!("{} [{}, {}] (n = {})", sig3(o.mean), sig3(o.ci95_low), sig3(o.ci95_high), o.n)
            });
            found.push(Block::Text(format!("The best: {} — {stats}.", setting(&b.params))));
            if !t.within_noise.is_empty() {
                found.push(Block::List(
                    (t.within_noise.iter())
                        .map(|w| {
                            let mean = w.objective.as_ref().map_or("–".into(), |o| sig3(o.mean));
                            let p = w.p.map_or(String::new(), |p| format!(", Welch's p = {}", sig3(p)));
                            format!("within noise: {} — {mean}{p}", setting(&w.params))
                        })
                        .collect(),
                ));
            }
        }
        None => found.push(Block::Text(
            "No candidate satisfies every expectation: the trade-off below says what the grid offers.".into(),
        )),
    }
    let mut sections = vec![section("found", "What the search found", found)];
    if let Some(r) = &t.ready {
        let mut items = vec![
            format!("`{}`", r.set.join(" ")),
            format!("`{}` (its replication 0)", r.run),
        ];
        for e in &r.export {
            let mut item = format!("`{}`", e.command);
            if !e.unexpressed.is_empty() {
                item.push_str(&format!(
                    " — not expressible there: {}",
                    e.unexpressed.join("; ")
                ));
            }
            items.push(item);
        }
        items.extend(
            r.not_exportable
                .iter()
                .map(|p| format!("{p}: no library expresses it")),
        );
        sections.push(section(
            "winner",
            "The winner, ready to use",
            vec![Block::List(items)],
        ));
    }
    if let Some(trade) = &t.tradeoff {
        let labels: Vec<&str> = trade
            .reached
            .iter()
            .map(|r| r.expectation.as_str())
            .collect();
        let mut blocks = vec![Block::List(
            (trade.reached.iter())
                .map(|r| {
                    let best = match (r.best, &r.params) {
                        (Some(v), Some(p)) => format!("best {} ({}); ", sig3(v), setting(p)),
                        _ => String::new(),
                    };
                    format!(
                        "{}: {best}met by {} of {}",
                        r.expectation, r.met_by, trade.candidates
                    )
                })
                .chain(
                    trade
                        .met_by_none
                        .iter()
                        .map(|e| format!("met by no candidate, even alone: {e}")),
                )
                .chain(
                    (trade.never_together.iter())
                        .map(|[a, b]| format!("each met alone, never together: {a} and {b}")),
                )
                .collect(),
        )];
        let mut head = vec!["setting"];
        head.extend(labels.iter().copied());
        let goal = format!("{} {}", t.objective.goal, t.objective.metric);
        head.push(&goal);
        let mut numeric = vec![true; head.len()];
        numeric[0] = false;
        let mut table = Table::with_numeric(&head, &numeric);
        for f in &trade.frontier {
            let mut name = setting(&f.params);
            if !f.same.is_empty() {
                name.push_str(&format!(" (and {} alike)", f.same.len()));
            }
            let mut row = vec![name];
            for (v, passed) in f.values.iter().zip(&f.passed) {
                row.push(format!("{}{}", sig3(*v), if *passed { "" } else { "*" }));
            }
            row.push(f.objective.map_or("–".into(), sig3));
            table.row(row);
        }
        blocks.push(Block::Text(format!(
            "The Pareto frontier over the expectations' values and the objective ({} candidates; * breaks the expectation). Every other candidate is worse than one of them on every count.",
            trade.frontier.len()
        )));
        blocks.push(Block::Table(table));
        blocks.push(Block::Charts(frontier));
        sections.push(section("frontier", "The trade-off", blocks));
    }
    let region_item = |r: &Region| {
        let mut parts: Vec<String> = (r.slices.iter())
            .map(|sl| {
                format!(
                    "every candidate with {} = {}",
                    sl.path,
                    sl.values.join(", ")
                )
            })
            .collect();
        parts.extend(r.others.iter().map(|&p| of_point(p)));
        format!(
            "{} ({} of {}): {}",
            r.expectation,
            r.candidates.len(),
            t.candidates.len(),
            parts.join("; ")
        )
    };
    if !t.rejected.is_empty() {
        sections.push(section(
            "rejected",
            "Rejected, by the expectation broken",
            vec![Block::List(t.rejected.iter().map(region_item).collect())],
        ));
    }
    sections.push(section(
        "no-effect",
        "Parameters with no effect",
        vec![if t.no_effect.is_empty() {
            Block::Text("Every parameter changed something the search read (or no pair of candidates differing in it alone both ran).".into())
        } else {
            Block::List(
                (t.no_effect.iter())
                    .map(|n| format!("{} (tried {}; {} pairs measured the same within noise, Welch's t-test, p >= 0.05)", n.path, n.values.join(", "), n.pairs))
                    .collect(),
            )
        }],
    ));
    if !t.pruned.is_empty() {
        sections.push(section(
            "pruned",
            "Pruned before running",
            vec![Block::List(
                (t.pruned.iter())
                    .map(|p| {
                        let names: Vec<String> =
                            p.candidates.iter().map(|&c| of_point(c)).collect();
                        format!(
                            "{} ({} of {}): {}",
                            p.by,
                            p.candidates.len(),
                            t.candidates.len(),
                            if names.is_empty() {
                                "none".into()
                            } else {
                                names.join("; ")
                            }
                        )
                    })
                    .collect(),
            )],
        ));
    }
    let at = 1.min(doc.sections.len());
    doc.sections.splice(at..at, sections);
    doc
}
