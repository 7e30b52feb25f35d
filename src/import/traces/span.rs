//! The span every format is read into: ids as numbers, times in unix nanoseconds, the service
//! and name interned, and the few facts inference needs (kind, error, asynchronous links).
//! Also the checks shared by the readers, each failure an error naming the file, the span and
//! the field.

use crate::error::Error;
use crate::import::tree::error_at;
use std::collections::HashMap;

/// A span's id. Bit 64 marks the server half of a Zipkin span `shared` with its client, which
/// keeps the client's id: the two become parent and child.
pub type SpanId = u128;
pub const SHARED_SERVER: SpanId = 1 << 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Server,
    Client,
    Producer,
    Consumer,
    Internal,
    Unspecified,
}

#[derive(Debug, Clone)]
pub struct Span {
    pub trace: u128,
    pub id: SpanId,
    pub parent: Option<SpanId>,
    /// Interned in `Names`.
    pub service: u32,
    pub name: u32,
    pub kind: Kind,
    pub start: u64,
    pub end: u64,
    pub error: bool,
    /// Links to other spans than the parent (OTLP `links`, Jaeger `FOLLOWS_FROM`): a
    /// hand-off that is not a call.
    pub links: u32,
}

impl Span {
    pub fn duration(&self) -> u64 {
        self.end - self.start
    }
}

/// Service and span names, each stored once.
#[derive(Debug, Default)]
pub struct Names {
    index: HashMap<String, u32>,
    pub list: Vec<String>,
}

impl Names {
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(i) = self.index.get(name) {
            return *i;
        }
        let i = self.list.len() as u32;
        self.list.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    pub fn get(&self, i: u32) -> &str {
        &self.list[i as usize]
    }
}

/// A span that cannot be read: `file: field `F`: span ID: message`, exit 2.
pub fn bad(file: &str, span: &str, field: &str, message: impl std::fmt::Display) -> Error {
    let who = if span.is_empty() {
        "a span without an id".to_string()
    } else {
        format!("span {span}")
    };
    error_at(file, 0, 0, field, format!("{who}: {message}"))
}

/// A hex id of at most `max_hex` digits (Jaeger drops leading zeros), or the base64 of its
/// bytes (protobuf's own JSON mapping writes bytes so; OTLP/JSON says hex).
pub fn id(text: &str, max_hex: usize) -> Result<u128, String> {
    let hex =
        !text.is_empty() && text.len() <= max_hex && text.bytes().all(|b| b.is_ascii_hexdigit());
    if hex {
        return u128::from_str_radix(text, 16).map_err(|e| e.to_string());
    }
    if let Some(bytes) = base64(text)
        && bytes.len() * 2 == max_hex
    {
        return Ok(bytes.iter().fold(0u128, |a, b| (a << 8) | u128::from(*b)));
    }
    Err(format!(
        "\"{text}\" is not an id: {max_hex} hex digits (or their bytes in base64)"
    ))
}

fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let body = text.trim_end_matches('=');
    if body.is_empty() || !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in body.bytes() {
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Microseconds (Jaeger, Zipkin) to nanoseconds.
pub fn micros(us: u64) -> Option<u64> {
    us.checked_mul(1_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_base64_ids_read_to_the_same_number() {
        assert_eq!(
            id("5b8efff798038103d269b633813fc60c", 32),
            Ok(0x5b8efff798038103d269b633813fc60c)
        );
        // The same 16 bytes, base64 (protobuf's JSON).
        assert_eq!(
            id("W47/95gDgQPSabYzgT/GDA==", 32),
            Ok(0x5b8efff798038103d269b633813fc60c)
        );
        assert_eq!(id("eee19b7ec3c1b174", 16), Ok(0xeee19b7ec3c1b174));
        assert_eq!(id("7uGbfsPBsXQ=", 16), Ok(0xeee19b7ec3c1b174));
        assert_eq!(id("1f", 16), Ok(0x1f));
        assert!(id("", 16).is_err());
        assert!(id("xyz", 16).is_err());
        assert!(id("eee19b7ec3c1b1745", 16).is_err());
    }
}

/// A span name with the parts that vary by request replaced: a path segment of digits, a
/// UUID, or a long hex id becomes `{id}` (`GET /users/42` is `GET /users/{id}`), so one
/// operation is one name.
pub fn normalise(name: &str) -> String {
    let variable = |seg: &str| {
        let digits = !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit());
        let hexish = seg.len() >= 8
            && seg.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
            && seg.bytes().any(|b| b.is_ascii_digit());
        digits || hexish
    };
    let mut out = String::with_capacity(name.len());
    let mut seg = String::new();
    for c in name.chars().chain(std::iter::once('\0')) {
        if c == '/' || c == ' ' || c == '?' || c == '\0' {
            out.push_str(if variable(&seg) { "{id}" } else { &seg });
            seg.clear();
            if c != '\0' {
                out.push(c);
            }
        } else {
            seg.push(c);
        }
    }
    out
}

#[cfg(test)]
mod normalise_tests {
    use super::normalise;

    #[test]
    fn ids_in_paths_become_one_name() {
        assert_eq!(normalise("GET /users/42"), "GET /users/{id}");
        assert_eq!(
            normalise("GET /orders/9f1c2e4a-77b0-4c1e-9d1a-0b5e6f7a8b9c/items"),
            "GET /orders/{id}/items"
        );
        assert_eq!(normalise("/v2/account"), "/v2/account");
        assert_eq!(normalise("SELECT"), "SELECT");
        assert_eq!(normalise("checkout"), "checkout");
    }
}
