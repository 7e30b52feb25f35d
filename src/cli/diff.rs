//! `cascade diff DIR_A DIR_B`: two result directories compared metric by metric, with the
//! verdicts a baseline comparison gives (`baseline::compare_samples`: the noise threshold, and
//! Welch's test where both sides have replications). Two runs pair up by run (the base, then
//! each variant by name); two sweeps by point, matched by parameter values and variant, with
//! each replication of runs.csv as a sample. B is compared against A. Differences are
//! information, so the command exits 0; only bad input (exit 2) fails it.

use cascade::baseline::{Change, Comparison, Thresholds, compare_samples};
use cascade::metrics::select::selects;
use cascade::number::sig3;
use cascade::output::read_dir::{Results, read_results};
use cascade::output::read_run::RunData;
use cascade::output::read_sweep::{SweepData, read_replications};
use cascade::output::text_table::Table;
use cascade::{Error, Result};
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct DiffArgs {
    /// The reference: a directory `cascade run` or `cascade sweep` wrote.
    pub a: PathBuf,
    /// Compared against A: a directory of the same kind.
    pub b: PathBuf,
    /// Compare only the metrics matching PATTERN (`*` matches any run of characters).
    /// Repeatable.
    #[arg(long = "metric", value_name = "PATTERN")]
    pub metrics: Vec<String>,
    /// Relative changes at or under this are noise (as for baselines: 0.01).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.01)]
    pub noise: f64,
    /// With replications on both sides, a change also needs Welch's p under this.
    #[arg(long, value_name = "ALPHA", default_value_t = 0.05)]
    pub significance: f64,
    /// List every compared metric, not only those that differ.
    #[arg(long)]
    pub all_metrics: bool,
}

/// Each metric's values, one per replication.
type Samples = BTreeMap<String, Vec<f64>>;

/// One run of A and the run of B it is compared with: the base or a variant of two runs, or
/// one point and variant of two sweeps.
struct Pair {
    label: String,
    a: Samples,
    b: Samples,
}

