//! Every class of bad input ends with exit code 2 and a message naming file, line, column and
//! field; nothing panics and no output file is written.

use crate::support::{Scratch, golden, scratch};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) const GOOD: &str = r#"[scenario]
name = "shop"
duration = "5s"
seed = 1

[[client]]
name = "web"
target = "api"
rate = 100
deadline = "1s"

[[service]]
name = "api"
workers = 8
queue = 50
work = { dist = "exponential", mean = "2ms" }
calls = [ { to = "db", policy = "db-client" } ]

[[service]]
name = "db"
workers = 4
work = "3ms"

[policy.db-client]
timeout = "200ms"
"#;

/// One test's scratch directory; every error message it sees is gathered and, when the test
/// ends, compared with the golden file `tests/golden/errors/<tag>.txt`.
pub(crate) struct Case {
    tag: &'static str,
    dir: Scratch,
    errors: RefCell<String>,
}

impl Case {
    pub(crate) fn new(tag: &'static str) -> Case {
        Case {
            tag,
            dir: scratch(&format!("bad-{tag}")),
            errors: RefCell::new(String::new()),
        }
    }

    pub(crate) fn file(&self, text: &str) -> PathBuf {
        let p = self.dir.join("scenario.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    fn run(&self, path: &Path, extra: &[&str]) -> Output {
        let out = self.dir.join("out");
        Command::new(env!("CARGO_BIN_EXE_cascade"))
            .arg("run")
            .arg(path)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    }

    /// Runs `text` and checks the failure: exit 2, no panic, no output, and every `needle`
    /// present in stderr.
    pub(crate) fn rejects(&self, text: &str, needles: &[&str]) -> String {
        let path = self.file(text);
        self.rejects_with(&path, &[], needles)
    }

    fn rejects_with(&self, path: &Path, extra: &[&str], needles: &[&str]) -> String {
        let out = self.run(path, extra);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "exit code; stderr: {err}");
        assert!(!err.contains("panicked"), "panic: {err}");
        assert!(
            !self.dir.join("out").exists(),
            "an output directory was written despite the error"
        );
        // serde names the Rust types it expected (`RawBudget`); the user never wrote those.
        assert!(!err.contains("Raw"), "an internal type name in: {err}");
        for n in needles {
            assert!(err.contains(n), "stderr lacks `{n}`:\n{err}");
        }
        let args: Vec<String> = extra.iter().map(|a| format!(" {a}")).collect();
        self.errors.borrow_mut().push_str(&format!(
            "$ cascade run {}{}\n{err}\n",
            path.display(),
            args.concat()
        ));
        err
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        let errors = self.errors.borrow();
        if !std::thread::panicking() && !errors.is_empty() {
            let text = golden::placeholders(&errors, &self.dir);
            golden::assert_golden(&format!("errors/{}.txt", self.tag), &text);
        }
    }
}

