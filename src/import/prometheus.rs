//! `cascade import prometheus FILE…`: latency histograms (and the request rates their
//! `_count` gives) from the text exposition format or the HTTP API's JSON, into a scenario.
//! Each histogram is read per service and operation (by labels), then
//! * for a **leaf** (a service that makes no calls) it can stand for the service's `work`, an
//!   `empirical` distribution (`prometheus_hist`: uniform inside a bucket, the `+Inf` tail
//!   placed explicitly), which includes the queueing production saw;
//! * for a **service with calls** it is a calibration target, never work (which would count
//!   its children twice): `[[expect]]` bands around the exact mean (`_sum / _count`) on
//!   `service.<s>.sojourn_mean_ms`, and around the median and 99th percentile on each caller's
//!   `edge.<caller>.<s>.attempt_latency_p50_ms` / `_p99_ms` (the callers come from the
//!   scenario given, `Topology`).
//!
//! Two snapshots of the same counters and the time between them (their timestamps, or
//! `--interval`) give a rate and the histogram of that interval alone; a `rate()` result is a
//! rate already; one snapshot has no rate, and that is said, not guessed. docs/import.md is the
//! user's page.

use super::out::{Elsewhere, Fragment, Imported, Skipped, Toml};
use super::prometheus_hist::{Bucket, Hist, bound, sig};
use super::prometheus_json::{self, Native};
use super::prometheus_text::{self, Declared, Sample, number};
use super::read::{duration_text, policy_name};
use super::tree::error_at;
use crate::error::Error;
use std::collections::BTreeMap;

/// What the command line chose.
#[derive(Debug, Clone)]
pub struct Options {
    /// Every histogram is this service's (`--service`), whatever its labels.
    pub service: Option<String>,
    /// Labels naming the service, the first present wins (`--service-label`).
    pub service_labels: Vec<String>,
    /// Labels naming the operation, the first present wins (`--operation-label`); empty: none.
    pub operation_labels: Vec<String>,
    /// Only this histogram family (`--metric`).
    pub metric: Option<String>,
    /// Seconds between the first and last snapshot (`--interval`), over their timestamps.
    pub interval_s: Option<f64>,
    /// Seconds per unit of results without a metric name (`--unit`).
    pub unit_s: Option<f64>,
    /// The quantile of `histogram_quantile` results without a `quantile` label.
    pub quantile: Option<f64>,
    /// Where the `+Inf` bucket's observations end, in seconds (`--tail-max`).
    pub tail_max_s: Option<f64>,
    /// The calibration band: ± this share of production's value (`--tolerance`).
    pub tolerance: f64,
    /// Services whose histograms stand for work (`--leaf`), besides the scenario's leaves.
    pub leaf: Vec<String>,
    pub topology: Option<Topology>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            service: None,
            service_labels: vec!["service".into(), "job".into()],
            operation_labels: vec!["route".into(), "handler".into(), "grpc_method".into()],
            metric: None,
            interval_s: None,
            unit_s: None,
            quantile: None,
            tail_max_s: None,
            tolerance: 0.1,
            leaf: Vec::new(),
            topology: None,
        }
    }
}

/// The shape of the scenario the histograms calibrate (filled by the command from the
/// model: this module reads no scenario itself).
#[derive(Debug, Clone, Default)]
pub struct Topology {
    pub file: String,
    pub services: Vec<Shape>,
}

/// A service: whether its own plan makes calls, its operations (name, makes calls), and the
/// edges into it, by their metric prefix (`web.api`, `web.api.op.get`) and operation.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    pub name: String,
    pub calls: bool,
    pub operations: Vec<(String, bool)>,
    pub edges: Vec<(String, Option<String>)>,
}

/// The service and operation a histogram is of; the operation as the label wrote it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    service: String,
    operation: Option<String>,
}

