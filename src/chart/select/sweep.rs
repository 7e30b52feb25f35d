//! A sweep's charts: its key metrics (or those `--metric` chose) against the swept parameters,
//! each `[[expect]]` on them drawn as a gate, and a heatmap when two parameters are swept.

use super::*;

/// How many points `params` span, and what they are: `the 3 points of a.b (1, 2, 3)`, or
/// `the 4 points of a.b × c.d`.
fn points_named(params: &[crate::output::read_sweep::Param]) -> String {
    let n: usize = params.iter().map(|p| p.values.len()).product();
    let plural = if n == 1 { "" } else { "s" };
    match params {
        [] => "the one point (no swept parameter)".into(),
        [p] => format!(
            "the {n} point{plural} of {} ({})",
            p.path,
            p.values.join(", ")
        ),
        _ => {
            let paths: Vec<&str> = params.iter().map(|p| p.path.as_str()).collect();
            format!("the {n} point{plural} of {}", paths.join(" × "))
        }
    }
}

/// The metrics worth a sweep chart, in this order: each client's goodput, success ratio and
/// p99 latency, each fault's recovery verdict and time, and each client edge's amplification.
fn key_metrics(s: &SweepData) -> Vec<String> {
    let all = s.metrics();
    let split = |m: &str| m.split('.').map(String::from).collect::<Vec<String>>();
    let clients: Vec<String> = all
        .iter()
        .map(|m| split(m))
        .filter(|p| p.len() == 3 && p[0] == "client" && p[2] == "goodput_rps")
        .map(|p| p[1].clone())
        .collect();
    let mut keys = Vec::new();
    let mut take = |pred: &dyn Fn(&[String]) -> bool| {
        for m in &all {
            if pred(&split(m)) && !keys.contains(&m.to_string()) {
                keys.push(m.to_string());
            }
        }
    };
    for suffix in ["goodput_rps", "success_ratio", "latency_p99_ms"] {
        take(&|p| p.len() == 3 && p[0] == "client" && p[2] == suffix);
    }
    for suffix in ["recovered", "recovery_s"] {
        take(&|p| p.len() == 3 && p[0] == "fault" && p[2] == suffix);
    }
    take(&|p| p.len() == 4 && p[0] == "edge" && p[3] == "amplification" && clients.contains(&p[1]));
    keys.truncate(12);
    keys
}

/// The most metrics a sweep charts without `--metric` (each gets a line chart, and a heatmap
/// over two parameters, per variant): a review, not every number.
const DEFAULT_METRICS: usize = 6;

/// The metrics charted: the expectations' metrics first, then those the patterns match (in
/// the patterns' order), or without patterns the key ones up to `DEFAULT_METRICS` in all.
fn chosen_metrics(s: &SweepData, patterns: &[String]) -> Vec<String> {
    let all = s.metrics();
    let mut chosen: Vec<String> = Vec::new();
    let mut add = |m: &str| {
        if !chosen.iter().any(|c| c == m) {
            chosen.push(m.to_string());
        }
    };
    for e in &s.expects {
        if all.contains(&e.read_from.as_str()) {
            add(&e.read_from);
        }
    }
    if !patterns.is_empty() {
        for p in patterns {
            for m in all.iter().filter(|m| crate::wildcard::matches(p, m)) {
                add(m);
            }
        }
        return chosen;
    }
    for m in key_metrics(s) {
        add(&m);
    }
    chosen.truncate(DEFAULT_METRICS);
    chosen
}

fn axis_unit(metric: &str, values: impl Iterator<Item = f64>) -> AxisUnit {
    AxisUnit::of(unit_of(metric), values.fold(0.0, f64::max))
}

fn point(
    s: &SweepData,
    metric: &str,
    variant: &str,
    values: &[&str],
    x: f64,
) -> Option<SweepPoint> {
    let r = s.find(metric, variant, values)?;
    r.mean.is_finite().then_some(SweepPoint {
        x,
        mean: r.mean,
        low: r.low,
        high: r.high,
    })
}

