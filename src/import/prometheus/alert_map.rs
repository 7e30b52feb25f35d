//! An alerting rule's `expr` as an `[[alert]]` condition, or the reason it cannot be one.
//! cascade's alert reads one value per metric per bucket, the last whole bucket [t − bucket, t)
//! before each evaluation (src/alert/rule.rs), so a PromQL expression maps only when it means
//! that value compared with a number:
//! * `X op N`, X a gauge: the metric's value in that bucket;
//! * `rate(X[w]) op N`, `increase(X[w]) op N`, either inside `sum(…)`, X a counter, w exactly one
//!   bucket: the metric's count in the bucket (or its rate per second), N converted;
//! * `A / B op N`, both of the form above: `ratio = [A, B]`;
//! * `histogram_quantile(φ, sum by (le) (rate(H_bucket[w]))) op N`: the catalogue's φ quantile
//!   of the metric `--map` names for H, N in milliseconds.
//!
//! The user's series are not cascade's: `--map SELECTOR=METRIC` says which metric a selector
//! stands for (matched on its name and matchers, in any order).

use super::promql::{Expr, Selector};

/// A metric the scenario records per bucket, and its catalogue unit.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub name: String,
    pub unit: String,
}

impl Recorded {
    /// A count of events in the bucket (a Prometheus counter's increase over it).
    fn counts_events(&self) -> bool {
        self.unit == "count" && !self.name.ends_with("_mean")
    }
}

/// What the rules are mapped onto: the `--map` pairs (a selector's key, the metric) and the
/// scenario's series and bucket.
pub struct Target<'a> {
    pub maps: &'a [(String, String)],
    pub series: &'a [Recorded],
    pub bucket_ns: u64,
}

/// An `[[alert]]` condition, with what each part came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapped {
    /// One metric, or `[numerator, denominator]`.
    pub metrics: Vec<String>,
    pub op: &'static str,
    pub value: f64,
    /// How cascade reads it: for the metric's comment.
    pub reads: String,
    /// How the value was converted: for the value's comment.
    pub converted: String,
}

/// `expr` as a condition over `target`, or why not.
pub fn map(expr: &Expr, target: &Target) -> Result<Mapped, String> {
    let Expr::Bin {
        op,
        lhs,
        rhs,
        modified,
    } = expr
    else {
        return Err(format!(
            "the expression is {}, not a comparison with a number",
            what(expr)
        ));
    };
    let Some(mut cmp) = comparison(op) else {
        return Err(format!(
            "the expression is {}, not a comparison with a number",
            what(expr)
        ));
    };
    if *modified {
        return Err(format!(
            "`{op}` has a `bool` or vector-matching modifier: cascade compares one series with a number"
        ));
    }
    let (series, n) = match (number(lhs), number(rhs)) {
        (None, Some(n)) => (&**lhs, n),
        (Some(n), None) => {
            cmp = flipped(cmp);
            (&**rhs, n)
        }
        (Some(_), Some(_)) => return Err("compares two numbers: no series".into()),
        (None, None) => {
            return Err(format!(
                "compares two series ({} and {}): cascade compares a metric, or a ratio of two, with a number",
                what(lhs),
                what(rhs)
            ));
        }
    };
    if !n.is_finite() {
        return Err(format!("compares with {n}, not a finite number"));
    }
    if cmp == "==" || cmp == "!=" {
        return Err(format!(
            "`{cmp}`: cascade's alerts compare with `>`, `>=`, `<` or `<=`"
        ));
    }
    let bucket_s = target.bucket_ns as f64 / 1e9;
    let mapped = match series {
        Expr::Bin {
            op,
            lhs,
            rhs,
            modified: false,
        } if op == "/" => {
            let (a, b) = (counter(lhs, target)?, counter(rhs, target)?);
            // cascade's ratio is A's value over B's, each its rate times k; PromQL's is the
            // rates times f (1 for rate, the window for increase).
            let scale = (a.k(bucket_s) * b.f(bucket_s)) / (b.k(bucket_s) * a.f(bucket_s));
            let value = n * scale;
            zero_quiet(
                cmp,
                value,
                "a bucket in which the denominator counted nothing",
            )?;
            Mapped {
                metrics: vec![a.metric.name.clone(), b.metric.name.clone()],
                op: cmp,
                value,
                reads: format!(
                    "{} / {}, in the last whole bucket before each evaluation (0 when the denominator is)",
                    a.shown, b.shown
                ),
                converted: conversion(n, value, "the ratio of the two"),
            }
        }
        Expr::Call(f, args) if f == "histogram_quantile" => quantile(args, cmp, n, target)?,
        Expr::Sel(s) if s.range_ns.is_none() => gauge(s, cmp, n, target)?,
        _ => {
            let c = counter(series, target)?;
            let value = n * c.k(bucket_s) / c.f(bucket_s);
            let unit = if c.metric.counts_events() {
                "a count per bucket"
            } else {
                "a rate per second"
            };
            Mapped {
                metrics: vec![c.metric.name.clone()],
                op: cmp,
                value,
                reads: format!(
                    "{}, in the last whole bucket before each evaluation",
                    c.shown
                ),
                converted: conversion(n, value, unit),
            }
        }
    };
    Ok(mapped)
}

