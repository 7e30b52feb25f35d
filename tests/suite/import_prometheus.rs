//! `cascade import prometheus`: the fixtures of tests/fixtures/prometheus/ (exposition
//! text from prometheus-client, API answers in the documented shape) in every format, the
//! refusals with their messages, and the acceptance round trip: a simulated service's latency
//! histogram written in the exposition format, imported back as work, run again, gives the
//! same quantiles within a tolerance derived below.

use crate::support::{cascade, run, scratch, traced_rows};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/prometheus")
        .join(name)
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `cascade import prometheus ARGS`: stdout and stderr, the exit code checked.
fn import(args: &[&str], code: i32) -> (String, String) {
    let mut all = vec!["import", "prometheus"];
    all.extend_from_slice(args);
    let out = cascade(&all, code);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The `[[expect]]` tables of the output: (metric, op, value).
fn expects(toml: &str) -> Vec<(String, String, f64)> {
    let doc: toml_edit::DocumentMut = toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let Some(list) = doc.get("expect").and_then(|e| e.as_array_of_tables()) else {
        return Vec::new();
    };
    list.iter()
        .map(|t| {
            (
                t["metric"].as_str().unwrap().to_string(),
                t["op"].as_str().unwrap().to_string(),
                t["value"].as_float().unwrap(),
            )
        })
        .collect()
}

#[test]
fn two_snapshots_give_a_rate_and_calibration_bands() {
    let (a, b) = (fixture("checkout-1.prom"), fixture("checkout-2.prom"));
    let s = fixture("calibrate.toml");
    let (out, err) = import(
        &[
            arg(&a),
            arg(&b),
            "--service",
            "checkout",
            "--interval",
            "5m",
            "--scenario",
            arg(&s),
        ],
        0,
    );
    // 30,000 requests between the snapshots, 300 s apart.
    assert!(
        out.contains("#   --set 'client.<CLIENT>.rate=100'"),
        "{out}"
    );
    let got = expects(&out);
    let metrics: Vec<&str> = got.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(
        metrics,
        [
            "service.checkout.sojourn_mean_ms",
            "service.checkout.sojourn_mean_ms",
            "edge.web.checkout.attempt_latency_p50_ms",
            "edge.web.checkout.attempt_latency_p50_ms",
            "edge.web.checkout.attempt_latency_p99_ms",
            "edge.web.checkout.attempt_latency_p99_ms",
        ]
    );
    // The mean is exact: the sums' difference over the counts' (both series, GET and POST).
    let sum = |text: &str| -> f64 {
        text.lines()
            .filter(|l| l.starts_with("http_request_duration_seconds_sum"))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
            .sum()
    };
    let (ta, tb) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    let mean_ms = (sum(&tb) - sum(&ta)) / 30_000.0 * 1e3;
    assert_eq!(got[0].1, ">=");
    assert!((got[0].2 - mean_ms * 0.9).abs() < 1e-3, "{got:?} {mean_ms}");
    assert!((got[1].2 - mean_ms * 1.1).abs() < 1e-3, "{got:?} {mean_ms}");
    assert!(err.is_empty(), "{err}");
    // The imported tables are the ones the walk-through's scenario holds.
    let scenario = std::fs::read_to_string(&s).unwrap();
    let out = out.replace(concat!(env!("CARGO_MANIFEST_DIR"), "/"), "");
    for block in out.split("\n\n").filter(|b| b.contains("[[expect]]")) {
        assert!(scenario.contains(block), "{block}");
    }
}

#[test]
fn one_snapshot_has_no_rate_and_a_leaf_gets_work() {
    let (out, err) = import(
        &[arg(&fixture("db.prom")), "--service", "db", "--leaf", "db"],
        0,
    );
    assert!(!out.contains("rate="), "{out}");
    assert!(
        err.contains("one snapshot of cumulative counters has no rate"),
        "{err}"
    );
    let doc: toml_edit::DocumentMut = out.parse().unwrap();
    let work = doc["service"][0]["work"].as_inline_table().unwrap();
    assert_eq!(work["dist"].as_str(), Some("empirical"));
    let rows = work["percentiles"].as_array().unwrap();
    let first = rows.get(0).unwrap().as_array().unwrap();
    let last = rows.get(rows.len() - 1).unwrap().as_array().unwrap();
    assert_eq!(first.get(0).unwrap().as_integer(), Some(0));
    assert_eq!(last.get(0).unwrap().as_integer(), Some(100));
    // No observation above 75 ms: the last bucket holding some ends there.
    assert_eq!(last.get(1).unwrap().as_str(), Some("75ms"));
    assert!(out.contains("its queueing in production included"), "{out}");
}

#[test]
fn api_answers_classic_rate_quantile_and_native() {
    let s = fixture("calibrate.toml");
    // A plain selector's buckets as Prometheus 2.42 answers it (series sorted by labels, so
    // `+Inf` first; `le="1.0"` as scraped; the `instance` label a scrape adds): counts since
    // start, the service from `job`.
    let (out, err) = import(&[arg(&fixture("buckets.json")), "--scenario", arg(&s)], 0);
    assert_eq!(expects(&out).len(), 6, "{out}");
    assert!(out.contains("summed over instance, method"), "{out}");
    assert!(err.contains("has no rate"), "{err}");
    // rate() by le: a rate already, no sum (so no mean), the unit given.
    let (out, err) = import(
        &[
            arg(&fixture("rate.json")),
            "--unit",
            "s",
            "--scenario",
            arg(&s),
        ],
        0,
    );
    assert!(
        out.contains("#   --set 'client.<CLIENT>.rate=100'"),
        "{out}"
    );
    assert_eq!(expects(&out).len(), 4, "{out}");
    assert!(err.contains("no `_sum`: the mean is not known"), "{err}");
    // histogram_quantile: the p99 band on the caller's edge; p99.json holds the server's
    // answer, which make_fixtures.py checks against its own histogram_quantile of the rates.
    // histogram_quantile of the same buckets.
    let (out, _) = import(
        &[
            arg(&fixture("p99.json")),
            "--unit",
            "s",
            "--quantile",
            "0.99",
            "--scenario",
            arg(&s),
        ],
        0,
    );
    let got = expects(&out);
    assert_eq!(got.len(), 2, "{out}");
    assert_eq!(got[0].0, "edge.web.checkout.attempt_latency_p99_ms");
    let p99 = 38.93835616438358;
    assert!((got[0].2 - p99 * 0.9).abs() < 1e-3 && (got[1].2 - p99 * 1.1).abs() < 1e-3);
    // A native histogram of a leaf: work, from its exponential buckets.
    let (out, _) = import(&[arg(&fixture("native.json")), "--scenario", arg(&s)], 0);
    let doc: toml_edit::DocumentMut = out.parse().unwrap();
    assert_eq!(doc["service"][0]["name"].as_str(), Some("db"));
    let work = doc["service"][0]["work"].as_inline_table().unwrap();
    let rows = work["percentiles"].as_array().unwrap();
    let first = rows.get(0).unwrap().as_array().unwrap();
    // Schema 0: the first bucket holding observations is (2^-11, 2^-10] s.
    assert_eq!(first.get(1).unwrap().as_str(), Some("488281ns"));
}

/// Writes `text` as `name` in a scratch directory and imports it (exit 2): stderr.
fn refused(name: &str, text: &str, extra: &[&str]) -> String {
    let dir = scratch("prom-refused");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let mut args = vec![path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (out, err) = import(&args, 2);
    assert!(out.is_empty(), "{out}");
    err.replace(&format!("{}/", dir.display()), "")
}

const H: &str = "# TYPE h_seconds histogram\n";

#[test]
fn nonsense_is_refused_naming_file_line_and_field() {
    let cases: [(&str, String, &[&str], &str); 9] = [
        (
            "m.prom",
            format!("{H}h_seconds_bucket{{le=\"0.1\"}} 5\nh_seconds_bucket{{le=\"0.2\"}} 3\nh_seconds_bucket{{le=\"+Inf\"}} 6\n"),
            &["--service", "a"],
            "error: m.prom:3:1: field `h_seconds_bucket{le=\"0.2\"}`: non-monotone buckets: 3 observations up to 0.2 but 5 up to 0.1 (line 2)",
        ),
        (
            "m.prom",
            format!("{H}h_seconds_bucket{{le=\"0.1\"}} 5\nh_seconds_bucket{{le=\"0.2\"}} 6\n"),
            &["--service", "a"],
            "error: m.prom:3:1: field `h_seconds_bucket{le=\"0.2\"}`: no `+Inf` bucket",
        ),
        (
            "m.prom",
            format!("{H}h_seconds_bucket{{le=\"+Inf\",route=\"/a\"}} 5\nh_seconds_bucket{{le=\"+Inf\",path=\"/b\"}} 6\n"),
            &["--service", "a"],
            "error: m.prom:3:1: field `h_seconds_bucket`: mixed label sets: labels {path} where line 2 has {route}",
        ),
        (
            "m.prom",
            format!("{H}# UNIT h_seconds milliseconds\nh_seconds_bucket{{le=\"+Inf\"}} 5\n"),
            &["--service", "a"],
            "error: m.prom:2:1: field `h_seconds`: mixed units: `# UNIT` says milliseconds but the name says seconds",
        ),
        (
            "m.prom",
            format!("{H}h_seconds_bucket{{le=\"+Inf\"}} 5\nh_seconds_count 4\n"),
            &["--service", "a"],
            "error: m.prom:3:1: field `h_seconds_count{}`: the count is 4 but the +Inf bucket (line 2) holds 5",
        ),
        (
            "m.prom",
            format!("{H}h_seconds_bucket{{le=\"+Inf\"}} 5\n"),
            &[],
            "error: m.prom:2:1: field `h_seconds_bucket`: no `service` or `job` label names the service",
        ),
        (
            "m.prom",
            format!("{H}h_seconds_bucket{{le=\"+Inf\"}} 5\ng_milliseconds_bucket{{le=\"+Inf\"}} 5\n"),
            &["--service", "a"],
            "error: m.prom:3:1: field `g_milliseconds`: a second histogram of service `a`: h_seconds (m.prom:2-2) and g_milliseconds (m.prom:3-3) (mixed units: seconds and milliseconds); choose one with --metric",
        ),
        (
            "q.json",
            r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"a"},"value":[1,"0.1"]}]}}"#.to_string(),
            &["--unit", "s"],
            "error: q.json:1:1: a `histogram_quantile` result does not say which quantile it is",
        ),
        (
            "m.prom",
            format!("{H}h_seconds_bucket{{le=\"0.1\" 5\n"),
            &["--service", "a"],
            "error: m.prom:2:27: field `h_seconds_bucket`: expected `,` or `}`",
        ),
    ];
    for (name, text, extra, want) in cases {
        let err = refused(name, &text, extra);
        assert!(err.starts_with(want), "{text}\nwant: {want}\ngot:  {err}");
    }
}

