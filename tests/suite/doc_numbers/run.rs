//! The runs the figures come from: a scenario run (or swept over replications) into a fresh
//! directory, and what is read of it (its summary metrics, a metric's series, the seconds a
//! client was hurt); and the times a scenario's text gives (its seed, its clients' phases).

use crate::support::golden::repo;
use crate::support::{Scratch, cascade, read, scratch};

/// A completed run: its output directory (the base's files, and a directory per variant), or
/// a sweep's, whose metrics are the means over its replications.
pub(super) struct Run {
    dir: Scratch,
    sweep: bool,
}

impl Run {
    /// The run's `summary.json`; of a sweep, its point's entry in `points.json` with each
    /// metric's mean for its value, in the same shape.
    pub(super) fn summary(&self, variant: Option<&str>) -> serde_json::Value {
        if !self.sweep {
            let file = self.at(variant).join("summary.json");
            return serde_json::from_str(&read(&file)).unwrap();
        }
        let points: serde_json::Value =
            serde_json::from_str(&read(&self.dir.join("points.json"))).unwrap();
        let name = variant.unwrap_or("base");
        let point = points
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["variant"] == name)
            .unwrap_or_else(|| panic!("no variant {name} in {}", self.dir.display()));
        let means: serde_json::Map<String, serde_json::Value> = point["metrics"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v["mean"].clone()))
            .collect();
        serde_json::json!({ "metrics": means })
    }

    fn at(&self, variant: Option<&str>) -> std::path::PathBuf {
        variant.map_or(self.dir.to_path_buf(), |v| self.dir.join(v))
    }

    pub(super) fn metric(&self, variant: Option<&str>, name: &str) -> f64 {
        self.summary(variant)["metrics"][name]
            .as_f64()
            .unwrap_or_else(|| panic!("no metric {name} in {}", self.at(variant).display()))
    }

    /// One metric's buckets, (start, value), in time order.
    pub(super) fn series(&self, variant: Option<&str>, name: &str) -> Vec<(f64, f64)> {
        let text = read(&self.at(variant).join("timeseries.csv"));
        let mut rows: Vec<(f64, f64)> = text
            .lines()
            .skip(1)
            .filter_map(|l| {
                let mut fields = l.split(',');
                let (t, m, v) = (fields.next()?, fields.next()?, fields.next()?);
                (m == name).then(|| (t.parse().unwrap(), v.parse().unwrap()))
            })
            .collect();
        assert!(!rows.is_empty(), "no series {name}");
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        rows
    }

    /// The seconds from `from_s` on in which fewer than `floor` of `client`'s requests
    /// succeeded: the end of the last one counted from `from_s` (None if there is none), how
    /// many there are, and whether the last bucket of the run is one of them.
    pub(super) fn hurt(
        &self,
        variant: Option<&str>,
        client: &str,
        from_s: f64,
        floor: f64,
    ) -> Hurt {
        let series = self.series(variant, &format!("client.{client}.success_ratio"));
        let width = series[1].0 - series[0].0;
        let bad: Vec<f64> = series
            .iter()
            .filter(|&&(t, v)| t >= from_s && v < floor)
            .map(|&(t, _)| t)
            .collect();
        Hurt {
            last_end: bad.last().map(|t| t + width - from_s),
            seconds: bad.len() as f64 * width,
            to_the_end: bad.last() == series.last().map(|(t, _)| t),
        }
    }
}

pub(super) struct Hurt {
    pub(super) last_end: Option<f64>,
    pub(super) seconds: f64,
    pub(super) to_the_end: bool,
}

/// Runs `scenario` with `sets` into a fresh directory: once, or with `reps` > 1 as a sweep of
/// that many replications (its one point the scenario's own seed, so replication 0 is the run).
/// Without `variants`, the scenario's `[[variant]]`s are left out (and the `[[expect]]`s, which
/// may name them): the base's results are the same, at a fraction of the time.
pub(super) fn run(scenario: &str, sets: &[String], reps: usize, variants: bool) -> Run {
    let dir = scratch("doc-numbers");
    let file = repo().join(scenario);
    let base_only = ["variant=[]".to_string(), "expect=[]".to_string()];
    let has_variants = read(&file).contains("\n[[variant]]");
    let extra = if has_variants && !variants {
        &base_only[..]
    } else {
        &[]
    };
    let (reps_arg, seed_param);
    let mut args = vec![if reps > 1 { "sweep" } else { "run" }];
    args.extend([
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    if reps > 1 {
        reps_arg = reps.to_string();
        seed_param = format!("scenario.seed={}", seed_of(&read(&file)));
        args.extend(["--reps", &reps_arg, "--param", &seed_param]);
    }
    for s in sets.iter().chain(extra) {
        args.extend(["--set", s.as_str()]);
    }
    cascade(&args, 0);
    Run {
        dir,
        sweep: reps > 1,
    }
}

/// The seed a scenario's `[scenario]` table gives, `seed = 23`.
fn seed_of(scenario: &str) -> &str {
    scenario
        .lines()
        .find_map(|l| l.strip_prefix("seed = "))
        .expect("a scenario with a seed")
        .trim()
}

/// The time of a client's first phase, `phases = [ { at = "60s", …`: the load step.
pub(super) fn step_at(scenario: &str) -> f64 {
    phase_times(scenario)[0]
}

/// The time of a client's second phase: the end of a spike.
pub(super) fn spike_end(scenario: &str) -> f64 {
    phase_times(scenario)[1]
}

fn phase_times(scenario: &str) -> Vec<f64> {
    let line = scenario
        .lines()
        .find(|l| l.starts_with("phases = "))
        .expect("a client with phases");
    line.split("at = \"")
        .skip(1)
        .map(|s| s.split("s\"").next().unwrap().parse().unwrap())
        .collect()
}
