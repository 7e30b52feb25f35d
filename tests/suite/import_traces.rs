//! `cascade import traces`: the fixtures of tests/fixtures/traces/ (written by
//! opentelemetry-sdk with the OTLP encoder, by py-zipkin, and after Jaeger's documented
//! query-API schema) give the shop's topology in every format, with its odd cases reported;
//! the scenario imported validates and runs; malformed spans are named by file, span and
//! field; a generated 100,000-span file gives numbers known by construction.

use crate::support::{cascade, scratch};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/traces")
        .join(name)
}

/// `cascade import traces ARGS`: stdout and stderr, the exit code checked.
fn import(args: &[&str], code: i32) -> (String, String) {
    let mut all = vec!["import", "traces"];
    all.extend_from_slice(args);
    let out = cascade(&all, code);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn doc(toml: &str) -> toml_edit::DocumentMut {
    toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Each service's operations and, for each, its `calls` as TOML text.
fn operations(d: &toml_edit::DocumentMut) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for s in d["service"].as_array_of_tables().unwrap() {
        let name = s["name"].as_str().unwrap().to_string();
        for o in s["operation"].as_array_of_tables().unwrap() {
            let calls = o
                .get("calls")
                .map(|c| c.to_string().trim().to_string())
                .unwrap_or_default();
            out.push((name.clone(), o["name"].as_str().unwrap().to_string(), calls));
        }
    }
    out
}

fn calls_of<'a>(ops: &'a [(String, String, String)], service: &str, op: &str) -> &'a str {
    &ops.iter()
        .find(|o| o.0 == service && o.1 == op)
        .unwrap_or_else(|| panic!("no {service} {op} in {ops:?}"))
        .2
}

#[test]
fn every_format_gives_the_shops_topology_and_reports_its_odd_cases() {
    for file in [
        "otlp-shop.json",
        "otlp-shop.jsonl",
        "zipkin-shop.json",
        "jaeger-shop.json",
    ] {
        let path = fixture(file);
        let (out, err) = import(&[path.to_str().unwrap()], 0);
        let d = doc(&out);
        let ops = operations(&d);
        let mut names: Vec<(&str, &str)> =
            ops.iter().map(|o| (o.0.as_str(), o.1.as_str())).collect();
        names.sort();
        // mailer's consumer is reached by no call: asynchronous, left out.
        assert_eq!(
            names,
            [
                ("cart", "GET-cart"),
                ("catalog", "GET-item"),
                ("db", "SELECT"),
                ("frontend", "GET-checkout-id"),
                ("frontend", "GET-product-id"),
                ("payments", "POST-charge"),
                ("recs", "GET-recs"),
                ("redis", "GET"),
            ],
            "{file}"
        );
        // A checkout: cart, with recs in parallel in some of the requests, then payments,
        // retried, in most (one trace's payments has no server span).
        let checkout = calls_of(&ops, "frontend", "GET-checkout-id");
        assert!(
            checkout.starts_with("[{ name = \"with-GET-recs\", choose = [{ weight = "),
            "{file}: {checkout}"
        );
        assert!(
            checkout.contains("calls = [{ parallel = [{ to = \"cart\", operation = \"GET-cart\""),
            "{file}: {checkout}"
        );
        assert!(
            checkout.contains("{ to = \"payments\", operation = \"POST-charge\""),
            "{file}: {checkout}"
        );
        assert!(
            checkout.contains("policy = \"retry-frontend-POST-charge\", p = 0.9"),
            "{file}: {checkout}"
        );
        assert!(
            calls_of(&ops, "frontend", "GET-product-id")
                .starts_with("[{ to = \"catalog\", operation = \"GET-item\"")
        );
        assert!(
            calls_of(&ops, "catalog", "GET-item")
                .starts_with("[{ to = \"db\", operation = \"SELECT\"")
        );
        assert!(
            calls_of(&ops, "cart", "GET-cart")
                .starts_with("[{ to = \"redis\", operation = \"GET\"")
        );
        assert_eq!(calls_of(&ops, "db", "SELECT"), "");
        // Each hop's network is 0.5 ms and an exponential bit more: the 5th percentile of
        // (client − server) / 2 lands just above 500 µs (microsecond times in Jaeger and Zipkin;
        // the 5th percentile of 14 to 26 calls of an edge reaches 532 µs in Zipkin's draw).
        for line in out.lines().filter(|l| l.contains("latency = ")) {
            for v in line
                .match_indices("value = \"")
                .map(|(i, _)| &line[i + 9..i + 14])
            {
                let us: u32 = v.trim_end_matches(['u', '"', 's']).parse().unwrap_or(0);
                assert!((495..=545).contains(&us), "{file}: {v} in {line}");
            }
        }
        // The client: both root operations, one rate; the retry policy; payments' errors.
        let client = &d["client"].as_array_of_tables().unwrap().get(0).unwrap();
        assert_eq!(client["target"].as_str(), Some("frontend"));
        let mix = client["mix"].to_string();
        assert!(
            mix.contains("\"GET-checkout-id\"") && mix.contains("\"GET-product-id\""),
            "{mix}"
        );
        let rate = client["rate"].as_float().unwrap();
        assert!(
            (30.0..70.0).contains(&rate),
            "{file}: about 50 a second, {rate}"
        );
        // The suggested retry policy (its values are pinned by the goldens).
        assert!(
            d["policy"]["retry-frontend-POST-charge"]
                .get("retry")
                .is_some(),
            "{file}"
        );
        let fault = &d["fault"].as_array_of_tables().unwrap().get(0).unwrap();
        assert_eq!(
            (fault["kind"].as_str(), fault["target"].as_str()),
            (Some("errors"), Some("payments"))
        );
        // What could not be inferred.
        assert!(err.contains("no server span under them"), "{file}: {err}");
        assert!(
            err.contains("clock skew between the hosts"),
            "{file}: {err}"
        );
        assert!(
            err.contains("asynchronous hand-offs, not calls"),
            "{file}: {err}"
        );
        assert!(err.contains("`mailer` `order.placed`"), "{file}: {err}");
        match file {
            "otlp-shop.jsonl" | "zipkin-shop.json" => {
                assert!(
                    err.contains("their parent is not in the file"),
                    "{file}: {err}"
                )
            }
            _ => assert!(
                !err.contains("their parent is not in the file"),
                "{file}: {err}"
            ),
        }
        if file == "zipkin-shop.json" {
            assert!(err.contains("`1 spans`: no end time"), "{err}");
        }
    }
}

