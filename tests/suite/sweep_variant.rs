//! `cascade sweep --variant NAME`: only the named variants run, on the seeds and numbers they
//! have in the whole sweep; the manifest records the choice, so a sitting with another set is
//! refused (run indices count the variants) while the same set, in any order, resumes and
//! merges byte-identically.

use crate::support::{self, cascade, read};
use std::path::Path;

const SCENARIO: &str = r#"[scenario]
name = "pickvar"
duration = "8s"
seed = 21

[[client]]
name = "c"
target = "s"
rate = 300
policy = "p"

[[service]]
name = "s"
workers = 4
work = { dist = "exponential", mean = "10ms" }

[policy.p]
timeout = "50ms"
retry = { attempts = 3 }

[[variant]]
name = "no-retry"
set = { "policy.p.retry.attempts" = 1 }

[[variant]]
name = "wide"
set = { service.s.workers = 8 }
"#;

fn dir(tag: &str) -> support::Scratch {
    let d = support::scratch(&format!("sweep-variant-{tag}"));
    std::fs::write(d.join("s.toml"), SCENARIO).unwrap();
    d
}

/// `cascade sweep` over two rates and two replications into `d/out`, with `extra`.
fn sweep(d: &Path, out: &str, extra: &[&str], code: i32) -> String {
    let scenario = d.join("s.toml");
    let out = d.join(out);
    let mut args = vec![
        "sweep",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--param",
        "client.c.rate=200,300",
        "--reps",
        "2",
    ];
    args.extend(extra);
    let o = cascade(&args, code);
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&read(&dir.join("sweep.json"))).unwrap()
}

/// runs.csv's rows of `variant`, without the point and seed columns' neighbours changed.
fn rows_of(dir: &Path, variant: &str) -> Vec<String> {
    read(&dir.join("runs.csv"))
        .lines()
        .filter(|l| l.split(',').nth(1) == Some(variant))
        .map(String::from)
        .collect()
}

#[test]
fn only_the_named_variants_run_with_the_numbers_of_the_whole_sweep() {
    let d = dir("numbers");
    sweep(&d, "whole", &[], 0);
    // Named out of file order: the sweep keeps the scenario's order.
    let said = sweep(&d, "picked", &["--variant", "wide", "--variant", "base"], 0);
    assert!(
        said.contains("2 points x 2 variants x 2 replications: ran 8 runs"),
        "{said}"
    );
    let m = manifest(&d.join("picked"));
    assert_eq!(m["variants"], serde_json::json!(["base", "wide"]));
    assert_eq!(m["left_out"], serde_json::json!(["no-retry"]));
    assert_eq!(m["runs"], 8);
    // Without --variant the manifest has no left_out: sweep.json reads and is written as before.
    assert!(manifest(&d.join("whole")).get("left_out").is_none());
    let picked = d.join("picked");
    assert!(rows_of(&picked, "no-retry").is_empty());
    for v in ["base", "wide"] {
        let (whole, some) = (rows_of(&d.join("whole"), v), rows_of(&picked, v));
        assert_eq!(some.len(), 4, "{v}");
        // Same point, rep, seed and metrics: a variant's runs do not depend on the others.
        assert_eq!(whole, some, "{v}");
    }
    // A single variant that is not the base keeps its column in the headline.
    let said = sweep(&d, "one", &["--variant", "no-retry"], 0);
    assert!(
        said.contains("variant") && said.contains("no-retry"),
        "{said}"
    );
    assert_eq!(
        rows_of(&d.join("one"), "no-retry"),
        rows_of(&d.join("whole"), "no-retry")
    );
}

#[test]
fn an_unknown_variant_is_refused_before_anything_is_written() {
    let d = dir("unknown");
    let said = sweep(&d, "out", &["--variant", "no-retyr"], 2);
    assert!(
        said.contains("--variant no-retyr: the scenario has no such variant"),
        "{said}"
    );
    assert!(said.contains("did you mean `no-retry`?"), "{said}");
    assert!(
        said.contains("its variants are base, no-retry, wide"),
        "{said}"
    );
    assert!(!d.join("out").exists());
}

#[test]
fn a_sitting_with_another_set_is_refused_and_the_same_set_resumes() {
    let d = dir("resume");
    sweep(&d, "whole", &["--variant", "base", "--variant", "wide"], 0);
    // The first of two shards, then the whole sweep into the same directory: it resumes.
    sweep(
        &d,
        "resumed",
        &["--variant", "wide", "--variant", "base", "--shard", "1/2"],
        0,
    );
    let before = support::snapshot(&d.join("resumed"));
    for other in [&["--variant", "wide"][..], &[]] {
        let said = sweep(&d, "resumed", other, 2);
        assert!(said.contains("holds another sweep"), "{said}");
        assert!(said.contains("its variants differ"), "{said}");
        assert!(
            said.contains("a sweep resumes or merges only with the same set"),
            "{said}"
        );
        assert_eq!(
            support::snapshot(&d.join("resumed")),
            before,
            "left as it was"
        );
    }
    let said = sweep(
        &d,
        "resumed",
        &["--variant", "base", "--variant", "wide"],
        0,
    );
    assert!(
        said.contains("ran 4 runs (4 already done, skipped)"),
        "{said}"
    );
    assert_eq!(
        support::snapshot(&d.join("whole")),
        support::snapshot(&d.join("resumed"))
    );
}

#[test]
fn shards_of_a_picked_sweep_merge_and_other_picks_do_not() {
    let d = dir("merge");
    let pick = ["--variant", "no-retry", "--variant", "wide"];
    sweep(&d, "whole", &pick, 0);
    for k in 1..=2 {
        let mut extra = pick.to_vec();
        let shard = format!("{k}/2");
        extra.extend(["--shard", &shard]);
        sweep(&d, &format!("shard{k}"), &extra, 0);
    }
    let merged = d.join("merged");
    let (s1, s2) = (d.join("shard1"), d.join("shard2"));
    cascade(
        &[
            "merge",
            "--quiet",
            "--out",
            merged.to_str().unwrap(),
            s1.to_str().unwrap(),
            s2.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(
        support::snapshot(&d.join("whole")),
        support::snapshot(&merged)
    );
    // A shard of a sweep with another pick is another sweep.
    sweep(&d, "other", &["--variant", "wide", "--shard", "2/2"], 0);
    let o = cascade(
        &[
            "merge",
            "--out",
            d.join("mixed").to_str().unwrap(),
            s1.to_str().unwrap(),
            d.join("other").to_str().unwrap(),
        ],
        2,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("hold different sweeps (its variants differ"),
        "{err}"
    );
}

#[test]
fn diff_names_the_variants_two_sweeps_differ_in() {
    let d = dir("diff");
    sweep(&d, "whole", &[], 0);
    sweep(&d, "picked", &["--variant", "wide"], 0);
    let (whole, picked) = (d.join("whole"), d.join("picked"));
    let o = cascade(
        &["diff", whole.to_str().unwrap(), picked.to_str().unwrap()],
        2,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ran the variants base, no-retry, wide but `"),
        "{err}"
    );
    assert!(
        err.contains("` ran wide: diff matches points by their variant too"),
        "{err}"
    );
    // The same pick on both sides compares: a variant against itself is all within noise.
    sweep(&d, "again", &["--variant", "wide"], 0);
    let o = cascade(
        &[
            "diff",
            picked.to_str().unwrap(),
            d.join("again").to_str().unwrap(),
        ],
        0,
    );
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("0 improved, 0 regressed, 0 changed"),
        "{said}"
    );
}