/// `rate(X[w])` or `increase(X[w])`, perhaps inside `sum(…)`, X mapped to a count or a rate.
struct Counter<'a> {
    metric: &'a Recorded,
    increase: bool,
    shown: String,
}

impl Counter<'_> {
    /// The metric's per-bucket value for one event a second.
    fn k(&self, bucket_s: f64) -> f64 {
        if self.metric.counts_events() {
            bucket_s
        } else {
            1.0
        }
    }

    /// The PromQL value for one event a second (the window is one bucket).
    fn f(&self, bucket_s: f64) -> f64 {
        if self.increase { bucket_s } else { 1.0 }
    }
}

fn counter<'a>(e: &Expr, target: &'a Target) -> Result<Counter<'a>, String> {
    let (f, sel) = range_call(e)?;
    window(sel, target)?;
    let metric = mapped(sel, target)?;
    if !(metric.counts_events() || metric.unit == "1/s") {
        return Err(format!(
            "{f}() of `{}`, mapped to `{}` ({}): not a count of events or a rate, so {f}() of it means nothing in cascade",
            sel.key(),
            metric.name,
            metric.unit
        ));
    }
    Ok(Counter {
        metric,
        increase: f == "increase",
        shown: format!("`{}` ({f}() of `{}`)", metric.name, sel.key()),
    })
}

/// The function and selector of `[sum(]rate|increase(X[w])[)]`.
fn range_call(e: &Expr) -> Result<(&str, &Selector), String> {
    match e {
        Expr::Agg { op, grouping, args } if op == "sum" => {
            if let Some((without, labels)) = grouping {
                return Err(grouped(*without, labels));
            }
            match args.as_slice() {
                [inner] => range_call(inner),
                _ => Err("`sum` takes one argument".into()),
            }
        }
        Expr::Call(f, args) if f == "rate" || f == "increase" => match args.as_slice() {
            [Expr::Sel(s)] if s.range_ns.is_some() => Ok((f, s)),
            _ => Err(format!("{f}() takes a range selector, `X[5m]`")),
        },
        Expr::Call(f, _) if f == "irate" => Err(
            "irate() is the rate between the last two samples: cascade has no samples finer than a bucket; use rate() over one bucket".into(),
        ),
        _ => Err(format!(
            "{} is not a shape cascade maps: `X op N`, `rate(X[w]) op N`, `sum(rate(A[w])) / sum(rate(B[w])) op N` or `histogram_quantile(φ, sum by (le) (rate(H_bucket[w]))) op N`",
            what(e)
        )),
    }
}

/// A grouping gives one alert per group; cascade's metric is one series.
fn grouped(without: bool, labels: &[String]) -> String {
    let how = if without { "without" } else { "by" };
    format!(
        "`sum {how} ({})` gives one alert per group of series: cascade's metric is one series; choose the group in the selector and --map it",
        labels.join(", ")
    )
}

/// The range must be exactly one bucket: cascade's alert reads the last whole bucket.
fn window(sel: &Selector, target: &Target) -> Result<(), String> {
    if let Some(what) = sel.shifted {
        return Err(format!(
            "`{}` has {what}: cascade reads the last bucket before each evaluation, never an earlier one",
            sel.key()
        ));
    }
    let w = sel.range_ns.unwrap_or(0);
    if w != target.bucket_ns {
        return Err(format!(
            "the window [{}] of `{}` is not the scenario's bucket ({}): cascade's alert reads the last whole bucket before each evaluation, so only a window of exactly one bucket means the same (set scenario.bucket = \"{}\" to map it)",
            prom_duration(w),
            sel.key(),
            prom_duration(target.bucket_ns),
            prom_duration(w)
        ));
    }
    Ok(())
}

