//! The little YAML export writes: documents of nested maps, lists and scalars, each under its
//! comment lines. Every text value is double-quoted (so `5xx,reset` or `"on"` can never be read
//! as another type), and every scalar, key and comment goes through `quoted` or `comment`, which
//! escape what YAML cannot hold as it is.

use std::fmt::Write as _;

pub enum Y {
    Map(Vec<(String, Y)>),
    List(Vec<Y>),
    /// Written as is: numbers, booleans.
    Plain(String),
    /// Written double-quoted.
    Text(String),
}

impl Y {
    pub fn map(entries: Vec<(&str, Y)>) -> Y {
        Y::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    pub fn num(v: impl std::fmt::Display) -> Y {
        Y::Plain(v.to_string())
    }

    pub fn text(v: impl Into<String>) -> Y {
        Y::Text(v.into())
    }
}

/// One YAML document: its comment line and its content.
pub struct Doc {
    pub comment: String,
    pub body: Y,
}

/// `docs` as a YAML stream, `---` between documents.
pub fn render(docs: &[Doc]) -> String {
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        let _ = writeln!(out, "# {}", comment(&doc.comment));
        write(&mut out, &doc.body, 0);
    }
    out
}

/// `y` as YAML lines at `indent` spaces.
fn write(out: &mut String, y: &Y, indent: usize) {
    let pad = " ".repeat(indent);
    match y {
        Y::Map(entries) => {
            for (k, v) in entries {
                let k = key(k);
                match v {
                    Y::Map(e) if !e.is_empty() => {
                        let _ = writeln!(out, "{pad}{k}:");
                        write(out, v, indent + 2);
                    }
                    Y::List(items) if !items.is_empty() => {
                        let _ = writeln!(out, "{pad}{k}:");
                        write(out, v, indent + 2);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}{k}: {}", inline(v));
                    }
                }
            }
        }
        Y::List(items) => {
            for item in items {
                list_item(out, item, indent);
            }
        }
        _ => {
            let _ = writeln!(out, "{pad}{}", inline(y));
        }
    }
}

fn list_item(out: &mut String, item: &Y, indent: usize) {
    let pad = " ".repeat(indent);
    match item {
        Y::Map(e) if !e.is_empty() => block_item(out, item, &pad, indent),
        Y::List(items) if !items.is_empty() => block_item(out, item, &pad, indent),
        _ => {
            let _ = writeln!(out, "{pad}- {}", inline(item));
        }
    }
}

/// A map or a list as a list item: its first line goes on the dash's line.
fn block_item(out: &mut String, item: &Y, pad: &str, indent: usize) {
    let mut inner = String::new();
    write(&mut inner, item, indent + 2);
    let _ = write!(out, "{pad}- {}", inner.trim_start());
}

/// A value written on its key's or its dash's line: a scalar, or an empty map or list.
fn inline(y: &Y) -> String {
    match y {
        Y::Plain(s) => s.clone(),
        Y::Text(s) => quoted(s),
        Y::Map(_) => "{}".into(),
        Y::List(_) => "[]".into(),
    }
}

/// Whether YAML holds `c` as it is: its printable set (YAML 1.2 §5.1), less the characters a
/// YAML 1.1 reader (SnakeYAML, so Spring Boot) takes for a line break, U+0085, U+2028 and
/// U+2029, and the byte order mark.
fn printable(c: char) -> bool {
    matches!(c, '\t' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// `s` as a double-quoted YAML scalar, which every reader takes for this same string: `"` and
/// `\` escaped, and each character `printable` refuses (`\n`, `\t`, `\r` by name, the rest as
/// `\xXX` or `\uXXXX`). The one place a text scalar is written.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if printable(c) => out.push(c),
            c if u32::from(c) <= 0xff => {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// A map key: plain where every YAML reader takes it for this same string (a letter or `_`,
/// then letters, digits, `_` and `-`, and none of the words YAML 1.1 reads as a boolean or
/// null), otherwise `quoted`. So the keys of the formats stay plain (`retry_on:`), and a policy
/// named `007`, `null`, `1e3` or `on` is the instance `"007":`, not 7, no key, 1000 or true.
fn key(k: &str) -> String {
    const WORDS: [&str; 9] = ["y", "n", "yes", "no", "true", "false", "on", "off", "null"];
    let mut chars = k.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !WORDS.iter().any(|w| w.eq_ignore_ascii_case(k));
    if plain { k.to_string() } else { quoted(k) }
}

/// A comment's text: what `printable` refuses, the tab aside, written as Rust escapes it (`\n`,
/// `\u{7}`), so a name reads as it is spelled and the comment ends on its own line.
fn comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if printable(c) {
            out.push(c);
        } else {
            out.extend(c.escape_default());
        }
    }
    out
}

/// Asserts that `text` reads back, through saphyr, as `docs`: the same documents, maps with the
/// same keys in the same order, the same lists, every text the same string and every plain value
/// the same number or boolean.
#[cfg(test)]
pub fn assert_reads_back(text: &str, docs: &[Doc]) {
    use saphyr::LoadableYamlNode;
    let parsed = saphyr::Yaml::load_from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed.len(), docs.len(), "documents\n{text}");
    for (doc, yaml) in docs.iter().zip(&parsed) {
        same(&doc.body, yaml, "", text);
    }
}