#[test]
fn the_imported_scenario_validates_and_runs() {
    let dir = scratch("import-traces-run");
    for file in ["otlp-shop.json", "jaeger-shop.json", "zipkin-shop.json"] {
        let (out, _) = import(&[fixture(file).to_str().unwrap()], 0);
        let scenario = dir.join(format!("{file}.toml"));
        std::fs::write(&scenario, &out).unwrap();
        let s = scenario.to_str().unwrap();
        cascade(&["validate", s], 0);
        let results = dir.join(file);
        cascade(
            &[
                "run",
                s,
                "--quiet",
                "--set",
                "scenario.duration=\"10s\"",
                "--out",
                results.to_str().unwrap(),
            ],
            0,
        );
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(results.join("summary.json")).unwrap())
                .unwrap();
        let text = summary.to_string();
        assert!(text.contains("traffic"), "{file}: {text:.300}");
    }
}

#[test]
fn a_forced_format_reads_the_file_as_that_format() {
    let otlp = fixture("otlp-shop.jsonl");
    let (forced, _) = import(&["--format", "otlp", otlp.to_str().unwrap()], 0);
    let (told, _) = import(&[otlp.to_str().unwrap()], 0);
    assert_eq!(forced, told);
    let (_, err) = import(&["--format", "zipkin", otlp.to_str().unwrap()], 2);
    assert!(
        err.contains("otlp-shop.jsonl:1:1: not JSON as expected"),
        "{err}"
    );
}

/// A malformed file in `dir`: exit 2, the message naming the file, the span and the field.
fn refused(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let (_, err) = import(&[path.to_str().unwrap()], 2);
    assert!(
        err.starts_with(&format!("error: {}", path.display())),
        "{err}"
    );
    err
}

