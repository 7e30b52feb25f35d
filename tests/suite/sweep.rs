//! `cascade sweep`: grids, replications, statistics, and output that does not depend on --jobs.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

const SCENARIO: &str = r#"[scenario]
name = "sweepme"
duration = "20s"
seed = 5

[[client]]
name = "c"
target = "s"
rate = 300

[[service]]
name = "s"
workers = 4
work = { dist = "exponential", mean = "10ms" }
"#;

fn dir(tag: &str) -> support::Scratch {
    let d = support::scratch(&format!("sweep-{tag}"));
    std::fs::write(d.join("s.toml"), SCENARIO).unwrap();
    d
}

fn sweep(d: &Path, out: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("sweep")
        .arg(d.join("s.toml"))
        .arg("--out")
        .arg(d.join(out))
        .arg("--quiet")
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_output_is_byte_identical_whatever_the_number_of_threads() {
    let d = dir("jobs");
    let grid = [
        "--param",
        "service.s.workers=4..6:1",
        "--param",
        "client.c.rate=200,300",
        "--reps",
        "3",
    ];
    for (out, jobs) in [("one", "1"), ("two", "2")] {
        let mut args = grid.to_vec();
        args.extend(["--jobs", jobs]);
        let o = sweep(&d, out, &args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for f in ["runs.csv", "points.csv", "runs.json", "points.json"] {
        let a = std::fs::read(d.join("one").join(f)).unwrap();
        let b = std::fs::read(d.join("two").join(f)).unwrap();
        assert_eq!(a, b, "{f} differs between --jobs 1 and 2");
    }
    let runs = std::fs::read_to_string(d.join("one/runs.csv")).unwrap();
    // 3 x 2 points, 3 replications each, after the header.
    assert_eq!(runs.lines().count(), 1 + 18);
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    assert_eq!(
        &header[..6],
        [
            "point",
            "variant",
            "rep",
            "seed",
            "service.s.workers",
            "client.c.rate"
        ]
    );
    // Replication r has the same seed at every point; replication 0 is the scenario's seed.
    let seeds: Vec<(String, String)> = runs
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].to_string(), f[3].to_string())
        })
        .collect();
    for (rep, seed) in &seeds {
        let first = &seeds.iter().find(|(r, _)| r == rep).unwrap().1;
        assert_eq!(seed, first);
    }
    assert_eq!(seeds[0], ("0".to_string(), "5".to_string()));
}

#[test]
fn points_hold_the_mean_and_interval_of_their_replications() {
    let d = dir("points");
    let o = sweep(
        &d,
        "out",
        &["--param", "service.s.workers=4,8", "--reps", "4"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let runs = std::fs::read_to_string(d.join("out/runs.csv")).unwrap();
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "client.c.requests")
        .unwrap();
    let requests: Vec<f64> = runs
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("0,"))
        .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
        .collect();
    assert_eq!(requests.len(), 4);
    let mean = requests.iter().sum::<f64>() / 4.0;
    let points = std::fs::read_to_string(d.join("out/points.csv")).unwrap();
    let row: Vec<&str> = points
        .lines()
        .find(|l| l.starts_with("0,base,4,client.c.requests,"))
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(row[4], "4");
    assert!((row[5].parse::<f64>().unwrap() - mean).abs() < 1e-9);
    let (lo, hi): (f64, f64) = (row[7].parse().unwrap(), row[8].parse().unwrap());
    assert!(lo < mean && mean < hi);
}

