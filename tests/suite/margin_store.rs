//! `cascade margin --store DIR` and `--shard K/N` (`margin/store.rs`, `margin/runs.rs`): a
//! margin's runs recorded, so a margin run again into its directory makes only the runs it
//! lacks (resumed after a kill, refined with a finer tolerance), and a margin split into
//! shards on several machines, their directories joined by `cascade merge`, finds exactly the
//! margins one sitting finds. On scenarios/retry-collapse-margin.toml: one fault, two axes
//! (load and trigger), so two searches to deal out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCENARIO: &str = "scenarios/retry-collapse-margin.toml";
const SEARCH: [&str; 5] = ["--reps", "3", "--max-runs", "30", "--json"];

fn cascade(args: &[&str], dirs: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cascade"));
    cmd.args(args);
    for (flag, dir) in dirs {
        // An empty flag: the directory is a positional argument.
        if !flag.is_empty() {
            cmd.arg(flag);
        }
        cmd.arg(dir);
    }
    cmd.output().unwrap()
}

fn ok(out: &Output) -> (String, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    (String::from_utf8(out.stdout.clone()).unwrap(), stderr)
}

/// A margin of the scenario, with `extra` arguments and directory flags.
fn margin(extra: &[&str], dirs: &[(&str, &Path)]) -> (String, String) {
    let mut args = vec!["margin", SCENARIO];
    args.extend(SEARCH);
    args.extend(extra);
    ok(&cascade(&args, dirs))
}

/// The "runs: M made, R read" line's two numbers.
fn made_read(stderr: &str) -> (usize, usize) {
    let line = (stderr.lines())
        .find(|l| l.starts_with("runs: "))
        .unwrap_or_else(|| panic!("no runs line in {stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[1].parse().unwrap(), words[3].parse().unwrap())
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cascade-margin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn records(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn a_margin_run_again_into_its_store_makes_only_the_runs_it_lacks() {
    let dir = temp("resume");
    let (fresh, _) = margin(&[], &[]);
    let (first, err) = margin(&[], &[("--store", &dir)]);
    assert_eq!(first, fresh, "recording changes nothing");
    let (made, read) = made_read(&err);
    assert_eq!(read, 0);
    assert_eq!(records(&dir).len(), made);
    // A margin killed part way: some records never written.
    let files = records(&dir);
    for f in files.iter().step_by(4) {
        std::fs::remove_file(f).unwrap();
    }
    let lost = files.iter().step_by(4).count();
    let (again, err) = margin(&[], &[("--store", &dir)]);
    assert_eq!(again, fresh);
    assert_eq!(made_read(&err), (lost, made - lost));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_finer_tolerance_adds_runs_to_the_coarse_ones_and_finds_the_fine_margin() {
    let dir = temp("refine");
    let (_, coarse) = margin(&["--tolerance", "0.2"], &[("--store", &dir)]);
    let (coarse_made, _) = made_read(&coarse);
    let (fine_fresh, fine) = margin(&["--tolerance", "0.02"], &[]);
    let (fine_stored, err) = margin(&["--tolerance", "0.02"], &[("--store", &dir)]);
    assert_eq!(fine_stored, fine_fresh);
    assert!(!fine.contains("runs:"), "no store, no runs line: {fine}");
    let (made, read) = made_read(&err);
    // Every coarse probe is on the fine search's path: the bisection starts the same way.
    assert_eq!(read, coarse_made);
    assert!(made > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merged_find_the_margins_of_one_sitting_without_a_run() {
    let (a, b, joined) = (temp("shard-a"), temp("shard-b"), temp("joined"));
    let (whole, _) = margin(&[], &[]);
    let (one, err_one) = margin(&["--shard", "1/2"], &[("--store", &a)]);
    let (two, err_two) = margin(&["--shard", "2/2"], &[("--store", &b)]);
    let parse = |s: &str| -> Vec<serde_json::Value> {
        serde_json::from_str::<serde_json::Value>(s)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    };
    // Each shard finds its own search, as the whole does.
    let all = parse(&whole);
    assert_eq!(all.len(), 2);
    assert_eq!(parse(&one), vec![all[0].clone()]);
    assert_eq!(parse(&two), vec![all[1].clone()]);
    let merged = cascade(&["merge"], &[("", &a), ("", &b), ("--out", &joined)]);
    ok(&merged);
    let (from_store, err) = margin(&[], &[("--store", &joined)]);
    assert_eq!(from_store, whole);
    let shard_runs = made_read(&err_one).0 + made_read(&err_two).0;
    assert_eq!(made_read(&err), (0, shard_runs));
    for d in [a, b, joined] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_store_of_another_scenario_or_a_shard_without_a_store_is_refused() {
    let dir = temp("other");
    let load_only = [
        "margin",
        SCENARIO,
        "--axis",
        "load",
        "--reps",
        "3",
        "--max-runs",
        "3",
    ];
    ok(&cascade(&load_only, &[("--store", &dir)]));
    let mut args = load_only.to_vec();
    args.extend(["--set", "scenario.seed=5"]);
    let out = cascade(&args, &[("--store", &dir)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds the runs of another margin (its seed differs)"),
        "{err}"
    );
    // A record that is not the run its name says is refused, not taken.
    let first = records(&dir)[0].clone();
    let text = std::fs::read_to_string(&first).unwrap();
    let seed_at = text.find("\"seed\":").unwrap() + 7;
    let mut forged = text.clone();
    forged.insert(seed_at, '9');
    std::fs::write(&first, forged).unwrap();
    let out = cascade(&load_only, &[("--store", &dir)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("holds another run"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cascade(&["margin", SCENARIO, "--shard", "1/2"], &[]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
