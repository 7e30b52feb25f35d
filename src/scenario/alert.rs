//! Compiles `[[alert]]`: a Prometheus-style alerting rule over a metric's time series (a
//! threshold, a ratio of two metrics, or a comparison with the metric's own baseline), or the
//! SRE workbook's multi-window burn-rate alert on a client's success; each with its evaluation
//! interval, `for` and `keep_firing_for`.

use super::document::{Located, Source};
use super::schema::RawAlert;
use crate::metrics::catalogue;
use crate::model::alert::{Alert, Cmp, Condition};
use crate::model::{Client, Model, Service};

/// What the rules may name, and the run's clock.
pub struct Scope<'a> {
    pub clients: &'a [Client],
    pub services: &'a [Service],
    /// `[[fault]]` starts, ns.
    pub fault_starts: Vec<u64>,
    pub warmup: u64,
    pub end: u64,
    pub bucket: u64,
}

pub fn compile_alerts(src: &Source, raw: &[RawAlert], scope: &Scope) -> Located<Vec<Alert>> {
    let mut out: Vec<Alert> = Vec::new();
    for a in raw {
        let alert = compile_alert(src, a, scope)?;
        if out.iter().any(|o| o.name == alert.name) {
            return Err(src.error_at_nth(
                &format!("alert.{}.name", alert.name),
                1,
                format!("a second alert named `{}`", alert.name),
            ));
        }
        out.push(alert);
    }
    Ok(out)
}

/// Errors name the field as the document does, by the alert's name: `alert.<name>.<key>`.
fn compile_alert(src: &Source, a: &RawAlert, scope: &Scope) -> Located<Alert> {
    let at = |k: &str| format!("alert.{}.{k}", a.name);
    super::compile::check_name(src, &at("name"), &a.name)?;
    let b = scope.bucket;
    let whole = |key: &str, d: u64| {
        if d == 0 || !d.is_multiple_of(b) {
            Err(src.error_at(
                &at(key),
                format!(
                    "must be a whole number of buckets, at least one (scenario.bucket is {})",
                    crate::time::format_duration(b)
                ),
            ))
        } else {
            Ok(d)
        }
    };
    let every = whole("every", a.every.map_or(b, |d| d.0))?;
    let hold = a.hold.map_or(0, |d| d.0);
    let keep_firing_for = a.keep_firing_for.map_or(0, |d| d.0);
    let kinds = [
        ("metric", a.metric.is_some()),
        ("ratio", a.ratio.is_some()),
        ("slo", a.slo.is_some()),
    ];
    let given: Vec<&str> = kinds.iter().filter(|(_, g)| *g).map(|(k, _)| *k).collect();
    let condition = match given.as_slice() {
        ["slo"] => burn(src, &at, a, scope, &whole)?,
        [kind] => {
            for (key, set) in [
                ("of", a.of.is_some()),
                ("long", a.long.is_some()),
                ("short", a.short.is_some()),
                ("burn", a.burn.is_some()),
            ] {
                if set {
                    return Err(src.error_at(
                        &at(key),
                        "belongs to a burn-rate alert (`slo`), not to one on `metric` or `ratio`",
                    ));
                }
            }
            let op_text =
                a.op.as_deref()
                    .ok_or_else(|| src.error_at(&at("op"), "missing: `>`, `>=`, `<` or `<=`"))?;
            let op = Cmp::parse(op_text).ok_or_else(|| {
                src.error_at(
                    &at("op"),
                    format!("unknown comparison `{op_text}`; valid: > >= < <="),
                )
            })?;
            let value = a
                .value
                .ok_or_else(|| src.error_at(&at("value"), "missing: the number compared with"))?;
            if !value.is_finite() {
                return Err(src.error_at(&at("value"), "must be a finite number"));
            }
            if *kind == "ratio" {
                if a.baseline.is_some() {
                    return Err(src.error_at(
                        &at("baseline"),
                        "compares `metric` with its own baseline: not with `ratio`",
                    ));
                }
                let pair = a.ratio.as_deref().unwrap_or_default();
                let [numerator, denominator] = pair else {
                    return Err(src.error_at(
                        &at("ratio"),
                        format!(
                            "takes two metrics, [numerator, denominator]; got {}",
                            pair.len()
                        ),
                    ));
                };
                series(src, &at("ratio"), numerator, scope)?;
                series(src, &at("ratio"), denominator, scope)?;
                Condition::Ratio {
                    numerator: numerator.clone(),
                    denominator: denominator.clone(),
                    op,
                    value,
                }
            } else {
                let metric = a.metric.clone().unwrap_or_default();
                series(src, &at("metric"), &metric, scope)?;
                if a.baseline == Some(true) {
                    let span = baseline_span(scope).ok_or_else(|| {
                        src.error_at(
                            &at("baseline"),
                            "no baseline span: no whole measured bucket ends before the first fault (or the run's end, without one), and there is no warm-up",
                        )
                    })?;
                    Condition::Baseline {
                        metric,
                        span,
                        op,
                        value,
                    }
                } else {
                    Condition::Threshold { metric, op, value }
                }
            }
        }
        [] => {
            return Err(src.error_at(
                &at("name"),
                "an alert needs a condition: `metric` (with `op` and `value`), `ratio` (with `op` and `value`) or `slo` (a burn-rate alert)",
            ));
        }
        [_, second, ..] => {
            return Err(src.error_at(
                &at(second),
                format!(
                    "an alert has one condition: give one of `metric`, `ratio` and `slo`, not {}",
                    given.join(" and ")
                ),
            ));
        }
    };
    Ok(Alert {
        name: a.name.clone(),
        condition,
        every,
        hold,
        keep_firing_for,
    })
}

