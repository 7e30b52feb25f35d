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

mod alert_map;
mod answer;
mod combine;
mod emit;
mod family;
mod maps;
mod promql;
mod rules;
pub use alert_map::Recorded;
use answer::read_answer;
use combine::{Measured, combine};
use emit::{Leaf, emit, write_leaves};
use family::read_samples;

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
    /// `--map SELECTOR=METRIC`, as given: what an alerting rule's series stand for.
    pub maps: Vec<String>,
    /// Prometheus' global `evaluation_interval` (`--evaluation-interval`), ns: how often a
    /// rule of a group without `interval` is evaluated.
    pub evaluation_ns: u64,
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
            maps: Vec::new(),
            evaluation_ns: 60_000_000_000,
        }
    }
}

/// The shape of the scenario the histograms calibrate (filled by the command from the
/// model: this module reads no scenario itself).
#[derive(Debug, Clone, Default)]
pub struct Topology {
    pub file: String,
    pub services: Vec<Shape>,
    /// `scenario.bucket`, ns: an alert reads one bucket.
    pub bucket_ns: u64,
    /// Every metric the scenario's time series records, with its catalogue unit.
    pub series: Vec<Recorded>,
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
/// Alerting rules files (`.yml`, `.yaml`) come out as `[[alert]]` tables (`rules`).
pub fn import(files: &[(String, String)], opts: &Options) -> Result<Imported, Error> {
    let (rule_files, files): (Vec<_>, Vec<_>) = files.iter().cloned().partition(|(f, _)| {
        let lower = f.to_ascii_lowercase();
        lower.ends_with(".yml") || lower.ends_with(".yaml")
    });
    let mut out = Imported::default();
    if !rule_files.is_empty() {
        maps::import_rules(&rule_files, opts, &mut out)?;
        if files.is_empty() {
            return Ok(out);
        }
    } else if !opts.maps.is_empty() {
        return Err(Error::Usage(
            "--map maps an alerting rule's series: give a rules file (.yml or .yaml)".into(),
        ));
    }
    let mut readings = Vec::new();
    let mut quantiles = Vec::new();
    let mut skipped = Vec::new();
    for (file, text) in &files {
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
    out.skipped.extend(skipped);
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
