//! `cascade import prometheus RULES.yml`: an alerting rules file (tests/fixtures/prometheus/
//! alerts.rules.yml, checked with `promtool check rules`) mapped onto a scenario's `[[alert]]`s:
//! the exact TOML, every refusal's message, the alerts run in the scenario they were mapped
//! onto (firing when the fault's arithmetic says), and bad files refused naming file, line and
//! field.

use crate::support::{cascade, scratch};

const RULES: &str = "tests/fixtures/prometheus/alerts.rules.yml";
const SCENARIO: &str = "tests/fixtures/prometheus/alerting.toml";

/// The `--map`s docs/import.md gives.
const MAPS: [&str; 6] = [
    r#"http_client_retries_total{service="checkout",peer="payment"}=edge.checkout.payment.retries"#,
    r#"http_client_requests_total{service="checkout",peer="payment"}=edge.checkout.payment.attempts"#,
    r#"http_request_duration_seconds_bucket{job="checkout"}=edge.web.checkout.attempt_latency"#,
    r#"http_requests_total{job="checkout"}=service.checkout.arrivals"#,
    r#"http_requests_total{job="checkout",code="200"}=service.checkout.success"#,
    "payment_queue_length=service.payment.queue_mean",
];

/// `cascade import prometheus FILE --scenario S --map …` with `extra`: stdout and stderr.
fn import(file: &str, scenario: &str, extra: &[&str], code: i32) -> (String, String) {
    let mut args = vec!["import", "prometheus", file, "--scenario", scenario];
    for m in MAPS {
        args.extend(["--map", m]);
    }
    args.extend_from_slice(extra);
    let out = cascade(&args, code);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const TOML: &str = r##"# cascade import prometheus tests/fixtures/prometheus/alerts.rules.yml
# Each key names the source key (and line) it came from; keys not written keep cascade's defaults.

# alert `CheckoutRetryRatio` (tests/fixtures/prometheus/alerts.rules.yml:12): sum(rate(http_client_retries_total{service="checkout", peer="payment"}[1m])) / sum(rate(http_client_requests_total{service="checkout", peer="payment"}[1m])) > 0.05
[[alert]]
name = "CheckoutRetryRatio"  # alert: CheckoutRetryRatio (tests/fixtures/prometheus/alerts.rules.yml:12)
ratio = ["edge.checkout.payment.retries", "edge.checkout.payment.attempts"]  # `edge.checkout.payment.retries` (rate() of `http_client_retries_total{peer="payment",service="checkout"}`) / `edge.checkout.payment.attempts` (rate() of `http_client_requests_total{peer="payment",service="checkout"}`), in the last whole bucket before each evaluation (0 when the denominator is)
op = ">"                     # the rule's comparison
value = 0.05                 # 0.05, the ratio of the two
every = "60s"                # group `checkout`'s interval (tests/fixtures/prometheus/alerts.rules.yml:7)
for = "300s"                 # for: 5m (tests/fixtures/prometheus/alerts.rules.yml:18)

# alert `CheckoutHighLatency` (tests/fixtures/prometheus/alerts.rules.yml:24): histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{job="checkout"}[1m]))) > 0.25
[[alert]]
name = "CheckoutHighLatency"  # alert: CheckoutHighLatency (tests/fixtures/prometheus/alerts.rules.yml:24)
metric = "edge.web.checkout.attempt_latency_p99_ms"  # `edge.web.checkout.attempt_latency_p99_ms` (histogram_quantile(0.99, rate() of `http_request_duration_seconds_bucket{job="checkout"}`)): the 0.99 quantile of what finished in the last whole bucket before each evaluation
op = ">"                      # the rule's comparison
value = 250.0                 # 0.25 seconds is 250 ms
every = "60s"                 # group `checkout`'s interval (tests/fixtures/prometheus/alerts.rules.yml:7)
for = "120s"                  # for: 2m (tests/fixtures/prometheus/alerts.rules.yml:26)

# alert `CheckoutHighLatency` (tests/fixtures/prometheus/alerts.rules.yml:30): histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{job="checkout"}[1m]))) > 0.1
[[alert]]
name = "CheckoutHighLatency-2"  # alert: CheckoutHighLatency (tests/fixtures/prometheus/alerts.rules.yml:30), renamed: `CheckoutHighLatency` is taken by an earlier rule
metric = "edge.web.checkout.attempt_latency_p99_ms"  # `edge.web.checkout.attempt_latency_p99_ms` (histogram_quantile(0.99, rate() of `http_request_duration_seconds_bucket{job="checkout"}`)): the 0.99 quantile of what finished in the last whole bucket before each evaluation
op = ">"                        # the rule's comparison
value = 100.0                   # 0.1 seconds is 100 ms
every = "60s"                   # group `checkout`'s interval (tests/fixtures/prometheus/alerts.rules.yml:7)
for = "600s"                    # for: 10m (tests/fixtures/prometheus/alerts.rules.yml:32)

# alert `Checkout traffic low` (tests/fixtures/prometheus/alerts.rules.yml:36): sum(rate(http_requests_total{job="checkout"}[1m])) < 50
[[alert]]
name = "Checkout-traffic-low"         # alert: Checkout traffic low (tests/fixtures/prometheus/alerts.rules.yml:36), renamed: cascade's names are letters, digits, `-` and `_`
metric = "service.checkout.arrivals"  # `service.checkout.arrivals` (rate() of `http_requests_total{job="checkout"}`), in the last whole bucket before each evaluation
op = "<"                              # the rule's comparison
value = 3000.0                        # 50 per second in the rule; a count per bucket, 3000
every = "60s"                         # group `checkout`'s interval (tests/fixtures/prometheus/alerts.rules.yml:7)
for = "180s"                          # for: 3m (tests/fixtures/prometheus/alerts.rules.yml:38)

# alert `PaymentRetryBurst` (tests/fixtures/prometheus/alerts.rules.yml:40): increase(http_client_retries_total{service="checkout", peer="payment"}[1m]) > 100
[[alert]]
name = "PaymentRetryBurst"                # alert: PaymentRetryBurst (tests/fixtures/prometheus/alerts.rules.yml:40)
metric = "edge.checkout.payment.retries"  # `edge.checkout.payment.retries` (increase() of `http_client_retries_total{peer="payment",service="checkout"}`), in the last whole bucket before each evaluation
op = ">"                                  # the rule's comparison
value = 100.0                             # 100, a count per bucket
every = "60s"                             # group `checkout`'s interval (tests/fixtures/prometheus/alerts.rules.yml:7)

# alert `PaymentQueueLong` (tests/fixtures/prometheus/alerts.rules.yml:43): payment_queue_length > 10
[[alert]]
name = "PaymentQueueLong"              # alert: PaymentQueueLong (tests/fixtures/prometheus/alerts.rules.yml:43)
metric = "service.payment.queue_mean"  # `service.payment.queue_mean` (`payment_queue_length`): its time average over the last whole bucket before each evaluation (Prometheus reads the latest sample)
op = ">"                               # the rule's comparison
value = 10.0                           # 10, as the rule writes it (requests)
every = "60s"                          # group `checkout`'s interval (tests/fixtures/prometheus/alerts.rules.yml:7)
for = "60s"                            # for: 1m (tests/fixtures/prometheus/alerts.rules.yml:45)
keep_firing_for = "120s"               # keep_firing_for: 2m (tests/fixtures/prometheus/alerts.rules.yml:46)
"##;

const REFUSED: &str = r##"tests/fixtures/prometheus/alerts.rules.yml:9: not imported: `record: job:http_requests:rate1m`: a recording rule, not an alert: it makes a series, and an alert over that series maps when --map names it
tests/fixtures/prometheus/alerts.rules.yml:12: not imported: `CheckoutRetryRatio: labels (severity) and annotations (summary)`: cascade's alerts carry none: they route and describe a page, they do not change when it fires
tests/fixtures/prometheus/alerts.rules.yml:24: not imported: `CheckoutHighLatency: labels (severity)`: cascade's alerts carry none: they route and describe a page, they do not change when it fires
tests/fixtures/prometheus/alerts.rules.yml:30: not imported: `CheckoutHighLatency: labels (severity)`: cascade's alerts carry none: they route and describe a page, they do not change when it fires
tests/fixtures/prometheus/alerts.rules.yml:48: not imported: `CheckoutLatencyP95`: cascade records the p50 and p99 of `edge.web.checkout.attempt_latency`, not the p95 (0.95 quantile)
tests/fixtures/prometheus/alerts.rules.yml:51: not imported: `CheckoutSuccessLow`: `< 0.99` holds at 0, which cascade reads for a bucket in which the denominator counted nothing, where PromQL's NaN fires nothing: the alert would fire where Prometheus stays quiet
tests/fixtures/prometheus/alerts.rules.yml:55: not imported: `CheckoutErrorRate5m`: the window [5m] of `http_client_retries_total{peer="payment",service="checkout"}` is not the scenario's bucket (1m): cascade's alert reads the last whole bucket before each evaluation, so only a window of exactly one bucket means the same (set scenario.bucket = "5m" to map it)
tests/fixtures/prometheus/alerts.rules.yml:59: not imported: `CheckoutInstanceHot`: `sum by (instance)` gives one alert per group of series: cascade's metric is one series; choose the group in the selector and --map it
tests/fixtures/prometheus/alerts.rules.yml:62: not imported: `PaymentDown`: `==`: cascade's alerts compare with `>`, `>=`, `<` or `<=`
tests/fixtures/prometheus/alerts.rules.yml:66: not imported: `PaymentAbsent`: the expression is absent(), not a comparison with a number
tests/fixtures/prometheus/alerts.rules.yml:69: not imported: `NodeBusy`: no --map names `node_cpu_seconds_total{mode="idle"}`: give --map 'node_cpu_seconds_total{mode="idle"}=METRIC' with the cascade metric it stands for
tests/fixtures/prometheus/alerts.rules.yml:75: not imported: `PaymentQueueSpike`: evaluated every 30s (group `fast`'s interval (tests/fixtures/prometheus/alerts.rules.yml:73)), not a whole number of the scenario's bucket (1m): cascade evaluates an alert at whole buckets
"##;

#[test]
fn rules_that_map_become_alerts_and_the_others_say_why() {
    let (out, err) = import(RULES, SCENARIO, &[], 0);
    assert_eq!(out, TOML);
    assert_eq!(err, REFUSED);
}

#[test]
fn the_alerts_load_and_fire_when_the_fault_says() {
    let (out, _) = import(RULES, SCENARIO, &[], 0);
    let dir = scratch("alert-rules-run");
    let scenario = dir.join("s.toml");
    let base = std::fs::read_to_string(SCENARIO).unwrap();
    std::fs::write(&scenario, format!("{base}\n{out}")).unwrap();
    let results = dir.join("out");
    cascade(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            results.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    // payment fails 30% from 600 s to 1,200 s, every call retried. The retry ratio's first
    // bucket over 5% is [600 s, 660 s), seen at 660 s: pending, it fires `for` 5 min later, at
    // 960 s; the burst (100 retries in a bucket, against about 1,800) fires at 660 s with no
    // `for`. Both resolve at 1,260 s, the first evaluation of a bucket after the fault. The
    // latency, traffic and queue alerts stay quiet: 2 ms and 4 ms of work at 100 requests a
    // second, every 60 s bucket holding 6,000 arrivals.
    let csv = std::fs::read_to_string(results.join("alerts.csv")).unwrap();
    assert_eq!(
        csv,
        "alert,start_s,end_s\nCheckoutRetryRatio,960,1260\nPaymentRetryBurst,660,1260\n"
    );
}

#[test]
fn evaluation_interval_offsets_group_labels_and_unused_maps() {
    let dir = scratch("alert-rules-groups");
    let file = dir.join("g.rules.yaml");
    std::fs::write(
        &file,
        "groups:\n  - name: plain\n    labels:\n      team: payments\n    rules:\n      - alert: Q\n        expr: payment_queue_length >= 4\n  - name: late\n    query_offset: 1m\n    rules:\n      - alert: Late\n        expr: payment_queue_length > 4\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let (out, err) = import(path, SCENARIO, &["--evaluation-interval", "2m"], 0);
    assert!(
        out.lines().any(|l| l.starts_with("every = \"120s\"")
            && l.ends_with("  # --evaluation-interval (group `plain` has no interval; Prometheus' default is 1m)")),
        "{out}"
    );
    let err = err.replace(&format!("{}/", dir.display()), "");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "g.rules.yaml:6: not imported: `Q: labels (team)`: cascade's alerts carry none: they route and describe a page, they do not change when it fires",
            "g.rules.yaml:11: not imported: `Late`: the group's query_offset (1m) evaluates every rule over data that old: cascade reads the last bucket before each evaluation",
        ]
    );
    // Five of the six maps name selectors these rules never read: each is said.
    assert_eq!(lines.len(), 7, "{err}");
    assert_eq!(
        lines[2],
        r#"--map: not imported: `http_client_retries_total{service="checkout",peer="payment"}=edge.checkout.payment.retries`: no rule reads this selector"#
    );
}

#[test]
fn bad_rules_files_are_refused_naming_file_line_and_field() {
    let rule = "groups:\n  - name: a\n    rules:\n      - alert: X\n";
    let cases: [(String, &str); 9] = [
        (
            format!("{rule}        expr: up > 1\n        for: 5 minutes\n"),
            "error: r.yml:6:14: field `groups[0].rules[0].for`: cannot read \"5 minutes\" as a Prometheus duration (\"30s\", \"5m\", \"1h30m\")",
        ),
        (
            format!("{rule}        expr: [up]\n"),
            "error: r.yml:5:15: field `groups[0].rules[0].expr`: expected a PromQL expression, found a list",
        ),
        (
            format!("{rule}        exp: up > 1\n"),
            "error: r.yml:5:9: field `groups[0].rules[0].exp`: unknown key; Prometheus' are alert, record, expr, for, keep_firing_for, labels, annotations",
        ),
        (
            "groups:\n  - name: a\n    rules: {alert: X\n".to_string(),
            "error: r.yml:4:1: not valid YAML: while parsing a flow mapping, did not find expected ',' or '}'",
        ),
        (
            format!("{rule}        record: Y\n        expr: up > 1\n"),
            "error: r.yml:4:9: field `groups[0].rules[0]`: a rule has exactly one of `alert` (an alerting rule) and `record` (a recording rule)",
        ),
        (
            format!("{rule}        expr: up > 1\n        labels: [a]\n"),
            "error: r.yml:6:17: field `groups[0].rules[0].labels`: expected a map of names to text, found a list",
        ),
        (
            "groups: 3\n".to_string(),
            "error: r.yml:1:9: field `groups`: expected a list, found an integer",
        ),
        (
            "groupz: []\n".to_string(),
            "error: r.yml:1:1: field `groupz`: unknown key: a rules file holds `groups` alone",
        ),
        (
            "groups:\n  - rules: []\n".to_string(),
            "error: r.yml:2:5: field `groups[0].name`: missing: every group has a name",
        ),
    ];
    let dir = scratch("alert-rules-bad");
    let path = dir.join("r.yml");
    for (text, want) in cases {
        std::fs::write(&path, &text).unwrap();
        let (out, err) = import(path.to_str().unwrap(), SCENARIO, &[], 2);
        assert!(out.is_empty(), "{out}");
        assert_eq!(
            err.replace(&format!("{}/", dir.display()), "").trim_end(),
            want,
            "{text}"
        );
    }
    // Without the scenario nothing says which windows and metrics map.
    let out = cascade(&["import", "prometheus", RULES], 2);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(
            "error: an alerting rules file is mapped onto a scenario: give --scenario FILE"
        ),
        "{err}"
    );
    // A map onto a metric the scenario does not record, or a selector that is not one.
    let (_, err) = import(RULES, SCENARIO, &["--map", "x=service.nope.arrivals"], 2);
    assert!(
        err.contains("`service.nope.arrivals` is not a metric this scenario's time series records"),
        "{err}"
    );
    let (_, err) = import(
        RULES,
        SCENARIO,
        &["--map", "rate(x[1m])=service.checkout.arrivals"],
        2,
    );
    assert!(err.contains("is not a plain series selector"), "{err}");
}
