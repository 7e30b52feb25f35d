//! What `[[alert]]`s show outside their metrics: the alerts table `cascade run` prints (the
//! report's Alerts table, the same rows) and the "Alerts firing" strip of the timeline chart,
//! one lane per alert with its firing intervals as alerts.csv holds them.
//!
//! On scenarios/payment-alerts.toml (its header works the times out): 503s from 120 s to
//! 720 s, every alert evaluated every 15 s on 15 s buckets. retry_ratio and success_slo are
//! first seen at 135 s and fire `for = 5m` later, at 435 s (315 s after the fault's start);
//! both resolve at 735 s, the first evaluation reading a calm bucket ([720 s, 735 s)): 300 s
//! of firing. fast_burn fires at 135 s (15 s after the start) and its 5 min window still burns
//! at the run's end, 900 s: 765 s of firing. All start inside the fault's window: no false
//! page.

use crate::support::golden::repo;
use crate::support::{cascade, fixture, read, scratch};
use cascade::chart::strip_rows;
use cascade::output::read_run::read_run;

fn payment_alerts(name: &str, args: &[&str]) -> (crate::support::Scratch, String) {
    let dir = scratch(name);
    let scenario = repo().join("scenarios/payment-alerts.toml");
    let out = dir.join("out");
    let mut all = vec![
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend(args);
    let o = cascade(&all, 0);
    (dir, String::from_utf8_lossy(&o.stdout).to_string())
}

#[test]
fn run_prints_each_alert_against_each_fault() {
    let (_dir, stdout) = payment_alerts("alert-run-table", &[]);
    let table = "\
alert        fired  first fired (s)  firing (s)  false pages  fault 0: detected after
-------------------------------------------------------------------------------------
retry_ratio    yes              435         300            0  315 s
success_slo    yes              435         300            0  315 s
fast_burn      yes              135         765            0  15 s
";
    assert!(stdout.contains(table), "{stdout}");
    // After the faults' table, before the variants'.
    let at = stdout.find(table).unwrap();
    assert!(stdout.find("goodput/s before").unwrap() < at, "{stdout}");
    assert!(at < stdout.find("variants (same seed").unwrap(), "{stdout}");
}

#[test]
fn run_prints_an_alert_that_never_fired_as_missing_every_fault() {
    // In the calm variant (no 503s) nothing fires; as its own run, the table says so.
    let (_dir, stdout) = payment_alerts("alert-run-calm", &["--set", "fault.0.rate=0"]);
    let table = "\
alert        fired  first fired (s)  firing (s)  false pages  fault 0: detected after
-------------------------------------------------------------------------------------
retry_ratio     no                –           0            0  missed
success_slo     no                –           0            0  missed
fast_burn       no                –           0            0  missed
";
    assert!(stdout.contains(table), "{stdout}");
}

#[test]
fn run_prints_no_alerts_table_without_alerts() {
    // The small fixture has a fault and no alert: no table, no alerts.csv.
    let dir = scratch("alert-run-none");
    let out = dir.join("out");
    let o = cascade(
        &[
            "run",
            fixture("small.toml").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        0,
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("false pages"), "{stdout}");
    assert!(!out.join("alerts.csv").exists());
}

#[test]
fn the_timeline_draws_a_lane_per_alert_over_its_firings() {
    let (dir, _) = payment_alerts("alert-strip", &["--quiet"]);
    let out = dir.join("out");
    // The rows, from alerts.csv: one per alert in the scenario's order, a bar per firing.
    let run = read_run(&out, "base").unwrap();
    let rows = strip_rows::alerts(&run);
    let lanes: Vec<(&str, Vec<(f64, f64)>)> = (rows.iter())
        .map(|r| {
            let bars = r.bars.iter().map(|b| (b.start, b.end)).collect();
            (r.label.as_str(), bars)
        })
        .collect();
    assert_eq!(
        lanes,
        vec![
            ("retry_ratio", vec![(435.0, 735.0)]),
            ("success_slo", vec![(435.0, 735.0)]),
            ("fast_burn", vec![(135.0, 900.0)]),
        ]
    );
    // The calm variant's lanes stay, each named as never having fired.
    let calm = read_run(&out.join("calm"), "calm").unwrap();
    let labels: Vec<String> = strip_rows::alerts(&calm)
        .into_iter()
        .map(|r| {
            assert!(r.bars.is_empty());
            r.label
        })
        .collect();
    assert_eq!(
        labels,
        [
            "retry_ratio (never fired)",
            "success_slo (never fired)",
            "fast_burn (never fired)"
        ]
    );
    // Drawn: the strip's heading, each lane's name, and three bars in the alerts' colour
    // whose x extents stand as their times do on the shared axis (0 to 900 s).
    cascade(&["chart", out.to_str().unwrap(), "--quiet"], 0);
    let svg = read(&out.join("charts/timeline.svg"));
    for label in ["Alerts firing", "retry_ratio", "success_slo", "fast_burn"] {
        assert!(
            svg.contains(&format!("\n{label}\n</text>")),
            "{label} missing"
        );
    }
    let bars: Vec<(f64, f64)> = (svg.lines())
        .filter(|l| l.starts_with("<rect") && l.contains("opacity=\"0.85\" fill=\"#0072B2\""))
        .map(|l| (attr(l, "x"), attr(l, "width")))
        .collect();
    assert_eq!(bars.len(), 3, "{bars:?}");
    // Pixels per second from fast_burn's bar (765 s wide, ending at 900 s, the axis' end).
    let px = bars[2].1 / 765.0;
    let near = |got: f64, want: f64| (got - want).abs() <= 1.5;
    for (x, width) in &bars[..2] {
        assert!(near(*width, 300.0 * px), "{bars:?}");
        assert!(near(*x, bars[2].0 + 300.0 * px), "{bars:?}");
    }
}

/// The number in attribute `name="…"` of an SVG element's line.
fn attr(line: &str, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let at = line.find(&key).unwrap() + key.len();
    line[at..].split('"').next().unwrap().parse().unwrap()
}
