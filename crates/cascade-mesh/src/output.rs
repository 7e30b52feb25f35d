//! The measured run's files, under the simulator's names for the subset it measures:
//! summary.json and timeseries.csv (read by `cascade diff`, `chart`, `report`), the
//! scenario.toml it ran, mesh.json (the mesh's own facts: hold lateness, wall time), and with
//! `--traces` its spans (traces.json, OTLP/JSON by the simulator's encoder).

use crate::Measured;
use crate::record::{Recorder, Request};
use cascade::atomic::write_atomic;
use cascade::metrics::RunMetrics;
use cascade::model::{Model, Outcome};
use cascade::output::run_files::{summary_json, timeseries_csv};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Every measured metric: summary values, and per bucket.
/// Summary values in order, and per-bucket values by metric.
pub type Metrics = (Vec<(String, f64)>, BTreeMap<String, Vec<f64>>);

/// A client's metrics (or one operation's of its mix) under prefix `p`, over `reqs`.
fn client_metrics(
    model: &Model,
    rec: &Recorder,
    p: &str,
    reqs: &[Request],
    summary: &mut Vec<(String, f64)>,
    series: &mut BTreeMap<String, Vec<f64>>,
) {
    let duration_s = model.duration as f64 / 1e9;
    let bucket_s = model.bucket as f64 / 1e9;
    let buckets = model.end().div_ceil(model.bucket) as usize;
    let window = |t: u64| t >= rec.warmup && t < rec.end;
    let bucket = |t: u64| (t / rec.bucket) as usize;
    let (mut requests, mut success, mut finished) = (0.0, 0.0, 0.0);
    let mut errors: BTreeMap<&str, f64> = Outcome::failures()
        .iter()
        .map(|o| (o.name(), 0.0))
        .collect();
    let mut latencies = Vec::new();
    let (mut req_b, mut ok_b) = (vec![0.0; buckets], vec![0.0; buckets]);
    let mut unanswered = 0.0;
    for r in reqs {
        if r.start < rec.end {
            req_b[bucket(r.start)] += 1.0;
        }
        if window(r.start) {
            requests += 1.0;
        }
        match r.end {
            Some((end, outcome)) if end < rec.end && !window(end) => {
                if outcome.is_success() {
                    ok_b[bucket(end)] += 1.0;
                }
            }
            Some((end, outcome)) if window(end) => {
                finished += 1.0;
                latencies.push((end.saturating_sub(r.start)) as f64 / 1e6);
                if outcome.is_success() {
                    success += 1.0;
                    ok_b[bucket(end)] += 1.0;
                } else {
                    *errors.entry(outcome.name()).or_default() += 1.0;
                }
            }
            Some(_) => {}
            None => unanswered += 1.0,
        }
    }
    latencies.sort_by(f64::total_cmp);
    let mean = latencies.iter().sum::<f64>() / latencies.len().max(1) as f64;
    summary.extend([
        (format!("{p}.requests"), requests),
        (format!("{p}.offered_rps"), requests / duration_s),
        (format!("{p}.in_flight_end"), unanswered),
        (format!("{p}.success"), success),
        (
            format!("{p}.success_ratio"),
            if finished > 0.0 {
                success / finished
            } else {
                0.0
            },
        ),
        (format!("{p}.goodput_rps"), success / duration_s),
        (format!("{p}.latency_p50_ms"), percentile(&latencies, 0.5)),
        (format!("{p}.latency_p99_ms"), percentile(&latencies, 0.99)),
        (format!("{p}.latency_mean_ms"), mean),
    ]);
    summary.extend(
        errors
            .into_iter()
            .map(|(k, v)| (format!("{p}.errors.{k}"), v)),
    );
    series.insert(format!("{p}.requests"), req_b);
    series.insert(
        format!("{p}.goodput_rps"),
        ok_b.iter().map(|n| n / bucket_s).collect(),
    );
    series.insert(format!("{p}.success"), ok_b);
}

