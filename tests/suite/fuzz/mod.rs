//! A mutation fuzzer over the committed scenarios (`scenarios/*.toml`, `docs/examples/*.toml`):
//! each case mutates one of them (see `mutate`) and runs the real binary on it, `cascade
//! validate` and then `cascade run` (and one case in `TUNE_EVERY` `cascade tune`, with arguments
//! drawn valid and invalid), each in a child process with a wall-time bound and a cap on its
//! memory. Asserted: exit code 0, 1 or 2, never a panic ("panicked at" on stderr) or a
//! signal (an abort, a kill for memory), never a hang, and on exit 2 nothing in `--out`.
//!
//! `CASCADE_FUZZ_CASES=N` runs N cases instead of `CASES` (say 20000 for a deep run);
//! `CASCADE_FUZZ_CASE=I` runs case I alone and prints its mutations.

mod imports;
mod mutate;
mod orchestration;

use crate::support::pick::Pick;
use crate::support::scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Cases by default, whatever the number of committed scenarios.
const CASES: u64 = 300;
/// Shards: separate tests, run on every core.
const SHARDS: u64 = 2;
/// A child still running after this long hangs. Generous: a mutated run of the shortest
/// valid length takes well under a second in release, a few in a debug build; only a hang
/// reaches it.
const HANG: Duration = Duration::from_secs(120);
/// The children's address space, in KiB (`ulimit -v`): a run that sizes memory by its input
/// is killed (and fails the case) long before it hurts the machine.
const MEMORY_KIB: u64 = 2 << 20;

/// A committed scenario, with the shortest `scenario.duration` (of a few) under which it still
/// validates: a mutated run stays short, and its faults and windows still fit.
struct Seed {
    path: PathBuf,
    bytes: Vec<u8>,
    short: Option<&'static str>,
}

fn corpus() -> &'static [Seed] {
    static CORPUS: OnceLock<Vec<Seed>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<PathBuf> = ["scenarios", "docs/examples"]
            .iter()
            .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let short = ["1s", "3s", "10s", "30s"].into_iter().find(|d| {
                    let set = format!("scenario.duration={d}");
                    let args = ["validate", path.to_str().unwrap(), "--set", &set];
                    cascade_status(&args).success()
                });
                let bytes = std::fs::read(&path).unwrap();
                Seed { path, bytes, short }
            })
            .collect()
    })
}

fn cascade_status(args: &[&str]) -> ExitStatus {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
}

/// Runs the binary with `args` under the memory cap and the wall-time bound; its exit status
/// (`None`: killed as a hang) and stderr.
fn bounded(dir: &Path, args: &[&str]) -> (Option<ExitStatus>, String) {
    let err_path = dir.join("stderr");
    let err = std::fs::File::create(&err_path).unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_cascade"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    (
        status,
        std::fs::read_to_string(&err_path).unwrap_or_default(),
    )
}

/// Why a finished command is a failure, if it is one.
fn judge(status: Option<ExitStatus>, stderr: &str) -> Option<String> {
    let Some(status) = status else {
        return Some(format!("still running after {HANG:?}: a hang"));
    };
    if stderr.contains("panicked at") {
        return Some(format!("a panic: {}", stderr.trim_end()));
    }
    match status.code() {
        Some(0..=2) => None,
        Some(c) => Some(format!("exit code {c}: {}", stderr.trim_end())),
        None => Some(format!(
            "killed by a signal ({status}): an abort or out of memory: {}",
            stderr.trim_end()
        )),
    }
}

/// Exit codes seen, of `validate` and of `run` (`[0, 1, 2]`), so a run shows what it reached.
#[derive(Default)]
struct Tally {
    validate: [u64; 3],
    run: [u64; 3],
    tune: [u64; 3],
}

fn code(status: Option<ExitStatus>) -> usize {
    status.and_then(|s| s.code()).unwrap_or(0).clamp(0, 2) as usize
}

/// A way of mutating a file: the new bytes and what each change did.
type Mutation = fn(&mut Pick, &[u8]) -> (Vec<u8>, Vec<String>);

