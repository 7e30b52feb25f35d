//! `--trace-format otlp`: the spans of runs small enough to follow by hand, asserted span by
//! span (times, parents, ids, attributes), against the trace rows docs/guide.md lists.

use crate::support::{read, run_traced, scratch};
use cascade::engine::trace_ids::{span_id, trace_id};
use serde_json::Value;
use std::path::Path;

/// One request from `web` at 100 ms to `api` (5 ms of work, one worker), retried once after
/// 2 ms: an `errors` fault answers every request `unavailable` until 101 ms, so the first
/// attempt fails at once, at its arrival, and the second (sent at 102 ms) is served, 102 to
/// 107 ms.
pub const TINY_RETRY: &str = r#"[scenario]
name = "tiny-retry"
duration = "150ms"
seed = 7

[[client]]
name = "web"
target = "api"
rate = 10
arrival = "constant"
policy = "retry-once"

[[service]]
name = "api"
work = "5ms"

[policy.retry-once]
retry = { attempts = 2, backoff = "constant", base = "2ms", jitter = "none" }

[[fault]]
kind = "errors"
target = "api"
start = "0s"
end = "101ms"
rate = 1.0
error = "unavailable"
"#;

/// Two clients each sending one request at 100 ms to `api`, one worker, 5 ms of work: the
/// second job waits in the queue from 100 to 105 ms, then `api` calls `db` across 1 ms of
/// network each way (`db` works 2 ms).
const QUEUED: &str = r#"[scenario]
name = "queued"
duration = "150ms"
seed = 3

[[client]]
name = "web"
target = "api"
rate = 10
arrival = "constant"

[[client]]
name = "app"
target = "api"
rate = 10
arrival = "constant"

[[service]]
name = "api"
work = "5ms"
calls = [ { to = "db", latency = "1ms" } ]

[[service]]
name = "db"
work = "2ms"
"#;

/// 2026-12-06T09:00:00Z.
pub const EPOCH_S: u64 = 1_796_547_600;
const EPOCH_NS: u64 = EPOCH_S * 1_000_000_000;

/// Runs `toml` with `--trace-format otlp` and `extra` flags; the trace's JSON.
pub fn otlp(dir: &Path, toml: &str, extra: &[&str]) -> Value {
    let file = dir.join("s.toml");
    std::fs::write(&file, toml).unwrap();
    let json = dir.join("trace.json");
    let mut args = vec![
        "--trace-format",
        "otlp",
        "--trace-epoch",
        "2026-12-06T09:00:00Z",
    ];
    args.extend(extra);
    run_traced(&file, &dir.join("out"), &json, &args);
    serde_json::from_str(&read(&json)).unwrap()
}

/// A span as the tests read it: its service, ids, name, kind, times (ns after the epoch),
/// attributes as text and status.
#[derive(Debug, Clone, PartialEq)]
pub struct S {
    pub service: String,
    pub trace: String,
    pub id: String,
    pub parent: String,
    pub name: String,
    pub kind: u64,
    pub start: u64,
    pub end: u64,
    pub attributes: Vec<(String, String)>,
    pub status: Value,
}