pub fn metrics(model: &Model, m: &Measured) -> Metrics {
    let rec = &m.rec;
    let first = (model.warmup / model.bucket) as usize;
    let mut summary = Vec::new();
    let mut series = rec.series();
    for (c, client) in model.clients.iter().enumerate() {
        let p = format!("client.{}", client.name);
        let reqs = rec.requests[c]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        client_metrics(model, rec, &p, &reqs, &mut summary, &mut series);
        // Per operation of its mix, as the simulator's `client.<c>.op.<o>.*`.
        if client.mix.is_some() {
            for (k, call) in client.calls().enumerate() {
                let op = &model.services[call.to].operations[usize::from(call.operation) - 1];
                let of_op: Vec<Request> = reqs.iter().filter(|r| r.op == k).copied().collect();
                let p = format!("{p}.op.{}", op.name);
                client_metrics(model, rec, &p, &of_op, &mut summary, &mut series);
            }
        }
    }
    let total = |name: &str| {
        series
            .get(name)
            .map_or(0.0, |v| v.iter().skip(first).sum::<f64>())
    };
    let limits = rec.level_means();
    let series_of_levels = limits.clone();
    for e in &model.edges {
        let p = format!("edge.{}", e.name);
        let (calls, attempts) = (
            total(&format!("{p}.calls")),
            total(&format!("{p}.attempts")),
        );
        for n in [
            "calls",
            "attempts",
            "retries",
            "success",
            "breaker_opens",
            "half_open_probes",
            "rejected_breaker",
            "rejected_bulkhead",
            "limited",
            "rate_limited",
            "throttled",
            "budget_exhausted",
        ] {
            summary.push((format!("{p}.{n}"), total(&format!("{p}.{n}"))));
        }
        for o in Outcome::failures() {
            summary.push((
                format!("{p}.errors.{}", o.name()),
                total(&format!("{p}.errors.{}", o.name())),
            ));
        }
        summary.push((
            format!("{p}.amplification"),
            if calls > 0.0 { attempts / calls } else { 0.0 },
        ));
        // The adaptive limit's time-average, on an edge whose calls have one.
        let name = format!("{p}.limit_mean");
        if let Some(mean) = limits.get(&name) {
            summary.push((name, window_mean(model, mean)));
        }
    }
    for s in &model.services {
        let p = format!("service.{}", s.name);
        for n in ["arrivals", "served", "rejected", "wasted_work_s"] {
            summary.push((format!("{p}.{n}"), total(&format!("{p}.{n}"))));
        }
    }
    series.extend(series_of_levels);
    (summary, series)
}

/// A level's time-average over the measured window, from its per-bucket means.
fn window_mean(model: &Model, per_bucket: &[f64]) -> f64 {
    let (bucket, end) = (model.bucket, model.end());
    let first = (model.warmup / bucket) as usize;
    let (mut area, mut span) = (0.0, 0.0);
    for (b, mean) in per_bucket.iter().enumerate().skip(first) {
        let from = b as u64 * bucket;
        let len = ((from + bucket).min(end) - from) as f64;
        area += mean * len;
        span += len;
    }
    if span > 0.0 { area / span } else { 0.0 }
}

/// Writes the run's files into `dir`, summary.json and timeseries.csv by the simulator's own
/// writers (`cascade::output::run_files`), so the two read alike.
pub fn write(dir: &Path, model: &Model, text: &str, m: &Measured) -> cascade::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| cascade::Error::Usage(format!("{}: {e}", dir.display())))?;
    let (summary, series) = metrics(model, m);
    let names: Vec<String> = series.keys().cloned().collect();
    let buckets = series.values().map(Vec::len).max().unwrap_or(0);
    let mut values = Vec::with_capacity(buckets * names.len());
    for b in 0..buckets {
        values.extend(series.values().map(|v| v.get(b).copied().unwrap_or(0.0)));
    }
    let run = RunMetrics {
        summary,
        names,
        series: values,
        bucket_ns: model.bucket,
    };
    write_atomic(
        &dir.join("summary.json"),
        summary_json(model, &run).as_bytes(),
    )?;
    write_atomic(&dir.join("timeseries.csv"), timeseries_csv(&run).as_bytes())?;
    write_atomic(&dir.join("scenario.toml"), text.as_bytes())?;
    let (holds, p50, p99, max) = m.lateness.figures();
    let facts = json!({
        "wall_s": m.wall_s,
        "holds": holds,
        "hold_lateness_p50_ms": p50,
        "hold_lateness_mean_ms": m.lateness.mean_ms(),
        "hold_lateness_p99_ms": p99,
        "hold_lateness_max_ms": max,
    });
    write_atomic(
        &dir.join("mesh.json"),
        (facts.to_string() + "\n").as_bytes(),
    )?;
    // The spans last: a trace over its limit is refused after the measured run is safe.
    match &m.traces {
        None => Ok(()),
        Some(Ok(spans)) => write_atomic(
            &dir.join(crate::trace::FILE),
            cascade::trace_export::encode::request(spans, m.epoch_ns).as_bytes(),
        ),
        Some(Err(limit)) => Err(cascade::Error::Usage(format!(
            "the trace has more than {limit} spans, so {} was not written: trace a share of the requests (--trace-sample) or raise --trace-limit",
            crate::trace::FILE
        ))),
    }
}