/// A real server's answer is one line of JSON: a refusal still names the series it is about
/// (every label, `le` included), since the line alone would not find it.
#[test]
fn a_server_answer_with_a_bad_bucket_is_refused_naming_the_series() {
    let real = std::fs::read_to_string(fixture("buckets.json")).unwrap();
    let good = r#""le":"0.02","method":"GET"},"value":[1700000300,"29241"]"#;
    assert!(real.contains(good), "the fixture changed: {real}");
    let bad = real.replace(
        good,
        r#""le":"0.02","method":"GET"},"value":[1700000300,"5"]"#,
    );
    let err = refused("bad.json", &bad, &[]);
    assert!(
        err.starts_with(
            "error: bad.json:1:1: field `http_request_duration_seconds_bucket{instance=\"checkout:8080\",job=\"checkout\",method=\"GET\",le=\"0.02\"}`: non-monotone buckets: 5 observations up to 0.02 but 24256 up to 0.015"
        ),
        "{err}"
    );
}

#[test]
fn snapshots_refuse_a_reset_and_a_missing_interval() {
    let dir = scratch("prom-snapshots");
    let later = dir.join("b.prom");
    let earlier = dir.join("a.prom");
    std::fs::write(
        &earlier,
        format!("{H}h_seconds_bucket{{le=\"0.1\"}} 5\nh_seconds_bucket{{le=\"+Inf\"}} 9\n"),
    )
    .unwrap();
    std::fs::write(
        &later,
        format!("{H}h_seconds_bucket{{le=\"0.1\"}} 2\nh_seconds_bucket{{le=\"+Inf\"}} 3\n"),
    )
    .unwrap();
    let (_, err) = import(
        &[
            arg(&earlier),
            arg(&later),
            "--service",
            "a",
            "--interval",
            "1m",
        ],
        2,
    );
    assert!(err.contains("b.prom:2:1: field `h_seconds`: the bucket up to 0.1 went down from 5 to 2 between the snapshots: a counter reset"), "{err}");
    let (_, err) = import(&[arg(&later), arg(&later), "--service", "a"], 2);
    assert!(
        err.contains("need the time between them: give --interval"),
        "{err}"
    );
}

