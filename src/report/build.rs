//! Assembling a report's sections from a run (with its variants) or a sweep.

use super::{Block, Doc, Section, orchestration, topology};
use super::{summary, tables};
use crate::chart::{Chart, Kind};
use crate::metrics::names;
use crate::model::Model;
use crate::number::short;
use crate::output::describe;
use crate::output::read_run::RunData;
use crate::output::read_sweep::SweepData;
use crate::output::text_table::Table;
use crate::output::units;

fn section(id: &str, title: &str, blocks: Vec<Block>) -> Section {
    Section {
        id: id.into(),
        title: title.into(),
        blocks,
    }
}

/// Topology, resilience matrix, services and faults: what the scenario is.
fn design_sections(model: &Model, run: Option<&RunData>) -> Vec<Section> {
    let mut out = vec![
        section(
            "topology",
            "Topology",
            vec![
                Block::Text(
                    "Clients (round boxes) call services left to right; each arrow is a call, labelled with its policy's main settings (timeout, attempts, budget, breaker, …). Services a fault hits are outlined in vermillion.".into(),
                ),
                Block::Diagram {
                    file: "topology".into(),
                    svg: topology::svg(model),
                },
            ],
        ),
        section(
            "matrix",
            "Resilience matrix",
            vec![
                Block::Text("The caller's policy on each call (per-dependency resilience matrix), then each service's own capacity and protections; where the scenario has them, the clients' deadlines per operation and what the platform does to instances (probes, restarts, cold start).".into()),
            ]
            .into_iter()
            .chain(tables::client_deadlines(model).map(Block::Table))
            .chain([
                Block::Table(tables::policy_matrix(model)),
                Block::Table(tables::services(model)),
            ])
            .chain(orchestration::table(model).map(Block::Table))
            .chain(tables::operations(model).map(Block::Table))
            .collect(),
        ),
    ];
    let faults = if model.faults.is_empty() {
        vec![Block::Text("No faults are injected.".into())]
    } else {
        vec![
            Block::Text("Each fault is active over [start, end). The verdict compares all clients' goodput after the fault with its level before it; the rows beneath a fault, where there are any, judge each operation of a client's mix (and each client, when there are several) on its own goodput.".into()),
            Block::Table(tables::faults(model, run)),
        ]
    };
    out.push(section("faults", "Fault schedule", faults));
    out
}

/// One line per thing a reviewer should see first: each client's outcome, each fault's
/// verdict, retry amplification, breakers that opened, wasted work, expectations.
fn at_a_glance(run: &RunData, expectations: Option<String>) -> Vec<String> {
    let mut items = Vec::new();
    for c in run.entities("client") {
        let m = |k: &str| run.metric(&names::client_metric(&c, k));
        if let (Some(s), Some(g), Some(p)) =
            (m("success_ratio"), m("goodput_rps"), m("latency_p99_ms"))
        {
            let worst = worst_operation(run, &c);
            let lowest = worst.as_ref().map_or(s, |w| w.1.min(s));
            let mark = if lowest >= 0.99 { "✓" } else { "✗" };
            let mut item = format!(
                "{mark} client {c}: {} success, goodput {}/s, p99 {} (of all answers)",
                units::ratio(s),
                short(g),
                units::ms(p)
            );
            if let Some(ok) = m("success_latency_p99_ms") {
                item += &format!(", {} of successes", units::ms(ok));
            }
            if let Some((o, os)) = worst {
                let om = |k: &str| run.metric(&names::metric(&names::client_op(&c, &o), k));
                item += &format!("; worst operation {o}: {} success", units::ratio(os));
                if let (Some(og), Some(op)) = (om("goodput_rps"), om("success_latency_p99_ms")) {
                    item += &format!(
                        ", goodput {}, p99 of successes {}",
                        units::per_second(og),
                        units::ms(op)
                    );
                }
            }
            items.push(item);
        }
    }
    if let Some(item) = at_the_end(run) {
        items.push(item);
    }
    if let Some(model) = &run.model {
        for (i, f) in model.faults.iter().enumerate() {
            let label = describe::fault_label(model, f);
            let during = worst_during(run, f).map_or(String::new(), |(name, s)| {
                format!(
                    "; while it was active ({} to {}), the worst off, {name}, had {} success",
                    units::seconds(f.start as f64 / 1e9),
                    units::seconds(f.end as f64 / 1e9),
                    units::ratio(s)
                )
            });
            match run.metric(&names::fault_metric(i, "recovered")) {
                Some(x) if x >= 0.5 => items.push(format!(
                    "✓ F{i} {label}: recovered {} s after it ended{during}",
                    short(
                        run.metric(&names::fault_metric(i, "recovery_s"))
                            .unwrap_or(0.0)
                    )
                )),
                Some(_) => {
                    let watched = run
                        .metric(&names::fault_metric(i, "recovery_s"))
                        .unwrap_or(0.0);
                    let hold = model.recovery_hold as f64 / 1e9;
                    items.push(if watched < hold {
                        format!(
                            "✗ F{i} {label}: recovery not confirmed — the run ended {} s after the fault, within the {} s that goodput must hold{during}",
                            short(watched),
                            short(hold)
                        )
                    } else {
                        format!(
                            "✗ F{i} {label}: goodput did not come back in the {} s after it ended (a metastable failure){during}",
                            short(watched)
                        )
                    });
                }
                None if !during.is_empty() => {
                    items.push(format!("F{i} {label}: no verdict (from the start){during}"));
                }
                None => {}
            }
        }
    }
    for e in run.entities("edge") {
        let m = |k: &str| run.metric(&names::edge_metric(&e, k));
        let call = e.replacen('.', " → ", 1);
        if let Some(a) = m("amplification").filter(|a| *a >= 1.5) {
            items.push(format!(
                "✗ retry amplification on {call}: {a:.2} attempts per call"
            ));
        }
        if let (Some(n), Some(s)) = (m("breaker_opens"), m("breaker_open_s"))
            && n > 0.0
        {
            items.push(breaker_line(run, &e, &call, n, s));
        }
    }
    for s in run.entities("service") {
        if let Some(w) = run
            .metric(&names::service_metric(&s, "wasted_work_s"))
            .filter(|w| *w > 0.0)
        {
            items.push(format!(
                "service {s} spent {} worker-seconds on work whose caller had already given up",
                short(w)
            ));
        }
    }
    items.extend(expectations);
    items
}