#[test]
fn a_malformed_span_is_named_by_file_span_and_field() {
    let dir = scratch("import-traces-bad");
    let otlp = |span: &str| {
        format!(
            r#"{{"resourceSpans":[{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"api"}}}}]}},"scopeSpans":[{{"spans":[{span}]}}]}}]}}"#
        )
    };
    let err = refused(
        &dir,
        "a.json",
        &otlp(
            r#"{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"GET","kind":2,"startTimeUnixNano":"soon","endTimeUnixNano":"1"}"#,
        ),
    );
    assert!(err.contains("a.json: field `startTimeUnixNano`: span eee19b7ec3c1b174: \"soon\" is not a whole number"), "{err}");
    let err = refused(
        &dir,
        "b.json",
        &otlp(
            r#"{"traceId":"not-hex","spanId":"eee19b7ec3c1b174","name":"GET","startTimeUnixNano":"1","endTimeUnixNano":"2"}"#,
        ),
    );
    assert!(
        err.contains("b.json: field `traceId`: span eee19b7ec3c1b174: \"not-hex\" is not an id"),
        "{err}"
    );
    let err = refused(
        &dir,
        "c.json",
        &otlp(
            r#"{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"GET","kind":9,"startTimeUnixNano":"1","endTimeUnixNano":"2"}"#,
        ),
    );
    assert!(
        err.contains("field `kind`: span eee19b7ec3c1b174: 9 is not a SpanKind"),
        "{err}"
    );
    // Jaeger: a span naming no process; a bad reference.
    let err = refused(
        &dir,
        "d.json",
        r#"{"data":[{"traceID":"a1","spans":[{"traceID":"a1","spanID":"b2","operationName":"GET","references":[],"startTime":1,"duration":2,"processID":"p9"}],"processes":{"p1":{"serviceName":"api"}}}]}"#,
    );
    assert!(
        err.contains(
            "d.json: field `processID`: span b2: \"p9\" is not among the trace's processes"
        ),
        "{err}"
    );
    let err = refused(
        &dir,
        "e.json",
        r#"{"data":[{"traceID":"a1","spans":[{"traceID":"a1","spanID":"b2","operationName":"GET","references":[{"refType":"SIBLING","spanID":"c3"}],"startTime":1,"duration":2,"processID":"p1"}],"processes":{"p1":{"serviceName":"api"}}}]}"#,
    );
    assert!(
        err.contains("e.json: field `references.refType`: span b2"),
        "{err}"
    );
    // Zipkin: an unknown kind; a duration that is text.
    let err = refused(
        &dir,
        "f.json",
        r#"[{"traceId":"a1","id":"b2","kind":"SIDEWAYS","timestamp":1,"duration":2,"localEndpoint":{"serviceName":"api"}}]"#,
    );
    assert!(
        err.contains("f.json: field `kind`: span b2: \"SIDEWAYS\": expected CLIENT, SERVER"),
        "{err}"
    );
    let err = refused(
        &dir,
        "g.json",
        r#"[{"traceId":"a1","id":"b2","timestamp":1,"duration":"long","localEndpoint":{"serviceName":"api"}}]"#,
    );
    assert!(
        err.contains("g.json: field `duration`: span b2: \"long\" is not a whole number"),
        "{err}"
    );
    // Not JSON at all, and JSON cut short: the line and column.
    let err = refused(
        &dir,
        "h.json",
        "{\"resourceSpans\": [\n  {\"scopeSpans\": [ {\"spans\": [ {\"traceId\": ",
    );
    assert!(err.contains("h.json:2:"), "{err}");
    let err = refused(&dir, "i.json", "hello");
    assert!(
        err.contains("i.json: not JSON: it starts with neither"),
        "{err}"
    );
}

