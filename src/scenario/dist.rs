//! Turns a written distribution (`"5ms"` or `{ dist = ..., ... }`) into a `Latency`.

use super::keys::stray_key;
use super::names::Named;
use super::schema::{RawDist, RawDistTable};
use crate::model::Latency;

/// A distribution's kind, as `dist = "..."` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DistKind {
    Constant,
    Uniform,
    Exponential,
    Normal,
    Lognormal,
    Gamma,
    Weibull,
    Pareto,
    Mixture,
    Empirical,
}

impl Named for DistKind {
    const WHAT: &'static str = "dist";
    const NAMES: &'static [(DistKind, &'static str)] = &[
        (DistKind::Constant, "constant"),
        (DistKind::Uniform, "uniform"),
        (DistKind::Exponential, "exponential"),
        (DistKind::Normal, "normal"),
        (DistKind::Lognormal, "lognormal"),
        (DistKind::Gamma, "gamma"),
        (DistKind::Weibull, "weibull"),
        (DistKind::Pareto, "pareto"),
        (DistKind::Mixture, "mixture"),
        (DistKind::Empirical, "empirical"),
    ];
}

/// Compiles a distribution; errors are messages about the table at the caller's path.
pub fn compile_dist(raw: &RawDist) -> Result<Latency, String> {
    match raw {
        RawDist::Constant(d) => Ok(Latency::Constant(d.0)),
        RawDist::Table(t) => compile_table(t, false),
    }
}

fn compile_table(t: &RawDistTable, in_mixture: bool) -> Result<Latency, String> {
    let dist = DistKind::parse(&t.dist)?;
    let kind = dist.name();
    let lognormal_by_log = t.mu.is_some() || t.sigma.is_some();
    let allowed: &[&str] = match dist {
        DistKind::Constant => &["value"],
        DistKind::Uniform => &["min", "max"],
        DistKind::Exponential => &["mean"],
        DistKind::Normal => &["mean", "stddev"],
        DistKind::Lognormal if lognormal_by_log => &["mu", "sigma"],
        DistKind::Lognormal => &["median", "p99"],
        DistKind::Gamma => &["shape", "scale", "mean"],
        DistKind::Weibull | DistKind::Pareto => &["shape", "scale"],
        DistKind::Mixture => &["of"],
        DistKind::Empirical => &["percentiles"],
    };
    // A mixture's part carries its `weight` beside its own keys.
    if let Some(field) = stray_key(&given_keys(t, in_mixture), allowed) {
        return Err(format!(
            "`{field}` does not apply to dist `{kind}`, which takes: {}",
            allowed.join(", ")
        ));
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
    match dist {
        DistKind::Constant => Ok(Latency::Constant(need(t.value, "value")? as u64)),
        DistKind::Uniform => {
            let (min, max) = (need(t.min, "min")?, need(t.max, "max")?);
            if max < min {
                return Err("uniform needs min <= max".into());
            }
            Ok(Latency::Uniform { min, max })
        }
        DistKind::Exponential => Ok(Latency::Exponential {
            mean: positive(need(t.mean, "mean")?, "mean")?,
        }),
        DistKind::Normal => {
            let mean = positive(need(t.mean, "mean")?, "mean")?;
            Ok(Latency::Normal {
                mean,
                stddev: need(t.stddev, "stddev")?,
            })
        }
        DistKind::Lognormal if lognormal_by_log => {
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
        DistKind::Lognormal => {
            Latency::lognormal_from_median_p99(need(t.median, "median")?, need(t.p99, "p99")?)
        }
        DistKind::Gamma => {
            let shape = shape()?;
            let scale = match (t.scale, t.mean) {
                (Some(s), None) => positive(s.0 as f64, "scale")?,
                (None, Some(m)) => positive(m.0 as f64, "mean")? / shape,
                _ => return Err("gamma needs `shape` and exactly one of `scale` or `mean`".into()),
            };
            Latency::gamma(shape, scale)
        }
        DistKind::Weibull => {
            Latency::weibull(positive(need(t.scale, "scale")?, "scale")?, shape()?)
        }
        DistKind::Pareto => Ok(Latency::Pareto {
            scale: positive(need(t.scale, "scale")?, "scale")?,
            shape: shape()?,
        }),
        DistKind::Mixture => compile_mixture(t.of.as_deref().unwrap_or_default()),
        DistKind::Empirical => compile_empirical(t.percentiles.as_deref().unwrap_or_default()),
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

/// The table's keys, each with whether it is set; a mixture part's `weight` is its own.
fn given_keys(t: &RawDistTable, in_mixture: bool) -> [(&'static str, bool); 14] {
    [
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
        ("weight", t.weight.is_some() && !in_mixture),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dist_kind_has_its_name() {
        let names: Vec<&str> = DistKind::NAMES.iter().map(|(k, _)| k.name()).collect();
        assert_eq!(
            names,
            [
                "constant",
                "uniform",
                "exponential",
                "normal",
                "lognormal",
                "gamma",
                "weibull",
                "pareto",
                "mixture",
                "empirical"
            ]
        );
        assert_eq!(DistKind::parse("gamma"), Ok(DistKind::Gamma));
        assert_eq!(
            DistKind::parse("gama"),
            Err(
                "unknown dist `gama` (did you mean `gamma`?); valid: constant, uniform, \
                 exponential, normal, lognormal, gamma, weibull, pareto, mixture, empirical"
                    .into()
            )
        );
    }
}