/// The recorded metric `--map` names for `sel`.
fn mapped<'a>(sel: &Selector, target: &'a Target) -> Result<&'a Recorded, String> {
    let key = sel.key();
    let Some((_, name)) = target.maps.iter().find(|(k, _)| *k == key) else {
        return Err(format!(
            "no --map names `{key}`: give --map '{key}=METRIC' with the cascade metric it stands for"
        ));
    };
    target.series.iter().find(|r| r.name == *name).ok_or_else(|| {
        format!("`{key}` is mapped to `{name}`, a latency's quantiles: use it in histogram_quantile()")
    })
}

/// `X op N`, X a gauge mapped to a metric that is not a count of events.
fn gauge(sel: &Selector, cmp: &'static str, n: f64, target: &Target) -> Result<Mapped, String> {
    if let Some(what) = sel.shifted {
        return Err(format!(
            "`{}` has {what}: cascade reads the last bucket before each evaluation, never an earlier one",
            sel.key()
        ));
    }
    let metric = mapped(sel, target)?;
    if metric.counts_events() {
        return Err(format!(
            "`{}` is mapped to `{}`, a count of events per bucket: the Prometheus series is then a counter, whose running total cascade does not keep; compare rate() or increase() of it",
            sel.key(),
            metric.name
        ));
    }
    let (value, converted) = if metric.unit == "ms" {
        let Some((unit_s, unit)) = super::unit_of(&sel.name, None) else {
            return Err(format!(
                "`{}` is mapped to `{}`, in milliseconds, but its name says no time unit (`_seconds`, `_milliseconds`, …): cannot tell what {n} is",
                sel.key(),
                metric.name
            ));
        };
        let v = n * unit_s * 1e3;
        (v, format!("{n} {unit} is {} ms", short(v)))
    } else {
        (n, format!("{n}, as the rule writes it ({})", metric.unit))
    };
    // A latency and a `_ratio` read 0 for a bucket in which nothing finished; a gauge of
    // production's (a summary's quantile, a recorded ratio) is NaN there.
    if metric.unit == "ms" || metric.name.ends_with("_ratio") {
        zero_quiet(cmp, value, "a bucket in which nothing finished")?;
    }
    let mean = if metric.name.ends_with("_mean") {
        "its time average over the last whole bucket before each evaluation (Prometheus reads the latest sample)"
    } else {
        "its value in the last whole bucket before each evaluation (Prometheus reads the latest sample)"
    };
    Ok(Mapped {
        metrics: vec![metric.name.clone()],
        op: cmp,
        value,
        reads: format!("`{}` (`{}`): {mean}", metric.name, sel.key()),
        converted,
    })
}

/// `histogram_quantile(φ, sum by (le) (rate(H_bucket[w]))) op N`.
fn quantile(args: &[Expr], cmp: &'static str, n: f64, target: &Target) -> Result<Mapped, String> {
    let [phi, inner] = args else {
        return Err("histogram_quantile() takes two arguments".into());
    };
    let Some(q) = number(phi).filter(|q| *q > 0.0 && *q < 1.0) else {
        return Err("histogram_quantile()'s quantile is not a number between 0 and 1".into());
    };
    let rates = match inner {
        Expr::Agg { op, grouping, args } if op == "sum" => match grouping {
            Some((false, labels)) if labels == &["le"] => match args.as_slice() {
                [one] => one,
                _ => return Err("`sum` takes one argument".into()),
            },
            Some((false, labels)) if labels.iter().any(|l| l == "le") => {
                let others: Vec<String> = labels.iter().filter(|l| *l != "le").cloned().collect();
                return Err(grouped(false, &others));
            }
            _ => {
                return Err(
                    "histogram_quantile() over a sum not `by (le)`: the buckets are added up and no histogram is left".into(),
                );
            }
        },
        other => other,
    };
    let (f, sel) = range_call(rates)?;
    window(sel, target)?;
    let Some(family) = sel.name.strip_suffix("_bucket") else {
        return Err(format!(
            "histogram_quantile() of `{}`: a classic histogram's series end in `_bucket`",
            sel.key()
        ));
    };
    let key = sel.key();
    let Some((_, stem)) = target.maps.iter().find(|(k, _)| *k == key) else {
        return Err(format!(
            "no --map names `{key}`: give --map '{key}=METRIC' with the latency whose quantiles it gives (`client.web.latency`, `edge.web.api.attempt_latency`)"
        ));
    };
    let digits = quantile_digits(q);
    let name = format!("{stem}_p{digits}_ms");
    if !target.series.iter().any(|r| r.name == name) {
        let prefix = format!("{stem}_p");
        let have: Vec<String> = target
            .series
            .iter()
            .filter_map(|r| r.name.strip_prefix(&prefix)?.strip_suffix("_ms"))
            .filter(|d| d.chars().all(|c| c.is_ascii_digit()))
            .map(|d| format!("p{d}"))
            .collect();
        return Err(if have.is_empty() {
            format!(
                "`{key}` is mapped to `{stem}`, which has no quantiles in this scenario's series (`{stem}_p99_ms` …)"
            )
        } else {
            format!(
                "cascade records the {} of `{stem}`, not the p{digits} ({q} quantile)",
                have.join(" and ")
            )
        });
    }
    let Some((unit_s, unit)) = super::unit_of(family, None) else {
        return Err(format!(
            "`{family}`'s name says no time unit (`_seconds`, `_milliseconds`, …): cannot tell what {n} is"
        ));
    };
    let value = n * unit_s * 1e3;
    zero_quiet(cmp, value, "a bucket in which nothing finished")?;
    Ok(Mapped {
        metrics: vec![name.clone()],
        op: cmp,
        value,
        reads: format!(
            "`{name}` (histogram_quantile({q}, {f}() of `{key}`)): the {q} quantile of what finished in the last whole bucket before each evaluation"
        ),
        converted: format!("{n} {unit} is {} ms", short(value)),
    })
}

