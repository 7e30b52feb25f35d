//! The histograms of one file's samples (a text file's, or a JSON answer's classic buckets),
//! family by family and series by series, checked and read into `Reading`s.

use super::*;

/// One histogram family's series in one file, cumulative counts by `le` as written.
#[derive(Default)]
pub(super) struct Series {
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
pub(super) fn read_samples(
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
pub(super) fn read_family(
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

pub(super) fn show_labels(labels: &[(String, String)]) -> String {
    labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{v}\""))
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn show_labels_comma(labels: &[(String, String)]) -> String {
    let s = show_labels(labels);
    if s.is_empty() { s } else { s + "," }
}