#[cfg(test)]
fn same(y: &Y, yaml: &saphyr::Yaml, at: &str, text: &str) {
    use saphyr::{Scalar, Yaml};
    match (y, yaml) {
        (Y::Map(entries), Yaml::Mapping(map)) => {
            assert_eq!(entries.len(), map.len(), "{at}: keys\n{text}");
            for ((k, v), (pk, pv)) in entries.iter().zip(map) {
                let Yaml::Value(Scalar::String(pk)) = pk else {
                    panic!("{at}: key {k:?} read as {pk:?}\n{text}");
                };
                assert_eq!(k, pk, "{at}: key\n{text}");
                same(v, pv, &format!("{at}.{k}"), text);
            }
        }
        (Y::List(items), Yaml::Sequence(seq)) => {
            assert_eq!(items.len(), seq.len(), "{at}: items\n{text}");
            for (i, (item, p)) in items.iter().zip(seq).enumerate() {
                same(item, p, &format!("{at}[{i}]"), text);
            }
        }
        (Y::Text(s), Yaml::Value(Scalar::String(p))) => assert_eq!(s, p, "{at}\n{text}"),
        (Y::Plain(s), Yaml::Value(Scalar::Integer(i))) => assert_eq!(s, &i.to_string(), "{at}"),
        (Y::Plain(s), Yaml::Value(Scalar::FloatingPoint(f))) => {
            assert_eq!(s.parse::<f64>().ok(), Some(f.into_inner()), "{at}\n{text}");
        }
        (Y::Plain(s), Yaml::Value(Scalar::Boolean(b))) => assert_eq!(s, &b.to_string(), "{at}"),
        _ => panic!("{at}: read back as {yaml:?}\n{text}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scalars a hand emitter gets wrong: YAML's indicators, its other types, its escapes.
    const TRICKY: [&str; 33] = [
        "plain",
        "a: b",
        "a #b",
        "#comment",
        "- item",
        "-",
        "-db",
        "? key",
        "[flow]",
        "{flow}",
        "*alias",
        "&anchor",
        "!tag",
        "%directive",
        "@at",
        "`tick",
        "| literal",
        "> folded",
        "'single'",
        "\"double\"",
        "back\\slash\\",
        "new\nline",
        "tab\tand\r\n",
        " leading and trailing ",
        "",
        "null",
        "~",
        "true",
        "on",
        "007",
        "1e3",
        "0x1F",
        "nul\0 bell\u{7} esc\u{1b} del\u{7f} nel\u{85} ls\u{2028} ps\u{2029} bom\u{feff} ✓ 日本語 🚀",
    ];

    fn tree(s: &str) -> Y {
        Y::Map(vec![
            (s.to_string(), Y::text(s)),
            (
                format!("list {s}"),
                Y::List(vec![
                    Y::text(s),
                    Y::map(vec![(s, Y::text(s)), ("n", Y::num(3))]),
                ]),
            ),
            (
                "nested".into(),
                Y::Map(vec![(
                    s.to_string(),
                    Y::Map(vec![("x".into(), Y::text(s))]),
                )]),
            ),
        ])
    }

    #[test]
    fn every_scalar_key_and_comment_reads_back_as_written() {
        // Regression: text was escaped for `\` and `"` only and keys not at all, so a key
        // `a: b`, `007` or `null`, a newline or a control character read back as something else
        // or not at all.
        let docs: Vec<Doc> = TRICKY
            .iter()
            .map(|s| Doc {
                comment: format!("policy `{s}`"),
                body: tree(s),
            })
            .collect();
        assert_reads_back(&render(&docs), &docs);
    }

    #[test]
    fn empty_maps_and_lists_and_lists_of_lists_read_back() {
        let docs = [Doc {
            comment: "shapes".into(),
            body: Y::map(vec![
                ("empty_map", Y::Map(Vec::new())),
                ("empty_list", Y::List(Vec::new())),
                (
                    "lists",
                    Y::List(vec![
                        Y::List(vec![Y::num(1), Y::List(vec![Y::text("a")])]),
                        Y::Map(Vec::new()),
                        Y::List(Vec::new()),
                        Y::Plain("true".into()),
                        Y::num(0.25),
                    ]),
                ),
            ]),
        }];
        let text = render(&docs);
        assert_reads_back(&text, &docs);
        assert!(text.contains("empty_map: {}\nempty_list: []\n"), "{text}");
    }

    #[test]
    fn quoted_escapes_what_yaml_cannot_hold() {
        assert_eq!(quoted("5xx,reset"), "\"5xx,reset\"");
        assert_eq!(quoted("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quoted("\n\t\r"), r#""\n\t\r""#);
        assert_eq!(quoted("\0\u{7}\u{7f}\u{85}"), r#""\x00\x07\x7F\x85""#);
        assert_eq!(
            quoted("\u{2028}\u{feff}\u{fffe}"),
            r#""\u2028\uFEFF\uFFFE""#
        );
        assert_eq!(quoted("é ✓ 日本語 🚀 '#: -"), "\"é ✓ 日本語 🚀 '#: -\"");
    }

    #[test]
    fn keys_stay_plain_unless_yaml_would_read_them_otherwise() {
        for k in [
            "retry_on",
            "maxAttempts",
            "thread-pool-bulkhead",
            "backendA",
            "_x",
        ] {
            assert_eq!(key(k), k);
        }
        for k in [
            "007", "1e3", "null", "Null", "on", "OFF", "y", "-db", "a: b", "a b", "",
        ] {
            assert_eq!(key(k), quoted(k), "{k}");
        }
    }

    #[test]
    fn a_comment_escapes_what_yaml_cannot_hold_but_the_tab() {
        assert_eq!(comment("policy `a`"), "policy `a`");
        assert_eq!(
            comment("a\tb\u{7}\u{85}\u{2028} é"),
            "a\tb\\u{7}\\u{85}\\u{2028} é"
        );
    }
}
