//! Reports of expectations that name a variant or compare two runs: judged on the runs the
//! directory holds, with the numbers `cascade check` gives, and left to `check` otherwise.

use crate::support::*;
use std::path::Path;

/// One worker at 100/s of 9 ms work, and a `wide` variant with four.
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
work = { dist = "exponential", mean = "9ms" }

[[variant]]
name = "wide"
set = { service.api.workers = 4 }

[[expect]]
metric = "service.api.utilization"
variant = "wide"
op = "<"
value = 0.5

[[expect]]
metric = "client.web.latency_p99_ms"
variant = "wide"
against = "base"
compare = "ratio"
op = "<="
value = 0.5
"#;

/// The rows of the Markdown report's expectations table, cell by cell.
fn expectation_rows(md: &str) -> Vec<Vec<String>> {
    let section = &md[md.find("## Expectations").expect("an expectations section")..];
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// `check`'s measured column for the expectation labelled `label`.
fn checked(scenario: &Path, extra: &[&str], label: &str) -> String {
    let mut args = vec!["check", scenario.to_str().unwrap()];
    args.extend(extra);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(&args)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let line = table
        .lines()
        .find(|l| l.contains(&format!("{label}  ")))
        .unwrap_or_else(|| panic!("no `{label}` in\n{table}"));
    line.rsplit("  ").next().unwrap().trim().to_string()
}

#[test]
fn a_run_report_judges_a_variants_expectation_on_the_variants_directory() {
    let dir = scratch("report-variant-run");
    let scenario = dir.join("gate.toml");
    std::fs::write(&scenario, TWO_RUNS).unwrap();
    let run = dir.join("run");
    cascade(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "-q",
        ],
        0,
    );
    cascade(
        &["report", run.to_str().unwrap(), "--markdown", "--quiet"],
        0,
    );
    let md = read(&run.join("report.md"));
    let rows = expectation_rows(&md);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let on_variant = "service.api.utilization[wide] < 0.5";
    let ratio = "client.web.latency_p99_ms[wide / base] <= 0.5";
    assert_eq!(rows[0][1], on_variant);
    assert_eq!(rows[1][1], ratio);
    // The same verdicts and numbers as `check` (both judge the run on the scenario's seed).
    assert_eq!(rows[0][0], "✓ pass");
    assert_eq!(rows[0][2], checked(&scenario, &[], on_variant));
    assert_eq!(rows[1][0], "✓ pass");
    assert_eq!(rows[1][2], checked(&scenario, &[], ratio));
    assert!(md.contains("✓ expectations: 2 of 2 hold"), "{md}");

    // Without the variant's directory there is nothing to judge them on.
    std::fs::remove_dir_all(run.join("wide")).unwrap();
    cascade(
        &["report", run.to_str().unwrap(), "--markdown", "--quiet"],
        0,
    );
    let md = read(&run.join("report.md"));
    let rows = expectation_rows(&md);
    assert_eq!(rows[0][0], "– not judged");
    assert!(
        rows[0][1].starts_with(&format!("{on_variant}: needs the run `wide`")),
        "{rows:?}"
    );
    assert!(
        md.contains("expectations: 2 need runs not here (`cascade check`), none is judged"),
        "{md}"
    );
}

#[test]
fn a_sweep_report_judges_a_variants_expectation_in_the_variants_row_alone() {
    let dir = scratch("report-variant-sweep");
    let scenario = dir.join("gate.toml");
    std::fs::write(&scenario, TWO_RUNS).unwrap();
    let out = dir.join("sweep");
    cascade(
        &[
            "sweep",
            scenario.to_str().unwrap(),
            "--param",
            "client.web.rate=50,100",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    cascade(
        &["report", out.to_str().unwrap(), "--markdown", "--quiet"],
        0,
    );
    let md = read(&out.join("report.md"));
    let rows = expectation_rows(&md);
    // point, variant, then one column per expectation.
    let row = |point: &str, variant: &str| {
        rows.iter()
            .find(|r| r[0] == point && r[1] == variant)
            .unwrap_or_else(|| panic!("no row {point} {variant}: {rows:?}"))
    };
    for (point, rate) in [("0", "50"), ("1", "100")] {
        assert_eq!(row(point, "base")[2], "–");
        assert_eq!(row(point, "base")[3], "–");
        let set = format!("client.web.rate={rate}");
        for (col, label) in [
            (2, "service.api.utilization[wide] < 0.5"),
            (3, "client.web.latency_p99_ms[wide / base] <= 0.5"),
        ] {
            let cell = &row(point, "wide")[col];
            let measured = checked(&scenario, &["--set", &set], label);
            assert!(
                cell.starts_with("✓ ") || cell.starts_with("✗ "),
                "{point} {label}: {cell}"
            );
            // `check` shows three significant digits, the report its short form: compare
            // as numbers.
            let (a, b): (f64, f64) = (cell[4..].parse().unwrap(), measured.parse().unwrap());
            assert!(
                (a - b).abs() <= 0.01 * b.abs().max(0.001),
                "{point} {label}: {cell} vs {measured}"
            );
        }
    }
}
