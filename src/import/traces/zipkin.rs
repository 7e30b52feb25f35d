//! Zipkin v2 JSON: an array of spans (`POST /api/v2/spans`), or of traces, each an array of
//! spans (`GET /api/v2/traces`). `traceId`, `id`, `parentId`, `kind`,
//! `localEndpoint.serviceName`, `timestamp` and `duration` in microseconds, an `error` tag.
//! A server span `shared: true` keeps its client's id (B3 propagation): it becomes the child
//! of that client span here. A visitor walks the array, one span or one trace at a time.

use super::span::{Kind, SHARED_SERVER, Span, bad, id, micros};
use super::stream::{Json, Reading, text, uint, values};
use crate::error::Error;
use serde::Deserialize;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::io::BufRead;

pub fn read<R: BufRead>(reading: &mut Reading<'_>, input: &mut R) -> Result<(), Error> {
    values(reading, input, |r, de: &mut Json<'_, R>| {
        List(r).deserialize(de)
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSpan {
    trace_id: Option<Value>,
    id: Option<Value>,
    parent_id: Option<Value>,
    name: Option<Value>,
    kind: Option<Value>,
    timestamp: Option<Value>,
    duration: Option<Value>,
    local_endpoint: Option<Value>,
    tags: Option<Value>,
    shared: Option<Value>,
}

struct List<'a, 'b>(&'a mut Reading<'b>);

impl<'de> DeserializeSeed<'de> for List<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for List<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of Zipkin spans, or of traces")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Item(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

/// A span, or a trace (an array of spans).
struct Item<'a, 'b>(&'a mut Reading<'b>);

impl<'de> DeserializeSeed<'de> for Item<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Item<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a span object or an array of them")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let raw = RawSpan::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        if let Some(span) = span(self.0, raw).map_err(|e| self.0.fail(e))? {
            self.0.span(span);
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut spans = Vec::new();
        while let Some(raw) = seq.next_element::<RawSpan>()? {
            if let Some(span) = span(self.0, raw).map_err(|e| self.0.fail(e))? {
                spans.push(span);
            }
        }
        self.0.trace(spans);
        Ok(())
    }
}

fn span(reading: &mut Reading<'_>, raw: RawSpan) -> Result<Option<Span>, Error> {
    let file = reading.file;
    let shown = match &raw.id {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let s = shown.as_str();
    let mut span_id =
        id(text(file, s, "id", raw.id.as_ref())?, 16).map_err(|m| bad(file, s, "id", m))?;
    let trace = id(text(file, s, "traceId", raw.trace_id.as_ref())?, 32)
        .map_err(|m| bad(file, s, "traceId", m))?;
    let mut parent = match &raw.parent_id {
        None | Some(Value::Null) => None,
        p => Some(
            id(text(file, s, "parentId", p.as_ref())?, 16)
                .map_err(|m| bad(file, s, "parentId", m))?,
        ),
    };
    let name = match &raw.name {
        None | Some(Value::Null) => "",
        n => text(file, s, "name", n.as_ref())?,
    };
    let kind = match &raw.kind {
        None | Some(Value::Null) => Kind::Unspecified,
        k => match text(file, s, "kind", k.as_ref())? {
            "SERVER" => Kind::Server,
            "CLIENT" => Kind::Client,
            "PRODUCER" => Kind::Producer,
            "CONSUMER" => Kind::Consumer,
            other => {
                return Err(bad(
                    file,
                    s,
                    "kind",
                    format!("\"{other}\": expected CLIENT, SERVER, PRODUCER or CONSUMER"),
                ));
            }
        },
    };
    let shared = match &raw.shared {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(bad(
                file,
                s,
                "shared",
                format!("expected true or false, found {other}"),
            ));
        }
    };
    if shared && kind == Kind::Server {
        parent = Some(span_id);
        span_id |= SHARED_SERVER;
    }
    let service = raw
        .local_endpoint
        .as_ref()
        .and_then(|e| e.get("serviceName"))
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let start = uint(file, s, "timestamp", raw.timestamp.as_ref())?;
    let start = micros(start).ok_or_else(|| bad(file, s, "timestamp", "out of range"))?;
    if start == 0 {
        return Err(bad(file, s, "timestamp", "0: a span starts at a time"));
    }
    let error = raw.tags.as_ref().and_then(|t| t.get("error")).is_some();
    let duration = match &raw.duration {
        // Zipkin's own mark of a span not finished when it was written.
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
        links: 0,
    }))
}