pub fn spans(doc: &Value) -> Vec<S> {
    let mut out = Vec::new();
    for rs in doc["resourceSpans"].as_array().unwrap() {
        let attrs = rs["resource"]["attributes"].as_array().unwrap();
        assert_eq!(attrs.len(), 1);
        assert_eq!(attrs[0]["key"], "service.name");
        let service = attrs[0]["value"]["stringValue"].as_str().unwrap();
        let scopes = rs["scopeSpans"].as_array().unwrap();
        assert_eq!(scopes.len(), 1);
        assert_eq!(scopes[0]["scope"]["name"], "cascade");
        for s in scopes[0]["spans"].as_array().unwrap() {
            let time = |k: &str| s[k].as_str().unwrap().parse::<u64>().unwrap() - EPOCH_NS;
            out.push(S {
                service: service.to_string(),
                trace: s["traceId"].as_str().unwrap().to_string(),
                id: s["spanId"].as_str().unwrap().to_string(),
                parent: s["parentSpanId"].as_str().unwrap_or("").to_string(),
                name: s["name"].as_str().unwrap().to_string(),
                kind: s["kind"].as_u64().unwrap(),
                start: time("startTimeUnixNano"),
                end: time("endTimeUnixNano"),
                attributes: s["attributes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|kv| {
                        let v = kv["value"].as_object().unwrap();
                        assert_eq!(v.len(), 1);
                        let (k, v) = v.iter().next().unwrap();
                        let text = match (k.as_str(), v) {
                            ("stringValue" | "intValue", Value::String(s)) => s.clone(),
                            ("boolValue", Value::Bool(b)) => b.to_string(),
                            ("arrayValue", a) => a["values"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|x| x["stringValue"].as_str().unwrap())
                                .collect::<Vec<_>>()
                                .join(" "),
                            _ => panic!("{k}: {v}"),
                        };
                        (kv["key"].as_str().unwrap().to_string(), text)
                    })
                    .collect(),
                status: s["status"].clone(),
            });
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attrs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const MS: u64 = 1_000_000;

#[test]
fn a_retried_request_is_a_root_two_client_spans_and_their_server_spans() {
    let dir = scratch("otlp-tiny");
    let got = spans(&otlp(&dir, TINY_RETRY, &[]));
    let trace = hex(&trace_id(7, "c0.1"));
    let root = hex(&span_id(7, "c0.1", "request"));
    let (c1, c2) = (
        hex(&span_id(7, "j0.1", "client")),
        hex(&span_id(7, "j0.2", "client")),
    );
    let error = serde_json::json!({"message": "unavailable", "code": 2});
    let ok = serde_json::json!({});
    let span = |service: &str, id: &str, parent: &str, kind, start, end, a: &[(&str, &str)]| S {
        service: service.into(),
        trace: trace.clone(),
        id: id.into(),
        parent: parent.into(),
        name: "api".into(),
        kind,
        start,
        end,
        attributes: attrs(a),
        status: ok.clone(),
    };
    let failed = |mut s: S| {
        s.status = error.clone();
        s
    };
    let want = vec![
        // Resources in name order: api's server spans, then web's.
        failed(span(
            "api",
            &hex(&span_id(7, "j0.1", "server")),
            &c1,
            2,
            100 * MS,
            100 * MS,
            &[
                ("cascade.request", "j0.1"),
                ("cascade.instance", "0"),
                ("cascade.outcome", "unavailable"),
                ("error.type", "unavailable"),
                ("cascade.faults", "fault.0:errors"),
            ],
        )),
        span(
            "api",
            &hex(&span_id(7, "j0.2", "server")),
            &c2,
            2,
            102 * MS,
            107 * MS,
            &[
                ("cascade.request", "j0.2"),
                ("cascade.instance", "0"),
                ("cascade.outcome", "ok"),
            ],
        ),
        span(
            "web",
            &root,
            "",
            1,
            100 * MS,
            107 * MS,
            &[("cascade.request", "c0.1"), ("cascade.outcome", "ok")],
        ),
        failed(span(
            "web",
            &c1,
            &root,
            3,
            100 * MS,
            100 * MS,
            &[
                ("cascade.request", "j0.1"),
                ("cascade.retry", "0"),
                ("cascade.hedge", "false"),
                ("peer.service", "api"),
                ("cascade.outcome", "unavailable"),
                ("error.type", "unavailable"),
            ],
        )),
        span(
            "web",
            &c2,
            &root,
            3,
            102 * MS,
            107 * MS,
            &[
                ("cascade.request", "j0.2"),
                ("cascade.retry", "1"),
                ("cascade.hedge", "false"),
                ("peer.service", "api"),
                ("cascade.outcome", "ok"),
            ],
        ),
    ];
    assert_eq!(got, want);
}

#[test]
fn queue_wait_is_the_gap_between_the_client_span_and_the_server_span() {
    let dir = scratch("otlp-queued");
    let got = spans(&otlp(&dir, QUEUED, &[]));
    let brief: Vec<(&str, u64, u64, u64)> = got
        .iter()
        .map(|s| (s.service.as_str(), s.kind, s.start / 1000, s.end / 1000))
        .collect();
    // web's request is first: api works 100-105 ms, calls db (sent 105, across 1 ms, db works
    // 106-108, the reply back at 109), and answers at 109. app's job waits for the worker
    // until 109: its server span starts there, 9 ms after its client span. Within a service,
    // spans come in the order their calls started (the two client requests, then api's calls).
    assert_eq!(
        brief,
        vec![
            ("api", 2, 100_000, 109_000),
            ("api", 2, 109_000, 118_000),
            ("api", 3, 105_000, 109_000),
            ("api", 3, 114_000, 118_000),
            ("app", 1, 100_000, 118_000),
            ("app", 3, 100_000, 118_000),
            ("db", 2, 106_000, 108_000),
            ("db", 2, 115_000, 117_000),
            ("web", 1, 100_000, 109_000),
            ("web", 3, 100_000, 109_000),
        ]
    );
    // Each trace links client request, attempt, api's job, its call and db's job in a chain.
    for s in &got {
        let parent = got.iter().find(|p| p.id == s.parent);
        match s.kind {
            1 => assert!(s.parent.is_empty()),
            _ => assert_eq!(parent.unwrap().trace, s.trace, "{s:?}"),
        }
    }
    let traces: std::collections::BTreeSet<&str> = got.iter().map(|s| s.trace.as_str()).collect();
    assert_eq!(traces.len(), 2);
}
