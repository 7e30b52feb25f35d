//! `[[alert]]` end to end, against timelines computed by hand: Prometheus' `for` and
//! `keep_firing_for`, a flapping condition, the multi-window burn rate, the metrics
//! (`alert.<name>.*`, `fault.<i>.alert.<name>.detect_s`), alerts.csv, and gates on them.
//!
//! The scenarios send 50 requests/s to a 1 ms service and take it out with `outage` faults,
//! which answer `refused` at once: a bucket wholly inside an outage has a success ratio of 0,
//! one wholly outside it 1, whatever the draws. So each evaluation's condition is known.

use crate::support::{cascade, metric, read, scratch};

const S: u64 = 1_000_000_000;

fn scenario(duration: &str, faults: &[(u64, u64)], alerts: &str) -> String {
    let mut text = format!(
        r#"[scenario]
name = "alerts"
duration = "{duration}"
seed = 7

[[client]]
name = "web"
target = "api"
rate = 50

[[service]]
name = "api"
work = "1ms"
workers = 4
"#
    );
    for (start, end) in faults {
        text += &format!(
            "\n[[fault]]\nkind = \"outage\"\ntarget = \"api\"\nstart = \"{start}s\"\nend = \"{end}s\"\n"
        );
    }
    text + alerts
}

fn run(text: &str) -> cascade::RunResult {
    let model = cascade::scenario::load_str("alerts.toml", text, &[])
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    cascade::simulate(&model).unwrap()
}

fn firings(r: &cascade::RunResult, name: &str) -> Vec<(u64, u64)> {
    let a = r.alerts.iter().find(|a| a.name == name).unwrap();
    assert_eq!(a.missing, None);
    a.firings.iter().map(|(s, e)| (s / S, e / S)).collect()
}

#[test]
fn a_step_fires_once_the_condition_has_held_for_for_and_keep_firing_for_holds_it() {
    // Outage 100 s to 600 s; evaluated every 10 s on the bucket [t − 1 s, t). First seen at
    // t = 110 s (pending); 110 + 300 = 410 s: firing. The bucket [609, 610) is back to 1:
    // resolved at 610 s; with keep_firing_for = 30 s, kept at 610, 620, 630 (< 30 s since the
    // first false evaluation) and resolved at 640 s.
    let text = scenario(
        "700s",
        &[(100, 600)],
        r#"
[[alert]]
name = "down"
metric = "client.web.success_ratio"
op = "<"
value = 0.5
every = "10s"
for = "5m"

[[alert]]
name = "down_kept"
metric = "client.web.success_ratio"
op = "<"
value = 0.5
every = "10s"
for = "5m"
keep_firing_for = "30s"
"#,
    );
    let r = run(&text);
    assert_eq!(firings(&r, "down"), vec![(410, 610)]);
    assert_eq!(firings(&r, "down_kept"), vec![(410, 640)]);
    let m = &r.metrics;
    assert_eq!(metric(m, "alert.down.fired"), 1.0);
    assert_eq!(metric(m, "alert.down.first_fire_s"), 410.0);
    assert_eq!(metric(m, "alert.down.firing_s"), 200.0);
    assert_eq!(metric(m, "alert.down_kept.firing_s"), 230.0);
    assert_eq!(metric(m, "alert.down.false_pages"), 0.0);
    // The fault's window starts at 100 s: detected 310 s after its start.
    assert_eq!(metric(m, "fault.0.alert.down.detect_s"), 310.0);
}

