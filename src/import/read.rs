//! Reading values out of an imported tree: numbers, booleans and the libraries' duration
//! syntaxes, each failure an error naming the file, line and source key; and the list of
//! source keys that are not imported, with their reasons.

use super::out::Skipped;
use super::tree::{Node, Value, error_at};
use crate::error::Error;

const NS_PER_MS: u64 = 1_000_000;
const NS_PER_S: u64 = 1_000_000_000;

/// One import in progress: the file's name (for messages) and what it skipped so far.
pub struct Ctx {
    pub file: String,
    pub skipped: Vec<Skipped>,
}

pub type Read<T> = Result<T, Error>;

impl Ctx {
    pub fn new(file: &str) -> Ctx {
        Ctx {
            file: file.to_string(),
            skipped: Vec::new(),
        }
    }

    /// `file:line`, the way comments and notes name a source key.
    pub fn at(&self, node: &Node) -> String {
        format!("{}:{}", self.file, node.line)
    }

    /// A value cascade cannot accept: exit 2, naming file, line and key.
    pub fn error(&self, node: &Node, key: &str, message: impl Into<String>) -> Error {
        error_at(&self.file, node.line, node.col, key, message.into())
    }

    /// Records a source key that is not imported and why (printed on stderr).
    pub fn skip(&mut self, node: &Node, key: &str, reason: impl Into<String>) {
        self.skipped.push(Skipped {
            at: self.at(node),
            key: key.to_string(),
            reason: reason.into(),
        });
    }

    /// As `skip`, at a position already written as `file:line`.
    pub fn skip_at(&mut self, at: String, key: &str, reason: impl Into<String>) {
        self.skipped.push(Skipped {
            at,
            key: key.to_string(),
            reason: reason.into(),
        });
    }

    pub fn text<'a>(&self, node: &'a Node, key: &str) -> Read<&'a str> {
        match &node.value {
            Value::Text(s) => Ok(s),
            _ => Err(self.error(node, key, format!("expected text, found {}", node.kind()))),
        }
    }

    /// An unsigned integer, written as a number or (`.properties`, protobuf JSON) as text.
    pub fn uint(&self, node: &Node, key: &str) -> Read<u64> {
        let bad = || {
            self.error(
                node,
                key,
                format!("expected a whole number ≥ 0, found {}", node.shown()),
            )
        };
        match &node.value {
            Value::Int(i) => u64::try_from(*i).map_err(|_| bad()),
            Value::Text(s) => s.trim().parse::<u64>().map_err(|_| bad()),
            Value::Map(m) if m.len() == 1 && m[0].0.text == "value" => self.uint(&m[0].1, key),
            _ => Err(bad()),
        }
    }

    /// An unsigned integer that fits `u32` (cascade's counts).
    pub fn count(&self, node: &Node, key: &str) -> Read<u32> {
        let n = self.uint(node, key)?;
        u32::try_from(n).map_err(|_| self.error(node, key, format!("{n} is too large")))
    }

    /// A finite number, written as a number or as text. Protobuf wrappers (`{value: 20}`, as
    /// Envoy's `Percent` and `UInt32Value` are written) are unwrapped.
    pub fn number(&self, node: &Node, key: &str) -> Read<f64> {
        let bad = || {
            self.error(
                node,
                key,
                format!("expected a number, found {}", node.shown()),
            )
        };
        let v = match &node.value {
            Value::Int(i) => *i as f64,
            Value::Float(f) => *f,
            Value::Text(s) => s.trim().parse::<f64>().map_err(|_| bad())?,
            Value::Map(m) if m.len() == 1 && m[0].0.text == "value" => {
                return self.number(&m[0].1, key);
            }
            _ => return Err(bad()),
        };
        if v.is_finite() { Ok(v) } else { Err(bad()) }
    }

    pub fn boolean(&self, node: &Node, key: &str) -> Read<bool> {
        match &node.value {
            Value::Bool(b) => Ok(*b),
            Value::Text(s) if s.eq_ignore_ascii_case("true") => Ok(true),
            Value::Text(s) if s.eq_ignore_ascii_case("false") => Ok(false),
            _ => Err(self.error(
                node,
                key,
                format!("expected true or false, found {}", node.shown()),
            )),
        }
    }

    /// A protobuf `Duration`: JSON text `"1.5s"` (seconds, up to nine decimals, then `s`) or,
    /// as Envoy's YAML also allows, `{seconds, nanos}`.
    pub fn proto_duration(&self, node: &Node, key: &str) -> Read<u64> {
        let bad = |why: &str| {
            self.error(
                node,
                key,
                format!("{why}: a duration is written \"0.25s\" (seconds) or {{seconds, nanos}}"),
            )
        };
        match &node.value {
            Value::Text(s) => {
                let secs = s
                    .strip_suffix('s')
                    .ok_or_else(|| bad("no `s` at the end"))?;
                seconds_text(secs).ok_or_else(|| bad(&format!("cannot read \"{s}\"")))
            }
            Value::Map(entries) => {
                let mut ns: u64 = 0;
                for (k, v) in entries {
                    let part = match k.text.as_str() {
                        "seconds" => self.uint(v, key)?.checked_mul(NS_PER_S),
                        "nanos" => Some(self.uint(v, key)?).filter(|n| *n < NS_PER_S),
                        other => return Err(bad(&format!("unknown field `{other}`"))),
                    };
                    ns = part
                        .and_then(|p| ns.checked_add(p))
                        .ok_or_else(|| bad("out of range"))?;
                }
                Ok(ns)
            }
            _ => Err(bad(&format!("found {}", node.kind()))),
        }
    }

    /// A Spring Boot `Duration`: `500ms`, `10s`, `1m`, `2h`, `1d`, `100us`, `5ns`; ISO-8601
    /// (`PT10S`, `PT0.5S`, `P1DT2H`); or a bare number, in milliseconds (resilience4j's unit).
    pub fn spring_duration(&self, node: &Node, key: &str) -> Read<u64> {
        let bad = || {
            self.error(
                node,
                key,
                format!(
                    "cannot read {} as a Spring duration (\"500ms\", \"10s\", \"PT10S\" or milliseconds)",
                    node.shown()
                ),
            )
        };
        let text = match &node.value {
            Value::Int(i) => {
                return u64::try_from(*i)
                    .ok()
                    .and_then(|ms| ms.checked_mul(NS_PER_MS))
                    .ok_or_else(bad);
            }
            Value::Text(s) => s.trim(),
            _ => return Err(bad()),
        };
        if let Ok(ms) = text.parse::<u64>() {
            return ms.checked_mul(NS_PER_MS).ok_or_else(bad);
        }
        if text.starts_with(['P', 'p', '-', '+']) {
            return iso8601(text).ok_or_else(bad);
        }
        let split = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        let (num, unit) = text.split_at(split);
        let n: u64 = num.parse().map_err(|_| bad())?;
        let scale = match unit.to_ascii_lowercase().as_str() {
            "ns" => 1,
            "us" => 1_000,
            "ms" => NS_PER_MS,
            "s" => NS_PER_S,
            "m" => 60 * NS_PER_S,
            "h" => 3600 * NS_PER_S,
            "d" => 86_400 * NS_PER_S,
            _ => return Err(bad()),
        };
        n.checked_mul(scale).ok_or_else(bad)
    }
}

