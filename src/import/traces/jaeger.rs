//! Jaeger JSON as its query API answers (`GET /api/traces`): `{"data": [trace…]}`, each trace
//! its `spans` (`spanID`, `operationName`, `references` with `CHILD_OF` the parent,
//! `startTime` and `duration` in microseconds, `tags`, `processID`) and the `processes` they
//! name (`serviceName`). A trace comes whole, so a visitor walks `data` and reads one trace
//! at a time; the span kind and error are tags (`span.kind`, `error`, `otel.status_code`).

use super::span::{Kind, Span, bad, id, micros};
use super::stream::{Json, Reading, text, uint, values};
use crate::error::Error;
use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::io::BufRead;

pub fn read<R: BufRead>(reading: &mut Reading<'_>, input: &mut R) -> Result<(), Error> {
    values(reading, input, |r, de: &mut Json<'_, R>| {
        Answer(r).deserialize(de)
    })
}

#[derive(Deserialize)]
struct RawTrace {
    #[serde(default)]
    spans: Vec<RawSpan>,
    #[serde(default)]
    processes: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSpan {
    #[serde(rename = "traceID")]
    trace_id: Option<Value>,
    #[serde(rename = "spanID")]
    span_id: Option<Value>,
    operation_name: Option<Value>,
    references: Option<Value>,
    start_time: Option<Value>,
    duration: Option<Value>,
    tags: Option<Value>,
    #[serde(rename = "processID")]
    process_id: Option<Value>,
    process: Option<Value>,
}

struct Answer<'a, 'b>(&'a mut Reading<'b>);

impl<'de> DeserializeSeed<'de> for Answer<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Answer<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Jaeger query answer, {\"data\": [...]}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "data" {
                map.next_value_seed(Traces(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Traces<'a, 'b>(&'a mut Reading<'b>);

impl<'de> DeserializeSeed<'de> for Traces<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Traces<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of traces")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(raw) = seq.next_element::<RawTrace>()? {
            let spans = trace(self.0, raw).map_err(|e| self.0.fail(e))?;
            self.0.trace(spans);
        }
        Ok(())
    }
}

fn trace(reading: &mut Reading<'_>, raw: RawTrace) -> Result<Vec<Span>, Error> {
    let mut out = Vec::with_capacity(raw.spans.len());
    for s in raw.spans {
        if let Some(span) = span(reading, &raw.processes, s)? {
            out.push(span);
        }
    }
    Ok(out)
}

/// A tag's value by key, from `[{key, type, value}]`.
fn tag<'v>(tags: Option<&'v Value>, key: &str) -> Option<&'v Value> {
    tags?
        .as_array()?
        .iter()
        .find(|t| t.get("key").and_then(Value::as_str) == Some(key))?
        .get("value")
}

fn span(
    reading: &mut Reading<'_>,
    processes: &BTreeMap<String, Value>,
    raw: RawSpan,
) -> Result<Option<Span>, Error> {
    let file = reading.file;
    let shown = match &raw.span_id {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let s = shown.as_str();
    let span_id = id(text(file, s, "spanID", raw.span_id.as_ref())?, 16)
        .map_err(|m| bad(file, s, "spanID", m))?;
    let trace = id(text(file, s, "traceID", raw.trace_id.as_ref())?, 32)
        .map_err(|m| bad(file, s, "traceID", m))?;
    let name = text(file, s, "operationName", raw.operation_name.as_ref())?;
    let start = uint(file, s, "startTime", raw.start_time.as_ref())?;
    let start = micros(start).ok_or_else(|| bad(file, s, "startTime", "out of range"))?;
    if start == 0 {
        return Err(bad(file, s, "startTime", "0: a span starts at a time"));
    }
    let mut parent = None;
    let mut links = 0;
    match &raw.references {
        None | Some(Value::Null) => {}
        Some(Value::Array(refs)) => {
            for r in refs {
                let kind = r.get("refType").and_then(Value::as_str);
                let to = text(file, s, "references.spanID", r.get("spanID"))?;
                let to = id(to, 16).map_err(|m| bad(file, s, "references.spanID", m))?;
                match kind {
                    Some("CHILD_OF") if parent.is_none() => parent = Some(to),
                    Some("CHILD_OF") | Some("FOLLOWS_FROM") => links += 1,
                    _ => {
                        return Err(bad(
                            file,
                            s,
                            "references.refType",
                            "expected \"CHILD_OF\" or \"FOLLOWS_FROM\"",
                        ));
                    }
                }
            }
        }
        Some(other) => {
            return Err(bad(
                file,
                s,
                "references",
                format!("expected an array, found {other}"),
            ));
        }
    }
    let process = match (&raw.process, &raw.process_id) {
        (Some(p), _) if p.is_object() => p,
        (_, Some(Value::String(pid))) => processes.get(pid).ok_or_else(|| {
            bad(
                file,
                s,
                "processID",
                format!("\"{pid}\" is not among the trace's processes"),
            )
        })?,
        _ => {
            return Err(bad(
                file,
                s,
                "processID",
                "missing: the span names no process",
            ));
        }
    };
    let service = process
        .get("serviceName")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(file, s, "processes.serviceName", "missing"))?;
    let tags = raw.tags.as_ref();
    let kind = match tag(tags, "span.kind").and_then(Value::as_str) {
        Some("server") => Kind::Server,
        Some("client") => Kind::Client,
        Some("producer") => Kind::Producer,
        Some("consumer") => Kind::Consumer,
        Some("internal") => Kind::Internal,
        _ => Kind::Unspecified,
    };
    let error = match tag(tags, "error") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(t)) => t == "true",
        _ => false,
    } || tag(tags, "otel.status_code").and_then(Value::as_str) == Some("ERROR");
    let duration = match &raw.duration {
        None | Some(Value::Null) => {
            reading.state.report.unfinished += 1;
            return Ok(None);
        }
        d => uint(file, s, "duration", d.as_ref())?,
    };
    let end = micros(duration)
        .and_then(|d| start.checked_add(d))
        .ok_or_else(|| bad(file, s, "duration", "out of range"))?;
    let service = reading.names().intern(service);
    let name = reading.names().intern(&super::span::normalise(name));
    Ok(Some(Span {
        trace,
        id: span_id,
        parent,
        service,
        name,
        kind,
        start,
        end,
        error,
        links,
    }))
}