#[test]
fn a_flapping_condition_with_for_never_fires_and_fires_in_each_stretch_with_a_shorter_for() {
    // Outages of 120 s with 30 s between them: each stretch of true evaluations runs from
    // start + 10 to end (t = 110..=220, 260..=370, 410..=520), less than 5 min.
    let text = scenario(
        "600s",
        &[(100, 220), (250, 370), (400, 520)],
        r#"
[[alert]]
name = "patient"
metric = "client.web.success_ratio"
op = "<"
value = 0.5
every = "10s"
for = "5m"

[[alert]]
name = "quick"
metric = "client.web.success_ratio"
op = "<"
value = 0.5
every = "10s"
for = "1m"

[[alert]]
name = "inverted"
metric = "client.web.success_ratio"
op = ">"
value = 0.5
every = "10s"
"#,
    );
    let r = run(&text);
    assert_eq!(firings(&r, "patient"), vec![]);
    let m = &r.metrics;
    assert_eq!(metric(m, "alert.patient.fired"), 0.0);
    assert_eq!(metric(m, "alert.patient.firing_s"), 0.0);
    assert!(m.get("alert.patient.first_fire_s").is_none());
    assert!(m.get("fault.0.alert.patient.detect_s").is_none());
    // for = 1 min: 110 + 60 = 170 s, resolved at 230 s (the bucket [229, 230) is back).
    assert_eq!(
        firings(&r, "quick"),
        vec![(170, 230), (320, 380), (470, 530)]
    );
    for i in 0..3 {
        assert_eq!(metric(m, &format!("fault.{i}.alert.quick.detect_s")), 70.0);
    }
    assert_eq!(metric(m, "alert.quick.false_pages"), 0.0);
    // Firing while all is well: from the first evaluation (10 s) until each outage is seen,
    // again after each: every one of its four firings starts outside the faults' windows
    // (each fault's ends where goodput came back, at the fault's end).
    assert_eq!(
        firings(&r, "inverted"),
        vec![(10, 110), (230, 260), (380, 410), (530, 600)]
    );
    assert_eq!(metric(m, "alert.inverted.false_pages"), 4.0);
    assert_eq!(
        metric(m, "alert.inverted.firing_s"),
        100.0 + 30.0 + 30.0 + 70.0
    );
}

#[test]
fn a_burn_rate_alert_fires_when_both_windows_burn_and_resolves_with_the_short_one() {
    // Everything fails from 100 s to 400 s. Long window 10 min, short 1 min, SLO 99.9%,
    // factor 14.4: a window's error ratio must pass 0.0144. At t = 110 s the long window
    // (clamped to the run's start) holds 10 s of errors in 110 s (0.09), the short 10 s in
    // 60 s: both burn, and at 100 s neither holds any. After 400 s the short window's ratio
    // over [t − 60, t) is (460 − t)/60, above 0.0144 while t < 459.1 s: last true at 450 s, resolved at
    // 460 s, while the long window still burns.
    let text = scenario(
        "600s",
        &[(100, 400)],
        r#"
[[alert]]
name = "fast_burn"
slo = 0.999
of = "client.web"
long = "10m"
short = "1m"
burn = 14.4
every = "10s"
"#,
    );
    let r = run(&text);
    assert_eq!(firings(&r, "fast_burn"), vec![(110, 460)]);
    assert_eq!(metric(&r.metrics, "fault.0.alert.fast_burn.detect_s"), 10.0);
}

#[test]
fn a_rising_trend_against_the_baseline_and_a_ratio_of_two_metrics() {
    // `baseline = true`: the errors per bucket over their mean before the first fault (0):
    // any error is infinitely above it. The ratio: refused over requests.
    let text = scenario(
        "300s",
        &[(100, 200)],
        r#"
[[alert]]
name = "rising"
metric = "client.web.errors.refused"
baseline = true
op = ">"
value = 2
every = "10s"

[[alert]]
name = "refusals"
ratio = ["client.web.errors.refused", "client.web.requests"]
op = ">="
value = 0.9
every = "10s"
for = "20s"
"#,
    );
    let r = run(&text);
    assert_eq!(firings(&r, "rising"), vec![(110, 210)]);
    assert_eq!(firings(&r, "refusals"), vec![(130, 210)]);
}

