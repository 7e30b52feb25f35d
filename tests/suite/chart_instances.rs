//! The timeline's instances strip (issue 21): one row per service whose instance count moved,
//! its bars the run's per-bucket `instances_mean`, and no strip where no count moved.

use crate::support::*;
use cascade::chart::timeline::Timeline;
use cascade::number::short;
use cascade::output::read_run::{RunData, read_run_with_variants};
use std::path::PathBuf;

/// The autoscaler of tests/suite/orchestration.rs (`scaling`): 30 requests a second of 100 ms
/// work at one one-worker instance, 50 % target, settling at 6 instances and falling to 1
/// after the load drops at 60 s; `db` has a liveness probe and a count that never moves.
const SCALING: &str = r#"
[scenario]
name = "scaling"
duration = "120s"
seed = 1

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 30
phases = [ { at = "60s", rate = 4 } ]

[[service]]
name = "api"
work = "100ms"
calls = [ { to = "db" } ]
autoscale = { target = 0.5, max = 10, period = "1s", down = { stabilization = "20s" } }

[[service]]
name = "db"
instances = 2
work = "1ms"
probe = { liveness = { serve = "out_of_band", period = "1s" } }
"#;

/// Runs `toml` into a scratch directory named after `tag`: the directory (kept while the
/// guard lives), the run's output directory and its base run as read back.
fn run_scenario(tag: &str, toml: &str) -> (Scratch, PathBuf, RunData) {
    let dir = scratch(tag);
    let file = dir.join("scaling.toml");
    std::fs::write(&file, toml).unwrap();
    let out = dir.join("out");
    cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    let run = read_run_with_variants(&out).unwrap().remove(0);
    (dir, out, run)
}

#[test]
fn the_instances_strip_draws_each_moving_count_per_bucket_from_the_time_series() {
    let (_dir, out, run) = run_scenario("chart-instances", SCALING);
    let run = &run;
    cascade(&["chart", out.to_str().unwrap()], 0);
    let t = Timeline::from_run(run);
    // db is orchestrated but keeps its 2 instances: no row.
    assert_eq!(t.instances.len(), 1, "{:?}", t.instances);
    let row = &t.instances[0];
    assert_eq!(row.label, "api (1–6)");
    let v = run.series("service.api.instances_mean").unwrap();
    let hi = v.iter().copied().fold(0.0, f64::max);
    assert_eq!(hi, 6.0);
    // Every bucket lies in one bar, which says the bucket's mean and is as dark as that mean
    // is near the highest.
    for (t0, x) in run.times.iter().zip(v) {
        let mid = t0 + run.bucket_s / 2.0;
        let bars: Vec<_> = row
            .bars
            .iter()
            .filter(|b| b.start <= mid && mid < b.end)
            .collect();
        assert_eq!(bars.len(), 1, "bucket at {t0} s");
        assert_eq!(bars[0].text, short(*x), "bucket at {t0} s");
        assert_eq!(bars[0].strength, x / hi, "bucket at {t0} s");
    }
    // A bar starts where the count changes: neighbours differ, and they tile the run.
    for w in row.bars.windows(2) {
        assert_ne!(w[0].text, w[1].text, "{:?}", row.bars);
        assert_close("bars meet", w[1].start, w[0].end, 1e-9);
    }
    assert_eq!(row.bars[0].start, 0.0);
    assert_close("last bar's end", row.bars.last().unwrap().end, 120.0, 1e-9);
    // Weighted by their widths, the bars average to the summary's instances_mean.
    let area: f64 = row
        .bars
        .iter()
        .map(|b| (b.end - b.start) * b.strength * hi)
        .sum();
    assert_close(
        "mean of the bars",
        area / 120.0,
        run.metric("service.api.instances_mean").unwrap(),
        1e-9,
    );
    // The settled 6 (from about 16 s to 80 s) and the last 1 are long bars, written in the SVG.
    let six = row.bars.iter().find(|b| b.text == "6").unwrap();
    assert!(six.end - six.start >= 60.0, "{six:?}");
    assert_eq!(row.bars.last().unwrap().text, "1");
    let svg = read(&out.join("charts/timeline.svg"));
    assert_well_formed("timeline.svg", &svg);
    for want in ["Instances", "api (1–6)"] {
        assert!(svg.contains(want), "timeline.svg lacks {want:?}");
    }
    assert!(!svg.contains("db ("), "db's constant count has a row");
}

#[test]
fn a_run_without_orchestration_has_no_instances_strip() {
    let dir = scratch("chart-no-instances");
    small_run(&dir);
    let run = &read_run_with_variants(&dir).unwrap()[0];
    assert!(run.series.keys().all(|k| !k.ends_with(".instances_mean")));
    assert!(Timeline::from_run(run).instances.is_empty());
}