/// A client's operation with the lowest success ratio over the run, when it has a mix.
fn worst_operation(run: &RunData, client: &str) -> Option<(String, f64)> {
    run.client_operations(client)
        .into_iter()
        .filter_map(|o| {
            let s = run.metric(&names::metric(
                &names::client_op(client, &o),
                "success_ratio",
            ))?;
            let requests = run.metric(&names::metric(&names::client_op(client, &o), "requests"));
            (requests.unwrap_or(1.0) > 0.0).then_some((o, s))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// The worst-off client operation (or client, without a mix) while fault `f` was active, with
/// its success over the fault's buckets, from the time series: what the first screen says
/// of each fault.
fn worst_during(run: &RunData, f: &crate::model::fault::Fault) -> Option<(String, f64)> {
    let (from, to) = (f.start as f64 / 1e9, f.end as f64 / 1e9);
    let mut parts: Vec<(String, String)> = Vec::new();
    for c in run.entities("client") {
        let ops = run.client_operations(&c);
        if ops.is_empty() {
            parts.push((format!("client {c}"), names::client(&c)));
        }
        parts.extend(
            ops.iter()
                .map(|o| (format!("operation {c} {o}"), names::client_op(&c, o))),
        );
    }
    parts
        .into_iter()
        .filter_map(|(name, prefix)| Some((name, run.success_between(&prefix, from, to)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// A breaker's opens and open time, which the metrics sum over the edge's breakers (one per
/// caller instance, per callee instance too with `scope = "instance"`): said as a total over
/// the measured time and per breaker, so three instances' 126 s do not read as one breaker's.
fn breaker_line(run: &RunData, edge: &str, call: &str, opens: f64, open_s: f64) -> String {
    let measured = run.duration_s;
    let breakers = run.model.as_ref().and_then(|m| {
        let c = describe::edge_calls(m)
            .into_iter()
            .find(|c| c.edge == edge)?;
        let b = c.call.policy.breaker()?;
        let instances = |name: &str| {
            m.services
                .iter()
                .find(|s| s.name == name)
                .map_or(1, |s| s.instances)
        };
        let (mut n, mut whose) = (instances(&c.from), format!("one per {} instance", c.from));
        if b.scope() == cascade_policy::breaker::BreakerScope::Instance {
            n *= instances(&c.to);
            whose += &format!(" and {} instance", c.to);
        }
        Some((n, whose))
    });
    let total = format!(
        "breaker on {call} opened {} times and was open {} in all over the {} measured",
        short(opens),
        units::seconds(open_s),
        units::seconds(measured)
    );
    match breakers {
        Some((n, whose)) if n > 1 => format!(
            "{total}: {n} breakers ({whose}), each opened {} times and open {} ({} of the time) on average per breaker",
            short(opens / f64::from(n)),
            units::seconds(open_s / f64::from(n)),
            units::ratio(open_s / f64::from(n) / measured.max(1e-9))
        ),
        _ => format!(
            "{total} ({} of the time)",
            units::ratio(open_s / measured.max(1e-9))
        ),
    }
}

/// Whether goodput matches the offered load over the run's last tenth (at least five buckets):
/// a system still failing when the run ends, whatever started it, is the first thing to see.
fn at_the_end(run: &RunData) -> Option<String> {
    let n = run.times.len();
    let k = (n / 10).max(5).min(n);
    if k == 0 {
        return None;
    }
    let tail = |metric: &str| -> f64 {
        run.entities("client")
            .iter()
            .filter_map(|c| run.series(&names::client_metric(c, metric)))
            .map(|v| v[n - k..].iter().sum::<f64>() / k as f64)
            .sum()
    };
    let (offered, goodput) = (tail("offered_rps"), tail("goodput_rps"));
    if offered <= 0.0 {
        return None;
    }
    let share = goodput / offered;
    let span = short(k as f64 * run.bucket_s);
    Some(if share >= 0.9 {
        format!(
            "✓ over the last {span} s, goodput is {} of the offered load ({}/s)",
            units::ratio(share),
            short(offered)
        )
    } else {
        format!(
            "✗ over the last {span} s, goodput is only {} of the offered load ({}/s of {}/s): the system had not recovered when the run ended",
            units::ratio(share),
            short(goodput),
            short(offered)
        )
    })
}

fn charts_where(charts: &[Chart], pred: impl Fn(&Chart) -> bool) -> Vec<usize> {
    (0..charts.len()).filter(|i| pred(&charts[*i])).collect()
}

pub fn run_doc(runs: &[RunData], charts: &[Chart]) -> Doc {
    let base = &runs[0];
    let expectations = super::expectations::of_run(runs);
    let variants: Vec<&str> = runs[1..].iter().map(|r| r.label.as_str()).collect();
    let mut subtitle = format!(
        "seed {} · {} s measured after a {} s warm-up · {} s time buckets",
        base.seed,
        short(base.duration_s),
        short(base.warmup_s),
        short(base.bucket_s)
    );
    if !variants.is_empty() {
        subtitle += &format!(" · variants: {}", variants.join(", "));
    }
    let mut sections = vec![section(
        "glance",
        "At a glance",
        vec![Block::List(at_a_glance(base, expectations.glance))],
    )];
    match &base.model {
        Some(m) => sections.extend(design_sections(m, Some(base))),
        None => sections.push(section(
            "design",
            "Design",
            vec![Block::Text("This run's directory has no scenario.toml (it predates it): run the scenario again for the topology, policies and faults.".into())],
        )),
    }
    let timeline = charts_where(charts, |c| c.file == "timeline");
    // Said only where the chart has the strip: a run without alerts reads as before.
    let has_alerts = (base.model.as_ref()).is_some_and(|m| !m.alerts.is_empty());
    let alerts = if has_alerts {
        ", each alert's firing intervals (one lane per [[alert]], as alerts.csv lists them)"
    } else {
        ""
    };
    let latency = charts_where(charts, |c| matches!(c.kind, Kind::Latency(_)));
    sections.push(section(
        "timeline",
        "Timeline",
        vec![
            Block::Text(format!("Top: offered load (dashed), goodput and attempts per call, per second; shaded: the warm-up (grey) and fault windows (vermillion). Then each fault's window and each breaker's open time{alerts}; each client's success (its total dashed, each operation of its mix a line) and goodput by operation, each on an axis of its own; per service the mean queue and utilization (a panel at 0 throughout folded to one line); and each client's p99 latency per bucket, of its successful requests (solid) and of all its answers (dotted). A line identical to an earlier one is drawn 3 px higher, as its legend says.")),
            Block::Charts(timeline),
        ],
    ));
    sections.push(section(
        "latency",
        "Latency distribution",
        vec![
            Block::Text("Percentiles of each client's request latency over the measured run, on a log scale; with variants, one curve per run on the same seed. For a client with a mix, the same per operation: a colour per operation, a dash pattern per run.".into()),
            Block::Charts(latency),
        ],
    ));
    sections.push(section(
        "summary",
        "Summary",
        vec![
            Block::Text("Per client and per operation of its mix: “ok” latencies are of the successful requests alone; “all” ones count every answer, failures and quick refusals (an open breaker's) included, so in an outage they can fall while successes slow down.".into()),
            Block::Table(summary::clients(base)),
            Block::Table(summary::service_summary(base)),
            Block::Table(summary::edge_summary(base)),
        ],
    ));
    if let Some(table) = summary::alerts(base) {
        sections.push(section(
            "alerts",
            "Alerts",
            vec![
                Block::Text("Each [[alert]] evaluated over this run's time series as a Prometheus alerting rule (or the SRE workbook's burn rate): whether it fired, when first, for how long in all; false pages are firings that started outside every fault's window (a fault's start to where goodput was back); per fault, the time from its start to the alert's first firing in that window, or missed.".into()),
                Block::Table(table),
            ],
        ));
    }
    sections.push(section("expectations", "Expectations", expectations.blocks));
    if runs.len() > 1 {
        let mut blocks = Vec::new();
        if base.model.is_some() {
            blocks.push(Block::Text("Each variant is the same scenario on the same seed (same arrivals, same draws) with one change:".into()));
            blocks.push(Block::Table(summary::variant_sets(&base.variants)));
        }
        blocks.push(Block::Table(summary::variants(runs)));
        blocks.push(Block::Charts(charts_where(charts, |c| {
            c.file.starts_with("timeline-")
        })));
        sections.push(section("variants", "Variants side by side", blocks));
    }
    Doc {
        title: format!("{} — design review", base.scenario),
        subtitle,
        sections,
    }
}

pub fn sweep_doc(s: &SweepData, charts: &[Chart]) -> Doc {
    let mut overview: Vec<String> = s
        .params
        .iter()
        .map(|p| format!("{} = {}", p.path, p.values.join(", ")))
        .collect();
    if overview.is_empty() {
        overview.push("no swept parameter: replications of one point".into());
    }
    overview.push(format!("variants: {}", s.variants.join(", ")));
    if let Some(r) = s.reps {
        overview.push(if s.uniform_reps() {
            format!("{r} replications per point and variant")
        } else {
            format!(
                "up to {r} replications per point and variant (a search's: each point's n in points.csv)"
            )
        });
    }
    let mut subtitle = "parameter sweep".to_string();
    if let Some(seed) = s.seed {
        subtitle += &format!(" · seed {seed}");
    }
    let mut sections = vec![section("sweep", "The sweep", vec![Block::List(overview)])];
    if let Some(m) = &s.model {
        sections.extend(design_sections(m, None));
    }
    sections.push(section(
        "charts",
        "Charts",
        vec![
            Block::Text("Each key metric against the swept parameter: the mean over replications, with its 95% confidence band. With two parameters, a heatmap of the same means; for a fault's recovered (0/1) it is a metastability map.".into()),
            Block::Charts((0..charts.len()).collect()),
        ],
    ));
    sections.push(section(
        "points",
        "Points",
        vec![Block::Table(points_table(s))],
    ));
    if !s.expects.is_empty() {
        sections.push(section(
            "expectations",
            "Expectations per point",
            super::expectations::of_sweep(s),
        ));
    }
    Doc {
        title: format!("{} — sweep", s.scenario),
        subtitle,
        sections,
    }
}

fn key_columns(s: &SweepData) -> Vec<String> {
    let metrics = s.metrics();
    metrics
        .iter()
        .filter(|m| {
            let p: Vec<&str> = m.split('.').collect();
            (p.len() == 3
                && p[0] == "client"
                && ["success_ratio", "goodput_rps", "latency_p99_ms"].contains(&p[2]))
                || (p.len() == 3 && p[0] == "fault" && p[2] == "recovered")
        })
        .take(8)
        .map(|m| m.to_string())
        .collect()
}

/// Points × variants, with the key metrics' means and 95% intervals.
fn points_table(s: &SweepData) -> Table {
    let keys = key_columns(s);
    let mut header: Vec<&str> = vec!["point", "variant"];
    header.extend(s.params.iter().map(|p| p.path.as_str()));
    header.extend(keys.iter().map(String::as_str));
    let numeric: Vec<bool> = (0..header.len()).map(|i| i >= 2).collect();
    let mut t = Table::with_numeric(&header, &numeric);
    let mut seen: Vec<(usize, String)> = Vec::new();
    for r in &s.rows {
        let key = (r.point, r.variant.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let mut row = vec![r.point.to_string(), r.variant.clone()];
        row.extend(r.values.iter().cloned());
        let values: Vec<&str> = r.values.iter().map(String::as_str).collect();
        for k in &keys {
            let unit = crate::chart::format::AxisUnit::of(crate::chart::format::unit_of(k), 0.0);
            row.push(match s.find(k, &r.variant, &values) {
                Some(p) if p.high.is_finite() && p.low.is_finite() && p.high > p.low => {
                    format!(
                        "{} ± {}",
                        unit.value(p.mean),
                        unit.value((p.high - p.low) / 2.0)
                    )
                }
                Some(p) => unit.value(p.mean),
                None => "–".into(),
            });
        }
        t.row(row);
    }
    t
}
