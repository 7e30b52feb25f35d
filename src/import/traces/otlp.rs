//! OTLP JSON: an `ExportTraceServiceRequest` (`resourceSpans[].scopeSpans[].spans[]`, hex
//! ids, unix-nanosecond times written as strings), one per file or one a line (the
//! collector's file exporter). Visitors walk the arrays and deserialize one span at a time;
//! the service is the resource's `service.name`, which the spans of a resource wait for only
//! if the file writes `resource` after them.

use super::span::{Kind, Span, bad, id};
use super::stream::{Json, Reading, text, uint, values};
use crate::error::Error;
use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::io::BufRead;

pub fn read<R: BufRead>(reading: &mut Reading<'_>, input: &mut R) -> Result<(), Error> {
    values(reading, input, |r, de: &mut Json<'_, R>| {
        Request(r).deserialize(de)
    })
}

/// The fields of a span inference uses; each scalar as written, checked by `span`, so a bad
/// one is named with its span's id.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSpan {
    trace_id: Option<Value>,
    span_id: Option<Value>,
    parent_span_id: Option<Value>,
    name: Option<Value>,
    kind: Option<Value>,
    start_time_unix_nano: Option<Value>,
    end_time_unix_nano: Option<Value>,
    status: Option<Value>,
    links: Option<Value>,
}

#[derive(Deserialize)]
struct RawResource {
    #[serde(default)]
    attributes: Vec<RawAttribute>,
}

#[derive(Deserialize)]
struct RawAttribute {
    key: String,
    value: Option<Value>,
}

struct Request<'a, 'b>(&'a mut Reading<'b>);

impl<'de> DeserializeSeed<'de> for Request<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Request<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an ExportTraceServiceRequest object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "resourceSpans" {
                map.next_value_seed(Resources(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Resources<'a, 'b>(&'a mut Reading<'b>);

impl<'de> DeserializeSeed<'de> for Resources<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Resources<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of ResourceSpans")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Resource {
                reading: &mut *self.0,
                service: None,
                pending: Vec::new(),
            })?
            .is_some()
        {}
        Ok(())
    }
}

/// One `ResourceSpans`: its service, and the spans read before it was known.
struct Resource<'a, 'b> {
    reading: &'a mut Reading<'b>,
    service: Option<u32>,
    pending: Vec<RawSpan>,
}

impl<'de> DeserializeSeed<'de> for Resource<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Resource<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a ResourceSpans object")
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "resource" => {
                    let resource: RawResource = map.next_value()?;
                    let name = resource
                        .attributes
                        .iter()
                        .find(|a| a.key == "service.name")
                        .and_then(|a| a.value.as_ref())
                        .and_then(|v| v.get("stringValue"))
                        .and_then(Value::as_str)
                        .unwrap_or("unknown_service");
                    let service = self.reading.names().intern(name);
                    self.service = Some(service);
                    for raw in std::mem::take(&mut self.pending) {
                        push(self.reading, service, raw).map_err(|e| self.reading.fail(e))?;
                    }
                }
                // `instrumentationLibrarySpans`: the name before OTLP 0.15.
                "scopeSpans" | "instrumentationLibrarySpans" => {
                    map.next_value_seed(Scopes(&mut self))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !self.pending.is_empty() {
            // No resource at all: OTLP's own default name.
            let service = self.reading.names().intern("unknown_service");
            for raw in std::mem::take(&mut self.pending) {
                push(self.reading, service, raw).map_err(|e| self.reading.fail(e))?;
            }
        }
        Ok(())
    }
}

struct Scopes<'r, 'a, 'b>(&'r mut Resource<'a, 'b>);

impl<'de> DeserializeSeed<'de> for Scopes<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Scopes<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of ScopeSpans")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Scope(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

struct Scope<'r, 'a, 'b>(&'r mut Resource<'a, 'b>);

impl<'de> DeserializeSeed<'de> for Scope<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Scope<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a ScopeSpans object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "spans" {
                map.next_value_seed(Spans(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Spans<'r, 'a, 'b>(&'r mut Resource<'a, 'b>);

impl<'de> DeserializeSeed<'de> for Spans<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Spans<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of spans")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let resource = self.0;
        while let Some(raw) = seq.next_element::<RawSpan>()? {
            match resource.service {
                Some(service) => {
                    push(resource.reading, service, raw).map_err(|e| resource.reading.fail(e))?
                }
                None => resource.pending.push(raw),
            }
        }
        Ok(())
    }
}