/// PromQL's ratio over nothing and quantile of nothing are NaN, which no comparison holds;
/// cascade reads 0 there. A comparison that 0 satisfies would fire where Prometheus stays quiet.
fn zero_quiet(cmp: &str, value: f64, empty: &str) -> Result<(), String> {
    let holds = match cmp {
        ">" => 0.0 > value,
        ">=" => 0.0 >= value,
        "<" => 0.0 < value,
        _ => 0.0 <= value,
    };
    if holds {
        return Err(format!(
            "`{cmp} {}` holds at 0, which cascade reads for {empty}, where PromQL's NaN fires nothing: the alert would fire where Prometheus stays quiet",
            short(value)
        ));
    }
    Ok(())
}

/// `0.99` → `99`, `0.5` → `50`, `0.999` → `999`: the catalogue's `_p<digits>_` names.
fn quantile_digits(q: f64) -> String {
    let text = format!("{q}");
    let digits = text.strip_prefix("0.").unwrap_or(&text);
    format!("{digits:0<2}")
}

fn comparison(op: &str) -> Option<&'static str> {
    ["==", "!=", ">=", "<=", ">", "<"]
        .into_iter()
        .find(|c| *c == op)
}

fn flipped(cmp: &'static str) -> &'static str {
    match cmp {
        ">" => "<",
        "<" => ">",
        ">=" => "<=",
        "<=" => ">=",
        same => same,
    }
}

fn number(e: &Expr) -> Option<f64> {
    match e {
        Expr::Num(n) => Some(*n),
        Expr::Neg(inner) => number(inner).map(|n| -n),
        _ => None,
    }
}

/// What an expression is, in a refusal.
fn what(e: &Expr) -> String {
    match e {
        Expr::Num(n) => format!("the number {n}"),
        Expr::Sel(s) if s.range_ns.is_some() => format!("the range selector `{}[…]`", s.key()),
        Expr::Sel(s) => format!("the selector `{}`", s.key()),
        Expr::Call(f, _) => format!("{f}()"),
        Expr::Agg { op, .. } => format!("the aggregation `{op}`"),
        Expr::Bin { op, .. } => format!("a `{op}` of two expressions"),
        Expr::Neg(inner) => format!("minus {}", what(inner)),
    }
}

fn conversion(n: f64, value: f64, unit: &str) -> String {
    if n == value {
        format!("{n}, {unit}")
    } else {
        format!("{n} per second in the rule; {unit}, {}", short(value))
    }
}

/// A number as a comment shows it.
fn short(v: f64) -> String {
    let text = format!("{:.6}", v);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Nanoseconds as Prometheus writes a duration (`5m`, `1h30m`, `250ms`).
pub fn prom_duration(ns: u64) -> String {
    let mut ms = ns / 1_000_000;
    if ms == 0 {
        return if ns == 0 {
            "0s".into()
        } else {
            format!("{ns}ns")
        };
    }
    let mut out = String::new();
    for (unit, size) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
        ("ms", 1),
    ] {
        if ms >= size {
            out.push_str(&format!("{}{unit}", ms / size));
            ms %= size;
        }
    }
    out
}

#[cfg(test)]
mod tests;
