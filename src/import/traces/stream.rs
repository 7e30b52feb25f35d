//! Reading a file as a stream of JSON values (one request, or JSON Lines of them) through a
//! `DeserializeSeed`, so no more than one span (or one Jaeger trace) is held as it is read:
//! never the whole file as a tree. Spans go straight to the `State`, which groups them.

use super::State;
use super::span::{Names, Span};
use crate::error::Error;
use crate::import::tree::error_at;
use std::io::BufRead;

/// One file being read: where its spans go, and the first error a visitor met (a serde
/// error cannot carry ours, so the visitor stores it and stops the parse).
pub struct Reading<'a> {
    pub file: &'a str,
    pub state: &'a mut State,
    pub failed: Option<Error>,
    pub spans: u64,
}

impl Reading<'_> {
    pub fn names(&mut self) -> &mut Names {
        &mut self.state.names
    }

    pub fn span(&mut self, span: Span) {
        self.spans += 1;
        self.state.add(span);
    }

    /// A whole trace at once (a Jaeger trace, a Zipkin API answer's inner list).
    pub fn trace(&mut self, spans: Vec<Span>) {
        self.spans += spans.len() as u64;
        for s in spans {
            self.state.add(s);
        }
    }

    /// Stops the parse with `e`: the serde error returned is replaced by it.
    pub fn fail<E: serde::de::Error>(&mut self, e: Error) -> E {
        if self.failed.is_none() {
            self.failed = Some(e);
        }
        E::custom("stopped")
    }
}

/// The JSON parser over one file.
pub type Json<'r, R> = serde_json::Deserializer<serde_json::de::IoRead<&'r mut R>>;

/// Reads every JSON value of `input` in turn (one, or one a line) with `read_one`, which
/// runs a format's seed over it.
pub fn values<R: BufRead>(
    reading: &mut Reading<'_>,
    input: &mut R,
    mut read_one: impl FnMut(&mut Reading<'_>, &mut Json<'_, R>) -> Result<(), serde_json::Error>,
) -> Result<(), Error> {
    let mut line = 1;
    let mut any = false;
    loop {
        // Whitespace between values, counting lines so an error names the right one.
        let buf = input.fill_buf().map_err(|e| io(reading.file, e))?;
        if buf.is_empty() {
            break;
        }
        let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        line += buf[..blank].iter().filter(|b| **b == b'\n').count();
        if blank > 0 {
            input.consume(blank);
            continue;
        }
        any = true;
        let mut de = serde_json::Deserializer::from_reader(&mut *input);
        let result = read_one(reading, &mut de);
        if let Some(e) = reading.failed.take() {
            return Err(e);
        }
        if let Err(e) = result {
            return Err(syntax(reading.file, line, e));
        }
    }
    if !any {
        return Err(error_at(
            reading.file,
            0,
            0,
            "",
            "the file is empty: no span to import".into(),
        ));
    }
    Ok(())
}

fn syntax(file: &str, first_line: usize, e: serde_json::Error) -> Error {
    let line = first_line + e.line().saturating_sub(1);
    error_at(
        file,
        line,
        e.column(),
        "",
        format!("not JSON as expected: {e}"),
    )
}

pub fn io(file: &str, e: std::io::Error) -> Error {
    Error::Io {
        path: file.into(),
        source: e,
    }
}

/// A number written as a JSON number or a string of digits (protobuf's JSON writes 64-bit
/// integers as strings), for `field` of span `span`.
pub fn uint(
    file: &str,
    span: &str,
    field: &str,
    v: Option<&serde_json::Value>,
) -> Result<u64, Error> {
    use serde_json::Value;
    match v {
        None | Some(Value::Null) => Err(super::span::bad(file, span, field, "missing")),
        Some(Value::Number(n)) => n.as_u64().ok_or_else(|| {
            super::span::bad(file, span, field, format!("{n} is not a whole number ≥ 0"))
        }),
        Some(Value::String(s)) => s.parse::<u64>().map_err(|_| {
            super::span::bad(
                file,
                span,
                field,
                format!("\"{s}\" is not a whole number ≥ 0"),
            )
        }),
        Some(other) => Err(super::span::bad(
            file,
            span,
            field,
            format!("expected a number, found {other}"),
        )),
    }
}

/// A string field (an id, a name), or an error naming it.
pub fn text<'v>(
    file: &str,
    span: &str,
    field: &str,
    v: Option<&'v serde_json::Value>,
) -> Result<&'v str, Error> {
    match v {
        Some(serde_json::Value::String(s)) => Ok(s),
        None | Some(serde_json::Value::Null) => Err(super::span::bad(file, span, field, "missing")),
        Some(other) => Err(super::span::bad(
            file,
            span,
            field,
            format!("expected a string, found {other}"),
        )),
    }
}
