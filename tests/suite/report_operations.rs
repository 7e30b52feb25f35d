//! Per operation everywhere a client appears in the report (issue 41): a client whose mix sends
//! 10% of its requests to an operation that fails must show that operation by name, in "at a
//! glance", the summary and the variants table, not only the client's total.

use crate::support::*;

const SHOP: &str = r#"
[scenario]
name = "shop"
duration = "10s"
warmup = "1s"
seed = 5
recovery_hold = "2s"

[[client]]
name = "app"
target = "front"
rate = 400
deadline = "500ms"
mix = [
  { operation = "buy", weight = 1 },
  { operation = "browse", weight = 9 },
]

[[service]]
name = "front"
workers = 32

[[service.operation]]
name = "buy"
work = { dist = "exponential", mean = "1ms" }
calls = [ { to = "payments", policy = "pay" } ]

[[service.operation]]
name = "browse"
work = { dist = "exponential", mean = "1ms" }

[[service]]
name = "payments"
workers = 8
queue = 20
work = { dist = "exponential", mean = "5ms" }

[policy.pay]
timeout = "200ms"

[[fault]]
kind = "outage"
target = "payments"
start = "4s"
end = "7s"

[[variant]]
name = "slower"
set = { "client.app.rate" = 300 }
"#;

fn shop_report() -> String {
    let dir = scratch("report-operations");
    let toml = dir.join("shop.toml");
    std::fs::write(&toml, SHOP).unwrap();
    let run = dir.join("run");
    let (toml, run) = (toml.to_str().unwrap(), run.to_str().unwrap());
    cascade(&["run", toml, "--out", run, "--quiet"], 0);
    cascade(&["report", run, "--markdown", "--quiet"], 0);
    read(&dir.join("run/report.md"))
}

/// The lines of the section titled `title`.
fn section<'a>(md: &'a str, title: &str) -> &'a str {
    let start = md.find(&format!("## {title}\n")).expect(title);
    let rest = &md[start + 3..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

#[test]
fn at_a_glance_names_the_worst_operation_and_its_success_under_each_fault() {
    let md = shop_report();
    let glance = section(&md, "At a glance");
    let client = glance.lines().find(|l| l.contains("client app:")).unwrap();
    // About 70% of buy succeeds against 97% for the client as a whole.
    assert!(
        client.contains("worst operation buy: 69.8% success"),
        "{client}"
    );
    assert!(
        client.contains("(of all answers)") && client.contains("of successes"),
        "{client}"
    );
    let fault = glance.lines().find(|l| l.contains("F0 outage")).unwrap();
    assert!(
        fault.contains("while it was active (4 s to 7 s), the worst off, operation app buy, had"),
        "{fault}"
    );
}

#[test]
fn the_summary_and_variants_tables_have_a_row_per_operation() {
    let md = shop_report();
    let summary = section(&md, "Summary");
    let header = summary.lines().find(|l| l.starts_with("| client")).unwrap();
    for column in ["degraded", "errors"] {
        assert!(header.contains(column), "{header}");
    }
    let buy = summary
        .lines()
        .find(|l| l.starts_with("| app buy") || l.starts_with("|   buy"))
        .unwrap_or_else(|| panic!("no buy row in\n{summary}"));
    assert!(
        buy.contains("69.8%") && buy.contains("unavailable"),
        "{buy}"
    );
    let variants = section(&md, "Variants side by side");
    for metric in [
        "client.app.op.buy.success_ratio",
        "client.app.op.browse.goodput_rps",
        "client.app.op.buy.latency_p99_ms",
    ] {
        assert!(variants.contains(metric), "{metric} not in\n{variants}");
    }
}

/// Work of exactly 10 ms, refused outright (in no time) for 6 s of the 10: the p50 of all
/// answers is a refusal's ~0 ms, the p50 and p99 of successes stay the 10 ms of work (the
/// histogram's bucket holding 10 ms), whatever share is refused.
#[test]
fn success_latency_counts_successful_requests_alone() {
    let m = run(r#"
[scenario]
name = "refusals"
duration = "10s"
seed = 1

[[client]]
name = "web"
target = "api"
rate = 100

[[service]]
name = "api"
workers = 64
work = { dist = "constant", value = "10ms" }

[[fault]]
kind = "outage"
target = "api"
start = "2s"
end = "8s"
"#);
    assert!(metric(&m, "client.web.latency_p50_ms") < 0.1);
    for q in ["p50", "p99"] {
        let ok = metric(&m, &format!("client.web.success_latency_{q}_ms"));
        assert_close(&format!("success {q}"), ok, 10.0, 0.05);
    }
}

/// A retried, non-idempotent authorization charged twice: the report's call table has a
/// duplicates column with the 90 second charges (scenarios/payment-idempotency.toml without its
/// idempotency store). With the store the column stays, at 0: the scenario has a
/// non-idempotent call, and its 0 is the answer a payments reviewer asks for; the matrix marks
/// the call. A run with only idempotent calls has no such column.
#[test]
fn the_call_table_shows_duplicate_side_effects() {
    let dir = scratch("report-duplicates");
    let run = |name: &str, set: &[&str]| -> String {
        let out = dir.join(name);
        let out = out.to_str().unwrap();
        let mut args = vec!["run", "scenarios/payment-idempotency.toml", "--out", out];
        args.extend_from_slice(set);
        args.push("--quiet");
        cascade(&args, 0);
        cascade(&["report", out, "--markdown", "--quiet"], 0);
        read(&dir.join(name).join("report.md"))
    };
    let charged_twice = run(
        "no-store",
        &["--set", "service.payments.dedup_window=\"0s\""],
    );
    let header = (charged_twice.lines())
        .find(|l| l.starts_with("| call | calls"))
        .expect("the call table");
    assert!(header.ends_with("| duplicates |"), "{header}");
    assert!(
        (charged_twice.lines())
            .any(|l| l.starts_with("| checkout → payments |") && l.ends_with("| 90 |")),
        "no 90 duplicates in\n{charged_twice}"
    );
    let keyed = run("store", &[]);
    assert!(
        (keyed.lines()).any(|l| l.starts_with("| checkout → payments |") && l.ends_with("| 0 |")),
        "no 0 duplicates in\n{keyed}"
    );
    assert!(
        (keyed.lines())
            .any(|l| l.starts_with("| checkout → payments (optional, non-idempotent, keyed) |")),
        "the matrix does not mark the call\n{keyed}"
    );
    let idempotent = dir.join("idempotent");
    small_run(&idempotent);
    cascade(
        &[
            "report",
            idempotent.to_str().unwrap(),
            "--markdown",
            "--quiet",
        ],
        0,
    );
    let plain = read(&idempotent.join("report.md"));
    assert!(plain.contains("| call | calls"), "{plain}");
    assert!(!plain.contains("| duplicates |"), "{plain}");
    assert!(!plain.contains("non-idempotent"), "{plain}");
}
