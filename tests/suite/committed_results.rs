//! The example outputs committed under `docs/results/` are what the current binary writes: the
//! commands in `docs/results/README.md` run in a scratch directory, and every committed file
//! is compared with what they wrote, byte for byte; every file of a committed kind they wrote
//! must be committed. `CASCADE_BLESS=1` copies them into `docs/results/` instead.

use crate::support::golden::{blessing, first_difference, repo};
use crate::support::scratch;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Output directories too slow to regenerate on every test run (the metastability map's sweep:
/// 36 cells × 2 variants × 8 replications, 576 runs, about 30 s): regenerated when blessing,
/// not compared otherwise.
const SLOW: [&str; 1] = ["metastability-map-sweep"];

/// Files the commands write that are not committed: wall clock (`run.json`) or large.
fn committed_kind(rel: &Path) -> bool {
    let name = rel.file_name().unwrap().to_string_lossy();
    let skipped = [
        "run.json",
        "timeseries.csv",
        "points.csv",
        "points.json",
        "runs.csv",
        "runs.json",
    ];
    !skipped.contains(&name.as_ref()) && !rel.components().any(|c| c.as_os_str() == "runs")
}

/// The commands of the README's sh block, each with the `results/<dir>` it writes or reads.
fn commands() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(repo().join("docs/results/README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(2)
        .expect("the commands' block, after the bless one");
    let block = &block[..block.find("```").unwrap()];
    block
        .lines()
        .map(|line| {
            let words: Vec<String> = line.split_whitespace().map(String::from).collect();
            assert_eq!(words[0], "cascade", "{line}");
            let dir = words
                .iter()
                .find_map(|w| w.strip_prefix("results/"))
                .unwrap_or_else(|| panic!("`{line}` names no results/<dir>"))
                .trim_end_matches('/')
                .to_string();
            (dir, words[1..].to_vec())
        })
        .collect()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn committed_results_are_what_the_current_binary_writes() {
    let scratch_dir = scratch("committed-results");
    std::os::unix::fs::symlink(repo().join("scenarios"), scratch_dir.join("scenarios")).unwrap();
    let committed_root = repo().join("docs/results");
    let bless = blessing();
    let mut dirs: Vec<String> = Vec::new();
    for (dir, args) in commands() {
        if !bless && SLOW.contains(&dir.as_str()) {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
            .args(&args)
            .arg("--quiet")
            .current_dir(&scratch_dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cascade {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let mut listed: Vec<String> = std::fs::read_dir(&committed_root)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    listed.sort();
    let mut all: Vec<String> = commands().into_iter().map(|(d, _)| d).collect();
    all.sort();
    all.dedup();
    assert_eq!(
        listed, all,
        "docs/results/ holds a directory no command writes, or lacks one"
    );
    for dir in &dirs {
        let written = scratch_dir.join("results").join(dir);
        let committed = committed_root.join(dir);
        let wanted: Vec<PathBuf> = files(&written)
            .into_iter()
            .filter(|r| committed_kind(r))
            .collect();
        if bless {
            let _ = std::fs::remove_dir_all(&committed);
            for rel in &wanted {
                let to = committed.join(rel);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(written.join(rel), to).unwrap();
            }
            continue;
        }
        assert_eq!(
            files(&committed),
            wanted,
            "docs/results/{dir}: the files committed are not those the commands write; regenerate with `CASCADE_BLESS=1 cargo test --profile test-release committed_results`"
        );
        for rel in &wanted {
            let now = std::fs::read(written.join(rel)).unwrap();
            let then = std::fs::read(committed.join(rel)).unwrap();
            if now != then {
                let diff = first_difference(
                    &String::from_utf8_lossy(&then),
                    &String::from_utf8_lossy(&now),
                )
                .unwrap_or_default();
                panic!(
                    "docs/results/{dir}/{} is not what the binary writes now; regenerate with `CASCADE_BLESS=1 cargo test --profile test-release committed_results`\n{diff}",
                    rel.display()
                );
            }
        }
    }
}
