//! `cascade check` on expectations that name a `[[variant]]` (`variant = "wide"`): judged on
//! that variant's runs, labelled with its name in the table and the JUnit XML, and a name the
//! scenario does not have is bad input.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

/// One worker at 100/s of 9 ms work is 90% busy; the `wide` variant's four are 22.5% busy.
const TWO_RUNS: &str = r#"[scenario]
name = "gate"
duration = "10s"

[[client]]
name = "web"
target = "api"
rate = 100

[[service]]
name = "api"
workers = 1
work = "9ms"

[[variant]]
name = "wide"
set = { service.api.workers = 4 }
"#;

fn check(d: &Path, expects: &str, extra: &[&str]) -> Output {
    std::fs::write(d.join("gate.toml"), format!("{TWO_RUNS}\n{expects}")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("check")
        .arg(d.join("gate.toml"))
        .args(extra)
        .output()
        .unwrap()
}

const ON_EACH_RUN: &str = r#"
[[expect]]
metric = "service.api.utilization"
op = ">"
value = 0.5

[[expect]]
metric = "service.api.utilization"
variant = "wide"
op = "<"
value = 0.5

[[expect]]
metric = "service.api.utilization"
variant = "base"
op = ">"
value = 0.5
"#;

#[test]
fn an_expectation_on_a_variant_is_judged_on_that_variants_runs() {
    let d = support::scratch("check-variant-judged");
    let junit = d.join("junit.xml");
    let out = check(&d, ON_EACH_RUN, &["--junit", junit.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    // The base's line reads as before; the variant's names it after the metric. `variant =
    // "base"` is the base run, labelled as the base is.
    assert!(
        stdout.contains("service.api.utilization > 0.5  0.8"),
        "{stdout}"
    );
    assert!(
        stdout.contains("service.api.utilization[wide] < 0.5  0.2"),
        "{stdout}"
    );
    assert!(
        stdout.contains("3 checks in 1 scenario: 3 passed"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    support::assert_well_formed("junit.xml", &xml);
    assert!(
        xml.contains(r#"name="service.api.utilization[wide] &lt; 0.5""#),
        "{xml}"
    );

    // The same claim on the wrong run fails: the variant's number is not the base's.
    let swapped = ON_EACH_RUN
        .replacen("variant = \"wide\"\n", "", 1)
        .replacen(
            "op = \">\"\nvalue = 0.5\n\n[[expect]]",
            "op = \">\"\nvalue = 0.5\nvariant = \"wide\"\n\n[[expect]]",
            1,
        );
    let out = check(&d, &swapped, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{swapped}\n{stdout}");
    assert!(
        stdout.contains("✗      gate  service.api.utilization[wide] > 0.5"),
        "{stdout}"
    );
    assert!(
        stdout.contains("3 checks in 1 scenario: 1 passed, 2 failed"),
        "{stdout}"
    );
}

#[test]
fn an_unknown_variant_is_bad_input_located_at_the_key() {
    let d = support::scratch("check-variant-unknown");
    let typo = "[[expect]]\nmetric = \"service.api.utilization\"\nop = \"<\"\nvalue = 0.5\nvariant = \"wdie\"\n";
    for command in ["check", "validate", "run"] {
        std::fs::write(d.join("gate.toml"), format!("{TWO_RUNS}\n{typo}")).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cascade"));
        cmd.arg(command).arg(d.join("gate.toml"));
        if command == "run" {
            cmd.arg("--out").arg(d.join("out"));
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {err}");
        assert!(
            err.contains("gate.toml:23:1: field `expect.0.variant`: no run named `wdie` (did you mean `wide`?): this scenario's runs are `base`, `wide`"),
            "{command}: {err}"
        );
    }
}

#[test]
fn a_misspelt_metric_on_a_variant_is_found_before_anything_runs() {
    let d = support::scratch("check-variant-metric");
    let typo = "[[expect]]\nmetric = \"service.api.utilisation\"\nop = \"<\"\nvalue = 0.5\nvariant = \"wide\"\n";
    let out = check(&d, typo, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("field `expect.0.metric`: the run has no metric `service.api.utilisation` (did you mean `service.api.utilization`?)"),
        "{err}"
    );
}

fn comparing(compare: &str, op: &str, value: f64) -> String {
    format!(
        "[[expect]]\nmetric = \"service.api.utilization\"\nvariant = \"wide\"\nagainst = \"base\"\ncompare = \"{compare}\"\nop = \"{op}\"\nvalue = {value}\nreps = 3\n"
    )
}

#[test]
fn two_runs_compared_pass_fail_and_say_what_they_compare() {
    let d = support::scratch("check-variant-compare");
    // Four workers instead of one: the same work spread over four times the capacity, a
    // quarter of the utilization (0.252 on these seeds: the busy one queues a little).
    let out = check(&d, &comparing("ratio", "<=", 0.26), &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("mean of 3: service.api.utilization[wide / base] <= 0.26  0.25"),
        "{stdout}"
    );
    let out = check(&d, &comparing("ratio", "<=", 0.24), &[]);
    assert_eq!(out.status.code(), Some(1));
    let out = check(&d, &comparing("difference", "<", -0.6), &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("mean of 3: service.api.utilization[wide - base] < -0.6  -0.6"),
        "{stdout}"
    );
    let out = check(&d, &comparing("difference", ">", 0.0), &[]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_comparison_that_cannot_be_made_is_bad_input_at_its_key() {
    let d = support::scratch("check-variant-compare-bad");
    let valid = comparing("ratio", "<=", 0.26);
    for (edited, field, says) in [
        (
            valid.replace("compare = \"ratio\"\n", ""),
            "expect.0.against",
            "`against` needs `compare = \"ratio\"`",
        ),
        (
            valid.replace("against = \"base\"\n", ""),
            "expect.0.compare",
            "`compare` compares two runs: add `against`",
        ),
        (
            valid.replace("\"ratio\"", "\"quotient\""),
            "expect.0.compare",
            "unknown comparison of runs `quotient`; valid: ratio, difference",
        ),
        (
            valid.replace("against = \"base\"", "against = \"wide\""),
            "expect.0.against",
            "compares the run `wide` with itself",
        ),
        (
            valid.replace("against = \"base\"", "against = \"bsae\""),
            "expect.0.against",
            "no run named `bsae` (did you mean `base`?)",
        ),
    ] {
        let out = check(&d, &edited, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{edited}\n{err}");
        assert!(
            err.contains("gate.toml:") && err.contains(&format!("field `{field}`: {says}")),
            "{edited}\n{err}"
        );
    }
}
