//! A run's timeline: offered load, goodput and attempts per edge on the top panel with fault
//! windows shaded; faults, breaker-open intervals, alert firings and moving instance counts as
//! strips; each client's success and goodput by operation (`client_panels`), queue length,
//! named pools (`pool_panel`), utilization and p99 latency on panels beneath, all on one time
//! axis. A panel whose every series is 0 throughout folds to one line saying so; a series
//! identical to an earlier one is raised a few pixels so it stays visible (`overlap`).

use super::canvas::{self, DrawResult, Entry, LEGEND_WIDTH, Mark, Y_LABELS, text};
use super::client_panels::{self, midpoints};
use super::emphasis::rank_services;
use super::format::AxisUnit;
use super::gates::Gate;
use super::latency::CAPTION_MARGIN;
use super::overlap::{self, RAISE_PX};
use super::palette;
use super::strip_rows;
use super::strips::{self, Bar, Row};
use super::style::{Dash, Style, Styles};
use crate::metrics::names;
use crate::number::short;
use crate::output::describe;
use crate::output::read_run::RunData;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

mod draw;
pub(super) use draw::shade;
pub use draw::{draw, tag_offsets};
use draw::{legend_height, load_entries, panel_entries};

#[derive(Debug, Clone)]
pub struct Line {
    pub label: String,
    pub color: RGBColor,
    pub dash: Dash,
    /// (time s, value), at bucket midpoints.
    pub points: Vec<(f64, f64)>,
}

#[derive(Debug, Clone)]
pub struct Panel {
    pub heading: String,
    /// The y axis description, unit included.
    pub y_desc: String,
    pub unit: AxisUnit,
    pub lines: Vec<Line>,
    /// Series left out to keep the panel readable, listed in its legend.
    pub folded: Vec<String>,
    /// `[[expect]]` thresholds on the panel's metric: a dashed line at each value.
    pub gates: Vec<Gate>,
}

impl Panel {
    /// Every series has points and every point is 0: the panel folds to one line.
    pub fn flat_at_zero(&self) -> bool {
        self.lines.iter().any(|l| !l.points.is_empty())
            && self
                .lines
                .iter()
                .all(|l| l.points.iter().all(|p| p.1 == 0.0))
    }

    /// For each line, the earlier line it repeats exactly (`overlap::repeats`).
    fn repeats(&self) -> Vec<Option<usize>> {
        let series: Vec<&[(f64, f64)]> = self.lines.iter().map(|l| l.points.as_slice()).collect();
        overlap::repeats(&series)
    }
}

/// A fault's window, for the shading and the fault strip.
#[derive(Debug, Clone)]
pub struct FaultBand {
    pub start: f64,
    pub end: f64,
    /// `errors on auth`.
    pub name: String,
    /// `50% unavailable`.
    pub effect: String,
}

#[derive(Debug, Clone)]
pub struct Timeline {
    pub title: String,
    pub subtitle: String,
    pub end_s: f64,
    pub warmup_s: f64,
    pub faults: Vec<FaultBand>,
    pub load: Panel,
    /// One row per edge with a breaker.
    pub breakers: Vec<Row>,
    /// One row per `[[alert]]`, its firing intervals (`strip_rows::alerts`).
    pub alerts: Vec<Row>,
    /// One row per service whose instance count moved, and one of its ready instances where
    /// some were out of rotation (`strip_rows::instances`).
    pub instances: Vec<Row>,
    /// Queue length, utilization, p99 latency.
    pub panels: Vec<Panel>,
}

const WIDTH: u32 = 1100;
const LOAD_HEIGHT: u32 = 290;
const PANEL_HEIGHT: u32 = 150;
const X_AXIS: u32 = 48;
/// The height of a panel folded to one line (every series flat at 0).
const FOLDED_HEIGHT: u32 = 30;
/// Services drawn on each per-service panel: one solid Okabe–Ito colour each.
pub const MAX_SERVICES: usize = palette::SERIES.len();
/// Lines on the load panel (clients' offered and goodput, then edges' attempts).
pub const MAX_LOAD_LINES: usize = 16;

impl Timeline {
    /// Heights of the panels from the top: load, the fault, breaker, alert and instance strips
    /// when there are any, then the others; the last includes the time axis.
    fn heights(&self) -> Vec<u32> {
        let mut heights = vec![LOAD_HEIGHT.max(legend_height(load_entries(self).len()))];
        if !self.faults.is_empty() {
            heights.push(strips::height(self.faults.len()));
        }
        if !self.breakers.is_empty() {
            heights.push(strips::height(self.breakers.len()));
        }
        if !self.alerts.is_empty() {
            heights.push(strips::height(self.alerts.len()));
        }
        if !self.instances.is_empty() {
            heights.push(strips::height(self.instances.len()));
        }
        heights.extend(self.panels.iter().map(|p| {
            if p.flat_at_zero() {
                FOLDED_HEIGHT
            } else {
                PANEL_HEIGHT.max(legend_height(panel_entries(p).len()))
            }
        }));
        if let Some(last) = heights.last_mut() {
            *last += X_AXIS + CAPTION_MARGIN;
        }
        heights
    }

    pub fn size(&self) -> (u32, u32) {
        (WIDTH, 62 + self.heights().iter().sum::<u32>())
    }

