//! The grid of a sweep, as a scenario's `[sweep]` table or `--param` declares it:
//! parameters by path, each with its values, expanded into points (every combination, the
//! first parameter varying slowest).

use super::document::{Located, Source};
use crate::scenario::Override;
use crate::time::{format_duration, parse_duration};

/// Values of one parameter: a range is counted before it is expanded, so `1..inf:1` or
/// `0..1000000000:1` is refused at once.
pub const MAX_VALUES: u64 = 10_000;
/// Points of a grid (every combination of the parameters' values): each is compiled before
/// any run starts.
pub const MAX_POINTS: u64 = 10_000;

/// A scenario's `[sweep]` table: its parameters (paths in alphabetical order), if it sets
/// them, the replications of each point, and the constraints between parameters that prune
/// `cascade tune`'s grid (`constraint`, in the file's order; its names are resolved against the
/// whole grid once the command line's parameters are known).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepTable {
    pub params: Vec<Param>,
    pub reps: Option<u32>,
    pub constraints: Vec<super::Constraint>,
}

/// The field a `[sweep]` constraint is written at, for its errors.
pub fn constraint_field(i: usize) -> String {
    format!("sweep.{CONSTRAINT}.{i}")
}

/// The `[sweep]` key that holds constraints rather than a parameter's values.
pub const CONSTRAINT: &str = "constraint";

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub path: String,
    /// Each value as TOML text, as `--set` takes it.
    pub values: Vec<String>,
}

impl Param {
    /// Parses `PATH=V1,V2,...` or `PATH=A..B:STEP` (integers, decimals or durations; B is
    /// included when the steps land on it).
    pub fn parse(text: &str) -> Result<Param, String> {
        let (path, spec) = text
            .split_once('=')
            .filter(|(p, v)| !p.trim().is_empty() && !v.trim().is_empty())
            .ok_or_else(|| format!("--param expects PATH=V1,V2 or PATH=A..B:STEP, got `{text}`"))?;
        let spec = spec.trim();
        let path = path.trim();
        if path.split('.').any(|segment| segment.trim().is_empty()) {
            return Err(format!(
                "`{path}` is not a path like service.api.workers: a segment is empty"
            ));
        }
        let values = match spec.split_once("..") {
            Some((a, rest)) => {
                let (b, step) = rest
                    .split_once(':')
                    .ok_or_else(|| format!("a range needs a step: `{spec}` (like 10..50:10)"))?;
                range(a.trim(), b.trim(), step.trim())?
            }
            None => spec.split(',').map(|v| v.trim().to_string()).collect(),
        };
        if values.iter().any(String::is_empty) {
            return Err(format!("an empty value in `{spec}`"));
        }
        Ok(Param {
            path: path.to_string(),
            values,
        })
    }
}

fn range(a: &str, b: &str, step: &str) -> Result<Vec<String>, String> {
    let bad = || format!("cannot step from `{a}` to `{b}` by `{step}`");
    let too_many = |n: f64| {
        format!(
            "`{a}..{b}:{step}` has {n:.0} values, over the limit of {MAX_VALUES} for one parameter"
        )
    };
    if let (Ok(a), Ok(b), Ok(s)) = (a.parse::<i64>(), b.parse::<i64>(), step.parse::<i64>()) {
        if s <= 0 || b < a {
            return Err(bad());
        }
        let n = (i128::from(b) - i128::from(a)) / i128::from(s) + 1;
        if n > i128::from(MAX_VALUES) {
            return Err(too_many(n as f64));
        }
        return Ok((a..=b).step_by(s as usize).map(|v| v.to_string()).collect());
    }
    if let (Ok(a), Ok(b), Ok(s)) = (a.parse::<f64>(), b.parse::<f64>(), step.parse::<f64>()) {
        if !(a.is_finite() && b.is_finite() && s.is_finite()) || s <= 0.0 || b < a {
            return Err(bad());
        }
        // Counted in whole steps, so rounding never adds or drops the last value.
        let steps = ((b - a) / s + 1e-9).floor();
        if steps + 1.0 > MAX_VALUES as f64 {
            return Err(too_many(steps + 1.0));
        }
        let n = steps as u64;
        return Ok((0..=n).map(|k| format!("{}", a + k as f64 * s)).collect());
    }
    let (a, b, s) = (
        parse_duration(a).map_err(|_| bad())?,
        parse_duration(b).map_err(|_| bad())?,
        parse_duration(step).map_err(|_| bad())?,
    );
    if s == 0 || b < a {
        return Err(bad());
    }
    let n = (b - a) / s + 1;
    if n > MAX_VALUES {
        return Err(too_many(n as f64));
    }
    Ok((a..=b)
        .step_by(s as usize)
        .map(|v| format!("\"{}\"", format_duration(v)))
        .collect())
}

