//! What `[[alert]]`s show outside their metrics: the alerts table `cascade run` prints (the
//! report's Alerts table, the same rows).
//!
//! On scenarios/payment-alerts.toml (its header works the times out): 503s from 120 s to
//! 720 s, every alert evaluated every 15 s on 15 s buckets. retry_ratio and success_slo are
//! first seen at 135 s and fire `for = 5m` later, at 435 s (315 s after the fault's start);
//! both resolve at 735 s, the first evaluation reading a calm bucket ([720 s, 735 s)): 300 s
//! of firing. fast_burn fires at 135 s (15 s after the start) and its 5 min window still burns
//! at the run's end, 900 s: 765 s of firing. All start inside the fault's window: no false
//! page.

use crate::support::golden::repo;
use crate::support::{cascade, fixture, scratch};

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
