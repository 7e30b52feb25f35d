//! Spans as OTLP/JSON: an `ExportTraceServiceRequest` as the OTLP specification's JSON encoding
//! writes it (lowerCamelCase keys, trace and span ids as hex, times as unix ns in strings, enums
//! as integers, 64-bit integers as strings). One `resourceSpans` per service (the resource's
//! `service.name`), in name order, each with one `scopeSpans` of scope `cascade`, its spans in
//! the order they were built.

use super::spans::{Span, Value};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    resource_spans: Vec<ResourceSpans>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceSpans {
    resource: Resource,
    scope_spans: Vec<ScopeSpans>,
}

#[derive(Serialize)]
struct Resource {
    attributes: Vec<KeyValue>,
}

#[derive(Serialize)]
struct ScopeSpans {
    scope: Scope,
    spans: Vec<JsonSpan>,
}

#[derive(Serialize)]
struct Scope {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonSpan {
    trace_id: String,
    span_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    parent_span_id: String,
    name: String,
    kind: u8,
    start_time_unix_nano: String,
    end_time_unix_nano: String,
    attributes: Vec<KeyValue>,
    status: Status,
}

#[derive(Serialize)]
struct Status {
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    /// 0 UNSET, 2 ERROR.
    #[serde(skip_serializing_if = "is_zero")]
    code: u8,
}

fn is_zero(code: &u8) -> bool {
    *code == 0
}

#[derive(Serialize)]
struct KeyValue {
    key: String,
    value: AnyValue,
}

/// OTLP's `AnyValue`, one of its fields set (`{"stringValue": "api"}`).
#[derive(Serialize)]
enum AnyValue {
    #[serde(rename = "stringValue")]
    Text(String),
    /// int64, a string in protobuf's JSON.
    #[serde(rename = "intValue")]
    Int(String),
    #[serde(rename = "boolValue")]
    Bool(bool),
    #[serde(rename = "arrayValue")]
    Array(ArrayValue),
}

#[derive(Serialize)]
struct ArrayValue {
    values: Vec<AnyValue>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn any(value: &Value) -> AnyValue {
    match value {
        Value::Str(s) => AnyValue::Text(s.clone()),
        Value::Int(i) => AnyValue::Int(i.to_string()),
        Value::Bool(b) => AnyValue::Bool(*b),
        Value::Strs(v) => AnyValue::Array(ArrayValue {
            values: v.iter().map(|s| AnyValue::Text(s.clone())).collect(),
        }),
    }
}

fn json_span(span: &Span, epoch_ns: u64) -> JsonSpan {
    JsonSpan {
        trace_id: hex(&span.trace),
        span_id: hex(&span.id),
        parent_span_id: span.parent.map_or(String::new(), |p| hex(&p)),
        name: span.name.clone(),
        kind: span.kind as u8,
        start_time_unix_nano: (epoch_ns + span.start).to_string(),
        end_time_unix_nano: (epoch_ns + span.end).to_string(),
        attributes: span
            .attributes
            .iter()
            .map(|(k, v)| KeyValue {
                key: (*k).to_string(),
                value: any(v),
            })
            .collect(),
        status: Status {
            message: span.error.clone(),
            code: if span.error.is_some() { 2 } else { 0 },
        },
    }
}

/// The request's JSON text, pretty-printed, with `epoch_ns` added to every time.
pub fn request(spans: &[Span], epoch_ns: u64) -> String {
    let mut services: Vec<&str> = spans.iter().map(|s| s.service.as_str()).collect();
    services.sort_unstable();
    services.dedup();
    let resource_spans = services
        .into_iter()
        .map(|service| ResourceSpans {
            resource: Resource {
                attributes: vec![KeyValue {
                    key: "service.name".into(),
                    value: AnyValue::Text(service.to_string()),
                }],
            },
            scope_spans: vec![ScopeSpans {
                scope: Scope {
                    name: "cascade",
                    version: env!("CARGO_PKG_VERSION"),
                },
                spans: spans
                    .iter()
                    .filter(|s| s.service == service)
                    .map(|s| json_span(s, epoch_ns))
                    .collect(),
            }],
        })
        .collect();
    let mut text =
        serde_json::to_string_pretty(&Request { resource_spans }).expect("plain structs serialize");
    text.push('\n');
    text
}