#[test]
fn a_bad_parameter_is_bad_input() {
    let d = dir("bad");
    let o = sweep(&d, "out", &["--param", "service.s.wrkers=4,8"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("wrkers"), "{err}");
    let o = sweep(&d, "out", &["--param", "service.s.workers=8..4:1"]);
    assert_eq!(o.status.code(), Some(2));
    // A value of the wrong type is located at the field, whichever point has it.
    let o = sweep(&d, "out", &["--param", "service.s.workers=4,lots"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("service.s.workers"), "{err}");
    assert!(!d.join("out").exists());
}

#[test]
fn a_sweep_table_in_the_file_sets_the_grid_and_param_replaces_its_values() {
    let d = dir("table");
    let text = format!(
        "{SCENARIO}\n[sweep]\nreps = 2\n\"service.s.workers\" = [4, 6]\n\"client.c.rate\" = \"100..300:100\"\n"
    );
    std::fs::write(d.join("s.toml"), text).unwrap();
    let o = sweep(&d, "file", &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let runs = std::fs::read_to_string(d.join("file/runs.csv")).unwrap();
    // Paths in alphabetical order: client.c.rate (3 values) then service.s.workers (2); 2 reps.
    assert_eq!(runs.lines().count(), 1 + 3 * 2 * 2);
    assert!(runs.starts_with("point,variant,rep,seed,client.c.rate,service.s.workers,"));
    let o = sweep(
        &d,
        "cli",
        &["--param", "service.s.workers=8", "--reps", "1"],
    );
    assert_eq!(o.status.code(), Some(0));
    let runs = std::fs::read_to_string(d.join("cli/runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 3);
    assert!(
        runs.lines()
            .skip(1)
            .all(|l| l.split(',').nth(5) == Some("8"))
    );
}

#[test]
fn hyperfines_parameter_flags_mean_the_same_grid() {
    let d = dir("hyperfine");
    let ours = sweep(
        &d,
        "ours",
        &[
            "--param",
            "client.c.rate=200,300",
            "--param",
            "service.s.workers=4..8:2",
        ],
    );
    let theirs = sweep(
        &d,
        "theirs",
        &[
            "--parameter-list",
            "client.c.rate",
            "200,300",
            "--parameter-scan",
            "service.s.workers",
            "4",
            "8",
            "-D",
            "2",
        ],
    );
    assert_eq!(
        (ours.status.code(), theirs.status.code()),
        (Some(0), Some(0))
    );
    let read = |out: &str| std::fs::read(d.join(out).join("points.csv")).unwrap();
    assert!(read("ours") == read("theirs"));
    assert_eq!(
        String::from_utf8(read("ours"))
            .unwrap()
            .lines()
            .skip(1)
            .filter(|l| l.contains(",client.c.requests,"))
            .count(),
        6
    );
}

/// A replication's seed from runs.csv, passed back to `run --seed` or written as
/// `scenario.seed`, reruns that replication: every u64 seed is accepted, including the half of
/// them at 2^63 and above that TOML's signed integers cannot hold (written as a string).
#[test]
fn a_replication_seed_of_2_to_the_63_or_more_reruns_that_replication() {
    let d = dir("seed-back");
    let o = sweep(&d, "out", &["--param", "client.c.rate=300", "--reps", "6"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let runs = support::read(&d.join("out/runs.csv"));
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    // The first replication whose seed is 2^63 or more (about half of them are).
    let row: Vec<&str> = runs
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .find(|r| r[at("seed")].parse::<u64>().unwrap() >= 1 << 63)
        .expect("one of six replication seeds is 2^63 or more");
    let col = |name: &str| row[at(name)];
    let seed: u64 = col("seed").parse().unwrap();
    let requests: f64 = col("client.c.requests").parse().unwrap();

    let flag = d.join("flag");
    support::cascade(
        &[
            "run",
            d.join("s.toml").to_str().unwrap(),
            "--seed",
            &seed.to_string(),
            "--out",
            flag.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    let written = SCENARIO.replace("seed = 5", &format!("seed = \"{seed}\""));
    std::fs::write(d.join("big.toml"), written).unwrap();
    let key = d.join("key");
    support::cascade(
        &[
            "run",
            d.join("big.toml").to_str().unwrap(),
            "--out",
            key.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    for out in [&flag, &key] {
        let summary: serde_json::Value =
            serde_json::from_str(&support::read(&out.join("summary.json"))).unwrap();
        assert_eq!(summary["seed"].as_u64(), Some(seed));
        assert_eq!(
            summary["metrics"]["client.c.requests"].as_f64(),
            Some(requests)
        );
    }
    // The effective scenario.toml carries the seed as a string, and runs again as it is.
    let effective = support::read(&flag.join("scenario.toml"));
    assert!(
        effective.contains(&format!("seed = \"{seed}\"")),
        "{effective}"
    );
}