pub fn sweep_charts(s: &SweepData, options: &ChartOptions) -> Vec<Chart> {
    let reps = s
        .reps
        .or_else(|| s.rows.iter().map(|r| r.n as u64).max())
        .unwrap_or(0);
    let up_to = if s.uniform_reps() { "" } else { "up to " };
    let basis = format!(
        "{} · mean of {up_to}{reps} replications with its 95% confidence interval",
        s.scenario
    );
    let metrics = chosen_metrics(s, &options.metrics);
    if metrics.is_empty() {
        return vec![Chart {
            caption: format!("{}: points.csv holds no points", s.scenario),
            file: "sweep".into(),
            kind: Kind::SweepLine(SweepLine {
                title: format!("{}: sweep", s.scenario),
                subtitle: "points.csv holds no points".into(),
                x: ParamAxis::categorical("point", &[]),
                y_desc: "value".into(),
                unit: AxisUnit::Plain,
                legend_heading: String::new(),
                series: Vec::new(),
                gates: Vec::new(),
            }),
        }];
    }
    let mut charts = Vec::new();
    for metric in &metrics {
        let values = s
            .rows
            .iter()
            .filter(|r| &r.metric == metric)
            .map(|r| r.high.max(r.mean));
        let unit = axis_unit(metric, values);
        let y_desc = format!("{metric}{}", unit.suffix());
        match s.params.as_slice() {
            [] | [_] => {
                let (x, values): (ParamAxis, Vec<Vec<&str>>) = match s.params.first() {
                    None => (
                        ParamAxis::categorical("(no swept parameter)", &["all runs".into()]),
                        vec![vec![]],
                    ),
                    Some(p) => (
                        ParamAxis::new(&p.path, &p.values),
                        p.values.iter().map(|v| vec![v.as_str()]).collect(),
                    ),
                };
                let series = s
                    .variants
                    .iter()
                    .enumerate()
                    .map(|(i, v)| SweepSeries {
                        label: v.clone(),
                        color: palette::series(i),
                        points: values
                            .iter()
                            .zip(&x.positions)
                            .filter_map(|(vals, px)| point(s, metric, v, vals, *px))
                            .collect(),
                    })
                    .collect();
                let runs_named: Vec<String> = s.variants.iter().map(|v| run_name(v)).collect();
                charts.push(Chart {
                    caption: format!(
                        "{metric} at {}: one line for each of {}",
                        points_named(&s.params),
                        runs_named.join(", ")
                    ),
                    file: file_name(&format!("sweep-{metric}")),
                    kind: Kind::SweepLine(SweepLine {
                        title: format!("{metric} by {}", x.desc),
                        subtitle: basis.clone(),
                        x,
                        y_desc,
                        unit,
                        legend_heading: "Variant".into(),
                        series,
                        gates: sweep_gates(s, metric, &s.variants),
                    }),
                });
            }
            [first, rest @ ..] => {
                let x = ParamAxis::new(&first.path, &first.values);
                // Every combination of the other parameters' values: one line each.
                let mut combos: Vec<Vec<&str>> = vec![vec![]];
                for p in rest {
                    combos = combos
                        .iter()
                        .flat_map(|c| {
                            p.values.iter().map(move |v| {
                                let mut c = c.clone();
                                c.push(v.as_str());
                                c
                            })
                        })
                        .collect();
                }
                for variant in &s.variants {
                    let suffix = if s.variants.len() > 1 {
                        format!("-{variant}")
                    } else {
                        String::new()
                    };
                    // The chart shows one run of the scenario's: its title says which.
                    let of_variant = format!(" — {}", run_name(variant));
                    let series = combos
                        .iter()
                        .enumerate()
                        .map(|(i, combo)| SweepSeries {
                            label: rest
                                .iter()
                                .zip(combo)
                                .map(|(p, v)| format!("{} = {v}", last_part(&p.path)))
                                .collect::<Vec<_>>()
                                .join(", "),
                            color: palette::series(i),
                            points: first
                                .values
                                .iter()
                                .zip(&x.positions)
                                .filter_map(|(v0, px)| {
                                    let mut vals = vec![v0.as_str()];
                                    vals.extend(combo);
                                    point(s, metric, variant, &vals, *px)
                                })
                                .collect(),
                        })
                        .collect();
                    let rest_paths: Vec<&str> = rest.iter().map(|p| p.path.as_str()).collect();
                    charts.push(Chart {
                        caption: format!(
                            "{metric} of {} at {}: one line per value of {}",
                            run_name(variant),
                            points_named(&s.params),
                            rest_paths.join(", ")
                        ),
                        file: file_name(&format!("sweep-{metric}{suffix}")),
                        kind: Kind::SweepLine(SweepLine {
                            title: format!("{metric} by {}{of_variant}", x.desc),
                            subtitle: basis.clone(),
                            x: x.clone(),
                            y_desc: y_desc.clone(),
                            unit,
                            legend_heading: rest
                                .iter()
                                .map(|p| p.path.as_str())
                                .collect::<Vec<_>>()
                                .join(", "),
                            series,
                            gates: sweep_gates(s, metric, std::slice::from_ref(variant)),
                        }),
                    });
                    if let [second] = rest {
                        charts.push(heatmap(
                            s,
                            HeatmapOf {
                                metric,
                                variant,
                                first,
                                second,
                                unit,
                                range: options.range,
                            },
                            &suffix,
                            &basis,
                        ));
                    }
                }
            }
        }
    }
    charts
}

