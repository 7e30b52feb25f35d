//! `cascade diff DIR_A DIR_B` on real runs and sweeps of the small scenario: the same seed
//! gives no difference, a changed setting shows the metrics it moves with their direction and
//! the numbers of the two summaries, and bad input exits 2 naming what is wrong.

use crate::support::{Scratch, cascade, fixture, read, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn small() -> String {
    fixture("small.toml").display().to_string()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs the small scenario into `dir/name` with `set` overrides.
fn run_into(dir: &Scratch, name: &str, set: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let small = small();
    let mut args = vec!["run", &*small, "--out", path(&out), "--quiet"];
    for s in set {
        args.extend(["--set", s]);
    }
    cascade(&args, 0);
    out
}

/// Sweeps the small scenario over `param` with two replications into `dir/name`.
fn sweep_into(dir: &Scratch, name: &str, param: &str, set: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let small = small();
    let mut args = vec![
        "sweep",
        &*small,
        "--param",
        param,
        "--reps",
        "2",
        "--jobs",
        "1",
        "--out",
        path(&out),
    ];
    for s in set {
        args.extend(["--set", s]);
    }
    cascade(&args, 0);
    out
}

fn diff(args: &[&str], code: i32) -> (String, String) {
    let mut all = vec!["diff"];
    all.extend(args);
    let o = cascade(&all, code);
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// One row of a comparison table.
#[derive(Debug)]
struct Row {
    a: String,
    b: String,
    change: String,
    p: String,
    verdict: String,
}

/// The table of each section, by its heading (`base`, `variant no-retry`, a point's values).
fn sections(text: &str) -> BTreeMap<String, BTreeMap<String, Row>> {
    let mut out: BTreeMap<String, BTreeMap<String, Row>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if let Some((head, _)) = line.split_once(" (").filter(|_| line.ends_with("):")) {
            current = Some(head.to_string());
            out.entry(head.to_string()).or_default();
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(section) = &current else { continue };
        if words.len() < 6 || words[0] == "metric" || line.contains(" improved, ") {
            continue;
        }
        let row = Row {
            a: words[1].into(),
            b: words[2].into(),
            change: words[3].into(),
            p: words[4].into(),
            verdict: words[5..].join(" "),
        };
        out.get_mut(section).unwrap().insert(words[0].into(), row);
    }
    out
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&read(&dir.join("summary.json"))).unwrap()
}

#[test]
fn the_same_seed_gives_no_difference() {
    let d = scratch("diff-same");
    let (a, b) = (run_into(&d, "a", &[]), run_into(&d, "b", &[]));
    let (out, _) = diff(&[path(&a), path(&b)], 0);
    let metrics = summary(&a)["metrics"].as_object().unwrap().len();
    let s = sections(&out);
    assert_eq!(s.keys().collect::<Vec<_>>(), ["base", "variant no-retry"]);
    assert!(s.values().all(BTreeMap::is_empty), "{out}");
    assert!(
        out.contains(&format!(
            "\nbase (1 vs 1 replication):\n0 improved, 0 regressed, 0 changed, {metrics} within noise"
        )),
        "{out}"
    );
    assert!(out.ends_with(&format!(
        "2 runs compared: 0 improved, 0 regressed, 0 changed, {} within noise\n",
        2 * metrics
    )));
    // --all-metrics lists them all, each at a change of exactly zero.
    let (all, _) = diff(&[path(&a), path(&b), "--all-metrics"], 0);
    let base = &sections(&all)["base"];
    assert_eq!(base.len(), metrics);
    assert!(
        base.values()
            .all(|r| r.change == "+0.00%" && r.verdict == "within noise")
    );
}

#[test]
fn a_slower_database_shows_what_it_moved_and_which_way() {
    let d = scratch("diff-workers");
    let a = run_into(&d, "a", &[]);
    let b = run_into(&d, "b", &["service.db.workers=2"]);
    let (out, _) = diff(&[path(&a), path(&b)], 0);
    let base = &sections(&out)["base"];
    let (sa, sb) = (summary(&a), summary(&b));
    let value = |s: &serde_json::Value, m: &str| s["metrics"][m].as_f64().unwrap();
    // Each listed change is B's summary against A's, as the baseline comparison computes it.
    for (metric, row) in base {
        if row.verdict.starts_with("only") {
            continue;
        }
        let (va, vb) = (value(&sa, metric), value(&sb, metric));
        assert_eq!(row.a, cascade::number::sig3(va), "{metric}");
        assert_eq!(row.b, cascade::number::sig3(vb), "{metric}");
        if va != 0.0 {
            assert_eq!(row.change, format!("{:+.2}%", (vb - va) / va.abs() * 100.0));
        }
        assert_eq!(row.p, "-", "one replication a side: no test");
    }
    // Half the workers: the database works twice as hard (a load figure: changed), waits
    // grow and latency with them (lower is better: regressed).
    let util = &base["service.db.utilization"];
    assert_eq!(util.verdict, "changed");
    assert!(util.change.starts_with('+'));
    for m in ["service.db.wait_mean_ms", "client.web.latency_mean_ms"] {
        assert_eq!(base[m].verdict, "regressed", "{m}");
        assert!(base[m].change.starts_with('+'), "{m}");
    }
    // The arrivals are the client's own random stream: the offered load did not move.
    assert!(!base.contains_key("client.web.requests"));
    assert_eq!(
        value(&sa, "client.web.requests"),
        value(&sb, "client.web.requests")
    );
    // Swapped, every direction turns round.
    let (back, _) = diff(&[path(&b), path(&a)], 0);
    let back = &sections(&back)["base"];
    assert_eq!(back["client.web.latency_mean_ms"].verdict, "improved");
    assert!(back["service.db.utilization"].change.starts_with('-'));
}

#[test]
fn metric_patterns_narrow_the_comparison() {
    let d = scratch("diff-pattern");
    let a = run_into(&d, "a", &[]);
    let b = run_into(&d, "b", &["service.db.workers=2"]);
    let (out, _) = diff(
        &[
            path(&a),
            path(&b),
            "--metric",
            "service.db.*",
            "--all-metrics",
        ],
        0,
    );
    let s = sections(&out);
    let names = summary(&a)["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("service.db."))
        .count();
    for rows in s.values() {
        assert_eq!(rows.len(), names, "{out}");
        assert!(rows.keys().all(|k| k.starts_with("service.db.")));
    }
    // Two patterns add up.
    let (two, _) = diff(
        &[
            path(&a),
            path(&b),
            "--metric",
            "client.web.success",
            "--metric",
            "service.db.utilization",
            "--all-metrics",
        ],
        0,
    );
    let base = &sections(&two)["base"];
    let listed: Vec<&String> = base.keys().collect();
    assert_eq!(listed, ["client.web.success", "service.db.utilization"]);
}

#[test]
fn a_metric_on_one_side_only_is_listed_as_such() {
    let d = scratch("diff-only");
    let a = run_into(&d, "a", &[]);
    let b = run_into(&d, "b", &[]);
    // As a newer build that emits one more metric would write it.
    let mut s = summary(&b);
    s["metrics"]["client.web.new_metric"] = serde_json::json!(2.5);
    std::fs::write(b.join("summary.json"), s.to_string()).unwrap();
    let (out, _) = diff(&[path(&a), path(&b)], 0);
    let row = &sections(&out)["base"]["client.web.new_metric"];
    assert_eq!((row.a.as_str(), row.b.as_str()), ("-", "2.50"));
    assert_eq!(row.verdict, "only in b");
    assert!(
        out.contains("0 changed, ") && out.contains(", 1 only in b"),
        "{out}"
    );
    let (back, _) = diff(&[path(&b), path(&a)], 0);
    assert_eq!(
        sections(&back)["base"]["client.web.new_metric"].verdict,
        "only in a"
    );
}

#[test]
fn sweeps_pair_up_by_point_and_test_their_replications() {
    let d = scratch("diff-sweeps");
    let a = sweep_into(&d, "a", "client.web.rate=100,200", &[]);
    let same = sweep_into(&d, "same", "client.web.rate=100,200", &[]);
    let slow = sweep_into(
        &d,
        "slow",
        "client.web.rate=100,200",
        &["service.db.workers=2"],
    );
    let (out, _) = diff(&[path(&a), path(&same)], 0);
    let s = sections(&out);
    let heads: Vec<&String> = s.keys().collect();
    assert_eq!(
        heads,
        [
            "client.web.rate=100",
            "client.web.rate=100, variant no-retry",
            "client.web.rate=200",
            "client.web.rate=200, variant no-retry"
        ]
    );
    assert!(s.values().all(BTreeMap::is_empty), "{out}");
    assert!(out.contains("client.web.rate=100 (2 vs 2 replications):"));
    assert!(out.contains("\n4 points compared: 0 improved, 0 regressed, 0 changed, "));
    // With two replications a side, every change carries Welch's p and counts only under
    // 0.05: the database at 80% utilization (200/s, two workers) is slower for certain.
    let (out, _) = diff(&[path(&a), path(&slow)], 0);
    let busy = &sections(&out)["client.web.rate=200"];
    let util = &busy["service.db.utilization"];
    assert_eq!(util.verdict, "changed");
    let p: f64 = util.p.parse().unwrap();
    assert!(p < 0.05, "{p}");
    assert!(busy.values().all(|r| r.p.parse::<f64>().unwrap() < 0.05));
    assert_eq!(busy["service.db.wait_p99_ms"].verdict, "regressed");
    // The points are matched by value, not by position: a sweep over the same values in
    // another order compares the same.
    let reversed = sweep_into(&d, "reversed", "client.web.rate=200,100", &[]);
    let (out, _) = diff(&[path(&a), path(&reversed)], 0);
    assert!(sections(&out).values().all(BTreeMap::is_empty), "{out}");
}

#[test]
fn bad_input_exits_2_and_names_it() {
    let d = scratch("diff-bad");
    let run = run_into(&d, "run", &[]);
    let sweep = sweep_into(&d, "sweep", "client.web.rate=100,200", &[]);
    let err = |args: &[&str]| {
        let (out, err) = diff(args, 2);
        assert!(out.is_empty(), "nothing on stdout: {out}");
        err
    };
    let missing = d.join("missing");
    let e = err(&[path(&run), path(&missing)]);
    assert!(
        e.contains(&format!("`{}` is not a directory", missing.display())),
        "{e}"
    );
    let e = err(&[path(&run), path(&sweep)]);
    assert!(
        e.contains("is a run's directory and") && e.contains("is a sweep's directory"),
        "{e}"
    );
    // A directory that is neither.
    let e = err(&[path(&run), path(&d)]);
    assert!(e.contains("is neither a run's directory"), "{e}");
    // An unreadable result file names itself.
    let broken = d.join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("summary.json"), "{not json").unwrap();
    let e = err(&[path(&run), path(&broken)]);
    assert!(e.contains("summary.json: not JSON"), "{e}");
    // Sweeps over other points, or other parameters, say which.
    let other = sweep_into(&d, "other", "client.web.rate=100,300", &[]);
    let e = err(&[path(&sweep), path(&other)]);
    assert!(
        e.contains("point client.web.rate=200 is in `") && e.contains("but not in `"),
        "{e}"
    );
    let e = err(&[path(&other), path(&sweep)]);
    assert!(e.contains("point client.web.rate=300 is in `"), "{e}");
    let param = sweep_into(&d, "param", "service.db.workers=2,4", &[]);
    let e = err(&[path(&sweep), path(&param)]);
    assert!(
        e.contains("sweeps client.web.rate but `") && e.contains("sweeps service.db.workers"),
        "{e}"
    );
    // A run whose variants differ names the variant.
    let lone = d.join("lone");
    std::fs::create_dir_all(&lone).unwrap();
    for f in ["summary.json", "timeseries.csv", "scenario.toml"] {
        std::fs::copy(run.join(f), lone.join(f)).unwrap();
    }
    let e = err(&[path(&run), path(&lone)]);
    assert!(e.contains("variant `no-retry` is in `"), "{e}");
    // A misspelt pattern, and thresholds out of range.
    let e = err(&[path(&run), path(&run), "--metric", "client.web.sucess"]);
    assert!(e.contains("did you mean `client.web.success`?"), "{e}");
    let e = err(&[path(&run), path(&run), "--noise", "1.5"]);
    assert!(
        e.contains("--noise and --significance are fractions"),
        "{e}"
    );
}