pub fn diff(args: DiffArgs) -> Result<ExitCode> {
    let t = thresholds(&args)?;
    let (a, b) = (read_results(&args.a)?, read_results(&args.b)?);
    let (what, pairs) = match (&a, &b) {
        (Results::Run(a), Results::Run(b)) => ("runs", run_pairs(&args.a, a, &args.b, b)?),
        (Results::Sweep(a), Results::Sweep(b)) => ("points", sweep_pairs(a, b)?),
        _ => {
            return Err(Error::Usage(format!(
                "`{}` is {} and `{}` is {}: diff compares two runs or two sweeps",
                args.a.display(),
                kind(&a),
                args.b.display(),
                kind(&b)
            )));
        }
    };
    check_patterns(&args.metrics, &pairs)?;
    let mut out = format!(
        "a: {}\nb: {}\n",
        describe(&args.a, &a),
        describe(&args.b, &b)
    );
    let mut totals = [0usize; 4];
    for pair in &pairs {
        let section = compare_pair(pair, &args.metrics, t);
        for (total, n) in totals.iter_mut().zip(tally(&section)) {
            *total += n;
        }
        out.push_str(&render(pair, &section, args.all_metrics));
    }
    if pairs.len() > 1 {
        out.push_str(&format!(
            "\n{} {what} compared: {}\n",
            pairs.len(),
            counts(&totals)
        ));
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// `--noise` and `--significance`, checked as `--baseline` checks them.
fn thresholds(args: &DiffArgs) -> Result<Thresholds> {
    let fraction = |v: f64| v.is_finite() && (0.0..1.0).contains(&v);
    if !fraction(args.noise) || !fraction(args.significance) || args.significance == 0.0 {
        return Err(Error::Usage(
            "--noise and --significance are fractions: 0 <= noise < 1, 0 < significance < 1".into(),
        ));
    }
    Ok(Thresholds {
        noise: args.noise,
        significance: args.significance,
    })
}

fn kind(r: &Results) -> &'static str {
    match r {
        Results::Run(_) => "a run's directory",
        Results::Sweep(_) => "a sweep's directory",
    }
}

/// The header line for one side: its directory, scenario, seed and shape.
fn describe(dir: &Path, r: &Results) -> String {
    match r {
        Results::Run(runs) => {
            let base = &runs[0];
            let variants = match runs.len() - 1 {
                0 => String::new(),
                1 => ", 1 variant".into(),
                n => format!(", {n} variants"),
            };
            format!(
                "{} (run of {}, seed {}{variants})",
                dir.display(),
                base.scenario,
                base.seed
            )
        }
        Results::Sweep(s) => {
            let seed = s.seed.map(|v| format!(", seed {v}")).unwrap_or_default();
            let points: BTreeSet<usize> = s.rows.iter().map(|r| r.point).collect();
            format!(
                "{} (sweep of {}{seed}, {} point{})",
                dir.display(),
                s.scenario,
                points.len(),
                if points.len() == 1 { "" } else { "s" }
            )
        }
    }
}

fn one_sample(run: &RunData) -> Samples {
    run.metrics
        .iter()
        .map(|(name, v)| (name.clone(), vec![*v]))
        .collect()
}

/// The base with the base, and each variant with the variant of the same name; a variant on
/// one side only is refused, naming it.
fn run_pairs(da: &Path, a: &[RunData], db: &Path, b: &[RunData]) -> Result<Vec<Pair>> {
    let lone = |one: &[RunData], other: &[RunData], dir: &Path, other_dir: &Path| {
        one.iter()
            .find(|r| !other.iter().any(|o| o.label == r.label))
            .map(|r| {
                Error::Usage(format!(
                    "variant `{}` is in `{}` but not in `{}`: diff compares runs with the same variants",
                    r.label,
                    dir.display(),
                    other_dir.display()
                ))
            })
    };
    if let Some(e) = lone(a, b, da, db).or_else(|| lone(b, a, db, da)) {
        return Err(e);
    }
    Ok(a.iter()
        .map(|ra| {
            let rb = b
                .iter()
                .find(|r| r.label == ra.label)
                .expect("checked above");
            let label = if ra.label == "base" {
                "base".to_string()
            } else {
                format!("variant {}", ra.label)
            };
            Pair {
                label,
                a: one_sample(ra),
                b: one_sample(rb),
            }
        })
        .collect())
}

/// A sweep's point: its variant and its parameters' values, in a common order of paths.
type PointKey = (String, Vec<String>);

/// A sweep's points in the order points.csv lists them, keyed by variant and parameter values
/// in the order of `paths`, each with its replications' samples from runs.csv.
fn sweep_points(s: &SweepData, paths: &[&str]) -> Result<Vec<(PointKey, Samples)>> {
    let order: Vec<usize> = paths
        .iter()
        .map(|p| {
            s.params
                .iter()
                .position(|q| q.path == *p)
                .expect("the same parameters on both sides")
        })
        .collect();
    let reps = read_replications(&s.dir, s.params.len())?;
    let mut seen = BTreeSet::new();
    let mut points = Vec::new();
    // points.csv has a row per metric: each point and variant is taken at its first.
    for row in &s.rows {
        if !seen.insert((row.point, row.variant.as_str())) {
            continue;
        }
        let values: Vec<String> = order.iter().map(|&i| row.values[i].clone()).collect();
        let mut samples = Samples::new();
        let runs = reps.get(&(row.point, row.variant.clone()));
        for metrics in runs.into_iter().flat_map(BTreeMap::values) {
            for (name, v) in metrics {
                samples.entry(name.clone()).or_default().push(*v);
            }
        }
        points.push(((row.variant.clone(), values), samples));
    }
    Ok(points)
}

/// `client.web.rate=100, retry.attempts=2` and the variant, unless it is the base.
fn point_label(paths: &[&str], (variant, values): &PointKey) -> String {
    let mut parts: Vec<String> = paths
        .iter()
        .zip(values)
        .map(|(p, v)| format!("{p}={v}"))
        .collect();
    if variant != "base" || parts.is_empty() {
        parts.push(format!("variant {variant}"));
    }
    parts.join(", ")
}

/// Points matched by parameter values and variant, in A's order; the two sweeps must have
/// swept the same parameters over the same points, and what differs is named.
fn sweep_pairs(a: &SweepData, b: &SweepData) -> Result<Vec<Pair>> {
    let paths_of = |s: &SweepData| -> Vec<String> {
        let mut p: Vec<String> = s.params.iter().map(|p| p.path.clone()).collect();
        p.sort();
        p
    };
    if paths_of(a) != paths_of(b) {
        let list = |s: &SweepData| {
            let p = paths_of(s);
            if p.is_empty() {
                "no parameter".into()
            } else {
                p.join(", ")
            }
        };
        return Err(Error::Usage(format!(
            "`{}` sweeps {} but `{}` sweeps {}: diff matches points by the same parameters",
            a.dir.display(),
            list(a),
            b.dir.display(),
            list(b)
        )));
    }
    // Another set of variants (`sweep --variant`) would otherwise be reported as a point
    // missing, named without the variant that is.
    let mut variants = [a, b].map(|s| {
        let mut v = s.variants.clone();
        v.sort();
        v
    });
    if variants[0] != variants[1] {
        let [va, vb] = std::mem::take(&mut variants);
        return Err(Error::Usage(format!(
            "`{}` ran the variants {} but `{}` ran {}: diff matches points by their variant too \
             (sweep --variant picks them)",
            a.dir.display(),
            va.join(", "),
            b.dir.display(),
            vb.join(", ")
        )));
    }
    let paths: Vec<&str> = a.params.iter().map(|p| p.path.as_str()).collect();
    let pa = sweep_points(a, &paths)?;
    let mut pb: BTreeMap<PointKey, Samples> = sweep_points(b, &paths)?.into_iter().collect();
    let lone = |key: &PointKey, one: &SweepData, other: &SweepData| {
        Error::Usage(format!(
            "point {} is in `{}` but not in `{}`: diff compares sweeps over the same points",
            point_label(&paths, key),
            one.dir.display(),
            other.dir.display()
        ))
    };
    if let Some((key, _)) = pa.iter().find(|(k, _)| !pb.contains_key(k)) {
        return Err(lone(key, a, b));
    }
    let in_a: BTreeSet<&PointKey> = pa.iter().map(|(k, _)| k).collect();
    if let Some(key) = pb.keys().find(|k| !in_a.contains(k)) {
        return Err(lone(key, b, a));
    }
    Ok(pa
        .into_iter()
        .map(|(key, samples)| Pair {
            label: point_label(&paths, &key),
            b: pb.remove(&key).expect("matched above"),
            a: samples,
        })
        .collect())
}

/// A pattern that matches no metric on either side is a typo, refused with the closest name.
fn check_patterns(patterns: &[String], pairs: &[Pair]) -> Result<()> {
    let names: BTreeSet<&str> = pairs
        .iter()
        .flat_map(|p| p.a.keys().chain(p.b.keys()))
        .map(String::as_str)
        .collect();
    for p in patterns {
        if !names.iter().any(|n| selects(p, n)) {
            let hint = cascade::error::did_you_mean(p, names.iter().copied());
            return Err(Error::Usage(format!(
                "--metric {p}: neither directory has such a metric{hint}"
            )));
        }
    }
    Ok(())
}

/// One metric of a pair: compared, or present on one side only.
enum Line {
    Compared(Comparison),
    /// The side that has it: its mean, and `None` for the other.
    OnlyIn {
        metric: String,
        a: Option<f64>,
        b: Option<f64>,
    },
}

impl Line {
    fn change(&self) -> Option<Change> {
        match self {
            Line::Compared(c) => Some(c.change),
            Line::OnlyIn { .. } => None,
        }
    }
}

/// The verdicts in the order the count line gives them.
const ORDER: [Change; 4] = [
    Change::Improved,
    Change::Regressed,
    Change::Changed,
    Change::Noise,
];

fn compare_pair(pair: &Pair, patterns: &[String], t: Thresholds) -> Vec<Line> {
    let wanted = |name: &str| patterns.is_empty() || patterns.iter().any(|p| selects(p, name));
    let names: BTreeSet<&String> = pair.a.keys().chain(pair.b.keys()).collect();
    names
        .into_iter()
        .filter(|name| wanted(name))
        .map(|name| match (pair.a.get(name), pair.b.get(name)) {
            (Some(a), Some(b)) => Line::Compared(compare_samples(name, a, b, false, t)),
            // The names are both sides' together, so at least one has it.
            (a, b) => Line::OnlyIn {
                metric: name.clone(),
                a: a.map(|v| mean(v)),
                b: b.map(|v| mean(v)),
            },
        })
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// How many lines got each verdict, in `ORDER`.
fn tally(lines: &[Line]) -> [usize; 4] {
    ORDER.map(|k| lines.iter().filter(|l| l.change() == Some(k)).count())
}

fn counts(c: &[usize; 4]) -> String {
    format!(
        "{} improved, {} regressed, {} changed, {} within noise",
        c[0], c[1], c[2], c[3]
    )
}

fn render(pair: &Pair, lines: &[Line], all: bool) -> String {
    let reps = |s: &Samples| s.values().map(Vec::len).max().unwrap_or(0);
    let (na, nb) = (reps(&pair.a), reps(&pair.b));
    let mut out = format!(
        "\n{} ({na} vs {nb} replication{}):\n",
        pair.label,
        if nb == 1 { "" } else { "s" }
    );
    let mut table = Table::new(&["metric", "a", "b", "change", "p", "verdict"]);
    let mut shown = 0;
    let mut only = [0usize; 2];
    for line in lines {
        match line {
            Line::Compared(c) => {
                if !all && c.change == Change::Noise {
                    continue;
                }
                table.row(super::baseline::comparison_cells(c, c.metric.clone()));
            }
            Line::OnlyIn { metric, a, b } => {
                only[usize::from(a.is_none())] += 1;
                let side = if a.is_some() {
                    "only in a"
                } else {
                    "only in b"
                };
                table.row(vec![
                    metric.clone(),
                    a.map_or("-".into(), sig3),
                    b.map_or("-".into(), sig3),
                    "-".into(),
                    "-".into(),
                    side.into(),
                ]);
            }
        }
        shown += 1;
    }
    if shown > 0 {
        out.push_str(&table.render());
    }
    let c = tally(lines);
    out.push_str(&counts(&c));
    for (n, side) in only.iter().zip(["a", "b"]) {
        if *n > 0 {
            out.push_str(&format!(", {n} only in {side}"));
        }
    }
    if !all && c[3] > 0 {
        out.push_str(" (--all-metrics lists them)");
    }
    out.push('\n');
    out
}