fn push(reading: &mut Reading<'_>, service: u32, raw: RawSpan) -> Result<(), Error> {
    let span = span(reading, service, raw)?;
    if let Some(span) = span {
        reading.span(span);
    }
    Ok(())
}

/// The span, checked; `None` for a span without an end (still running when written).
fn span(reading: &mut Reading<'_>, service: u32, raw: RawSpan) -> Result<Option<Span>, Error> {
    let file = reading.file;
    let shown = match &raw.span_id {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let s = shown.as_str();
    let span_id = text(file, s, "spanId", raw.span_id.as_ref())?;
    let span_id = id(span_id, 16).map_err(|m| bad(file, s, "spanId", m))?;
    let trace = text(file, s, "traceId", raw.trace_id.as_ref())?;
    let trace = id(trace, 32).map_err(|m| bad(file, s, "traceId", m))?;
    let parent = match &raw.parent_span_id {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p.is_empty() => None,
        Some(_) => {
            let p = text(file, s, "parentSpanId", raw.parent_span_id.as_ref())?;
            Some(id(p, 16).map_err(|m| bad(file, s, "parentSpanId", m))?)
        }
    };
    let name = text(file, s, "name", raw.name.as_ref())?;
    let kind = match &raw.kind {
        None | Some(Value::Null) => Kind::Unspecified,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(0) => Kind::Unspecified,
            Some(1) => Kind::Internal,
            Some(2) => Kind::Server,
            Some(3) => Kind::Client,
            Some(4) => Kind::Producer,
            Some(5) => Kind::Consumer,
            _ => {
                return Err(bad(
                    file,
                    s,
                    "kind",
                    format!("{n} is not a SpanKind (0 to 5)"),
                ));
            }
        },
        Some(Value::String(k)) => match k.as_str() {
            "SPAN_KIND_UNSPECIFIED" => Kind::Unspecified,
            "SPAN_KIND_INTERNAL" => Kind::Internal,
            "SPAN_KIND_SERVER" => Kind::Server,
            "SPAN_KIND_CLIENT" => Kind::Client,
            "SPAN_KIND_PRODUCER" => Kind::Producer,
            "SPAN_KIND_CONSUMER" => Kind::Consumer,
            _ => return Err(bad(file, s, "kind", format!("\"{k}\" is not a SpanKind"))),
        },
        Some(other) => {
            return Err(bad(
                file,
                s,
                "kind",
                format!("expected a SpanKind, found {other}"),
            ));
        }
    };
    let start = uint(
        file,
        s,
        "startTimeUnixNano",
        raw.start_time_unix_nano.as_ref(),
    )?;
    let end = match &raw.end_time_unix_nano {
        None | Some(Value::Null) => 0,
        v => uint(file, s, "endTimeUnixNano", v.as_ref())?,
    };
    if start == 0 {
        return Err(bad(
            file,
            s,
            "startTimeUnixNano",
            "0: a span starts at a time",
        ));
    }
    if end != 0 && end < start {
        return Err(bad(
            file,
            s,
            "endTimeUnixNano",
            format!("{end} is before the span's start, {start}"),
        ));
    }
    let error = match raw.status.as_ref().and_then(|st| st.get("code")) {
        None | Some(Value::Null) => false,
        Some(Value::Number(n)) => n.as_u64() == Some(2),
        Some(Value::String(c)) => c == "STATUS_CODE_ERROR",
        Some(other) => {
            return Err(bad(
                file,
                s,
                "status.code",
                format!("expected a StatusCode, found {other}"),
            ));
        }
    };
    let links = match &raw.links {
        None | Some(Value::Null) => 0,
        Some(Value::Array(a)) => a.len() as u32,
        Some(other) => {
            return Err(bad(
                file,
                s,
                "links",
                format!("expected an array, found {other}"),
            ));
        }
    };
    if end == 0 {
        reading.state.report.unfinished += 1;
        return Ok(None);
    }
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
