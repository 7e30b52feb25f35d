//! Which format a file is, from its first bytes: a Zipkin v2 file is an array, an OTLP
//! request an object with `resourceSpans`, a Jaeger answer one with `data`. `--format`
//! forces it.

use crate::error::Error;
use crate::import::tree::error_at;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Otlp,
    Jaeger,
    Zipkin,
}

impl TraceFormat {
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Otlp => "OTLP JSON",
            TraceFormat::Jaeger => "Jaeger JSON",
            TraceFormat::Zipkin => "Zipkin v2 JSON",
        }
    }
}

/// The format of a file that begins with `head` (up to 64 KiB of it).
pub fn detect(file: &str, head: &[u8]) -> Result<TraceFormat, Error> {
    let text = String::from_utf8_lossy(head);
    let body = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let unknown = |why: &str| {
        error_at(
            file,
            0,
            0,
            "",
            format!("{why}: give --format otlp, jaeger or zipkin"),
        )
    };
    match body.chars().next() {
        None => Err(unknown("the file is empty")),
        Some('[') => Ok(TraceFormat::Zipkin),
        Some('{') => {
            // The first key of the object, else any telling key in the head.
            let first = body[1..]
                .trim_start()
                .strip_prefix('"')
                .and_then(|k| k.split('"').next());
            match first {
                Some("resourceSpans") => Ok(TraceFormat::Otlp),
                Some("data") => Ok(TraceFormat::Jaeger),
                _ if body.contains("\"resourceSpans\"") => Ok(TraceFormat::Otlp),
                _ if body.contains("\"data\"") && body.contains("\"spanID\"") => {
                    Ok(TraceFormat::Jaeger)
                }
                _ => Err(unknown(
                    "an object with neither `resourceSpans` (OTLP) nor `data` (Jaeger)",
                )),
            }
        }
        Some(_) => Err(unknown("not JSON: it starts with neither `{` nor `[`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_is_told_by_its_first_bytes() {
        assert_eq!(
            detect("f", b"  [{\"traceId\":\"1\"}]").ok(),
            Some(TraceFormat::Zipkin)
        );
        assert_eq!(
            detect("f", b"{\"resourceSpans\":[]}\n{\"resourceSpans\":[]}").ok(),
            Some(TraceFormat::Otlp)
        );
        assert_eq!(
            detect("f", b"{\n  \"data\": [ {\"traceID\": \"a\"} ]").ok(),
            Some(TraceFormat::Jaeger)
        );
        assert_eq!(
            detect(
                "f",
                b"{\"total\":0,\"data\":[{\"spans\":[{\"spanID\":\"1\"}]}]}"
            )
            .ok(),
            Some(TraceFormat::Jaeger)
        );
        let e = detect("f.json", b"{\"hello\": 1}").unwrap_err().to_string();
        assert!(e.starts_with("f.json: an object with neither"), "{e}");
        assert!(e.ends_with("give --format otlp, jaeger or zipkin"), "{e}");
    }
}
