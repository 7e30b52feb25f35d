//! The HTTP API's JSON answers: an instant vector of classic buckets, a `rate()`, a
//! `histogram_quantile`, and native histograms read from their `histogram` field.

use super::*;

pub(super) fn read_answer(
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

pub(super) fn read_native(
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