#[test]
fn instances_out_of_rotation_get_a_ready_row_under_their_count() {
    // The same autoscaler, its new instances 5 s in starting before they listen: the ready row
    // says, bucket by bucket, the mean less the not-ready instance-seconds over the bucket.
    let text = SCALING.replace(
        "period = \"1s\", down",
        "period = \"1s\", startup = \"5s\", down",
    );
    assert_ne!(text, SCALING);
    let (_dir, _, run) = run_scenario("chart-instances-ready", &text);
    let run = &run;
    let t = Timeline::from_run(run);
    let labels: Vec<&str> = t.instances.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert!(labels[0].starts_with("api ("), "{labels:?}");
    assert!(labels[1].starts_with("api ready ("), "{labels:?}");
    let existing = run.series("service.api.instances_mean").unwrap();
    let not_ready = run.series("service.api.not_ready_s").unwrap();
    assert!(not_ready.iter().any(|x| *x > 0.0));
    let row = &t.instances[1];
    let mut fewer = 0;
    for ((t0, x), nr) in run.times.iter().zip(existing).zip(not_ready) {
        let ready = x - nr / run.bucket_s;
        assert!(ready <= *x && ready >= 0.0, "bucket at {t0} s");
        if ready < *x {
            fewer += 1;
        }
        let mid = t0 + run.bucket_s / 2.0;
        let bar = row.bars.iter().find(|b| b.start <= mid && mid < b.end);
        let bar = bar.unwrap_or_else(|| panic!("no bar at {t0} s"));
        assert_eq!(
            bar.text,
            short((ready * 1e6).round() / 1e6),
            "bucket at {t0} s"
        );
    }
    // The scale-up's starting instances: several buckets with fewer ready than existing.
    assert!(fewer >= 3, "{fewer} buckets with instances out of rotation");
}

/// The death spiral of scenarios/liveness-death-spiral.toml, variant `in-queue`: under the
/// instances strip, a row of the buckets with restarts (each bar the bucket's count, the label
/// the run's total) and one of the buckets whose liveness probes failed (darker as a larger
/// share of them failed), both read from the time series. The base run, whose probe is
/// answered out of band, restarts nothing and has neither row.
#[test]
fn restarts_and_failing_probes_are_drawn_where_they_happen() {
    let dir = scratch("chart-restarts");
    let out = dir.join("run");
    cascade(
        &[
            "run",
            "scenarios/liveness-death-spiral.toml",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    let runs = read_run_with_variants(&out).unwrap();
    let base = &runs[0];
    assert_eq!(base.metric("service.api.restarts"), Some(0.0));
    let labels =
        |t: &Timeline| -> Vec<String> { t.instances.iter().map(|r| r.label.clone()).collect() };
    let base_rows = labels(&Timeline::from_run(base));
    assert!(
        base_rows
            .iter()
            .all(|l| !l.contains("restarts") && !l.contains("probes")),
        "{base_rows:?}"
    );
    let spiral = runs.iter().find(|r| r.label == "in-queue").unwrap();
    let t = Timeline::from_run(spiral);
    // The scenario's comment says 16 restarts, none in the warm-up, which the timeline (and
    // its row's total) includes.
    assert_eq!(spiral.metric("service.api.restarts"), Some(16.0));
    let restarts = (t.instances.iter())
        .find(|r| r.label == "api restarts (16 in all)")
        .unwrap_or_else(|| panic!("{:?}", labels(&t)));
    let series = spiral.series("service.api.restarts").unwrap();
    assert_eq!(series.iter().sum::<f64>(), 16.0);
    let most = series.iter().copied().fold(0.0, f64::max);
    let with: Vec<(f64, f64)> = (spiral.times.iter().zip(series))
        .filter(|(_, x)| **x > 0.0)
        .map(|(t, x)| (*t, *x))
        .collect();
    assert_eq!(restarts.bars.len(), with.len());
    for (bar, (t0, x)) in restarts.bars.iter().zip(&with) {
        assert_eq!((bar.start, bar.text.as_str()), (*t0, short(*x).as_str()));
        assert_close("bar end", bar.end, t0 + spiral.bucket_s, 1e-9);
        assert_eq!(bar.strength, x / most);
    }
    // The probes row counts those of the whole timeline, warm-up included.
    let f = spiral
        .series("service.api.probe_failures.liveness")
        .unwrap();
    let n = spiral.series("service.api.probes.liveness").unwrap();
    let (failed, sent) = (f.iter().sum::<f64>(), n.iter().sum::<f64>());
    let label = format!(
        "api liveness probes failing ({} of {})",
        short(failed),
        short(sent)
    );
    let probes = (t.instances.iter())
        .find(|r| r.label == label)
        .unwrap_or_else(|| panic!("no {label} in {:?}", labels(&t)));
    let failing: Vec<f64> = (f.iter().zip(n))
        .filter(|(x, _)| **x > 0.0)
        .map(|(x, n)| (x / n.max(1.0)).min(1.0))
        .collect();
    let strengths: Vec<f64> = probes.bars.iter().map(|b| b.strength).collect();
    assert_eq!(strengths, failing);
    // Rows in order: the ready instances, then restarts, then probes.
    let order = labels(&t);
    let at = |p: &str| order.iter().position(|l| l.starts_with(p)).unwrap();
    assert!(
        at("api ready") < at("api restarts") && at("api restarts") < at("api liveness"),
        "{order:?}"
    );
}