/// The baseline of `baseline = true`: the whole measured buckets before the first fault starts
/// (every measured bucket when there is no fault); when no whole bucket is left, the warm-up's.
fn baseline_span(scope: &Scope) -> Option<(u64, u64)> {
    let b = scope.bucket;
    let first = scope
        .fault_starts
        .iter()
        .copied()
        .min()
        .unwrap_or(scope.end);
    let cut = (first / b) * b;
    if cut >= scope.warmup + b {
        Some((scope.warmup, cut))
    } else if scope.warmup > 0 {
        Some((0, scope.warmup))
    } else {
        None
    }
}

fn burn(
    src: &Source,
    at: &dyn Fn(&str) -> String,
    a: &RawAlert,
    scope: &Scope,
    whole: &dyn Fn(&str, u64) -> Located<u64>,
) -> Located<Condition> {
    for (key, set) in [
        ("op", a.op.is_some()),
        ("value", a.value.is_some()),
        ("baseline", a.baseline.is_some()),
    ] {
        if set {
            return Err(src.error_at(
                &at(key),
                "a burn-rate alert (`slo`) compares its windows' burn with `burn`: no `op`, `value` or `baseline`",
            ));
        }
    }
    let slo = a.slo.unwrap_or_default();
    if !(slo > 0.0 && slo < 1.0) {
        return Err(src.error_at(
            &at("slo"),
            "the objective is a share of successful requests, above 0 and below 1 (0.999)",
        ));
    }
    let of = a.of.as_deref().ok_or_else(|| {
        src.error_at(
            &at("of"),
            "missing: `client.<c>` or `client.<c>.op.<o>`, whose success the objective is on",
        )
    })?;
    let client_ok = of
        .strip_prefix("client.")
        .map(|rest| {
            let (c, op) = rest
                .split_once('.')
                .map_or((rest, None), |(c, r)| (c, Some(r)));
            scope.clients.iter().any(|x| x.name == c)
                && op.is_none_or(|r| {
                    r.strip_prefix("op.")
                        .is_some_and(|o| !o.is_empty() && !o.contains('.'))
                })
        })
        .unwrap_or(false);
    if !client_ok {
        return Err(src.error_at(
            &at("of"),
            format!("`{of}` is not a client of this scenario, `client.<c>`, or one operation of its mix, `client.<c>.op.<o>`"),
        ));
    }
    series(src, &at("of"), &format!("{of}.success"), scope)?;
    let long = whole(
        "long",
        a.long.map(|d| d.0).ok_or_else(|| {
            src.error_at(
                &at("long"),
                "missing: the long window (1h in the workbook's fast-burn alert)",
            )
        })?,
    )?;
    let short = whole(
        "short",
        a.short.map(|d| d.0).ok_or_else(|| {
            src.error_at(
                &at("short"),
                "missing: the short window (5m in the workbook's fast-burn alert)",
            )
        })?,
    )?;
    if short >= long {
        return Err(src.error_at(&at("short"), "must be shorter than `long`"));
    }
    let burn = a.burn.ok_or_else(|| {
        src.error_at(
            &at("burn"),
            "missing: the burn-rate factor (14.4 pages at 2% of a 30-day budget in 1 h)",
        )
    })?;
    if !(burn.is_finite() && burn > 0.0) {
        return Err(src.error_at(&at("burn"), "must be a finite number above 0"));
    }
    Ok(Condition::Burn {
        of: of.to_string(),
        slo,
        long,
        short,
        burn,
    })
}

