//! Turns a written distribution (`"5ms"` or `{ dist = ..., ... }`) into a `Latency`.

use super::schema::{RawDist, RawDistTable};
use crate::error::did_you_mean;
use crate::model::Latency;

const KINDS: [&str; 10] = [
    "constant",
    "uniform",
    "exponential",
    "normal",
    "lognormal",
    "gamma",
    "weibull",
    "pareto",
    "mixture",
    "empirical",
];

/// Compiles a distribution; errors are messages about the table at the caller's path.
pub fn compile_dist(raw: &RawDist) -> Result<Latency, String> {
    match raw {
        RawDist::Constant(d) => Ok(Latency::Constant(d.0)),
        RawDist::Table(t) => compile_table(t, false),
    }
}

fn compile_table(t: &RawDistTable, in_mixture: bool) -> Result<Latency, String> {
    let kind = t.dist.as_str();
    if !KINDS.contains(&kind) {
        let hint = did_you_mean(kind, KINDS);
        return Err(format!(
            "unknown dist `{kind}`{hint}; valid: {}",
            KINDS.join(", ")
        ));
    }
    let lognormal_by_log = t.mu.is_some() || t.sigma.is_some();
    let allowed: &[&str] = match kind {
        "constant" => &["value"],
        "uniform" => &["min", "max"],
        "exponential" => &["mean"],
        "normal" => &["mean", "stddev"],
        "lognormal" if lognormal_by_log => &["mu", "sigma"],
        "lognormal" => &["median", "p99"],
        "gamma" => &["shape", "scale", "mean"],
        "weibull" | "pareto" => &["shape", "scale"],
        "mixture" => &["of"],
        _ => &["percentiles"],
    };
    for field in present_fields(t) {
        if field == "weight" && in_mixture {
            continue;
        }
        if !allowed.contains(&field) {
            return Err(format!(
                "`{field}` does not apply to dist `{kind}`, which takes: {}",
                allowed.join(", ")
            ));
        }
    }
    let need = |v: Option<crate::scenario::schema::Dur>, name: &str| {
        v.map(|d| d.0 as f64)
            .ok_or_else(|| format!("dist `{kind}` needs `{name}`"))
    };
    let positive = |v: f64, name: &str| {
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(format!("`{name}` must be positive"))
        }
    };
    let shape = || {
        t.shape
            .ok_or_else(|| format!("dist `{kind}` needs `shape`"))
            .and_then(|s| positive(s, "shape"))
    };
    match kind {
        "constant" => Ok(Latency::Constant(need(t.value, "value")? as u64)),
        "uniform" => {
            let (min, max) = (need(t.min, "min")?, need(t.max, "max")?);
            if max < min {
                return Err("uniform needs min <= max".into());
            }
            Ok(Latency::Uniform { min, max })
        }
        "exponential" => Ok(Latency::Exponential {
            mean: positive(need(t.mean, "mean")?, "mean")?,
        }),
        "normal" => {
            let mean = positive(need(t.mean, "mean")?, "mean")?;
            Ok(Latency::Normal {
                mean,
                stddev: need(t.stddev, "stddev")?,
            })
        }
        "lognormal" if lognormal_by_log => {
            let mu =
                t.mu.filter(|m| m.is_finite())
                    .ok_or("lognormal by mu/sigma needs a finite `mu` (ln of milliseconds)")?;
            let sigma = positive(
                t.sigma.ok_or("lognormal by mu/sigma needs `sigma`")?,
                "sigma",
            )?;
            // mu is written as the log of milliseconds; the model works in nanoseconds.
            Latency::lognormal(mu + 1e6f64.ln(), sigma)
        }
        "lognormal" => {
            Latency::lognormal_from_median_p99(need(t.median, "median")?, need(t.p99, "p99")?)
        }
        "gamma" => {
            let shape = shape()?;
            let scale = match (t.scale, t.mean) {
                (Some(s), None) => positive(s.0 as f64, "scale")?,
                (None, Some(m)) => positive(m.0 as f64, "mean")? / shape,
                _ => return Err("gamma needs `shape` and exactly one of `scale` or `mean`".into()),
            };
            Latency::gamma(shape, scale)
        }
        "weibull" => Latency::weibull(positive(need(t.scale, "scale")?, "scale")?, shape()?),
        "pareto" => Ok(Latency::Pareto {
            scale: positive(need(t.scale, "scale")?, "scale")?,
            shape: shape()?,
        }),
        "mixture" => compile_mixture(t.of.as_deref().unwrap_or_default()),
        _ => compile_empirical(t.percentiles.as_deref().unwrap_or_default()),
    }
}

fn compile_mixture(parts: &[RawDistTable]) -> Result<Latency, String> {
    if parts.is_empty() {
        return Err("mixture needs `of = [ { weight = ..., dist = ... }, ... ]`".into());
    }
    let mut weights = Vec::new();
    let mut compiled = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let w = p
            .weight
            .ok_or_else(|| format!("mixture part {i} needs `weight`"))?;
        if !(w > 0.0 && w.is_finite()) {
            return Err(format!("mixture part {i}: `weight` must be positive"));
        }
        weights.push(w);
        compiled.push(compile_table(p, true).map_err(|e| format!("mixture part {i}: {e}"))?);
    }
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    let cumulative = weights
        .iter()
        .map(|w| {
            acc += w / total;
            acc
        })
        .collect();
    Ok(Latency::Mixture {
        cumulative,
        parts: compiled,
    })
}

fn compile_empirical(points: &[(f64, crate::scenario::schema::Dur)]) -> Result<Latency, String> {
    let pts: Vec<(f64, f64)> = points.iter().map(|(p, d)| (*p, d.0 as f64)).collect();
    let ok = pts.len() >= 2
        && pts[0].0 == 0.0
        && pts[pts.len() - 1].0 == 100.0
        && pts.windows(2).all(|w| w[1].0 > w[0].0 && w[1].1 >= w[0].1);
    if !ok {
        return Err(
            "empirical needs `percentiles = [[0, \"1ms\"], ..., [100, \"90ms\"]]`: from 0 to 100, \
                    percentiles increasing, durations not decreasing"
                .into(),
        );
    }
    Ok(Latency::Empirical { points: pts })
}

fn present_fields(t: &RawDistTable) -> Vec<&'static str> {
    let flags = [
        ("value", t.value.is_some()),
        ("mean", t.mean.is_some()),
        ("median", t.median.is_some()),
        ("p99", t.p99.is_some()),
        ("stddev", t.stddev.is_some()),
        ("min", t.min.is_some()),
        ("max", t.max.is_some()),
        ("scale", t.scale.is_some()),
        ("mu", t.mu.is_some()),
        ("sigma", t.sigma.is_some()),
        ("shape", t.shape.is_some()),
        ("percentiles", t.percentiles.is_some()),
        ("of", t.of.is_some()),
        ("weight", t.weight.is_some()),
    ];
    flags
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect()
}
