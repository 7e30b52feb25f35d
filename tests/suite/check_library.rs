//! `cascade check DIR` over a library: every `.toml` at any depth, run on one pool of
//! `--jobs` threads, with output and JUnit XML byte-identical and in the same order whatever
//! `--jobs` is.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

fn scenario(name: &str, seed: u64, workers: u32) -> String {
    format!(
        r#"[scenario]
name = "{name}"
duration = "5s"
seed = {seed}

[[client]]
name = "web"
target = "api"
rate = 200

[[service]]
name = "api"
workers = {workers}
work = {{ dist = "exponential", mean = "8ms" }}

[[variant]]
name = "wide"
set = {{ service.api.workers = {} }}

[[expect]]
metric = "client.web.latency_p99_ms"
op = "<"
value = 40
reps = 3
stat = "max"

[[expect]]
metric = "client.web.latency_p99_ms"
variant = "wide"
against = "base"
compare = "ratio"
op = "<"
value = 0.9
reps = 4
"#,
        workers * 2
    )
}

fn check(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("check")
        .args(args)
        .output()
        .unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_directory_is_checked_with_its_subdirectories_but_not_its_dot_directories() {
    let d = support::scratch("check-tree");
    write(&d.join("top.toml"), &scenario("top", 1, 3));
    write(&d.join("seeds/deep.toml"), &scenario("deep", 2, 3));
    write(&d.join("seeds/more/deeper.toml"), &scenario("deeper", 3, 3));
    write(&d.join(".hidden/skipped.toml"), &scenario("skipped", 4, 3));
    write(&d.join("seeds/notes.txt"), "not a scenario");
    let out = check(&[d.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Sorted by path: seeds/deep, seeds/more/deeper, then top.
    let names: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|n| ["top", "deep", "deeper", "skipped"].contains(n))
        .collect();
    assert_eq!(
        names,
        ["deep", "deep", "deeper", "deeper", "top", "top"],
        "{stdout}"
    );
    assert!(stdout.contains("in 3 scenarios"), "{stdout}");
    // A broken file deep down is found: the whole tree is validated.
    write(&d.join("seeds/more/broken.toml"), "[scenario]\nname = 1\n");
    let out = check(&[d.as_os_str()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("broken.toml"), "{err}");
}

#[test]
fn the_output_does_not_depend_on_jobs() {
    let d = support::scratch("check-jobs");
    // Six scenarios, some failing (one worker is overloaded at 200/s of 8 ms), with variants
    // and replications: many runs of unequal length to finish out of order.
    for (i, workers) in [1, 2, 3, 4, 2, 6].iter().enumerate() {
        write(
            &d.join(format!("lib/s{i}.toml")),
            &scenario(&format!("s{i}"), i as u64 + 10, *workers),
        );
    }
    let mut seen: Vec<(Vec<u8>, String)> = Vec::new();
    for jobs in ["1", "2", "4", "7"] {
        let junit = d.join(format!("junit-{jobs}.xml"));
        let out = check(&[
            d.join("lib").as_os_str(),
            "--jobs".as_ref(),
            jobs.as_ref(),
            "--junit".as_ref(),
            junit.as_os_str(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "--jobs {jobs}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let xml = std::fs::read_to_string(&junit).unwrap();
        seen.push((out.stdout, support::golden::mask_junit_times(&xml)));
    }
    let first = &seen[0];
    let table = String::from_utf8_lossy(&first.0);
    assert!(table.contains("12 checks in 6 scenarios"), "{table}");
    assert!(table.contains("✗") && table.contains("✓"), "{table}");
    for (i, other) in seen.iter().enumerate().skip(1) {
        assert_eq!(
            String::from_utf8_lossy(&other.0),
            table,
            "stdout differs with the {i}th --jobs"
        );
        assert_eq!(other.1, first.1, "JUnit differs with the {i}th --jobs");
    }
}
