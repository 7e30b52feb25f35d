//! What is refused before any run starts: a sweep whose parameter a variant also sets, a
//! `--metric` or `[[expect]]` metric no run reports, and whatever `validate` can find without
//! simulating. Each is exit 2 with nothing written.

use crate::support::{cascade, scratch};
use std::path::Path;

const SCENARIO: &str = r#"[scenario]
name = "pre"
duration = "5s"
seed = 3

[[client]]
name = "app"
target = "api"
rate = 200
policy = "p"

[policy.p]
timeout = "50ms"
retry = { attempts = 2 }

[[service]]
name = "api"
workers = 4
work = "5ms"

[[variant]]
name = "wider"
set = { service.api = { workers = 8 } }
"#;

fn write(tag: &str, text: &str) -> (crate::support::Scratch, String, String) {
    let d = scratch(&format!("pre-{tag}"));
    std::fs::write(d.join("s.toml"), text).unwrap();
    let s = d.join("s.toml").to_str().unwrap().to_string();
    let o = d.join("out").to_str().unwrap().to_string();
    (d, s, o)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// No run of the sweep was recorded under `out`.
fn no_records(out: &str) {
    let runs = Path::new(out).join("runs");
    let n = std::fs::read_dir(&runs).map_or(0, |d| d.count());
    assert_eq!(n, 0, "{} holds records", runs.display());
}

#[test]
fn a_sweep_refuses_a_parameter_a_variant_sets() {
    let (_d, s, o) = write("overlap", SCENARIO);
    // The variant sets the table `service.api`, which holds the swept `workers`.
    let out = cascade(
        &[
            "sweep",
            &s,
            "--param",
            "service.api.workers=2,4",
            "--out",
            &o,
            "-q",
        ],
        2,
    );
    let err = stderr(&out);
    assert!(err.contains("--param service.api.workers"), "{err}");
    assert!(
        err.contains("variant `wider`") && err.contains("service.api.workers"),
        "{err}"
    );
    assert!(!Path::new(&o).exists(), "nothing is written");
    // A parameter the variant leaves alone is fine.
    cascade(
        &[
            "sweep",
            &s,
            "--param",
            "client.app.rate=100,200",
            "--out",
            &o,
            "-q",
        ],
        0,
    );
}

#[test]
fn a_sweep_table_that_overlaps_a_variant_is_refused_by_validate_and_sweep() {
    let text = format!("{SCENARIO}\n[sweep]\n\"service.api.workers\" = [2, 4]\n");
    let (_d, s, o) = write("overlap-file", &text);
    for args in [&["validate", &s][..], &["sweep", &s, "--out", &o, "-q"]] {
        let err = stderr(&cascade(args, 2));
        assert!(
            err.contains("[sweep] service.api.workers"),
            "{args:?}: {err}"
        );
        assert!(err.contains("variant `wider`"), "{args:?}: {err}");
    }
    assert!(!Path::new(&o).exists());
}

#[test]
fn a_misspelt_metric_stops_a_sweep_before_its_first_run() {
    let (_d, s, o) = write("metric", SCENARIO);
    let args = [
        "sweep",
        &s,
        "--param",
        "client.app.rate=100,200",
        "--metric",
        "client.app.sucess_ratio",
        "--out",
        &o,
        "-q",
    ];
    let err = stderr(&cascade(&args, 2));
    assert!(err.contains("--metric client.app.sucess_ratio"), "{err}");
    assert!(
        err.contains("did you mean `client.app.success_ratio`"),
        "{err}"
    );
    no_records(&o);
    // Patterns and windowed names the runs will have pass the check.
    let mut good = args;
    good[5] = "client.app.success_*";
    cascade(&good, 0);
}

#[test]
fn validate_and_check_find_a_misspelt_expect_metric_without_running() {
    let text = format!(
        "{SCENARIO}\n[[expect]]\nmetric = \"client.app.sucess_ratio\"\nop = \">=\"\nvalue = 0.9\n"
    );
    let (d, s, _o) = write("expect", &text);
    let junit = d.join("j.xml");
    for args in [
        &["validate", &s][..],
        &["check", &s, "--junit", junit.to_str().unwrap()],
    ] {
        let err = stderr(&cascade(args, 2));
        assert!(err.contains("s.toml:26:"), "{args:?}: {err}");
        assert!(
            err.contains("no metric `client.app.sucess_ratio`"),
            "{args:?}: {err}"
        );
    }
    assert!(!junit.exists());
}

#[test]
fn validate_checks_every_point_of_the_sweep_table() {
    let text = format!("{SCENARIO}\n[sweep]\n\"service.api.queue\" = [10, -1]\n");
    let (_d, s, _o) = write("points", &text);
    let err = stderr(&cascade(&["validate", &s], 2));
    assert!(err.contains("service.api.queue"), "{err}");
}

#[test]
fn jobs_are_capped_at_four_per_core() {
    let (_d, s, o) = write("jobs", SCENARIO);
    let out = cascade(
        &[
            "sweep",
            &s,
            "--param",
            "client.app.rate=100,200",
            "--jobs",
            "1000000",
            "--out",
            &o,
        ],
        0,
    );
    let cores = std::thread::available_parallelism().unwrap().get();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(" on {} threads", 4 * cores)),
        "{stdout}"
    );
}

#[test]
fn validate_reads_the_base_files_expectations_as_check_does() {
    // refusal-storm's case: the base emits `refusal_work_s` (its refusals cost work) and a
    // variant that makes them free does not. The expectation reads the base; validate used to
    // judge every variant's copy of it too, and refused a scenario `check` runs.
    let text = SCENARIO
        .replace(
            "work = \"5ms\"\n",
            "work = \"5ms\"\nreject_work = \"1ms\"\n",
        )
        .replace(
            "set = { service.api = { workers = 8 } }",
            "set = { service.api = { workers = 8, reject_work = \"0s\" } }",
        );
    let text = format!(
        "{text}\n[[expect]]\nmetric = \"service.api.refusal_work_s\"\nop = \"<=\"\nvalue = 100\n"
    );
    let (_d, s, _o) = write("variant-metric", &text);
    cascade(&["validate", &s], 0);
    // Asked of the variant, the same metric is still refused.
    let (_d, s, _o) = write(
        "variant-metric-asked",
        &format!("{text}variant = \"wider\"\n"),
    );
    let err = stderr(&cascade(&["validate", &s], 2));
    assert!(
        err.contains("no metric `service.api.refusal_work_s`"),
        "{err}"
    );
}