/// The acceptance: a leaf's simulated latencies written as a Prometheus histogram, imported
/// as its work, run again: the client's p50 and p99 come back.
///
/// Tolerance, derived: the buckets grow by r = 1.05, and the import interpolates linearly
/// inside one, so an imported quantile is exact at every bound and off by at most a small
/// part of one bucket between them: for a lognormal, whose density changes by a few percent
/// over a 5 % bucket, well under 0.5 % (taken as 0.5 %). The rest is sampling: each run's
/// quantile q of N draws has a relative standard error sqrt(q (1 - q) / N) / (f(x_q) x_q), and
/// for a lognormal f(x_q) x_q = φ(z_q) / σ; the two runs are independent draws, so the
/// difference has √2 times that, and 3 of them bound it but once in 370 (for a fixed seed the
/// test is deterministic: the bound says why the numbers it pins are not luck).
#[test]
fn round_trip_reproduces_the_quantiles() {
    let (median_ms, p99_ms) = (4.0_f64, 20.0_f64);
    let scenario = |work: &str| {
        format!(
            "[scenario]\nname = \"round-trip\"\nduration = \"60s\"\n\n[[client]]\nname = \"web\"\ntarget = \"db\"\nrate = 1000\n\n[[service]]\nname = \"db\"\ninstances = 4\nworkers = 64\nwork = {work}\n"
        )
    };
    let first = scenario(&format!(
        "{{ dist = \"lognormal\", median = \"{median_ms}ms\", p99 = \"{p99_ms}ms\" }}"
    ));
    let dir = scratch("prom-round-trip");
    // db's time to answer per request, from the trace: its job's attempt to its reply.
    let rows = traced_rows(&dir, &first);
    let mut arrived = std::collections::HashMap::new();
    let mut sojourns = Vec::new();
    for r in &rows {
        if !r[3].starts_with("service.db") {
            continue;
        }
        let t: f64 = r[0].parse().unwrap();
        match r[4].as_str() {
            "attempt" => {
                arrived.insert(r[1].clone(), t);
            }
            "reply" => sojourns.push((t - arrived[&r[1]]) / 1e9),
            _ => {}
        }
    }
    let n = sojourns.len() as f64;
    assert!(n > 50_000.0, "{n}");
    // The exposition text a client library would write for them.
    let bounds: Vec<f64> = (0..)
        .map(|k| 0.0005 * 1.05_f64.powi(k))
        .take_while(|b| *b < 1.0)
        .collect();
    let mut text = String::from("# TYPE db_request_duration_seconds histogram\n");
    for b in bounds.iter().chain([f64::INFINITY].iter()) {
        let c = sojourns.iter().filter(|s| **s <= *b).count();
        let le = if b.is_infinite() {
            "+Inf".to_string()
        } else {
            b.to_string()
        };
        text.push_str(&format!(
            "db_request_duration_seconds_bucket{{le=\"{le}\"}} {c}\n"
        ));
    }
    text.push_str(&format!(
        "db_request_duration_seconds_sum {}\ndb_request_duration_seconds_count {}\n",
        sojourns.iter().sum::<f64>(),
        sojourns.len()
    ));
    let prom = dir.join("db.prom");
    std::fs::write(&prom, text).unwrap();
    let (out, _) = import(&[arg(&prom), "--service", "db", "--leaf", "db"], 0);
    let doc: toml_edit::DocumentMut = out.parse().unwrap();
    let work = doc["service"][0]["work"]
        .as_inline_table()
        .unwrap()
        .to_string();
    let second = scenario(&work);
    let (a, b) = (run(&first), run(&second));
    let sigma = (p99_ms / median_ms).ln() / 2.3263;
    for (q, z, name) in [
        (0.5, 0.0, "client.web.latency_p50_ms"),
        (0.99, 2.3263, "client.web.latency_p99_ms"),
    ] {
        let density = (-z * z / 2.0_f64).exp() / (2.0 * std::f64::consts::PI).sqrt() / sigma;
        let se = (q * (1.0 - q) / n).sqrt() / density;
        let tolerance = 0.005 + 3.0 * 2f64.sqrt() * se;
        let (was, now) = (a.get(name).unwrap(), b.get(name).unwrap());
        assert!(
            (now / was - 1.0).abs() <= tolerance,
            "{name}: {was} then {now}, beyond ±{:.2}%",
            tolerance * 100.0
        );
    }
}