/// How many points the grid of `params` has, checked against `MAX_POINTS` before it is
/// expanded.
pub fn check_size(params: &[Param]) -> Result<u64, String> {
    let mut n = 1u64;
    for p in params {
        n = n.saturating_mul(p.values.len() as u64);
        if n > MAX_POINTS {
            let sizes: Vec<String> = params.iter().map(|p| p.values.len().to_string()).collect();
            return Err(format!(
                "the grid has {} points, over the limit of {MAX_POINTS}",
                sizes.join(" × ")
            ));
        }
    }
    Ok(n)
}

/// The file's `[sweep]` parameters with each of `cli` (`--param PATH=VALUES`) added, a path
/// both give taking the command line's values; and the paths the command line gave, in order.
pub fn with_command_line(
    mut params: Vec<Param>,
    cli: &[String],
) -> Result<(Vec<Param>, Vec<String>), String> {
    let mut from_cli = Vec::new();
    for text in cli {
        let p = Param::parse(text)?;
        from_cli.push(p.path.clone());
        match params.iter_mut().find(|q| q.path == p.path) {
            Some(q) => *q = p,
            None => params.push(p),
        }
    }
    Ok((params, from_cli))
}

/// Whether two field paths touch the same field: equal, or one a table holding the other
/// (`service.api` and `service.api.workers`).
pub fn overlaps(a: &str, b: &str) -> bool {
    let under = |inner: &str, outer: &str| {
        inner.len() > outer.len()
            && inner.starts_with(outer)
            && inner[outer.len()..].starts_with('.')
    };
    a == b || under(a, b) || under(b, a)
}

/// The first parameter a variant's `set` also sets, as (parameter, variant, its `set` path):
/// the variant's value would win at every point, so its rows would be labelled with values
/// that did not run.
pub fn variant_overlap<'a>(
    params: &'a [Param],
    variants: &'a [crate::scenario::Variant],
) -> Option<(&'a Param, &'a str, &'a str)> {
    params.iter().find_map(|p| {
        variants.iter().find_map(|v| {
            v.set
                .iter()
                .find(|o| overlaps(&p.path, &o.path))
                .map(|o| (p, v.name.as_str(), o.path.as_str()))
        })
    })
}

/// Every combination of the parameters' values, as overrides.
pub fn points(params: &[Param]) -> Vec<Vec<Override>> {
    let lists: Vec<Vec<Override>> = params
        .iter()
        .map(|p| {
            p.values
                .iter()
                .map(|v| Override {
                    path: p.path.clone(),
                    value: v.clone(),
                })
                .collect()
        })
        .collect();
    product(&lists)
}

/// Every combination taking one item from each list, the first list varying slowest: the
/// order of a sweep's points, wherever they are expanded.
pub fn product<T: Clone>(lists: &[Vec<T>]) -> Vec<Vec<T>> {
    let mut combos = vec![Vec::new()];
    for list in lists {
        combos = combos
            .into_iter()
            .flat_map(|combo| {
                list.iter().map(move |item| {
                    let mut next = combo.clone();
                    next.push(item.clone());
                    next
                })
            })
            .collect();
    }
    combos
}