    pub fn from_run(run: &RunData) -> Timeline {
        let b = run.bucket_s;
        let mid = |values: &[f64], scale: f64| midpoints(run, values, scale);
        let clients = run.entities("client");
        let services = rank_services(run, &run.entities("service"));
        let (shown, folded_services) = services.split_at(services.len().min(MAX_SERVICES));
        let edges = run.entities("edge");
        let line = |label: String, style: Style, points| Line {
            label,
            color: style.color(),
            dash: style.dash,
            points,
        };
        let mut styles = Styles::default();
        let mut load = Vec::new();
        for c in &clients {
            let style = styles.fresh();
            if let Some(v) = run.series(&names::client_metric(c, "offered_rps")) {
                let offered = styles.claim(Style {
                    dash: Dash::Dashed,
                    ..style
                });
                load.push(line(format!("{c} offered"), offered, mid(v, 1.0)));
            }
            if let Some(v) = run.series(&names::client_metric(c, "goodput_rps")) {
                load.push(line(format!("{c} goodput"), style, mid(v, 1.0)));
            }
        }
        // Edges by their callee's rank, so the edges into the services that matter come first.
        let mut by_callee: Vec<&String> = edges.iter().collect();
        let callee_rank = |e: &str| {
            let callee = e.split('.').nth(1).unwrap_or("");
            services
                .iter()
                .position(|s| s == callee)
                .unwrap_or(usize::MAX)
        };
        by_callee.sort_by_key(|e| callee_rank(e));
        let mut folded_edges = Vec::new();
        for e in by_callee {
            let Some(v) = run.series(&names::edge_metric(e, "attempts")) else {
                continue;
            };
            let label = format!("{} attempts", e.replacen('.', "→", 1));
            if load.len() >= MAX_LOAD_LINES {
                folded_edges.push(label);
                continue;
            }
            load.push(line(label, styles.fresh(), mid(v, 1.0 / b)));
        }
        let per_service = |metric: &str, scale: f64| -> Vec<Line> {
            shown
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let v = run.series(&names::service_metric(s, metric))?;
                    Some(Line {
                        label: s.clone(),
                        color: palette::series(i),
                        dash: Dash::Solid,
                        points: mid(v, scale),
                    })
                })
                .collect()
        };
        // Each client's p99 of successful requests (solid) beside its p99 of all answers
        // (dotted), each labelled so: fast refusals pull the second down in an outage.
        let p99: Vec<Line> = clients
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                [
                    ("success_latency_p99_ms", "p99 of successes", Dash::Solid),
                    ("latency_p99_ms", "p99 of all answers", Dash::Dotted),
                ]
                .into_iter()
                .filter_map(move |(metric, what, dash)| {
                    let v = run.series(&names::client_metric(c, metric))?;
                    Some(Line {
                        label: format!("{c} {what}"),
                        color: palette::series(i),
                        dash,
                        points: mid(v, 1.0),
                    })
                })
            })
            .collect();
        let p99_max = p99
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let p99_unit = AxisUnit::of("ms", p99_max);
        let breakers = strip_rows::breakers(run, &edges);
        let alerts = strip_rows::alerts(run);
        let instances = strip_rows::instances(run, &services);
        let faults = run
            .model
            .as_ref()
            .map(|m| {
                m.faults
                    .iter()
                    .map(|f| FaultBand {
                        start: f.start as f64 / 1e9,
                        end: f.end as f64 / 1e9,
                        name: format!("{} on {}", f.kind(), describe::fault_target(m, f)),
                        effect: describe::fault_effect(f),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let variant = if run.label == "base" {
            String::new()
        } else {
            format!(" — variant {}", run.label)
        };
        Timeline {
            title: format!("{}{variant}: timeline", run.scenario),
            subtitle: format!(
                "seed {} · {} s measured after {} s warm-up · {} s buckets",
                run.seed,
                short(run.duration_s),
                short(run.warmup_s),
                short(b)
            ),
            end_s: run.end_s(),
            warmup_s: run.warmup_s,
            faults,
            load: Panel {
                heading: "Load".into(),
                y_desc: "requests/s".into(),
                unit: AxisUnit::PerSecond,
                lines: load,
                folded: folded_edges,
                gates: Vec::new(),
            },
            breakers,
            alerts,
            instances,
            panels: [
                client_panels::panels(run, &clients),
                vec![Panel {
                    heading: "Queue length (mean)".into(),
                    y_desc: "queued jobs".into(),
                    unit: AxisUnit::Plain,
                    lines: per_service("queue_mean", 1.0),
                    folded: folded_services.to_vec(),
                    gates: Vec::new(),
                }],
                super::pool_panel::panel(run).into_iter().collect(),
                vec![
                    Panel {
                        heading: "Utilization".into(),
                        y_desc: "utilization (%)".into(),
                        unit: AxisUnit::Percent,
                        lines: per_service("utilization", 1.0),
                        folded: folded_services.to_vec(),
                        gates: Vec::new(),
                    },
                    Panel {
                        heading: "Client latency".into(),
                        y_desc: format!("p99 latency{}", p99_unit.suffix()),
                        unit: p99_unit,
                        lines: p99,
                        folded: Vec::new(),
                        gates: Vec::new(),
                    },
                ],
            ]
            .concat(),
        }
    }
}