/// `name` must be a catalogue metric recorded per bucket, of a client, service or edge of this
/// scenario.
fn series(src: &Source, path: &str, name: &str, scope: &Scope) -> Located<()> {
    let refuse = |why: String| Err(src.error_at(path, format!("`{name}` {why}")));
    let Some(doc) = catalogue::describe(name) else {
        return refuse("is not a metric of the catalogue (`cascade metrics` lists them)".into());
    };
    let segments: Vec<&str> = name.split('.').collect();
    let client = |c: &str| scope.clients.iter().any(|x| x.name == c);
    let service = |s: &str| scope.services.iter().any(|x| x.name == s);
    let known = match segments.as_slice() {
        ["client", c, ..] => client(c),
        ["service", s, ..] => service(s),
        ["edge", from, to, ..] => (client(from) || service(from)) && service(to),
        _ => return refuse(
            "is not recorded per bucket: an alert watches a client's, service's or edge's metric"
                .into(),
        ),
    };
    if !known {
        return refuse("names a client, service or edge this scenario does not have".into());
    }
    if doc.meaning.contains("summary only") {
        return refuse("is in the summary only, not in the time series an alert watches".into());
    }
    Ok(())
}

/// Every series the model's alerts read is one its runs record: checked on the names a
/// recorder gives the model before any event and its named pools' (as `sweep::metric_names`
/// names them), so a
/// metric recorded only where its feature is (`service.<s>.restarts` without orchestration, an
/// operation not in the mix) is refused here rather than never firing.
pub fn check_series(src: &Source, model: &Model) -> Located<()> {
    if model.alerts.is_empty() {
        return Ok(());
    }
    let mut short = model.clone();
    short.warmup = 0;
    short.duration = model.bucket.max(1);
    let mut recorded = crate::metrics::recorder::Recorder::new(&short)
        .finish(short.end())
        .names;
    // Named pools' series are added when the engine tracks the pools, not by the recorder.
    for pool in crate::metrics::names::named_pools(model) {
        let pool_metric = |m: &&str| crate::metrics::names::metric(&pool, m);
        recorded.extend(crate::metrics::names::POOL_METRICS.iter().map(pool_metric));
    }
    for a in &model.alerts {
        let read: Vec<(&str, String)> = match &a.condition {
            Condition::Threshold { metric, .. } | Condition::Baseline { metric, .. } => {
                vec![("metric", metric.clone())]
            }
            Condition::Ratio {
                numerator,
                denominator,
                ..
            } => vec![("ratio", numerator.clone()), ("ratio", denominator.clone())],
            Condition::Burn { of, .. } => vec![("of", format!("{of}.success"))],
        };
        for (key, name) in read {
            if !recorded.contains(&name) {
                return Err(src.error_at(
                    &format!("alert.{}.{key}", a.name),
                    format!(
                        "`{name}` is not in this scenario's time series: it is recorded only where what it measures exists{}",
                        crate::error::did_you_mean(&name, recorded.iter().map(String::as_str))
                    ),
                ));
            }
        }
    }
    Ok(())
}