/// `[sweep]`: `reps = N`, and each other key a path with a list of values or a range string
/// (`"10..50:10"`). The paths themselves are checked when each point compiles.
pub fn compile_sweep(
    src: &Source,
    table: &std::collections::BTreeMap<String, super::schema::SetValue>,
) -> Located<SweepTable> {
    use super::schema::SetValue;
    let mut params = Vec::new();
    let mut reps = None;
    let mut constraints = Vec::new();
    for (key, value) in table {
        let at = format!("sweep.{key}");
        match (key.as_str(), value) {
            ("reps", SetValue::Int(n)) if *n >= 1 => reps = Some(*n as u32),
            ("reps", _) => return Err(src.error_at(&at, "is a number of replications, at least 1")),
            (CONSTRAINT, SetValue::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let at = constraint_field(i);
                    let SetValue::Text(text) = item else {
                        return Err(src.error_at(
                            &at,
                            "is a comparison written as a string: \"attempts * timeout <= 900ms\"",
                        ));
                    };
                    let c = super::Constraint::parse(text)
                        .map_err(|m| src.error_at(&at, format!("`{text}`: {m}")))?;
                    constraints.push(c);
                }
            }
            (CONSTRAINT, _) => {
                return Err(src.error_at(
                    &at,
                    "takes a list of comparisons: [\"attempts * timeout <= 900ms\"]",
                ));
            }
            (_, SetValue::Array(values)) if !values.is_empty() => params.push(Param {
                path: key.clone(),
                values: values.iter().map(SetValue::toml).collect(),
            }),
            (_, SetValue::Text(range)) => params
                .push(Param::parse(&format!("{key}={range}")).map_err(|m| src.error_at(&at, m))?),
            _ => {
                return Err(src.error_at(
                    &at,
                    "takes a list of values ([10, 20]) or a range (\"10..50:10\")",
                ));
            }
        }
    }
    Ok(SweepTable {
        params,
        reps,
        constraints,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_ranges_of_integers_decimals_and_durations() {
        let p = Param::parse("service.api.workers=10,20, 40").unwrap();
        assert_eq!(p.values, ["10", "20", "40"]);
        assert_eq!(
            Param::parse("x=10..50:20").unwrap().values,
            ["10", "30", "50"]
        );
        assert_eq!(Param::parse("x=10..45:20").unwrap().values, ["10", "30"]);
        assert_eq!(Param::parse("x=0.1..0.3:0.1").unwrap().values.len(), 3);
        assert_eq!(
            Param::parse("x=100ms..300ms:100ms").unwrap().values,
            ["\"100ms\"", "\"200ms\"", "\"300ms\""]
        );
        assert!(Param::parse("x=10..5:1").is_err());
        assert!(Param::parse("x=10..50").is_err());
    }

    #[test]
    fn ranges_are_counted_before_they_are_expanded() {
        let err = Param::parse("x=0..1000000000:1").unwrap_err();
        assert!(
            err.contains("1000000001 values, over the limit of 10000"),
            "{err}"
        );
        assert!(Param::parse("x=1..inf:1").is_err());
        assert!(Param::parse("x=1..1e300:1e-300").is_err());
        assert!(Param::parse("x=0s..1000h:1ns").is_err());
        assert_eq!(Param::parse("x=1..10000:1").unwrap().values.len(), 10_000);
        assert!(Param::parse("x=1..10001:1").is_err());
        assert!(Param::parse("service..workers=1,2").is_err());
        let p = |n: usize| Param {
            path: "x".into(),
            values: vec!["1".into(); n],
        };
        assert_eq!(check_size(&[p(100), p(100)]), Ok(10_000));
        let err = check_size(&[p(100), p(101)]).unwrap_err();
        assert!(err.contains("100 × 101 points"), "{err}");
        assert!(Param::parse("=1,2").is_err());
    }

    #[test]
    fn the_command_line_adds_parameters_and_replaces_the_files_values() {
        let file = vec![Param::parse("a=1,2").unwrap(), Param::parse("b=3").unwrap()];
        let (params, cli) = with_command_line(file, &["b=4,5".into(), "c=6".into()]).unwrap();
        let shown: Vec<(&str, Vec<&str>)> = params
            .iter()
            .map(|p| {
                (
                    p.path.as_str(),
                    p.values.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("a", vec!["1", "2"]),
                ("b", vec!["4", "5"]),
                ("c", vec!["6"])
            ]
        );
        assert_eq!(cli, ["b", "c"]);
        assert!(with_command_line(Vec::new(), &["nothing".into()]).is_err());
    }

    #[test]
    fn paths_overlap_when_equal_or_one_holds_the_other() {
        assert!(overlaps("service.api.workers", "service.api.workers"));
        assert!(overlaps("service.api", "service.api.workers"));
        assert!(overlaps("policy.p.retry.attempts", "policy.p.retry"));
        assert!(!overlaps("service.api.workers", "service.api.work"));
        assert!(!overlaps("service.api", "service.apix.workers"));
    }

    #[test]
    fn the_grid_is_every_combination_first_parameter_slowest() {
        let grid = points(&[
            Param::parse("a=1,2").unwrap(),
            Param::parse("b=x,y,z").unwrap(),
        ]);
        let flat: Vec<String> = grid
            .iter()
            .map(|p| {
                p.iter()
                    .map(|o| o.value.clone())
                    .collect::<Vec<_>>()
                    .join("")
            })
            .collect();
        assert_eq!(flat, ["1x", "1y", "1z", "2x", "2y", "2z"]);
    }
}