/// One histogram read from one file for one key.
#[derive(Debug, Clone)]
struct Reading {
    key: Key,
    family: String,
    unit: &'static str,
    file: String,
    lines: (usize, usize),
    /// The other labels its series were summed over.
    summed: Vec<String>,
    /// The labels that named its service (none: `--service`) and operation.
    service_label: Option<String>,
    operation_label: Option<String>,
    /// Counts since the process started (a snapshot, at its time) or per-second rates.
    what: What,
    hist: Hist,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum What {
    Snapshot(Option<i64>),
    Rate,
}

/// A `histogram_quantile` result.
#[derive(Debug, Clone)]
struct QuantileReading {
    key: Key,
    q: f64,
    seconds: f64,
    at: String,
    place: String,
}

/// Imports `files` (name, text), each a `.json` API answer or an exposition text.
pub fn import(files: &[(String, String)], opts: &Options) -> Result<Imported, Error> {
    let mut readings = Vec::new();
    let mut quantiles = Vec::new();
    let mut skipped = Vec::new();
    for (file, text) in files {
        if file.to_ascii_lowercase().ends_with(".json") {
            let answer = prometheus_json::parse(file, text)?;
            read_answer(
                file,
                answer,
                opts,
                &mut readings,
                &mut quantiles,
                &mut skipped,
            )?;
        } else {
            let e = prometheus_text::parse(file, text)?;
            read_samples(
                file,
                &e.samples,
                &e.types,
                &e.units,
                false,
                opts,
                &mut readings,
                &mut skipped,
            )?;
        }
    }
    if readings.is_empty() && quantiles.is_empty() {
        let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
        return Err(Error::Usage(format!(
            "{}: no latency histogram to import{}",
            names.join(", "),
            if opts.metric.is_some() {
                " (--metric chose none of them)"
            } else {
                ""
            }
        )));
    }
    let mut out = Imported {
        skipped,
        ..Imported::default()
    };
    let mut by_key: BTreeMap<Key, Vec<Reading>> = BTreeMap::new();
    for r in readings {
        by_key.entry(r.key.clone()).or_default().push(r);
    }
    let mut q_by_key: BTreeMap<Key, Vec<QuantileReading>> = BTreeMap::new();
    for q in quantiles {
        q_by_key.entry(q.key.clone()).or_default().push(q);
    }
    let mut keys: Vec<Key> = by_key.keys().chain(q_by_key.keys()).cloned().collect();
    keys.sort();
    keys.dedup();
    let mut leaves: Vec<Leaf> = Vec::new();
    for key in keys {
        let measured = match by_key.remove(&key) {
            Some(rs) => Some(combine(rs, opts, &mut out)?),
            None => None,
        };
        let qs = q_by_key.remove(&key).unwrap_or_default();
        emit(&key, measured, qs, opts, &mut out, &mut leaves)?;
    }
    write_leaves(leaves, &mut out);
    Ok(out)
}

/// Where a histogram came from, for comments: `family{route="/a"} summed over method
/// (a.prom:3-19)`.
fn source(r: &Reading) -> String {
    format!("{} ({})", series(r), place(r))
}

/// The histogram's name, the labels that chose it and those it was summed over.
fn series(r: &Reading) -> String {
    let mut labels = Vec::new();
    if let Some(l) = &r.service_label {
        labels.push(format!("{l}=\"{}\"", r.key.service));
    }
    if let (Some(l), Some(op)) = (&r.operation_label, &r.key.operation) {
        labels.push(format!("{l}=\"{op}\""));
    }
    let summed = if r.summed.is_empty() {
        String::new()
    } else {
        format!(" summed over {}", r.summed.join(", "))
    };
    let labels = if labels.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", labels.join(","))
    };
    format!("{}{labels}{summed}", r.family)
}

/// `file:first-last`.
fn place(r: &Reading) -> String {
    format!("{}:{}-{}", r.file, r.lines.0, r.lines.1)
}

/// The unit a family's name (or `# UNIT` line) says, in seconds.
fn unit_of(family: &str, declared: Option<&Declared>) -> Option<(f64, &'static str)> {
    const UNITS: [(&str, f64, &str); 8] = [
        ("_seconds", 1.0, "seconds"),
        ("_milliseconds", 1e-3, "milliseconds"),
        ("_ms", 1e-3, "milliseconds"),
        ("_microseconds", 1e-6, "microseconds"),
        ("_us", 1e-6, "microseconds"),
        ("_nanoseconds", 1e-9, "nanoseconds"),
        ("_ns", 1e-9, "nanoseconds"),
        ("_s", 1.0, "seconds"),
    ];
    if let Some(d) = declared {
        let suffix = format!("_{}", d.value);
        return UNITS.iter().find(|u| u.0 == suffix).map(|u| (u.1, u.2));
    }
    UNITS
        .iter()
        .find(|u| family.ends_with(u.0))
        .map(|u| (u.1, u.2))
}

fn unit_name(seconds: f64) -> &'static str {
    match seconds {
        1e-3 => "milliseconds",
        1e-6 => "microseconds",
        1e-9 => "nanoseconds",
        _ => "seconds",
    }
}

/// A series' key, the labels it is summed over, and the labels that named its service and
/// operation.
type Keyed = (Key, Vec<String>, [Option<String>; 2]);