/// An OTLP JSON Lines file of `traces` traces, 100 to a line, their spans interleaved:
/// `api` answers `GET /orders/{i}` (three in four) by working 1 ms + (i mod 100) × 10 µs,
/// calling `cache` and `db` in parallel (each 1 ms of work, 0.2 ms and 0.4 ms of network
/// each way), then 1 ms more; and `GET /health` (one in four) in 1 ms with no call. A root
/// every 10 ms.
fn generated(path: &Path, traces: usize) -> usize {
    use std::io::Write as _;
    let ms = 1_000_000u64;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut spans = 0;
    let span = |out: &mut String,
                t: usize,
                id: u64,
                parent: u64,
                name: &str,
                kind: u8,
                s: u64,
                e: u64| {
        let parent = if parent == 0 {
            String::new()
        } else {
            format!("{parent:016x}")
        };
        let _ = write!(
            out,
            r#"{{"traceId":"{t:032x}","spanId":"{id:016x}","parentSpanId":"{parent}","name":"{name}","kind":{kind},"startTimeUnixNano":"{s}","endTimeUnixNano":"{e}","attributes":[{{"key":"http.method","value":{{"stringValue":"GET"}}}}],"status":{{}}}},"#
        );
    };
    for line in 0..traces.div_ceil(100) {
        let mut by_service = [String::new(), String::new(), String::new()];
        for t in line * 100..((line + 1) * 100).min(traces) {
            let start = 1_765_000_000 * 1_000_000_000 + t as u64 * 10 * ms;
            let id = |k: u64| (t as u64) * 8 + k + 1;
            if t % 4 == 3 {
                span(
                    &mut by_service[0],
                    t + 1,
                    id(0),
                    0,
                    "GET /health",
                    2,
                    start,
                    start + ms,
                );
                spans += 1;
                continue;
            }
            let work = ms + (t as u64 % 100) * 10_000;
            let at = start + work;
            // cache: 0.2 ms each way; db: 0.4 ms each way; each 1 ms of work.
            let (cache_end, db_end) = (at + ms + 400_000, at + ms + 800_000);
            let end = db_end + ms;
            span(
                &mut by_service[0],
                t + 1,
                id(0),
                0,
                &format!("GET /orders/{t}"),
                2,
                start,
                end,
            );
            span(
                &mut by_service[0],
                t + 1,
                id(1),
                id(0),
                "GET",
                3,
                at,
                cache_end,
            );
            span(
                &mut by_service[0],
                t + 1,
                id(2),
                id(0),
                "SELECT",
                3,
                at,
                db_end,
            );
            span(
                &mut by_service[1],
                t + 1,
                id(3),
                id(1),
                "GET",
                2,
                at + 200_000,
                at + 200_000 + ms,
            );
            span(
                &mut by_service[2],
                t + 1,
                id(4),
                id(2),
                "SELECT",
                2,
                at + 400_000,
                at + 400_000 + ms,
            );
            spans += 5;
        }
        let mut resources = Vec::new();
        for (service, body) in ["api", "cache", "db"].iter().zip(&by_service) {
            if !body.is_empty() {
                resources.push(format!(
                    r#"{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"{service}"}}}}]}},"scopeSpans":[{{"scope":{{"name":"gen"}},"spans":[{}]}}]}}"#,
                    body.trim_end_matches(',')
                ));
            }
        }
        writeln!(f, r#"{{"resourceSpans":[{}]}}"#, resources.join(",")).unwrap();
    }
    f.flush().unwrap();
    spans
}

#[test]
fn a_generated_100000_span_file_gives_the_numbers_it_was_made_with() {
    let dir = scratch("import-traces-100k");
    let big = dir.join("big.jsonl");
    // 25,000 traces: 18,750 orders of 5 spans and 6,250 health checks of 1.
    let spans = generated(&big, 25_000);
    assert_eq!(spans, 100_000);
    let (out, err) = import(&["--open-traces", "150", big.to_str().unwrap()], 0);
    assert!(out.contains("# 100000 spans in 25000 traces read (OTLP JSON); 25000 of them whole traces with a root"), "{out}");
    // A root every 10 ms: (25,000 − 1) roots over 249.99 s.
    assert!(out.contains("rate = 100.0 "), "{out}");
    assert!(out.contains(r#"mix = [{ operation = "GET-orders-id", weight = 18750 }, { operation = "GET-health", weight = 6250 }]"#), "{out}");
    // Self time: 1 ms + (i mod 100) × 10 µs before the calls and 1 ms after, i mod 100 never
    // 3 mod 4 (those are health checks): 75 values from 2 ms to 2.98 ms, equally often, so
    // the median is the 38th, i mod 100 = 49 (49 = 37 + ⌊49 / 4⌋ + 1 − 1): 2.49 ms.
    assert!(
        out.contains(r#"work = { dist = "empirical", percentiles = [[0, "2ms"], "#),
        "{out}"
    );
    assert!(out.contains(r#"[50, "2490us"], "#), "{out}");
    assert!(
        out.contains(r#"[100, "2980us"]] }  # self time of 18750 server spans"#),
        "{out}"
    );
    // The calls overlap: one parallel step; the network each way exactly.
    assert!(out.contains(r#"calls = [{ parallel = [{ to = "cache", operation = "GET", latency = { dist = "constant", value = "200us" } }, { to = "db", operation = "SELECT", latency = { dist = "constant", value = "400us" } }] }]"#), "{out}");
    // 100 to a line and spans of 100 traces interleaved: 150 open traces are enough, none
    // closed early, nothing reported.
    assert_eq!(err, "", "{err}");
    // With 50 open traces, the oldest close before their last spans come (each line holds
    // 100 traces' spans, by service): those spans have no parent in their group, reported.
    let (out, err) = import(&["--open-traces", "50", big.to_str().unwrap()], 0);
    assert!(err.contains("raise --open-traces"), "{err}");
    let _ = out;
}

#[test]
fn the_fixture_list_is_the_folders_trace_files() {
    let mut listed: Vec<&str> = crate::support::TRACE_FIXTURES.to_vec();
    listed.sort();
    let mut found: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") || n.ends_with(".jsonl"))
        .collect();
    found.sort();
    assert_eq!(found, listed);
}