/// Case `i` of `mutation`, tallied.
/// `replay` names the variable that runs case `i` alone.
fn check_case(
    i: u64,
    dir: &Path,
    tally: &mut Tally,
    mutation: Mutation,
    replay: &str,
) -> Result<(), String> {
    let mut p = Pick::new(i ^ 0x5eed_f022);
    let files = corpus();
    let seed = p.one(files);
    let (file, short) = (&seed.path, seed.short);
    let (bytes, mutations) = mutation(&mut p, &seed.bytes);
    let path = dir.join(format!("case-{i}.toml"));
    std::fs::write(&path, &bytes).unwrap();
    let path_s = path.to_str().unwrap();
    let fail = |cmd: &str, why: String| {
        format!(
            "fuzz case {i} failed: `cascade {cmd}`: {why}\n\
             mutations of {}: {}\n\
             replay: {replay}={i} cargo test --profile test-release --test suite fuzz_",
            file.display(),
            mutations.join("; ")
        )
    };
    let (status, stderr) = bounded(dir, &["validate", path_s]);
    if let Some(why) = judge(status, &stderr) {
        return Err(fail("validate", why));
    }
    tally.validate[code(status)] += 1;
    let out = dir.join(format!("out-{i}"));
    let mut args = vec!["run", path_s, "--out", out.to_str().unwrap(), "--quiet"];
    let set = short.map(|d| format!("scenario.duration={d}"));
    if let Some(set) = &set {
        args.extend(["--set", set]);
    }
    let (status, stderr) = bounded(dir, &args);
    if let Some(why) = judge(status, &stderr) {
        return Err(fail(&args.join(" "), why));
    }
    tally.run[code(status)] += 1;
    let written = std::fs::read_dir(&out).map_or(0, |d| d.count());
    if status.and_then(|s| s.code()) == Some(2) && written > 0 {
        return Err(fail(
            &args.join(" "),
            format!("exit 2 left {written} entries in --out"),
        ));
    }
    let _ = std::fs::remove_dir_all(&out);
    // Pairs of cases (0 and 1, 10 and 11, ...), so that both shards run some.
    if (i / 2).is_multiple_of(TUNE_EVERY / 2)
        && let Some(short) = short
    {
        let args = tune_args(i, path_s, short, dir);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (status, stderr) = bounded(dir, &args);
        if let Some(why) = judge(status, &stderr) {
            return Err(fail(&args.join(" "), why));
        }
        tally.tune[code(status)] += 1;
        let out = dir.join(format!("tune-{i}"));
        let written = std::fs::read_dir(&out).map_or(0, |d| d.count());
        if status.and_then(|s| s.code()) == Some(2) && written > 0 {
            return Err(fail(
                &args.join(" "),
                format!("exit 2 left {written} entries in --out"),
            ));
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    Ok(())
}

/// One case in this many also runs `cascade tune` on the mutated scenario (an even number).
const TUNE_EVERY: u64 = 10;

/// `cascade tune` on the mutated scenario at its short duration, with arguments drawn from
/// their valid and invalid forms (from a `Pick` of its own, so the mutations of every case stay
/// what they were): a grid of seeds, an objective that exists or not, replications, a budget,
/// a goal, now and then a malformed `--param`, and a `--constraint` valid or not.
fn tune_args(i: u64, path: &str, short: &str, dir: &Path) -> Vec<String> {
    let mut p = Pick::new(i ^ 0x7e4e_f022);
    let out = dir.join(format!("tune-{i}"));
    let mut args: Vec<String> = ["tune", path, "--quiet", "--out", out.to_str().unwrap()]
        .map(String::from)
        .to_vec();
    args.extend(["--set".into(), format!("scenario.duration={short}")]);
    let param = if p.chance(0.8) {
        *p.one(&[
            "scenario.seed=1,2,3,4",
            "scenario.seed=1..5:1",
            "scenario.seed=7",
        ])
    } else {
        *p.one(&["scenario.seed", "scenario.seed=1..0:1", "nope.x=1,2"])
    };
    args.extend(["--param".into(), param.into()]);
    let objective = *p.one(&[
        "run.stopped_at_s",
        "run.diverged",
        "client.nope.success_ratio",
    ]);
    args.extend(["--objective".into(), objective.into()]);
    args.push(p.one(&["--maximize", "--minimize"]).to_string());
    if p.chance(0.5) {
        args.extend(["--reps".into(), p.one(&["1", "1", "3", "0"]).to_string()]);
    }
    if p.chance(0.3) {
        args.extend([
            "--max-runs".into(),
            p.one(&["0", "4", "6", "1000"]).to_string(),
        ]);
    }
    // Drawn last, so that the arguments above stay what they were for every case.
    if p.chance(0.3) {
        args.extend([
            "--constraint".into(),
            p.one(&[
                "seed <= 3",
                "scenario.seed * 1s != 2s",
                "seed > 99",
                "seed <",
                "nope < 1",
                "seed <= 1ms",
            ])
            .to_string(),
        ]);
    }
    args
}

fn run_shard(shard: u64) {
    let dir = scratch(&format!("fuzz-{shard}"));
    let cases: Vec<u64> = match crate::support::env_u64("CASCADE_FUZZ_CASE") {
        Some(i) if i % SHARDS == shard => vec![i],
        Some(_) => vec![],
        None => (shard..crate::support::env_u64("CASCADE_FUZZ_CASES").unwrap_or(CASES))
            .step_by(SHARDS as usize)
            .collect(),
    };
    let mut tally = Tally::default();
    for i in cases {
        if let Err(e) = check_case(i, &dir, &mut tally, mutate::mutate, "CASCADE_FUZZ_CASE") {
            panic!("{e}");
        }
    }
    println!(
        "fuzz shard {shard}: validate exited 0/1/2 {:?}, run {:?}, tune {:?}",
        tally.validate, tally.run, tally.tune
    );
}

#[test]
fn fuzz_committed_scenarios_shard_0() {
    run_shard(0);
}

#[test]
fn fuzz_committed_scenarios_shard_1() {
    run_shard(1);
}