/// The expectations on `metric` judged on one of `variants`, as sweep-line gates: the value
/// and `gate >= 0.9`, with the variant named when the chart draws several.
fn sweep_gates(s: &SweepData, metric: &str, variants: &[String]) -> Vec<(f64, String)> {
    (s.expects.iter())
        .filter(|e| e.read_from == metric && e.against.is_none() && variants.contains(&e.variant))
        .map(|e| {
            let of = if variants.len() > 1 {
                format!(" ({})", e.variant)
            } else {
                String::new()
            };
            (
                e.value,
                format!("gate {} {}{of}", e.op.symbol(), short(e.value)),
            )
        })
        .collect()
}

fn last_part(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// What one heatmap shows: a metric of a variant over two swept parameters.
struct HeatmapOf<'a> {
    metric: &'a str,
    variant: &'a str,
    first: &'a crate::output::read_sweep::Param,
    second: &'a crate::output::read_sweep::Param,
    unit: AxisUnit,
    range: Option<(f64, f64)>,
}

fn heatmap(s: &SweepData, of: HeatmapOf, suffix: &str, subtitle: &str) -> Chart {
    let HeatmapOf {
        metric,
        variant,
        first,
        second,
        unit,
        range,
    } = of;
    // The expectations on this metric and run: a cell whose interval holds the threshold is
    // one whose verdict the replications cannot settle.
    let thresholds: Vec<&crate::scenario::Expect> = s
        .expects
        .iter()
        .filter(|e| e.read_from == metric && e.variant == variant)
        .collect();
    let mut cells = Vec::new();
    let mut marks = Vec::new();
    let mut failing = Vec::new();
    for (xi, a) in first.values.iter().enumerate() {
        for (yi, b) in second.values.iter().enumerate() {
            if let Some(r) = s
                .find(metric, variant, &[a, b])
                .filter(|r| r.mean.is_finite())
            {
                cells.push((xi, yi, r.mean));
                if thresholds
                    .iter()
                    .any(|e| r.low < r.high && r.low <= e.value && e.value <= r.high)
                {
                    marks.push((xi, yi));
                }
                if thresholds.iter().any(|e| !e.op.holds(r.mean, e.value)) {
                    failing.push((xi, yi));
                }
            }
        }
    }
    let domain = range.unwrap_or_else(|| data_domain(&cells, unit));
    let mark_note = thresholds.first().filter(|_| !marks.is_empty()).map(|e| {
        format!(
            "outlined: interval holds {} {}",
            e.op.symbol(),
            short(e.value)
        )
    });
    let fail_note = thresholds.first().filter(|_| !failing.is_empty()).map(|e| {
        format!(
            "crossed: the mean fails {} {}",
            e.op.symbol(),
            short(e.value)
        )
    });
    let x = ParamAxis::new(&first.path, &first.values);
    let y = ParamAxis::new(&second.path, &second.values);
    let label = |a: &ParamAxis, p: &crate::output::read_sweep::Param| ParamAxis {
        desc: a.desc.clone(),
        positions: (0..p.values.len()).map(|i| i as f64).collect(),
        categories: Some(p.values.clone()),
    };
    let points = points_named(&[first.clone(), second.clone()]);
    Chart {
        caption: format!("{metric} of {} at {points}, a cell each", run_name(variant)),
        file: file_name(&format!("heatmap-{metric}{suffix}")),
        kind: Kind::Heatmap(Heatmap {
            title: format!(
                "{metric} over {} × {} — {}",
                last_part(&first.path),
                last_part(&second.path),
                run_name(variant)
            ),
            subtitle: subtitle.to_string(),
            x: label(&x, first),
            y: label(&y, second),
            unit,
            metric: metric.to_string(),
            cells,
            domain,
            marks,
            mark_note,
            failing,
            fail_note,
        }),
    }
}

/// The colour scale's ends from the cells: their range, so the scale resolves the values
/// there are; a ratio whose cells are all equal keeps its natural 0 to 1.
fn data_domain(cells: &[(usize, usize, f64)], unit: AxisUnit) -> (f64, f64) {
    let lo = cells.iter().map(|c| c.2).fold(f64::INFINITY, f64::min);
    let hi = cells.iter().map(|c| c.2).fold(f64::NEG_INFINITY, f64::max);
    match (lo.is_finite(), lo < hi) {
        (true, true) => (lo, hi),
        _ if unit == AxisUnit::Percent => (0.0, 1.0),
        (true, false) => (lo - 0.5, hi + 0.5),
        (false, _) => (0.0, 1.0),
    }
}