/// The key of a series by its labels; the labels it is summed over (all but `le`, the
/// service's and the operation's).
fn key_of(file: &str, s: &Sample, opts: &Options) -> Result<Keyed, Error> {
    let service_label = opts.service_labels.iter().find(|l| s.label(l).is_some());
    let service = match (&opts.service, service_label) {
        (Some(name), _) => name.clone(),
        (None, Some(l)) => s.label(l).unwrap_or_default().to_string(),
        (None, None) => {
            return Err(error_at(
                file,
                s.line,
                1,
                &s.name,
                format!(
                    "no {} label names the service: give --service NAME (an exposition scraped from one process has none) or --service-label LABEL",
                    opts.service_labels
                        .iter()
                        .map(|l| format!("`{l}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            ));
        }
    };
    let op_label = opts.operation_labels.iter().find(|l| s.label(l).is_some());
    let operation = op_label.and_then(|l| s.label(l)).map(str::to_string);
    // Every other label is summed over (as `sum by (le, service, route)` would).
    let by_name = opts.service.is_none();
    let summed = s
        .labels
        .iter()
        .map(|(k, _)| k)
        .filter(|k| k.as_str() != "le")
        .filter(|k| !(by_name && Some(*k) == service_label))
        .filter(|k| Some(*k) != op_label)
        .cloned()
        .collect();
    let used = [
        service_label.filter(|_| by_name).cloned(),
        op_label.filter(|_| operation.is_some()).cloned(),
    ];
    Ok((Key { service, operation }, summed, used))
}

/// One histogram family's series in one file, cumulative counts by `le` as written.
#[derive(Default)]
struct Series {
    labels: Vec<(String, String)>,
    buckets: Vec<(f64, f64, usize)>,
    sum: Option<f64>,
    count: Option<(f64, usize)>,
    timestamp_ms: Option<i64>,
    lines: (usize, usize),
}

/// Reads the histograms among `samples` (a text file's, or a JSON answer's classic ones),
/// family by family; `rates` when they are a `rate()`'s nameless buckets.
#[allow(clippy::too_many_arguments)]
fn read_samples(
    file: &str,
    samples: &[Sample],
    types: &[Declared],
    units: &[Declared],
    rates: bool,
    opts: &Options,
    readings: &mut Vec<Reading>,
    skipped: &mut Vec<Skipped>,
) -> Result<(), Error> {
    // Families: every `# TYPE F histogram`, and every `F_bucket` with an `le`.
    let mut families: Vec<String> = types
        .iter()
        .filter(|t| t.value == "histogram")
        .map(|t| t.family.clone())
        .collect();
    for s in samples {
        if let Some(f) = s.name.strip_suffix("_bucket")
            && s.label("le").is_some()
            && !families.iter().any(|x| x == f)
        {
            families.push(f.to_string());
        }
    }
    if rates {
        families = vec![String::new()];
    }
    // What is not a histogram's sample, one line per family.
    let mut others: Vec<(String, usize)> = Vec::new();
    for s in samples {
        let of_histogram = families.iter().any(|f| {
            [
                f.clone() + "_bucket",
                f.clone() + "_sum",
                f.clone() + "_count",
            ]
            .contains(&s.name)
        });
        let family = s
            .name
            .trim_end_matches("_created")
            .trim_end_matches("_total")
            .to_string();
        if !of_histogram && !rates && !others.iter().any(|(f, _)| *f == family) {
            others.push((family, s.line));
        }
    }
    for (family, line) in others {
        let declared = types.iter().find(|t| t.family == family);
        let reason = match declared.map(|t| t.value.as_str()) {
            Some("summary") => {
                "a summary: its quantiles are computed inside one process over its own window and cannot be combined; export a histogram"
            }
            Some("counter") => "a counter: request rates are read from a histogram's `_count`",
            _ => "not a histogram",
        };
        // A histogram's own `_created` line is not another family.
        if families.contains(&family) {
            continue;
        }
        skipped.push(Skipped {
            at: format!("{file}:{line}"),
            key: family,
            reason: reason.into(),
        });
    }
    for family in families {
        if let Some(only) = &opts.metric
            && *only != family
            && !rates
        {
            skipped.push(Skipped {
                at: file.to_string(),
                key: family,
                reason: format!("not the histogram --metric chose ({only})"),
            });
            continue;
        }
        read_family(
            file, &family, samples, units, rates, opts, readings, skipped,
        )?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn read_family(
    file: &str,
    family: &str,
    samples: &[Sample],
    units: &[Declared],
    rates: bool,
    opts: &Options,
    readings: &mut Vec<Reading>,
    skipped: &mut Vec<Skipped>,
) -> Result<(), Error> {
    let display = if rates {
        "rate() of buckets".to_string()
    } else {
        family.to_string()
    };
    let declared_unit = units.iter().find(|u| u.family == family);
    let unit = if rates {
        opts.unit_s.map(|u| (u, unit_name(u)))
    } else {
        let by_name = unit_of(family, None);
        if let Some(d) = declared_unit {
            let declared = unit_of(family, Some(d));
            if by_name.is_some() && declared.map(|u| u.0) != by_name.map(|u| u.0) {
                return Err(error_at(
                    file,
                    d.line,
                    1,
                    family,
                    format!(
                        "mixed units: `# UNIT` says {} but the name says {}",
                        d.value,
                        by_name.map(|u| u.1).unwrap_or("")
                    ),
                ));
            }
            declared.or(by_name)
        } else {
            by_name.or(opts.unit_s.map(|u| (u, unit_name(u))))
        }
    };
    let first_line = samples
        .iter()
        .find(|s| s.name.starts_with(family))
        .map_or(0, |s| s.line);
    let Some((unit_s, unit)) = unit else {
        let reason = if rates {
            "a result without a metric name does not say its unit: give --unit (Prometheus's base unit is s)".to_string()
        } else {
            "not a duration histogram: its name ends in no time unit (_seconds, _milliseconds, _microseconds); give --unit if it measures time".to_string()
        };
        if rates {
            return Err(error_at(file, first_line, 1, "", reason));
        }
        skipped.push(Skipped {
            at: format!("{file}:{first_line}"),
            key: display,
            reason,
        });
        return Ok(());
    };
    // Series by their labels but `le`, in the order first seen.
    let mut series: Vec<Series> = Vec::new();
    let mut label_names: Option<(Vec<String>, usize)> = None;
    for s in samples {
        let part = if rates || s.name == format!("{family}_bucket") {
            "bucket"
        } else if s.name == format!("{family}_sum") {
            "sum"
        } else if s.name == format!("{family}_count") {
            "count"
        } else {
            continue;
        };
        let labels: Vec<(String, String)> = s
            .labels
            .iter()
            .filter(|(k, _)| k != "le")
            .cloned()
            .collect();
        let mut names: Vec<String> = labels.iter().map(|(k, _)| k.clone()).collect();
        names.sort();
        match &label_names {
            None => label_names = Some((names, s.line)),
            Some((want, line)) if *want != names => {
                return Err(error_at(
                    file,
                    s.line,
                    1,
                    &s.name,
                    format!(
                        "mixed label sets: labels {{{}}} where line {line} has {{{}}}; every series of `{display}` must have the same labels",
                        names.join(", "),
                        want.join(", ")
                    ),
                ));
            }
            Some(_) => {}
        }
        let mut sorted = labels.clone();
        sorted.sort();
        let at = match series.iter().position(|x| {
            let mut l = x.labels.clone();
            l.sort();
            l == sorted
        }) {
            Some(at) => at,
            None => {
                series.push(Series {
                    labels,
                    lines: (s.line, s.line),
                    ..Series::default()
                });
                series.len() - 1
            }
        };
        let x = &mut series[at];
        x.lines = (x.lines.0.min(s.line), x.lines.1.max(s.line));
        let field = format!("{}{{{}}}", s.name, show_labels(&s.labels));
        if s.value.is_nan() || s.value < 0.0 {
            return Err(error_at(
                file,
                s.line,
                1,
                &field,
                format!("a count of {} : counts are numbers at least 0", s.value),
            ));
        }
        match part {
            "bucket" => {
                let le_text = s.label("le").unwrap_or_default();
                let le = number(le_text).filter(|v| !v.is_nan()).ok_or_else(|| {
                    error_at(
                        file,
                        s.line,
                        1,
                        &field,
                        format!("cannot read le=\"{le_text}\" as a bound"),
                    )
                })?;
                if x.buckets.iter().any(|b| b.0 == le) {
                    return Err(error_at(
                        file,
                        s.line,
                        1,
                        &field,
                        format!("a second bucket le=\"{le_text}\" for the same series"),
                    ));
                }
                if le.is_infinite() {
                    x.timestamp_ms = s.timestamp_ms;
                }
                x.buckets.push((le, s.value, s.line));
            }
            "sum" => x.sum = Some(s.value),
            _ => x.count = Some((s.value, s.line)),
        }
    }
    // Each series checked, then summed by key.
    type Summed = (
        Key,
        Vec<String>,
        Vec<(f64, f64)>,
        Option<f64>,
        Series,
        [Option<String>; 2],
    );
    let mut by_key: Vec<Summed> = Vec::new();
    for mut x in series {
        let field = |le: &str| {
            format!(
                "{}_bucket{{{}le=\"{le}\"}}",
                if rates { "" } else { family },
                show_labels_comma(&x.labels)
            )
        };
        if x.buckets.is_empty() {
            continue;
        }
        x.buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
        let &(top, top_count, top_line) = x.buckets.last().expect("a bucket");
        if top.is_finite() {
            return Err(error_at(
                file,
                top_line,
                1,
                &field(&bound(top)),
                "no `+Inf` bucket: a histogram's last bucket is le=\"+Inf\", which counts every observation".into(),
            ));
        }
        for w in x.buckets.windows(2) {
            if w[1].1 < w[0].1 {
                return Err(error_at(
                    file,
                    w[1].2,
                    1,
                    &field(&bound(w[1].0)),
                    format!(
                        "non-monotone buckets: {} observations up to {} but {} up to {} (line {}); buckets count cumulatively",
                        w[1].1,
                        bound(w[1].0),
                        w[0].1,
                        bound(w[0].0),
                        w[0].2
                    ),
                ));
            }
        }
        if let Some((count, line)) = x.count
            && (count - top_count).abs() > 1e-9 * count.max(1.0)
        {
            return Err(error_at(
                file,
                line,
                1,
                &format!("{family}_count{{{}}}", show_labels(&x.labels)),
                format!(
                    "the count is {count} but the +Inf bucket (line {top_line}) holds {top_count}"
                ),
            ));
        }
        let probe = Sample {
            name: format!("{family}_bucket"),
            labels: x.labels.clone(),
            value: 0.0,
            timestamp_ms: None,
            line: x.lines.0,
        };
        let (key, summed, used) = key_of(file, &probe, opts)?;
        let cumulative: Vec<(f64, f64)> = x.buckets.iter().map(|b| (b.0 * unit_s, b.1)).collect();
        let sum = x.sum.map(|s| s * unit_s);
        match by_key.iter_mut().find(|e| e.0 == key) {
            Some(e) => {
                let bounds: Vec<f64> = e.2.iter().map(|b| b.0).collect();
                let these: Vec<f64> = cumulative.iter().map(|b| b.0).collect();
                if bounds != these {
                    return Err(error_at(
                        file,
                        x.lines.0,
                        1,
                        &field("…"),
                        format!(
                            "its buckets differ from those of the series at line {} of the same service and operation: they cannot be summed",
                            e.4.lines.0
                        ),
                    ));
                }
                for (a, b) in e.2.iter_mut().zip(&cumulative) {
                    a.1 += b.1;
                }
                e.3 = match (e.3, sum) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
                e.4.lines = (e.4.lines.0.min(x.lines.0), e.4.lines.1.max(x.lines.1));
                for s in summed {
                    if !e.1.contains(&s) {
                        e.1.push(s);
                    }
                }
            }
            None => by_key.push((key, summed, cumulative, sum, x, used)),
        }
    }
    for (key, summed, cumulative, sum, x, [service_label, operation_label]) in by_key {
        readings.push(Reading {
            key,
            service_label,
            operation_label,
            family: display.clone(),
            unit,
            file: file.to_string(),
            lines: x.lines,
            summed,
            what: if rates {
                What::Rate
            } else {
                What::Snapshot(x.timestamp_ms)
            },
            hist: Hist::from_cumulative(&cumulative, sum),
        });
    }
    Ok(())
}

fn show_labels(labels: &[(String, String)]) -> String {
    labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{v}\""))
        .collect::<Vec<_>>()
        .join(",")
}

fn show_labels_comma(labels: &[(String, String)]) -> String {
    let s = show_labels(labels);
    if s.is_empty() { s } else { s + "," }
}

fn read_answer(
    file: &str,
    answer: prometheus_json::Answer,
    opts: &Options,
    readings: &mut Vec<Reading>,
    quantiles: &mut Vec<QuantileReading>,
    skipped: &mut Vec<Skipped>,
) -> Result<(), Error> {
    if !answer.samples.is_empty() {
        read_samples(
            file,
            &answer.samples,
            &[],
            &[],
            false,
            opts,
            readings,
            skipped,
        )?;
    }
    if !answer.rates.is_empty() {
        read_samples(file, &answer.rates, &[], &[], true, opts, readings, skipped)?;
    }
    for n in answer.natives {
        read_native(file, n, opts, readings, skipped)?;
    }
    for s in answer.quantiles {
        let q =
            match s.label("quantile") {
                Some(text) => Some(number(text).filter(|q| *q > 0.0 && *q < 1.0).ok_or_else(
                    || {
                        error_at(
                            file,
                            s.line,
                            1,
                            "quantile",
                            format!("quantile=\"{text}\" is not a number between 0 and 1"),
                        )
                    },
                )?),
                None => opts.quantile,
            };
        let Some(q) = q else {
            return Err(error_at(
                file,
                s.line,
                1,
                "",
                "a `histogram_quantile` result does not say which quantile it is: give --quantile 0.99, or add a `quantile` label with label_replace".into(),
            ));
        };
        let Some(unit_s) = opts.unit_s else {
            return Err(error_at(
                file,
                s.line,
                1,
                "",
                "a result without a metric name does not say its unit: give --unit (Prometheus's base unit is s)".into(),
            ));
        };
        let mut probe = s.clone();
        probe.labels.retain(|(k, _)| k != "quantile");
        let (key, _, _) = key_of(file, &probe, opts)?;
        if s.value.is_nan() {
            skipped.push(Skipped {
                at: format!("{file}:{}", s.line),
                key: format!("histogram_quantile({q})"),
                reason: "NaN: no observations in the range queried".into(),
            });
            continue;
        }
        quantiles.push(QuantileReading {
            key,
            q,
            seconds: s.value * unit_s,
            at: format!("histogram_quantile({q}) ({file}:{})", s.line),
            place: format!("{file}:{}", s.line),
        });
    }
    Ok(())
}

fn read_native(
    file: &str,
    n: Native,
    opts: &Options,
    readings: &mut Vec<Reading>,
    skipped: &mut Vec<Skipped>,
) -> Result<(), Error> {
    let (family, unit) = match &n.name {
        Some(name) => match unit_of(name, None).or(opts.unit_s.map(|u| (u, unit_name(u)))) {
            Some(u) => (name.clone(), u),
            None => {
                skipped.push(Skipped {
                    at: format!("{file}:{}", n.line),
                    key: name.clone(),
                    reason: "not a duration histogram: its name ends in no time unit; give --unit if it measures time".into(),
                });
                return Ok(());
            }
        },
        None => match opts.unit_s {
            Some(u) => (
                "rate() of a native histogram".to_string(),
                (u, unit_name(u)),
            ),
            None => {
                return Err(error_at(
                    file,
                    n.line,
                    1,
                    "",
                    "a result without a metric name does not say its unit: give --unit (Prometheus's base unit is s)".into(),
                ));
            }
        },
    };
    if let Some(only) = &opts.metric
        && n.name.as_deref().is_some_and(|name| name != only)
    {
        return Ok(());
    }
    let probe = Sample {
        name: family.clone(),
        labels: n.labels.clone(),
        value: 0.0,
        timestamp_ms: n.timestamp_ms,
        line: n.line,
    };
    let (key, summed, [service_label, operation_label]) = key_of(file, &probe, opts)?;
    let buckets: Vec<Bucket> = n
        .buckets
        .iter()
        .map(|b| Bucket {
            lo: b.lo * unit.0,
            hi: b.hi * unit.0,
            count: b.count,
        })
        .collect();
    let reading = Reading {
        key,
        service_label,
        operation_label,
        family,
        unit: unit.1,
        file: file.to_string(),
        lines: (n.line, n.line),
        summed,
        what: if n.name.is_some() {
            What::Snapshot(n.timestamp_ms)
        } else {
            What::Rate
        },
        hist: Hist {
            buckets,
            sum: Some(n.sum * unit.0),
        },
    };
    // Several native series of one key (other labels) are summed, bucket by bucket.
    match readings
        .iter_mut()
        .find(|r| r.key == reading.key && r.file == reading.file && r.family == reading.family)
    {
        Some(r) => {
            for b in &reading.hist.buckets {
                match r
                    .hist
                    .buckets
                    .iter_mut()
                    .find(|a| a.lo == b.lo && a.hi == b.hi)
                {
                    Some(a) => a.count += b.count,
                    None => r.hist.buckets.push(*b),
                }
            }
            r.hist.buckets.sort_by(|a, b| a.lo.total_cmp(&b.lo));
            if r.hist.buckets.windows(2).any(|w| w[1].lo < w[0].hi) {
                return Err(error_at(
                    file,
                    n.line,
                    1,
                    &r.family,
                    "its buckets overlap those of another series of the same service and operation (another schema): they cannot be summed".into(),
                ));
            }
            r.hist.sum = r.hist.sum.zip(reading.hist.sum).map(|(a, b)| a + b);
            r.lines.1 = r.lines.1.max(n.line);
            for s in reading.summed {
                if !r.summed.contains(&s) {
                    r.summed.push(s);
                }
            }
        }
        None => readings.push(reading),
    }
    Ok(())
}

/// What the readings of one key measured: the histogram, the request rate if any, where.
struct Measured {
    hist: Hist,
    rate: Option<(f64, String)>,
    from: String,
    /// `file:line` of the (last) reading, for the list of what was not imported.
    at: String,
    /// Counts since the process started, not over an interval: said beside the work.
    since_start: bool,
}

/// The readings of one key made one histogram: a rate as it is, two snapshots or more
/// differenced (first and last), one snapshot as it is, without a rate.
fn combine(mut rs: Vec<Reading>, opts: &Options, out: &mut Imported) -> Result<Measured, Error> {
    let first = &rs[0];
    if let Some(other) = rs
        .iter()
        .find(|r| r.family != first.family || r.unit != first.unit)
    {
        let units = if other.unit != first.unit {
            format!(" (mixed units: {} and {})", first.unit, other.unit)
        } else {
            String::new()
        };
        return Err(error_at(
            &other.file,
            other.lines.0,
            1,
            &other.family,
            format!(
                "a second histogram of service `{}`{}: {} and {}{units}; choose one with --metric",
                first.key.service,
                first
                    .key
                    .operation
                    .as_ref()
                    .map(|o| format!(" operation `{o}`"))
                    .unwrap_or_default(),
                source(first),
                source(other)
            ),
        ));
    }
    if rs.iter().any(|r| r.what == What::Rate) {
        if rs.len() > 1 {
            let r = &rs[1];
            return Err(error_at(
                &r.file,
                r.lines.0,
                1,
                &r.family,
                format!(
                    "a second reading of a rate() result: {} and {}",
                    source(&rs[0]),
                    source(r)
                ),
            ));
        }
        let r = rs.remove(0);
        let rate = r.hist.count();
        let from = source(&r);
        return Ok(Measured {
            at: format!("{}:{}", r.file, r.lines.0),
            rate: Some((rate, format!("the +Inf bucket's rate, {from}"))),
            hist: r.hist,
            from,
            since_start: false,
        });
    }
    if rs.len() == 1 {
        let r = rs.remove(0);
        out.skipped.push(Skipped {
            at: format!("{}:{}", r.file, r.lines.0),
            key: format!("{}_count", r.family),
            reason: "one snapshot of cumulative counters has no rate (they count since the process started): give two snapshots and the time between them (timestamps or --interval), or a rate() query's JSON".into(),
        });
        return Ok(Measured {
            at: format!("{}:{}", r.file, r.lines.0),
            from: source(&r),
            hist: r.hist,
            rate: None,
            since_start: true,
        });
    }
    // Snapshots in time order: by their timestamps when each has one, else as given.
    let stamps: Vec<Option<i64>> = rs
        .iter()
        .map(|r| match r.what {
            What::Snapshot(t) => t,
            What::Rate => None,
        })
        .collect();
    if stamps.iter().all(Option::is_some) {
        rs.sort_by_key(|r| match r.what {
            What::Snapshot(t) => t,
            What::Rate => None,
        });
    }
    let (a, b) = (&rs[0], &rs[rs.len() - 1]);
    let interval = match (opts.interval_s, a.what, b.what) {
        (Some(s), _, _) => s,
        (None, What::Snapshot(Some(t0)), What::Snapshot(Some(t1))) if t1 > t0 => {
            (t1 - t0) as f64 / 1000.0
        }
        _ => {
            return Err(error_at(
                &b.file,
                b.lines.0,
                1,
                &b.family,
                format!(
                    "two snapshots of service `{}` ({} and {}) need the time between them: give --interval (like 5m), or samples with timestamps",
                    a.key.service,
                    source(a),
                    source(b)
                ),
            ));
        }
    };
    let hist = b
        .hist
        .since(&a.hist)
        .map_err(|e| error_at(&b.file, b.lines.0, 1, &b.family, e))?;
    let rate = hist.count() / interval;
    let from = format!("{} ({} less {})", series(b), place(b), place(a));
    Ok(Measured {
        at: format!("{}:{}", b.file, b.lines.0),
        rate: Some((
            rate,
            format!(
                "_count rose {} over {} s: {from}",
                sig(hist.count()),
                sig(interval)
            ),
        )),
        hist,
        from,
        since_start: false,
    })
}

/// A leaf's work, to be written under its service.
struct Leaf {
    service: String,
    operation: Option<String>,
    work: String,
    from: String,
}

/// What one key gives: work for a leaf, calibration expectations otherwise, and its rate.
fn emit(
    key: &Key,
    measured: Option<Measured>,
    quantiles: Vec<QuantileReading>,
    opts: &Options,
    out: &mut Imported,
    leaves: &mut Vec<Leaf>,
) -> Result<(), Error> {
    let service = policy_name(&key.service);
    let operation = key.operation.as_deref().map(policy_name);
    let what = match &operation {
        Some(op) => format!("service `{service}` operation `{op}`"),
        None => format!("service `{service}`"),
    };
    let from_any = measured
        .as_ref()
        .map(|m| m.at.clone())
        .or_else(|| quantiles.first().map(|q| q.place.clone()))
        .unwrap_or_default();
    let skip = |out: &mut Imported, key: String, reason: String| {
        out.skipped.push(Skipped {
            at: from_any.clone(),
            key,
            reason,
        })
    };
    // The scenario's shape of this service, when one was given.
    let shape = match &opts.topology {
        None => None,
        Some(t) => match t.services.iter().find(|s| s.name == service) {
            Some(s) => Some((t, s)),
            None => {
                skip(
                    out,
                    what.clone(),
                    format!("{} has no service `{service}`", t.file),
                );
                return Ok(());
            }
        },
    };
    let calls = match (shape, &operation) {
        (Some((t, s)), Some(op)) => match s.operations.iter().find(|o| o.0 == *op) {
            Some(o) => Some(o.1),
            None => {
                skip(
                    out,
                    what.clone(),
                    format!("service `{service}` of {} has no operation `{op}`", t.file),
                );
                return Ok(());
            }
        },
        (Some((_, s)), None) => Some(s.calls || s.operations.iter().any(|o| o.1)),
        (None, _) => None,
    };
    let leaf = opts.leaf.contains(&service) || calls == Some(false);
    if let Some((rate, from)) = measured.as_ref().and_then(|m| m.rate.clone()) {
        match &operation {
            None => out.elsewhere.push(Elsewhere {
                set: format!("client.<CLIENT>.rate={}", sig(rate)),
                from: format!("{what}: {from}"),
            }),
            Some(op) => out.notes.push(format!(
                "{what}: {} requests/s, its weight in a client's `mix` ({{ operation = \"{op}\", weight = {} }}); {from}",
                sig(rate),
                sig(rate)
            )),
        }
    }
    if leaf {
        let Some(m) = measured else {
            skip(out, what, "quantiles alone give no 0th or 100th percentile: a leaf's work needs the histogram".into());
            return Ok(());
        };
        if operation.is_none() && shape.is_some_and(|(_, s)| !s.operations.is_empty()) {
            skip(out, what, "the service has operations in the scenario, each with its own work: import with an operation label".into());
            return Ok(());
        }
        match m.hist.percentiles(opts.tail_max_s) {
            Ok(rows) => {
                let since = if m.since_start {
                    ", counted since the process started"
                } else {
                    ""
                };
                leaves.push(Leaf {
                    service,
                    operation,
                    work: empirical(&rows),
                    from: format!(
                        "{}: {} requests{since}; the time to answer, its queueing in production included",
                        m.from,
                        sig(m.hist.count())
                    ),
                });
            }
            Err(reason) => skip(out, format!("{what} work"), reason),
        }
        return Ok(());
    }
    // A service with calls (or of unknown shape): calibration targets.
    let metric_of = |prefix: String, what: &str| format!("{prefix}.{what}");
    let service_prefix = match &operation {
        Some(op) => format!("service.{service}.op.{op}"),
        None => format!("service.{service}"),
    };
    if let Some(m) = &measured {
        match m.hist.mean() {
            Some(mean) => band(
                out,
                &metric_of(service_prefix.clone(), "sojourn_mean_ms"),
                mean * 1e3,
                opts.tolerance,
                format!("{what}: production's mean time to answer, exact (_sum / _count)"),
                &m.from,
            ),
            None => skip(
                out,
                format!("{what} mean"),
                "no `_sum`: the mean is not known (a rate() of buckets has none; query rate(x_sum) / rate(x_count) apart)".into(),
            ),
        }
    }
    // The quantiles: from the histogram (p50, p99), or as given.
    let mut qs: Vec<(f64, f64, String)> = Vec::new();
    if let Some(m) = &measured {
        for q in [0.5, 0.99] {
            match m.hist.quantile(q) {
                Some(v) => qs.push((
                    q,
                    v.value,
                    format!(
                        "interpolated in its bucket ({} to {} s): {}",
                        sig(v.lo),
                        sig(v.hi),
                        m.from
                    ),
                )),
                None => skip(
                    out,
                    format!("{what} p{}", q * 100.0),
                    "it lies in the +Inf bucket, above the largest bound: not known".into(),
                ),
            }
        }
    }
    for q in quantiles {
        if qs.iter().any(|x| x.0 == q.q) {
            skip(
                out,
                q.at.clone(),
                "the histogram gives this quantile already".into(),
            );
            continue;
        }
        qs.push((q.q, q.seconds, q.at));
    }
    for (q, seconds, from) in qs {
        let name = match q {
            0.5 => "attempt_latency_p50_ms",
            0.99 => "attempt_latency_p99_ms",
            _ => {
                skip(
                    out,
                    from,
                    format!(
                        "cascade measures an attempt's latency at p50 and p99, not p{}",
                        q * 100.0
                    ),
                );
                continue;
            }
        };
        let edges: Vec<String> = match shape {
            Some((_, s)) => s
                .edges
                .iter()
                .filter(|(_, op)| operation.is_none() || *op == operation)
                .map(|(e, _)| e.clone())
                .collect(),
            None => {
                skip(
                    out,
                    format!("{what} p{}", q * 100.0),
                    format!(
                        "{} ms: an attempt's latency is measured per caller (`edge.<caller>.{service}.{name}`), and only the scenario knows the callers: give --scenario",
                        sig(seconds * 1e3)
                    ),
                );
                continue;
            }
        };
        if edges.is_empty() {
            skip(
                out,
                format!("{what} p{}", q * 100.0),
                "no caller calls it in the scenario".into(),
            );
        }
        for e in edges {
            band(
                out,
                &format!("edge.{e}.{name}"),
                seconds * 1e3,
                opts.tolerance,
                format!(
                    "{what}: production's p{} as its caller sees it (the time at {service}, plus the edge's network latency if it has any)",
                    q * 100.0
                ),
                &from,
            );
        }
    }
    Ok(())
}

/// Two expectations holding `metric` within ± `tolerance` of production's `value`.
fn band(out: &mut Imported, metric: &str, value: f64, tolerance: f64, note: String, from: &str) {
    let pct = sig(tolerance * 100.0);
    for (op, v, side) in [
        (">=", value * (1.0 - tolerance), "less"),
        ("<=", value * (1.0 + tolerance), "plus"),
    ] {
        let mut f = Fragment::new("[[expect]]", Some(format!("calibration, {note}")));
        f.set("metric", Toml::Str(metric.to_string()), from.to_string());
        f.set(
            "op",
            Toml::Str(op.into()),
            format!("within ±{pct}% (--tolerance)"),
        );
        f.set(
            "value",
            Toml::Float(round3(v)),
            format!("{} ms {side} {pct}%", sig(value)),
        );
        out.fragments.push(f);
    }
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The rows as an `empirical` distribution's inline table.
fn empirical(rows: &[(f64, f64)]) -> String {
    let rows: Vec<String> = rows
        .iter()
        .map(|(p, s)| {
            let ns = (s * 1e9).round() as u64;
            format!("[{}, \"{}\"]", percent(*p), duration_text(ns))
        })
        .collect();
    format!(
        "{{ dist = \"empirical\", percentiles = [{}] }}",
        rows.join(", ")
    )
}

fn percent(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        p.to_string()
    }
}

/// The leaves' work as `[[service]]` tables, a service's operations under it.
fn write_leaves(leaves: Vec<Leaf>, out: &mut Imported) {
    let mut last: Option<String> = None;
    for l in leaves {
        if last.as_ref() != Some(&l.service) {
            let mut f = Fragment::new(
                "[[service]]",
                Some(format!(
                    "service `{}`: a leaf (it makes no calls), so its measured time to answer stands for its work",
                    l.service
                )),
            );
            f.set(
                "name",
                Toml::Str(l.service.clone()),
                "the histogram's service label or --service",
            );
            if l.operation.is_none() {
                f.set("work", Toml::Raw(l.work.clone()), l.from.clone());
            }
            out.fragments.push(f);
            last = Some(l.service.clone());
        }
        if let Some(op) = &l.operation {
            let mut f = Fragment::new("[[service.operation]]", None);
            f.set(
                "name",
                Toml::Str(op.clone()),
                "the histogram's operation label",
            );
            f.set("work", Toml::Raw(l.work.clone()), l.from.clone());
            out.fragments.push(f);
        }
    }
}