/// Decimal seconds (`"1"`, `"0.25"`, at most nine decimals) in nanoseconds.
fn seconds_text(s: &str) -> Option<u64> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 9 {
        return None;
    }
    if !whole
        .chars()
        .chain(frac.chars())
        .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac_ns: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    whole.checked_mul(NS_PER_S)?.checked_add(frac_ns)
}

/// ISO-8601 durations as `java.time.Duration.parse` reads them: `PnDTnHnMn.nS`, no sign.
fn iso8601(text: &str) -> Option<u64> {
    let upper = text.to_ascii_uppercase();
    let rest = upper.strip_prefix('P')?;
    let (days, time) = match rest.split_once('T') {
        Some((d, t)) => (d, t),
        None => (rest, ""),
    };
    let mut ns: u64 = 0;
    if !days.is_empty() {
        let d: u64 = days.strip_suffix('D')?.parse().ok()?;
        ns = d.checked_mul(86_400 * NS_PER_S)?;
    }
    if rest.contains('T') && time.is_empty() {
        return None;
    }
    let mut part = String::new();
    for c in time.chars() {
        let scale = match c {
            'H' => 3600 * NS_PER_S,
            'M' => 60 * NS_PER_S,
            'S' => {
                ns = ns.checked_add(seconds_text(&part)?)?;
                part.clear();
                continue;
            }
            _ => {
                part.push(c);
                continue;
            }
        };
        let n: u64 = part.parse().ok()?;
        ns = ns.checked_add(n.checked_mul(scale)?)?;
        part.clear();
    }
    if part.is_empty() && !rest.is_empty() {
        Some(ns)
    } else {
        None
    }
}