#[test]
fn the_good_scenario_runs() {
    let c = Case::new("good");
    let out = c.run(&c.file(GOOD), &["--quiet"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in ["summary.json", "timeseries.csv", "run.json"] {
        assert!(c.dir.join("out").join(f).exists(), "{f}");
    }
}

#[test]
fn toml_syntax_error() {
    let c = Case::new("syntax");
    c.rejects(
        &GOOD.replace("name = \"api\"", "name = \"api"),
        &["scenario.toml:13:", "string"],
    );
}

#[test]
fn unknown_key_suggests_the_closest() {
    let c = Case::new("typo");
    c.rejects(
        &GOOD.replace("workers = 8", "wrkers = 8"),
        &[
            "scenario.toml:14:1",
            "service.api.wrkers",
            "did you mean `workers`",
        ],
    );
}

#[test]
fn wrong_type() {
    let c = Case::new("type");
    c.rejects(
        &GOOD.replace("workers = 8", "workers = \"eight\""),
        &[
            "scenario.toml:14:11",
            "service.api.workers",
            "expected an integer ≥ 1 or \"unbounded\"",
        ],
    );
}

#[test]
fn zero_or_negative_values() {
    let c = Case::new("zero");
    c.rejects(
        &GOOD.replace("workers = 8", "workers = 0"),
        &[
            "scenario.toml:14:11",
            "service.api.workers",
            "expected an integer ≥ 1 or \"unbounded\", got 0",
        ],
    );
    c.rejects(
        &GOOD.replace("workers = 8", "workers = -3"),
        &["scenario.toml:14", "service.api.workers"],
    );
    c.rejects(
        &GOOD.replace("rate = 100", "rate = -5"),
        &["scenario.toml:9", "client.web.rate"],
    );
    c.rejects(
        &GOOD.replace("duration = \"5s\"", "duration = \"0s\""),
        &["scenario.toml:3", "scenario.duration"],
    );
    c.rejects(
        &GOOD.replace("duration = \"5s\"", "duration = \"2600000h\""),
        &["scenario.toml:3", "scenario.duration", "146 years"],
    );
    c.rejects(
        &GOOD.replace("timeout = \"200ms\"", "timeout = \"0ms\""),
        &["scenario.toml:25:1", "policy.db-client.timeout"],
    );
}

#[test]
fn unknown_service_and_policy_names() {
    let c = Case::new("names");
    c.rejects(
        &GOOD.replace("to = \"db\"", "to = \"dbb\""),
        &[
            "scenario.toml:17:13",
            "no service named `dbb`",
            "did you mean `db`",
        ],
    );
    c.rejects(
        &GOOD.replace("target = \"api\"", "target = \"apu\""),
        &["scenario.toml:8", "client.web.target", "did you mean `api`"],
    );
    c.rejects(
        &GOOD.replace("policy = \"db-client\"", "policy = \"db-clinet\""),
        &[
            "scenario.toml:17",
            "no [policy.db-clinet]",
            "did you mean `db-client`",
        ],
    );
}

#[test]
fn call_graph_cycle() {
    let c = Case::new("cycle");
    let text = GOOD.replace(
        "work = \"3ms\"",
        "work = \"3ms\"\ncalls = [ { to = \"api\" } ]",
    );
    c.rejects(&text, &["scenario.toml:", "cycle", "api -> db -> api"]);
}

#[test]
fn unparseable_duration() {
    let c = Case::new("duration");
    c.rejects(
        &GOOD.replace("deadline = \"1s\"", "deadline = \"1 fortnight\""),
        &[
            "scenario.toml:10:12",
            "client.web.deadline",
            "invalid duration",
        ],
    );
    // A bare number gets the fix with the unit the field usually takes.
    c.rejects(
        &GOOD.replace("deadline = \"1s\"", "deadline = 1"),
        &[
            "scenario.toml:10",
            "client.web.deadline",
            "a duration needs a unit",
            "did you mean `deadline = \"1ms\"`?",
        ],
    );
    c.rejects(
        &GOOD.replace("duration = \"5s\"", "duration = 120"),
        &["scenario.duration", "did you mean `duration = \"120s\"`?"],
    );
    c.rejects(
        &GOOD.replace("deadline = \"1s\"", "deadline = 0.5"),
        &["`0.5` alone", "did you mean `deadline = \"0.5ms\"`?"],
    );
    let path = c.file(GOOD);
    c.rejects_with(
        &path,
        &["--set", "scenario.warmup=30"],
        &["did you mean `--set scenario.warmup=30s`?"],
    );
}

#[test]
fn empty_file_and_missing_sections() {
    let c = Case::new("empty");
    c.rejects("", &["scenario.toml", "empty"]);
    c.rejects("   \n# only a comment\n", &["scenario.toml", "empty"]);
    c.rejects(
        "[[client]]\nname = \"web\"\ntarget = \"api\"\nrate = 1\n",
        &["scenario.toml", "scenario"],
    );
}

#[test]
fn distribution_errors() {
    let c = Case::new("dist");
    c.rejects(
        &GOOD.replace("mean = \"2ms\" }", "median = \"2ms\" }"),
        &["scenario.toml:16", "service.api.work", "does not apply"],
    );
    c.rejects(
        &GOOD.replace("dist = \"exponential\"", "dist = \"exponentail\""),
        &["scenario.toml:16", "did you mean `exponential`"],
    );
}

#[test]
fn bad_overrides_name_the_override() {
    let c = Case::new("set");
    let path = c.file(GOOD);
    c.rejects_with(
        &path,
        &["--set", "service.apii.workers=3"],
        &["service.apii.workers", "did you mean `api`"],
    );
    let err = c.rejects_with(
        &path,
        &["--set", "service.api.wrkers=3"],
        &["--set service.api.wrkers=3", "did you mean `workers`"],
    );
    let points_at_line = err
        .split("scenario.toml:")
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    assert!(
        !points_at_line,
        "an override's error must not point at a line the user did not write: {err}"
    );
    c.rejects_with(
        &path,
        &["--set", "service.api.workers=zero"],
        &[
            "--set service.api.workers=zero",
            "expected an integer ≥ 1 or \"unbounded\"",
        ],
    );
    c.rejects_with(&path, &["--set", "nonsense"], &["PATH=VALUE"]);
}

#[test]
fn missing_file() {
    let c = Case::new("missing");
    c.rejects_with(&c.dir.join("nope.toml"), &[], &["nope.toml"]);
}

#[test]
fn validate_uses_the_same_checks() {
    let c = Case::new("validate");
    let path = c.file(&GOOD.replace("workers = 8", "wrkers = 8"));
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("validate")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `workers`"));
    let ok = c.file(GOOD);
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("validate")
        .arg(&ok)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn usage_errors_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("run")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn overrides_do_not_shift_the_lines_of_later_errors() {
    let c = Case::new("shift");
    // db's typo is on line 22; the override adds a line to api's table above it.
    let path = c.file(&GOOD.replace("work = \"3ms\"", "wrk = \"3ms\""));
    c.rejects_with(
        &path,
        &["--set", "service.api.instances=2"],
        &["scenario.toml:22:", "service.db.wrk"],
    );
}

#[test]
fn unused_policies_and_non_failure_outcomes_are_checked() {
    let c = Case::new("policies");
    let text = format!("{GOOD}\n[policy.spare]\ntimeout = \"0s\"\n");
    c.rejects(&text, &["policy.spare.timeout", "longer than zero"]);
    let text = GOOD.replace(
        "policy = \"db-client\"",
        "policy = \"db-client\", fail_as = \"ok\"",
    );
    c.rejects(&text, &["`ok` is not a failure"]);
    c.rejects(
        &GOOD.replace("[policy.db-client]", "[policy.\"db client\"]"),
        &["not a valid name"],
    );
    // docs/policies.md §9: a learned delay needs at least one latency of the last period.
    c.rejects(
        &GOOD.replace(
            "timeout = \"200ms\"",
            "timeout = \"200ms\"\nhedge = { delay = \"p90\", min_samples = 0 }",
        ),
        &["policy.db-client.hedge.min_samples", "at least 1"],
    );
}

#[test]
fn calls_to_the_same_service_are_addressed_by_index() {
    let c = Case::new("index");
    let path = c.file(&GOOD.replace(
        "calls = [ { to = \"db\", policy = \"db-client\" } ]",
        "calls = [ { to = \"db\", policy = \"db-client\" }, { to = \"db\" } ]",
    ));
    c.rejects_with(
        &path,
        &["--set", "service.api.calls.1.policy=nope"],
        &["no [policy.nope]"],
    );
    let out = c.run(
        &path,
        &["--set", "service.api.calls.1.policy=db-client", "--quiet"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_rate_limit_checks_its_keys() {
    let c = Case::new("rate_limit");
    let with = |rl: &str| GOOD.replace("timeout = \"200ms\"", &format!("rate_limit = {rl}"));
    c.rejects(
        &with(r#"{ fill_interval = "1s" }"#),
        &[
            "scenario.toml:25",
            "policy.db-client.rate_limit.max_tokens",
            "is required",
        ],
    );
    c.rejects(
        &with("{ max_tokens = 5 }"),
        &["policy.db-client.rate_limit.fill_interval", "is required"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 0, fill_interval = "1s" }"#),
        &["policy.db-client.rate_limit.max_tokens", "at least 1"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, tokens_per_fill = 0, fill_interval = "1s" }"#),
        &["policy.db-client.rate_limit.tokens_per_fill", "at least 1"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, fill_interval = "0s" }"#),
        &[
            "policy.db-client.rate_limit.fill_interval",
            "longer than zero",
        ],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, fill_interval = "1s", refill = "ticks" }"#),
        &["policy.db-client.rate_limit.refill", "tick"],
    );
    c.rejects(
        &with(r#"{ max_tokens = -1, fill_interval = "1s" }"#),
        &["policy.db-client.rate_limit.max_tokens"],
    );
}

#[test]
fn adaptive_policies_check_their_keys() {
    let c = Case::new("adaptive");
    let with_limit = |limit: &str| GOOD.replace("timeout = \"200ms\"", limit);
    c.rejects(
        &with_limit(r#"limit = { algorithm = "vega" }"#),
        &[
            "scenario.toml:25:11",
            "policy.db-client.limit.algorithm",
            "did you mean `vegas`",
        ],
    );
    c.rejects(
        &with_limit(r#"limit = { algorithm = "vegas", backoff_ratio = 0.5 }"#),
        &[
            "policy.db-client.limit.backoff_ratio",
            "does not apply to the vegas limit",
        ],
    );
    c.rejects(
        &with_limit(r#"limit = { algorithm = "aimd", initial = 500 }"#),
        &["policy.db-client.limit.initial", "between 1 and max (200)"],
    );
    let db = |extra: &str| GOOD.replace("work = \"3ms\"", &format!("work = \"3ms\"\n{extra}"));
    c.rejects(
        &db("discipline = \"lifo\"\nadaptive_lifo = 10"),
        &["service.db.adaptive_lifo", "always LIFO"],
    );
    c.rejects(
        &db("codel = { target = \"50ms\", interval = \"10ms\" }"),
        &["service.db.codel.interval", "at least `target`"],
    );
    c.rejects(
        &db("outlier = { max_ejection_percent = 150 }"),
        &["service.db.outlier.max_ejection_percent", "0 to 100"],
    );
}

#[test]
fn faults_check_their_kind_target_and_ramp() {
    let c = Case::new("faults");
    let with = |fault: &str| format!("{GOOD}\n[[fault]]\n{fault}\n");
    c.rejects(
        &with("kind = \"overload\"\ntarget = \"api\"\nfactor = 2"),
        &["fault.0.target", "an overload targets a client"],
    );
    c.rejects(
        &with("kind = \"latency\"\ntarget = \"web\"\nfactor = 2"),
        &["fault.0.target", "a client can only be overloaded"],
    );
    c.rejects(
        &with("kind = \"stall\"\ntarget = \"api\"\nramp = \"1s\""),
        &["fault.0.ramp", "takes: nothing but target, start and end"],
    );
    c.rejects(
        &with("kind = \"stall\"\ntarget = \"api->db\""),
        &["fault.0.target", "happen to instances"],
    );
    c.rejects(
        &with("kind = \"errors\"\ntarget = \"db\"\nstart = \"1s\"\nend = \"2s\"\nramp = \"600ms\""),
        &["fault.0.ramp", "at most half"],
    );
    c.rejects(
        &with("kind = \"capacity\"\ntarget = \"db\"\nshare = 1.5"),
        &["fault.0.share", "between 0 and 1"],
    );
    c.rejects(
        &with("kind = \"crash\"\ntarget = \"db\"\nend = \"2s\"\nrestart = \"1s\""),
        &["fault.0.restart", "not both"],
    );
    c.rejects(
        &with("kind = \"overload\"\ntarget = \"web\"\nusers = 5"),
        &[
            "fault.0.factor",
            "open-loop client is overloaded by `factor`",
        ],
    );
}

#[test]
fn windows_check_their_span_and_phase() {
    let c = Case::new("windows");
    let with = |window: &str| {
        format!(
            "{GOOD}\n[[fault]]\nkind = \"stall\"\ntarget = \"db\"\nstart = \"1s\"\nend = \"2s\"\n\n[[window]]\n{window}\n"
        )
    };
    c.rejects(
        &with("name = \"w\"\nfault = 0\nphase = \"durin\""),
        &["window.0.phase", "did you mean `during`"],
    );
    c.rejects(
        &with("name = \"w\"\nfault = 3\nphase = \"after\""),
        &["window.0.fault", "1 faults"],
    );
    c.rejects(
        &with("name = \"w\"\nstart = \"3s\"\nend = \"2s\""),
        &["window.0.end", "after `start`"],
    );
    c.rejects(
        &with("name = \"w\"\nfault = 0"),
        &["window.0.phase", "needs both"],
    );
}

#[test]
fn alerts_check_their_condition_timing_and_names() {
    let c = Case::new("alerts");
    let with = |alert: &str| {
        format!(
            "{GOOD}\n[[fault]]\nkind = \"stall\"\ntarget = \"db\"\nstart = \"1s\"\nend = \"2s\"\n\n[[alert]]\nname = \"a\"\n{alert}\n"
        )
    };
    let threshold = "metric = \"client.web.success_ratio\"\nop = \"<\"\nvalue = 0.9";
    c.rejects(&with(""), &["alert.a.name", "needs a condition"]);
    c.rejects(
        &with("metric = \"client.web.succes_ratio\"\nop = \"<\"\nvalue = 1"),
        &["alert.a.metric", "not a metric of the catalogue"],
    );
    c.rejects(
        &with("metric = \"client.app.success_ratio\"\nop = \"<\"\nvalue = 1"),
        &["alert.a.metric", "does not have"],
    );
    c.rejects(
        &with("metric = \"client.web.in_flight_end\"\nop = \">\"\nvalue = 1"),
        &["alert.a.metric", "summary only"],
    );
    c.rejects(
        &with("metric = \"fault.0.recovered\"\nop = \"<\"\nvalue = 1"),
        &["alert.a.metric", "not recorded per bucket"],
    );
    c.rejects(
        &with("metric = \"service.db.restarts\"\nop = \">\"\nvalue = 0"),
        &["alert.a.metric", "not in this scenario's time series"],
    );
    c.rejects(
        &with("metric = \"client.web.success_ratio\"\nop = \"==\"\nvalue = 1"),
        &["alert.a.op", "valid: > >= < <="],
    );
    c.rejects(
        &with("metric = \"client.web.success_ratio\"\nvalue = 1"),
        &["alert.a.op", "missing"],
    );
    c.rejects(
        &with("metric = \"client.web.success_ratio\"\nop = \"<\""),
        &["alert.a.value", "missing"],
    );
    c.rejects(
        &with(&format!("{threshold}\nevery = \"1500ms\"")),
        &["alert.a.every", "whole number of buckets"],
    );
    c.rejects(
        &with(&format!("{threshold}\nslo = 0.99")),
        &["alert.a.slo", "one condition"],
    );
    c.rejects(
        &with(&format!("{threshold}\nlong = \"1m\"")),
        &["alert.a.long", "burn-rate"],
    );
    c.rejects(
        &with("ratio = [\"client.web.success\"]\nop = \"<\"\nvalue = 1"),
        &["alert.a.ratio", "two metrics"],
    );
    c.rejects(
        &with("ratio = [\"client.web.success\", \"client.web.requests\"]\nop = \"<\"\nvalue = 1\nbaseline = true"),
        &["alert.a.baseline", "not with `ratio`"],
    );
    c.rejects(
        &with(&format!("{threshold}\nfor = 5")),
        &["alert.a.for", "needs a unit"],
    );
    c.rejects(
        &with(&format!("{threshold}\nkeep_firing = \"1m\"")),
        &["keep_firing", "keep_firing_for"],
    );
    let burn = |rest: &str| {
        with(&format!(
            "slo = 0.999\nof = \"client.web\"\nlong = \"1m\"\nshort = \"5s\"\nburn = 14.4\n{rest}"
        ))
    };
    c.rejects(&burn("op = \">\""), &["alert.a.op", "burn-rate"]);
    c.rejects(
        &with("slo = 1\nof = \"client.web\"\nlong = \"1m\"\nshort = \"5s\"\nburn = 14.4"),
        &["alert.a.slo", "below 1"],
    );
    c.rejects(
        &with("slo = 0.999\nof = \"service.api\"\nlong = \"1m\"\nshort = \"5s\"\nburn = 14.4"),
        &["alert.a.of", "not a client"],
    );
    c.rejects(
        &with("slo = 0.999\nof = \"client.web\"\nlong = \"5s\"\nshort = \"1m\"\nburn = 14.4"),
        &["alert.a.short", "shorter than `long`"],
    );
    c.rejects(
        &with("slo = 0.999\nof = \"client.web\"\nlong = \"1m\"\nshort = \"5s\"\nburn = 0"),
        &["alert.a.burn", "above 0"],
    );
    c.rejects(
        &with("slo = 0.999\nof = \"client.web\"\nshort = \"5s\"\nburn = 14.4"),
        &["alert.a.long", "missing"],
    );
    c.rejects(
        &format!(
            "{}\n[[alert]]\nname = \"a\"\n{threshold}\n",
            with(threshold)
        ),
        &["alert.a.name", "a second alert named `a`"],
    );
}

#[test]
fn every_count_that_sizes_memory_has_a_limit() {
    let c = Case::new("limits");
    let with = |from: &str, to: &str| GOOD.replacen(from, to, 1);
    c.rejects(
        &with("workers = 4\n", "workers = 4\ninstances = 4294967295\n"),
        &[
            "service.db.instances",
            "4,294,967,295 instances, over the limit of 10,000",
        ],
    );
    let many = (0..11)
        .map(|i| format!("[[service]]\nname = \"s{i}\"\ninstances = 10000\n"))
        .collect::<String>();
    c.rejects(
        &format!("{GOOD}{many}"),
        &["service.s9.instances", "over the limit of 100,000"],
    );
    c.rejects(
        &with("duration = \"5s\"", "duration = \"5s\"\nbucket = \"1ns\""),
        &[
            "scenario.bucket",
            "25,000,000,000 time-series cells (5,000,000,000 buckets × 5 clients, services and edges)",
            "make the bucket longer",
        ],
    );
    c.rejects(
        &with("duration = \"5s\"", "duration = \"100000h\""),
        &["scenario.bucket", "over the limit of 1,000,000"],
    );
    c.rejects(
        &with("rate = 100\n", "arrival = \"closed\"\nusers = 100000000\n"),
        &[
            "client.web.users",
            "100,000,000 closed-loop users, over the limit of 1,000,000",
        ],
    );
    c.rejects(
        &with(
            "timeout = \"200ms\"",
            "timeout = \"200ms\"\nbreaker = { window = 4294967295 }",
        ),
        &["policy.db-client", "over the limit of 100,000,000"],
    );
    let windows = (0..101)
        .map(|i| format!("[[window]]\nname = \"w{i}\"\nstart = \"1s\"\nend = \"2s\"\n"))
        .collect::<String>();
    c.rejects(
        &format!("{GOOD}{windows}"),
        &["101 windows", "over the limit of 100"],
    );
    c.rejects(
        &with("duration = \"5s\"", "duration = \"5s\"\nmax_in_flight = 0"),
        &["scenario.max_in_flight", "must be at least 1"],
    );
}

#[test]
fn sweep_ranges_are_checked_before_they_are_expanded() {
    let c = Case::new("sweep-limits");
    let path = c.file(GOOD);
    for (param, needle) in [
        (
            "service.db.workers=0..1000000000:1",
            "1000000001 values, over the limit of 10000",
        ),
        (
            "service.db.workers=1..inf:1",
            "cannot step from `1` to `inf`",
        ),
        ("service..workers=1,2", "a segment is empty"),
    ] {
        let out = crate::support::cascade(
            &[
                "sweep",
                path.to_str().unwrap(),
                "--param",
                param,
                "--out",
                c.dir.join("out").to_str().unwrap(),
            ],
            2,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{param}: {err}");
        assert!(!c.dir.join("out").exists(), "{param}: nothing is written");
    }
    let grid = [
        "--param",
        "service.db.workers=1..101:1",
        "--param",
        "service.api.workers=1..100:1",
    ];
    let mut args = vec!["sweep", path.to_str().unwrap()];
    args.extend(grid);
    let out = crate::support::cascade(&args, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the grid has 101 × 100 points, over the limit of 10000"),
        "{err}"
    );
}

#[test]
fn an_endless_or_huge_file_is_refused() {
    let out = crate::support::cascade(&["validate", "/dev/zero"], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("larger than 16 MiB"), "{err}");
}

/// `cascade import` reads a config under the scenario's cap: a file one byte past 16 MiB, and
/// `/dev/zero`, exit 2 naming the file and the cap, in each format. The child runs in 512 MiB
/// of address space, so a read without bound dies of it (it reached 2.1 GB before) instead of
/// exiting 2.
#[test]
fn an_endless_or_huge_config_is_refused_by_import() {
    let dir = scratch("bad-import-size");
    let big = dir.join("config.yaml");
    let cap = cascade::scenario::MAX_SCENARIO_BYTES as usize;
    std::fs::write(&big, vec![b'#'; cap + 1]).unwrap();
    let mut errors = String::new();
    for library in ["envoy", "grpc", "resilience4j"] {
        for file in [big.to_str().unwrap(), "/dev/zero"] {
            let out = Command::new("sh")
                .arg("-c")
                .arg("ulimit -v 524288; exec \"$0\" \"$@\"")
                .arg(env!("CARGO_BIN_EXE_cascade"))
                .args(["import", library, file])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr).to_string();
            assert_eq!(out.status.code(), Some(2), "{library} {file}: {err}");
            assert!(out.stdout.is_empty(), "{library} {file}: printed on stdout");
            assert!(
                err.contains(&format!(
                    "{file}: the file is larger than 16 MiB, the most a config may be"
                )),
                "{library} {file}: {err}"
            );
            errors.push_str(&format!("$ cascade import {library} {file}\n{err}\n"));
        }
    }
    let text = golden::placeholders(&errors, &dir);
    golden::assert_golden("errors/import-size.txt", &text);
}

#[test]
fn seeds_out_of_range_or_not_integers() {
    let c = Case::new("seed");
    c.rejects(
        &GOOD.replace("seed = 1", "seed = -3"),
        &["scenario.toml:4:8", "scenario.seed", "0 or more"],
    );
    c.rejects(
        &GOOD.replace("seed = 1", "seed = \"18446744073709551616\""),
        &["scenario.toml:4:8", "scenario.seed", "18446744073709551615"],
    );
    c.rejects(
        &GOOD.replace("seed = 1", "seed = 1.5"),
        &["scenario.toml:4:8", "scenario.seed", "decimal string"],
    );
    // Past TOML's integers the parser's own error says only "overflowed": the hint says how.
    c.rejects(
        &GOOD.replace("seed = 1", "seed = 9223372036854775808"),
        &[
            "scenario.toml:4:8",
            "integer number overflowed",
            "as a string: seed = \"18446744073709551615\"",
        ],
    );
}

#[test]
fn an_error_past_column_65535_is_shown_not_a_panic() {
    let c = Case::new("long");
    let padding = " ".repeat(70_000);
    c.rejects(
        &GOOD.replace("workers = 8", &format!("workers = {padding}\"eight\"")),
        &["scenario.toml:14:70011:", "service.api.workers", "…"],
    );
}

#[test]
fn invalid_utf8_is_located() {
    let c = Case::new("utf8");
    let path = c.dir.join("scenario.toml");
    let mut bytes = GOOD
        .replace("name = \"web\"", "name = \"w\u{0}b\"")
        .into_bytes();
    let nul = bytes.iter().position(|&b| b == 0).unwrap();
    bytes[nul] = 0xff;
    std::fs::write(&path, bytes).unwrap();
    c.rejects_with(&path, &[], &["scenario.toml:7:10:", "not valid UTF-8"]);
}

#[test]
fn untagged_values_are_explained_in_user_terms() {
    let c = Case::new("forms");
    c.rejects(
        &GOOD.replace(
            "timeout = \"200ms\"",
            "retry = { attempts = 2, budget = \"all\" }",
        ),
        &[
            "policy.db-client.retry.budget",
            "expected a budget: a ratio",
        ],
    );
    c.rejects(
        &GOOD.replace("timeout = \"200ms\"", "breaker = { window = [1] }"),
        &["policy.db-client.breaker.window", "expected a window"],
    );
}

#[test]
fn errors_in_a_table_an_override_created_name_the_override() {
    let c = Case::new("created");
    let path = c.file(GOOD);
    // `--set` creates `policy.db-client.retry.budget`; the error names the key it set.
    c.rejects_with(
        &path,
        &["--set", "policy.db-client.retry.budget.ratio=x"],
        &[
            "field `policy.db-client.retry.budget.ratio`",
            "--set policy.db-client.retry.budget.ratio=x",
            "expected f64",
        ],
    );
    c.rejects_with(
        &path,
        &["--set", "policy.db-client.limit.initial=5"],
        &["--set policy.db-client.limit.initial=5", "algorithm"],
    );
}

#[test]
fn step_probabilities_and_names_are_checked() {
    let c = Case::new("branches");
    let with_calls = |calls: &str| {
        GOOD.replace(
            "calls = [ { to = \"db\", policy = \"db-client\" } ]",
            &format!("calls = [ {calls} ]"),
        )
    };
    for bad in ["1.5", "-0.1", "nan", "inf"] {
        c.rejects(
            &with_calls(&format!("{{ to = \"db\", p = {bad} }}")),
            &["scenario.toml:17", "service.api.calls.db.p", "probability"],
        );
    }
    c.rejects(
        &with_calls(r#"{ to = "db", p = "often" }"#),
        &["scenario.toml:17", "service.api.calls"],
    );
    c.rejects(
        &with_calls(r#"{ parallel = [ { to = "db", p = 0.5 } ] }"#),
        &[
            "scenario.toml:17",
            "service.api.calls.0.parallel.db.p",
            "beside `parallel`",
        ],
    );
    c.rejects(
        &with_calls(
            r#"{ to = "db", p = 0.5, name = "miss" }, { parallel = [ { to = "db" } ], p = 0.1, name = "miss" }"#,
        ),
        &["scenario.toml:17:91", "service.api.calls.miss.name", "two steps"],
    );
    c.rejects(
        &with_calls(r#"{ to = "db", p = 0.5, name = "a.b" }"#),
        &[
            "scenario.toml:17:33",
            "service.api.calls.a.b.name",
            "not a valid name",
        ],
    );
    c.rejects(
        &with_calls(r#"{ to = "db", p = 0.5, name = "7" }"#),
        &[
            "scenario.toml:17:33",
            "service.api.calls.7.name",
            "digits alone",
        ],
    );
    // A name without a `p` is a handle for paths: `--set service.api.calls.main.policy=...`.
    let named = c.file(&with_calls(r#"{ to = "db", name = "main" }"#));
    crate::support::cascade(
        &[
            "validate",
            named.to_str().unwrap(),
            "--set",
            "service.api.calls.main.optional=true",
        ],
        0,
    );
    let path = c.file(&with_calls(r#"{ to = "db", p = 0.5 }"#));
    c.rejects_with(
        &path,
        &["--set", "service.api.calls.db.p=2"],
        &["--set service.api.calls.db.p=2", "probability"],
    );
}

/// A shop whose database has two operations, called by name.
const OPS: &str = r#"[scenario]
name = "ops"
duration = "5s"

[[client]]
name = "web"
target = "api"
rate = 100

[[service]]
name = "api"
workers = 8
calls = [ { to = "db", operation = "read" } ]

[[service]]
name = "db"
workers = 4
[[service.operation]]
name = "read"
work = "1ms"
[[service.operation]]
name = "report"
work = "20ms"
"#;

#[test]
fn operations_and_mixes_are_checked() {
    let c = Case::new("operations");
    let ops = |from: &str, to: &str| {
        assert!(OPS.contains(from), "{from}");
        OPS.replacen(from, to, 1)
    };
    c.rejects(
        &ops("name = \"report\"", "name = \"read\""),
        &[
            "scenario.toml:22",
            "service.db.operation.read.name",
            "two operations",
        ],
    );
    c.rejects(
        &ops("operation = \"read\"", "operation = \"raed\""),
        &[
            "scenario.toml:13",
            "service.api.calls.db.operation",
            "did you mean `read`",
        ],
    );
    c.rejects(
        &ops("{ to = \"db\", operation = \"read\" }", "{ to = \"db\" }"),
        &[
            "scenario.toml:13",
            "service.api.calls.db",
            "name the one called",
        ],
    );
    c.rejects(
        &ops("rate = 100", "rate = 100\noperation = \"x\""),
        &[
            "scenario.toml:9",
            "client.web.operation",
            "has no operations",
        ],
    );
    c.rejects(
        &ops("workers = 4\n", "workers = 4\nwork = \"1ms\"\n"),
        &[
            "scenario.toml:18",
            "service.db.work",
            "no `work` of its own",
        ],
    );
    c.rejects(
        &ops("work = \"20ms\"", "work = \"20ms\"\nworkers = 5"),
        &[
            "scenario.toml:24",
            "service.db.operation.report.workers",
            "larger than the pool",
        ],
    );
    c.rejects(
        &ops("work = \"20ms\"", "work = \"20ms\"\noverflow = \"refuse\""),
        &[
            "scenario.toml:24",
            "service.db.operation.report.overflow",
            "give the partition's `workers`",
        ],
    );
    c.rejects(
        &ops("name = \"report\"", "name = \"a b\""),
        &["scenario.toml:22", "not a valid name"],
    );
    let mixed = ops(
        "[[service]]\nname = \"db\"",
        "[[client]]\nname = \"batch\"\ntarget = \"db\"\nrate = 5\nmix = [ { operation = \"read\", weight = 1 }, { operation = \"report\", weight = 0 } ]\n\n[[service]]\nname = \"db\"",
    );
    c.rejects(
        &mixed,
        &["scenario.toml:19", "client.batch.mix.1.weight", "above 0"],
    );
    c.rejects(
        &mixed
            .replace("weight = 0 }", "weight = 1 }")
            .replace("\"report\", weight", "\"read\", weight"),
        &["scenario.toml:19", "client.batch.mix.1.operation", "twice"],
    );
    c.rejects(
        &mixed
            .replace("weight = 0 }", "weight = 1 }")
            .replace("rate = 5\n", "rate = 5\noperation = \"read\"\n"),
        &["client.batch.operation", "not both"],
    );
    c.rejects(
        &format!("{OPS}\n[[fault]]\nkind = \"stall\"\ntarget = \"db\"\noperation = \"report\"\n"),
        &["fault.0.operation", "whole instances"],
    );
    c.rejects(
        &format!(
            "{OPS}\n[[fault]]\nkind = \"latency\"\ntarget = \"db\"\nfactor = 3\noperation = \"reprot\"\n"
        ),
        &["fault.0.operation", "did you mean `report`"],
    );
    c.rejects(
        &format!(
            "{OPS}\n[[fault]]\nkind = \"latency\"\ntarget = \"api\"\nfactor = 3\noperation = \"read\"\n"
        ),
        &["fault.0.operation", "`api` has no operations"],
    );
    // Overrides address operations by name, and are checked as the file is.
    let path = c.file(OPS);
    c.rejects_with(
        &path,
        &["--set", "service.db.operation.report.workers=9"],
        &[
            "--set service.db.operation.report.workers=9",
            "larger than the pool",
        ],
    );
}

#[test]
fn branch_faults_are_checked() {
    let c = Case::new("branch-faults");
    let text = GOOD.replace(
        "calls = [ { to = \"db\", policy = \"db-client\" } ]",
        "calls = [ { to = \"db\", policy = \"db-client\", p = 0.1, name = \"miss\" } ]",
    );
    let with = |keys: &str| format!("{text}\n[[fault]]\nkind = \"branch\"\n{keys}\n");
    c.rejects(
        &with("target = \"api\"\np = 1"),
        &["fault.0.step", "needs the `step`"],
    );
    c.rejects(
        &with("target = \"api\"\nstep = \"mis\"\np = 1"),
        &["fault.0.step", "did you mean `miss`", "there: miss"],
    );
    c.rejects(
        &with("target = \"api\"\nstep = \"miss\""),
        &["fault.0.p", "needs `p`"],
    );
    c.rejects(
        &with("target = \"api\"\nstep = \"miss\"\np = 1.5"),
        &["fault.0.p", "probability"],
    );
    c.rejects(
        &with("target = \"api#0\"\nstep = \"miss\"\np = 1"),
        &["fault.0.target", "target a service"],
    );
    c.rejects(
        &with("target = \"db\"\nstep = \"miss\"\np = 1"),
        &["fault.0.step", "there: none"],
    );
    c.rejects(
        &with("target = \"api\"\nstep = \"miss\"\np = 1\nfactor = 2"),
        &[
            "fault.0.factor",
            "which takes: step, p, ramp, warm, warm_curve, warm_table",
        ],
    );
    c.rejects(
        &format!(
            "{text}\n[[fault]]\nkind = \"latency\"\ntarget = \"api\"\nfactor = 2\nwarm = \"1s\"\n"
        ),
        &["fault.0.warm", "does not apply"],
    );
    let ops = OPS.replace(
        "name = \"read\"\nwork = \"1ms\"",
        "name = \"read\"\nwork = \"1ms\"\ncalls = [ { to = \"disk\", p = 0.1, name = \"miss\" } ]",
    ) + "\n[[service]]\nname = \"disk\"\n";
    c.rejects(
        &format!("{ops}\n[[fault]]\nkind = \"branch\"\ntarget = \"db\"\nstep = \"miss\"\np = 1\n"),
        &["fault.0.operation", "name the one whose step changes"],
    );
    c.rejects(
        &format!("{ops}\n[[fault]]\nkind = \"branch\"\ntarget = \"db\"\noperation = \"report\"\nstep = \"miss\"\np = 1\n"),
        &["fault.0.step", "there: none"],
    );
    let good = c.file(&format!(
        "{ops}\n[[fault]]\nkind = \"branch\"\ntarget = \"db\"\noperation = \"read\"\nstep = \"miss\"\np = 1\nwarm = \"2s\"\n"
    ));
    crate::support::cascade(&["validate", good.to_str().unwrap()], 0);
}

#[test]
fn choices_are_checked() {
    let c = Case::new("choose");
    let with_calls = |calls: &str| {
        GOOD.replace(
            "calls = [ { to = \"db\", policy = \"db-client\" } ]",
            &format!("calls = [ {calls} ]"),
        )
    };
    c.rejects(
        &with_calls(
            r#"{ name = "route", choose = [ { weight = 0, calls = [ { to = "db" } ] } ] }"#,
        ),
        &["service.api.calls.route.choose.0.weight", "above 0"],
    );
    c.rejects(
        &with_calls(r#"{ name = "route", choose = [] }"#),
        &["service.api.calls.route.choose", "at least one option"],
    );
    c.rejects(
        &with_calls(r#"{ to = "db", choose = [ { weight = 1 } ] }"#),
        &[
            "service.api.calls.db",
            "exactly one of `to`, `parallel` or `choose`",
        ],
    );
    c.rejects(
        &with_calls(r#"{ name = "route", p = 0.5, choose = [ { weight = 1 } ] }"#),
        &[
            "service.api.calls.route.p",
            "only `name` beside its options",
        ],
    );
    c.rejects(
        &with_calls(
            r#"{ name = "outer", choose = [ { weight = 1, calls = [ { name = "inner", choose = [ { weight = 1 } ] } ] } ] }"#,
        ),
        &["service.api.calls.outer.choose.0.calls.inner", "inside an option is not supported"],
    );
    c.rejects(
        &with_calls(r#"{ name = "route", choose = [ { weight = 1, calls = [ { to = "db", p = 0.5 } ] } ] }"#),
        &["service.api.calls.route.choose.0.calls.db.p", "needs a `name`"],
    );
    c.rejects(
        &with_calls(
            r#"{ name = "route", choose = [ { weight = 1, calls = [ { to = "dbb" } ] } ] }"#,
        ),
        &[
            "service.api.calls.route.choose.0.calls.dbb.to",
            "did you mean `db`",
        ],
    );
    c.rejects(
        &with_calls(
            r#"{ name = "x", choose = [ { weight = 1, calls = [ { to = "db", name = "x" } ] } ] }"#,
        ),
        &["two steps are named `x`"],
    );
}

#[test]
fn fan_out_counts_are_checked() {
    let c = Case::new("count");
    let with_calls = |calls: &str| {
        GOOD.replace(
            "calls = [ { to = \"db\", policy = \"db-client\" } ]",
            &format!("calls = [ {calls} ]"),
        )
    };
    c.rejects(
        &with_calls(r#"{ to = "db", count = 0 }"#),
        &["service.api.calls.db.count", "at least 1"],
    );
    c.rejects(
        &with_calls(r#"{ to = "db", count = 10001 }"#),
        &["service.api.calls.db.count", "over the limit of 10000"],
    );
    c.rejects(
        &with_calls(r#"{ to = "db", count = -1 }"#),
        &["service.api.calls.db.count"],
    );
    c.rejects(
        &with_calls(r#"{ parallel = [ { to = "db", count = 0 } ] }"#),
        &["service.api.calls.0.parallel.db.count", "at least 1"],
    );
    // Each count within the limit, their sum past it.
    c.rejects(
        &with_calls(
            r#"{ parallel = [ { to = "db", count = 6000 }, { to = "db", count = 4001 } ] }"#,
        ),
        &[
            "service.api.calls.0.parallel",
            "10001 calls with their `count`s",
        ],
    );
    c.rejects(
        &with_calls(r#"{ count = 2, parallel = [ { to = "db" } ] }"#),
        &["service.api.calls.0", "on each call inside it"],
    );
    c.rejects(
        &with_calls(r#"{ name = "route", count = 2, choose = [ { weight = 1 } ] }"#),
        &[
            "service.api.calls.route.count",
            "only `name` beside its options",
        ],
    );
    // A thousand steps of a thousand calls each would be a million calls from a small file:
    // refused at the count that passes the limit of policy state copies, before it is made.
    let wide = vec![r#"{ to = "db", count = 1000 }"#; 1000].join(", ");
    c.rejects(
        &with_calls(&wide),
        &["service.api.calls", ".count", "over the limit of 1,000,000"],
    );
}

#[test]
fn paced_clients_are_checked() {
    let c = Case::new("pace");
    let closed = |keys: &str| {
        GOOD.replace(
            "rate = 100\n",
            &format!("arrival = \"closed\"\nusers = 2\n{keys}\n"),
        )
    };
    c.rejects(
        &closed("pace = \"1s\"\nthink = \"1s\""),
        &["client.web.pace", "not both"],
    );
    c.rejects(
        &closed("pace = \"0\""),
        &["client.web.pace", "longer than zero"],
    );
    c.rejects(&closed("pace = 1"), &["client.web.pace"]);
    c.rejects(
        &GOOD.replace("rate = 100\n", "rate = 100\npace = \"1s\"\n"),
        &["client.web.pace", "only a closed-loop client"],
    );
}

#[test]
fn retry_after_waits_are_checked() {
    let c = Case::new("retry-after-wait");
    let with_retry = |retry: &str| {
        GOOD.replace(
            "timeout = \"200ms\"\n",
            &format!("timeout = \"200ms\"\nretry = {{ {retry} }}\n"),
        )
    };
    c.rejects(
        &with_retry(r#"retry_after = false, retry_after_wait = "max""#),
        &[
            "policy.db-client.retry.retry_after_wait",
            "only when a Retry-After is honoured",
        ],
    );
    c.rejects(
        &with_retry(r#"retry_after_wait = "maximum""#),
        &["policy.db-client.retry.retry_after_wait", "replace, max"],
    );
}

#[test]
fn a_retrys_host_reselections_are_checked() {
    let c = Case::new("retry-other-host");
    let with_retry = |retry: &str| {
        GOOD.replace(
            "timeout = \"200ms\"\n",
            &format!("timeout = \"200ms\"\nretry = {{ {retry} }}\n"),
        )
    };
    c.rejects(
        &with_retry("host_reselections = 2"),
        &[
            "policy.db-client.retry.host_reselections",
            "only with `other_host = true`",
        ],
    );
    c.rejects(
        &with_retry("other_host = true, host_reselections = 0"),
        &["policy.db-client.retry.host_reselections", "at least 1"],
    );
    c.rejects(
        &with_retry("other_host = true, host_reselections = 101"),
        &["policy.db-client.retry.host_reselections", "at most 100"],
    );
    c.rejects(
        &with_retry("other_host = \"yes\""),
        &["policy.db-client.retry.other_host"],
    );
}

#[test]
fn a_clients_policy_cannot_leave_the_deadline_behind() {
    let c = Case::new("propagate");
    let text = GOOD.replace("rate = 100\n", "rate = 100\npolicy = \"db-client\"\n");
    c.rejects(
        &text.replace(
            "timeout = \"200ms\"",
            "timeout = \"200ms\"\npropagate_deadline = false",
        ),
        &[
            "scenario.toml:10",
            "client.web.policy",
            "propagate_deadline = false",
        ],
    );
    c.rejects(
        &GOOD.replace("timeout = \"200ms\"", "propagate_deadline = 1"),
        &["policy.db-client.propagate_deadline", "expected a boolean"],
    );
}

#[test]
fn a_call_nobody_waits_for_refuses_what_needs_its_answer() {
    let c = Case::new("wait");
    let publish = |keys: &str| {
        GOOD.replace(
            "{ to = \"db\", policy = \"db-client\" }",
            &format!("{{ to = \"db\", policy = \"db-client\", wait = false{keys} }}"),
        )
    };
    c.rejects(
        &publish(", optional = true"),
        &[
            "scenario.toml:17",
            "service.api.calls.db.optional",
            "wait = false",
        ],
    );
    c.rejects(
        &publish(", fail_as = \"internal\""),
        &[
            "scenario.toml:17",
            "service.api.calls.db.fail_as",
            "wait = false",
        ],
    );
    c.rejects(
        &(publish("") + "fallback = { latency = \"1ms\" }\n"),
        &[
            "scenario.toml:17",
            "service.api.calls.db.policy",
            "policy.db-client.fallback",
        ],
    );
    c.rejects(
        &(publish("") + "hedge = { delay = \"10ms\" }\n"),
        &[
            "scenario.toml:17",
            "service.api.calls.db.policy",
            "policy.db-client.hedge",
        ],
    );
    c.rejects(
        &GOOD.replace(
            "{ to = \"db\", policy = \"db-client\" }",
            "{ parallel = [ { to = \"db\" } ], wait = false }",
        ),
        &[
            "scenario.toml:17",
            "service.api.calls.0",
            "each call inside it",
        ],
    );
    c.rejects(
        &publish("").replace("wait = false", "wait = \"no\""),
        &["service.api.calls.db.wait", "expected a boolean"],
    );
}

#[test]
fn brookers_bucket_and_breaker_and_shared_hedge_budgets_are_checked() {
    let c = Case::new("brooker");
    let with = |policy: &str| {
        GOOD.replace(
            "timeout = \"200ms\"\n",
            &format!("timeout = \"200ms\"\n{policy}\n"),
        )
    };
    let adaptive = |keys: &str| {
        with(&format!(
            "retry = {{ budget = {{ kind = \"adaptive\"{keys} }} }}"
        ))
    };
    c.rejects(
        &adaptive(", token_ratio = 0.0001"),
        &[
            "policy.db-client.retry.budget.token_ratio",
            "counted in thousandths",
        ],
    );
    c.rejects(
        &adaptive(", max_tokens = 2, token_ratio = 3"),
        &["policy.db-client.retry.budget.token_ratio", "`max_tokens`"],
    );
    c.rejects(
        &adaptive(", max_tokens = 0"),
        &["policy.db-client.retry.budget.max_tokens", "(0, 1000]"],
    );
    c.rejects(
        &adaptive(", percent = 20"),
        &[
            "policy.db-client.retry.budget.percent",
            "max_tokens, token_ratio, earn_on",
        ],
    );
    // Regression: an unknown word inside the budget table was reported on the table
    // ("expected a budget"), as serde's untagged enum drops the inner error; it names the key
    // and its valid values, as an unknown `kind` does.
    c.rejects(
        &adaptive(", earn_on = \"retry\""),
        &[
            "policy.db-client.retry.budget.earn_on",
            "unknown value `retry`",
            "valid values: success, call",
        ],
    );
    c.rejects(
        &with(r#"retry = { budget = { kind = "adaptve" } }"#),
        &[
            "policy.db-client.retry.budget.kind",
            "did you mean `adaptive`?",
        ],
    );
    c.rejects(
        &with(r#"retry = { budget = { kind = "token_bucket", earn_on = "call" } }"#),
        &["policy.db-client.retry.budget.earn_on", "does not apply"],
    );
    c.rejects(
        &with(r#"breaker = { wraps = "call", retries_only = true }"#),
        &[
            "policy.db-client.breaker.retries_only",
            "wraps = \"attempt\"",
        ],
    );
    c.rejects(
        &with(r#"hedge = { delay = "10ms", uses_retry_budget = true }"#),
        &[
            "policy.db-client.hedge.uses_retry_budget",
            "only when the policy has one",
        ],
    );
    c.rejects(
        &with(
            "retry = { budget = { kind = \"concurrency\" } }\nhedge = { delay = \"10ms\", uses_retry_budget = true }",
        ),
        &[
            "policy.db-client.hedge.uses_retry_budget",
            "cannot be shared with hedges",
        ],
    );
    c.rejects(
        &with(
            "retry = { budget = 0.1 }\nhedge = { delay = \"10ms\", budget = 0.1, uses_retry_budget = true }",
        ),
        &["policy.db-client.hedge.uses_retry_budget", "not both"],
    );
}

#[test]
fn a_service_rate_limit_checks_its_keys() {
    let c = Case::new("service_rate_limit");
    let with = |rl: &str| {
        GOOD.replace(
            "work = \"3ms\"",
            &format!("work = \"3ms\"\nrate_limit = {rl}"),
        )
    };
    c.rejects(
        &with(r#"{ fill_interval = "1s" }"#),
        &[
            "scenario.toml:23",
            "service.db.rate_limit.max_tokens",
            "is required",
        ],
    );
    c.rejects(
        &with("{ max_tokens = 5 }"),
        &["service.db.rate_limit.fill_interval", "is required"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 0, fill_interval = "1s" }"#),
        &["service.db.rate_limit.max_tokens", "at least 1"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, tokens_per_fill = 0, fill_interval = "1s" }"#),
        &["service.db.rate_limit.tokens_per_fill", "at least 1"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, fill_interval = "0s" }"#),
        &["service.db.rate_limit.fill_interval", "longer than zero"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, fill_interval = "1s", scope = "global" }"#),
        &["service.db.rate_limit.scope", "fleet"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, fill_interval = "1s", key = "tenant" }"#),
        &["service.db.rate_limit.key", "client_operation"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, fill_interval = "1s", retry_after = "1s" }"#),
        &["service.db.rate_limit.retry_after"],
    );
    c.rejects(
        &with(r#"{ max_tokens = 5, fill_interval = "1s", per_tenant = true }"#),
        &["service.db.rate_limit", "per_tenant"],
    );
}

#[test]
fn a_dedup_window_is_a_duration() {
    let c = Case::new("dedup");
    let with = |value: &str| {
        GOOD.replace(
            "work = \"3ms\"",
            &format!("work = \"3ms\"\ndedup_window = {value}"),
        )
    };
    c.rejects(
        &with("\"a day\""),
        &[
            "scenario.toml:23:16",
            "service.db.dedup_window",
            "invalid duration",
        ],
    );
    // A bare number gets the fix in seconds: a store keeps its keys for hours.
    c.rejects(
        &with("60"),
        &[
            "service.db.dedup_window",
            "did you mean `dedup_window = \"60s\"`?",
        ],
    );
    c.rejects(&with("\"-1s\""), &["service.db.dedup_window"]);
    c.rejects(&with("true"), &["service.db.dedup_window"]);
}

#[test]
fn failure_accrual_settings_are_checked() {
    let c = Case::new("accrual");
    let with = |table: &str| {
        GOOD.replace(
            "timeout = \"200ms\"\n",
            &format!("timeout = \"200ms\"\nfailure_accrual = {{ {table} }}\n"),
        )
    };
    c.rejects(
        &with("consecutive_failures = 0"),
        &[
            "policy.db-client.failure_accrual.consecutive_failures",
            "at least 1",
        ],
    );
    c.rejects(
        &with("mark_dead_for = \"0s\""),
        &[
            "policy.db-client.failure_accrual.mark_dead_for",
            "longer than zero",
        ],
    );
    c.rejects(
        &with("mark_dead_for = \"10s\", mark_dead_max = \"5s\""),
        &[
            "policy.db-client.failure_accrual.mark_dead_max",
            "at least `mark_dead_for`",
        ],
    );
    c.rejects(
        &with("mark_dead_for = 5"),
        &["policy.db-client.failure_accrual.mark_dead_for", "\"5s\""],
    );
    c.rejects(
        &with("max_effort = 5"),
        &[
            "policy.db-client.failure_accrual.max_effort",
            "consecutive_failures, mark_dead_for, mark_dead_max",
        ],
    );
}

#[test]
fn preset_errors() {
    let c = Case::new("preset");
    let policy = "[policy.db-client]\ntimeout = \"200ms\"\n";
    c.rejects(
        &GOOD.replace(policy, &format!("{policy}preset = \"resilience5j\"\n")),
        &["scenario.toml:26:10:", "did you mean `resilience4j`?"],
    );
    c.rejects(
        &GOOD.replace(
            policy,
            &format!("{policy}breaker = {{ preset = \"envoy\" }}\n"),
        ),
        &[
            "field `policy.db-client.breaker.preset`",
            "envoy defines no defaults for `breaker`; presets that do: resilience4j, polly",
        ],
    );
    c.rejects(
        &GOOD.replace(
            policy,
            &format!("{policy}retry = {{ budget = {{ preset = \"finagle\", kind = \"concurrency\" }} }}\n"),
        ),
        &["field `policy.db-client.retry.budget.preset`", "finagle's budget is kind `ratio`"],
    );
    c.rejects(
        &GOOD.replace(
            policy,
            &format!("{policy}hedge = {{ preset = \"tower\" }}\n"),
        ),
        &["field `policy.db-client.hedge`", "a hedge needs `delay`"],
    );
}

#[test]
fn a_rate_past_one_a_nanosecond_is_refused() {
    // The fuzzer's 2^32 requests a second: one second of it ran for minutes.
    let c = Case::new("rate-cap");
    c.rejects(
        &GOOD.replace("rate = 100", "rate = 4294967296"),
        &["scenario.toml:9", "client.web.rate", "one a nanosecond"],
    );
    c.rejects(
        &GOOD.replace(
            "rate = 100",
            "rate = 100\nphases = [ { at = \"1s\", rate = 2e9 } ]",
        ),
        &["client.web.phases.0.rate", "at most 1000000000"],
    );
}

#[test]
fn sweep_constraints_are_parsed_when_the_file_compiles() {
    let c = Case::new("sweep-constraints");
    let with = |line: &str| format!("{GOOD}\n[sweep]\n{line}\n");
    c.rejects(
        &with("constraint = [\"workers <= \"]"),
        &[
            "sweep.constraint.0",
            "expected a name, a number or a duration",
        ],
    );
    c.rejects(
        &with("constraint = [\"workers % 2 == 0\"]"),
        &["sweep.constraint.0", "`%` is not part of a constraint"],
    );
    c.rejects(
        &with("constraint = [3]"),
        &["sweep.constraint.0", "a comparison written as a string"],
    );
    c.rejects(
        &with("constraint = \"workers < 3\""),
        &["sweep.constraint", "takes a list of comparisons"],
    );
}

/// A point written as a TOML array is read whole: serde's pairs stop after their second value
/// and TOML's arrays do not complain, so a third would otherwise be dropped unread (as
/// `warm_table`'s points, `branch_warm.rs`).
#[test]
fn a_point_with_a_third_value_is_refused() {
    let c = Case::new("points");
    let db = |keys: &str| GOOD.replace("work = \"3ms\"", &format!("work = \"3ms\"\n{keys}"));
    c.rejects(
        &db("contention = { table = [[0, 1.0, 77], [4, 1.5]] }"),
        &[
            "scenario.toml:23:25",
            "service.db.contention.table.0",
            "[busy, factor] pair",
            "more than two values",
        ],
    );
    c.rejects(
        &db("contention = { table = [[0, 1.0], [4]] }"),
        &["scenario.toml:23:35", "service.db.contention.table.1"],
    );
    c.rejects(
        &GOOD.replace(
            "work = \"3ms\"",
            "work = { dist = \"empirical\", percentiles = [[0, \"1ms\"], [100, \"9ms\", 5]] }",
        ),
        &[
            "scenario.toml:22:57",
            "service.db.work.percentiles.1",
            "[percent, duration] pair",
            "more than two values",
        ],
    );
}