#[test]
fn alerts_csv_lists_each_firing_and_a_run_without_alerts_has_none() {
    let dir = scratch("alerts-csv");
    let with = dir.join("with.toml");
    std::fs::write(
        &with,
        scenario(
            "300s",
            &[(100, 200)],
            r#"
[[alert]]
name = "down"
metric = "client.web.success_ratio"
op = "<"
value = 0.5
every = "10s"

[[alert]]
name = "never"
metric = "client.web.success_ratio"
op = "<"
value = 0
"#,
        ),
    )
    .unwrap();
    let out = dir.join("out");
    cascade(
        &[
            "run",
            with.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(
        read(&out.join("alerts.csv")),
        "alert,start_s,end_s\ndown,110,210\n"
    );
    let summary = read(&out.join("summary.json"));
    assert!(summary.contains("\"alert.never.fired\": 0"), "{summary}");
    // The same directory run again without alerts: the old alerts.csv goes.
    let without = dir.join("without.toml");
    std::fs::write(&without, scenario("300s", &[(100, 200)], "")).unwrap();
    cascade(
        &[
            "run",
            without.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        0,
    );
    assert!(!out.join("alerts.csv").exists());
    assert!(!read(&out.join("summary.json")).contains("alert."));
}

/// A storm of retries behind an errors fault: "the retry-ratio alert fires within 60 s of the
/// storm" and "no alert fires in the calm variant", as `cascade check` gates, and the gate
/// bites when the alert is made too lax to fire.
const RETRY_GATES: &str = r#"[scenario]
name = "retry-alert"
duration = "240s"
seed = 5

[[client]]
name = "web"
target = "api"
rate = 50
policy = "retrying"

[policy.retrying]
retry = { attempts = 3, base = "10ms" }

[[service]]
name = "api"
work = "1ms"
workers = 4

[[fault]]
kind = "errors"
target = "api"
rate = 0.5
start = "100s"
end = "160s"

[[alert]]
name = "retry_ratio"
ratio = ["edge.web.api.retries", "edge.web.api.attempts"]
op = ">"
value = 0.2
every = "15s"
for = "30s"

[[variant]]
name = "calm"
set = { "fault.0.rate" = 0 }

[[expect]]
metric = "fault.0.alert.retry_ratio.detect_s"
op = "<="
value = 60

[[expect]]
variant = "calm"
metric = "alert.retry_ratio.fired"
op = "=="
value = 0

[[expect]]
metric = "alert.retry_ratio.false_pages"
op = "=="
value = 0
"#;

#[test]
fn gates_on_alerts_pass_and_bite() {
    let dir = scratch("alerts-gates");
    let file = dir.join("retry.toml");
    std::fs::write(&file, RETRY_GATES).unwrap();
    let out = dir.join("out");
    let f = file.to_str().unwrap();
    let o = out.to_str().unwrap();
    // Half the attempts fail and each call makes up to 3: 1.75 attempts per call, 0.75 of
    // them retries, a ratio of 0.43 > 0.2 in every bucket of the fault and 0 outside it. The
    // first evaluation after 100 s is at 105 s (a multiple of 15 s): pending; firing 30 s
    // later, at 135 s: 35 s after the fault's start.
    cascade(&["run", f, "--quiet", "--out", o], 0);
    let summary = read(&out.join("summary.json"));
    assert!(
        summary.contains("\"fault.0.alert.retry_ratio.detect_s\": 35"),
        "{summary}"
    );
    assert!(
        read(&out.join("calm").join("summary.json")).contains("\"alert.retry_ratio.fired\": 0")
    );
    cascade(&["check", f, "--quiet"], 0);
    // A threshold the ratio never reaches: the alert misses the storm and the gate says so.
    let lax = cascade(&["check", f, "--quiet", "--set", "alert.0.value=0.9"], 1);
    let text =
        String::from_utf8_lossy(&lax.stdout).to_string() + &String::from_utf8_lossy(&lax.stderr);
    // An alert that never fired detects nothing: judged as taking forever.
    assert!(
        text.contains("fault.0.alert.retry_ratio.detect_s <= 60") && text.contains("inf"),
        "{text}"
    );
}

#[test]
fn the_report_tables_alerts_against_faults() {
    let dir = scratch("alerts-report");
    let file = dir.join("retry.toml");
    std::fs::write(&file, RETRY_GATES.replace("for = \"30s\"", "for = \"30s\"\n\n[[alert]]\nname = \"deaf\"\nmetric = \"client.web.success_ratio\"\nop = \"<\"\nvalue = 0\n")).unwrap();
    let out = dir.join("out");
    cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        0,
    );
    cascade(
        &["report", out.to_str().unwrap(), "--quiet", "--markdown"],
        0,
    );
    let md = read(&out.join("report.md"));
    let at = md.find("## Alerts").expect("an Alerts section");
    let table = &md[at..];
    // The retry-ratio alert fired at 135 s and resolved at the first evaluation after the
    // storm's end at 160 s (165 s, reading the calm bucket [164 s, 165 s)): 30 s of firing,
    // detected 35 s after fault 0's start. The deaf one never fired: fault 0 missed.
    assert!(table.contains("| retry_ratio | yes | 135 |"), "{table}");
    assert!(table.contains("| 35 s |"), "{table}");
    assert!(
        table.contains("| deaf | no | – | 0 | 0 | missed |"),
        "{table}"
    );
}