/// Nanoseconds as an exact cascade duration: the largest unit that divides them (`"250ms"`).
pub fn duration_text(ns: u64) -> String {
    if ns == 0 {
        "0".into()
    } else if ns.is_multiple_of(NS_PER_S) {
        format!("{}s", ns / NS_PER_S)
    } else if ns.is_multiple_of(NS_PER_MS) {
        format!("{}ms", ns / NS_PER_MS)
    } else if ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

/// A key in Spring Boot's canonical form: lower case, `-` and `_` dropped, so `waitDuration`,
/// `wait-duration` and `wait_duration` are one key (relaxed binding). Protobuf JSON's
/// `max_attempts` / `maxAttempts` read the same way.
pub fn canonical(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The entry of map `node` whose key reads as `key` in canonical form: its key as written,
/// and its value.
pub fn entry<'a>(node: &'a Node, key: &str) -> Option<(&'a str, &'a Node)> {
    node.entries()
        .iter()
        .find(|(k, _)| canonical(&k.text) == key)
        .map(|(k, v)| (k.text.as_str(), v))
}

/// A policy name cascade accepts (letters, digits, `-`, `_`), made from a source name.
pub fn policy_name(source: &str) -> String {
    let name: String = source
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_string();
    if name.is_empty() {
        "imported".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree::{Node, Value};
    use super::*;

    fn text(s: &str) -> Node {
        Node {
            value: Value::Text(s.into()),
            line: 3,
            col: 5,
        }
    }

    #[test]
    fn spring_durations_in_every_form() {
        let c = Ctx::new("a.yml");
        let d = |s: &str| c.spring_duration(&text(s), "k");
        assert_eq!(d("500ms").unwrap(), 500 * NS_PER_MS);
        assert_eq!(d("10s").unwrap(), 10 * NS_PER_S);
        assert_eq!(d("2m").unwrap(), 120 * NS_PER_S);
        assert_eq!(d("1d").unwrap(), 86_400 * NS_PER_S);
        assert_eq!(d("PT10S").unwrap(), 10 * NS_PER_S);
        assert_eq!(d("PT0.5S").unwrap(), 500 * NS_PER_MS);
        assert_eq!(d("PT1M30S").unwrap(), 90 * NS_PER_S);
        assert_eq!(d("P1DT1H").unwrap(), 25 * 3600 * NS_PER_S);
        assert_eq!(
            d("250").unwrap(),
            250 * NS_PER_MS,
            "bare numbers are milliseconds"
        );
        let n = Node {
            value: Value::Int(1500),
            line: 1,
            col: 1,
        };
        assert_eq!(c.spring_duration(&n, "k").unwrap(), 1500 * NS_PER_MS);
        let e = d("10 parsecs").unwrap_err().to_string();
        assert!(
            e.starts_with("a.yml:3:5: field `k`: cannot read \"10 parsecs\""),
            "{e}"
        );
        assert!(d("PT").is_err() && d("P").is_err() && d("-1s").is_err());
    }

    #[test]
    fn proto_durations_as_text_or_seconds_and_nanos() {
        let c = Ctx::new("e.yaml");
        assert_eq!(
            c.proto_duration(&text("0.25s"), "k").unwrap(),
            250 * NS_PER_MS
        );
        assert_eq!(c.proto_duration(&text("15s"), "k").unwrap(), 15 * NS_PER_S);
        assert_eq!(c.proto_duration(&text(".000000001s"), "k").unwrap(), 1);
        assert!(c.proto_duration(&text("15"), "k").is_err());
        assert!(c.proto_duration(&text("0.0000000001s"), "k").is_err());
        let tree = super::super::tree::parse(
            "e.yaml",
            "d: {seconds: 1, nanos: 500000000}\n",
            super::super::tree::Syntax::Yaml,
        )
        .unwrap();
        let d = &tree.entries()[0].1;
        assert_eq!(c.proto_duration(d, "k").unwrap(), 1_500 * NS_PER_MS);
    }

    #[test]
    fn durations_print_exactly() {
        assert_eq!(duration_text(250 * NS_PER_MS), "250ms");
        assert_eq!(duration_text(1_500 * NS_PER_MS), "1500ms");
        assert_eq!(duration_text(60 * NS_PER_S), "60s");
        assert_eq!(duration_text(1_001), "1001ns");
        assert_eq!(duration_text(0), "0");
    }

    #[test]
    fn relaxed_binding_and_names() {
        assert_eq!(
            canonical("waitDurationInOpenState"),
            canonical("wait-duration-in-open-state")
        );
        assert_eq!(canonical("max_attempts"), "maxattempts");
        assert_eq!(
            policy_name("helloworld.Greeter/SayHello"),
            "helloworld-Greeter-SayHello"
        );
    }
}
