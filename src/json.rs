//! JSON result files as cascade writes them: serde_json does the serializing and escaping,
//! and `FileFormatter` gives the text its two house rules. Numbers are `number::exact`'s
//! (`5`, not serde's `5.0`; `0.0000001`, not `1e-7`), so a value always prints the same way
//! in JSON as in CSV. And the layout is chosen per container, by a `Layout` rule on its depth
//! and key: one entry per line where people read the file (summary.json), one row per line
//! where it is a table (runs.json, points.json), compact where only programs read it (a sweep's
//! run records). A foundation: it uses nothing in the crate but `crate::number`, so the sweep's
//! store and the output files share it.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io::{self, Write};

/// How the entries of one object or array are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entries {
    /// `{"a":1,"b":2}`.
    Compact,
    /// `{"a": 1, "b": 2}`.
    Inline,
    /// Each entry on a line of its own, indented by `indent` spaces; the closing bracket on a
    /// line of its own indented by `close` spaces, or right after the last entry when `None`.
    Lines { indent: usize, close: Option<usize> },
}

impl Entries {
    /// serde_json's pretty form at `depth` (1 for the outermost container): two spaces a level.
    pub fn pretty(depth: usize) -> Entries {
        Entries::Lines {
            indent: 2 * depth,
            close: Some(2 * (depth - 1)),
        }
    }
}

/// Chooses the layout of a container from its depth (1 for the outermost) and, for a value of
/// an object, the key it sits under.
pub type Layout = fn(depth: usize, key: Option<&str>) -> Entries;

/// Every container in serde_json's pretty form: what summary.json is.
pub fn pretty(depth: usize, _key: Option<&str>) -> Entries {
    Entries::pretty(depth)
}

/// The text of a JSON result file: `value` laid out by `layout`, and a final newline.
pub fn to_text(value: &impl Serialize, layout: Layout) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, FileFormatter::new(layout));
    // Only a Serialize impl that fails on its own (a map with non-string keys) can fail
    // here, which is a bug in the type, not in any input; the writer is memory.
    value
        .serialize(&mut ser)
        .expect("a result file's plain JSON values, written to memory");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// An ordered list of `(key, value)` pairs serialized as a JSON object in that order: metrics
/// keep the run's own order, which neither a `BTreeMap` nor serde_json's `Map` would.
pub struct Pairs<K, V>(pub Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Pairs<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// One open container.
struct Open {
    entries: Entries,
    object: bool,
}

/// serde_json's `Formatter` with `number::exact` numbers and a `Layout`.
pub struct FileFormatter {
    layout: Layout,
    open: Vec<Open>,
    /// The key being written, then the last one written: the key a container opened in an
    /// object's value sits under.
    key: String,
    in_key: bool,
}

impl FileFormatter {
    pub fn new(layout: Layout) -> FileFormatter {
        FileFormatter {
            layout,
            open: Vec::new(),
            key: String::new(),
            in_key: false,
        }
    }

    fn entries(&self) -> Entries {
        self.open.last().map_or(Entries::Compact, |o| o.entries)
    }

    fn begin<W: ?Sized + Write>(&mut self, w: &mut W, object: bool) -> io::Result<()> {
        let in_object = self.open.last().is_some_and(|o| o.object);
        let key = in_object.then_some(self.key.as_str());
        let entries = (self.layout)(self.open.len() + 1, key);
        self.open.push(Open { entries, object });
        w.write_all(if object { b"{" } else { b"[" })
    }

    fn end<W: ?Sized + Write>(&mut self, w: &mut W, object: bool) -> io::Result<()> {
        if let Some(Open {
            entries: Entries::Lines {
                close: Some(close), ..
            },
            ..
        }) = self.open.pop()
        {
            w.write_all(b"\n")?;
            spaces(w, close)?;
        }
        w.write_all(if object { b"}" } else { b"]" })
    }

    fn entry<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match self.entries() {
            Entries::Compact if !first => w.write_all(b","),
            Entries::Inline if !first => w.write_all(b", "),
            Entries::Compact | Entries::Inline => Ok(()),
            Entries::Lines { indent, .. } => {
                w.write_all(if first { b"\n" } else { b",\n" })?;
                spaces(w, indent)
            }
        }
    }
}

fn spaces<W: ?Sized + Write>(w: &mut W, n: usize) -> io::Result<()> {
    for _ in 0..n {
        w.write_all(b" ")?;
    }
    Ok(())
}

impl Formatter for FileFormatter {
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, v: f64) -> io::Result<()> {
        w.write_all(crate::number::exact(v).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, v: f32) -> io::Result<()> {
        self.write_f64(w, f64::from(v))
    }

    /// serde_json writes a NaN or an infinity as `null`, and no result file has an optional
    /// field, so a null is always such a value: a debug build stops on it as `number::exact`
    /// does, and the readers refuse it in a release build rather than take it for a measure.
    fn write_null<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        debug_assert!(
            false,
            "non-finite value written: define it where it is computed"
        );
        w.write_all(b"null")
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin(w, false)
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end(w, false)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.entry(w, first)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin(w, true)
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end(w, true)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.key.clear();
        self.in_key = true;
        self.entry(w, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.in_key = false;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if self.in_key {
            self.key.push_str(fragment);
        }
        w.write_all(fragment.as_bytes())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match self.entries() {
            Entries::Compact => w.write_all(b":"),
            _ => w.write_all(b": "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compact(_: usize, _: Option<&str>) -> Entries {
        Entries::Compact
    }

    #[test]
    fn numbers_print_as_result_files_print_them() {
        let v = json!([
            5.0,
            1e-7,
            0.25,
            -0.0,
            0.1 + 0.2,
            1e16,
            123456789012.0,
            -3.5,
            7u64
        ]);
        assert_eq!(
            to_text(&v, compact),
            "[5,0.0000001,0.25,0,0.30000000000000004,10000000000000000,123456789012,-3.5,7]\n"
        );
        assert_eq!(to_text(&u64::MAX, compact), "18446744073709551615\n");
        assert_eq!(to_text(&1e300, compact).len(), 302);
    }

    #[test]
    fn pretty_is_serde_jsons_pretty_but_for_numbers() {
        let v = json!({"a": "x\"y", "b": {"c": 1.5, "d": [1, 2]}});
        let ours = to_text(&v, pretty);
        let theirs = serde_json::to_string_pretty(&v).unwrap() + "\n";
        assert_eq!(ours, theirs);
        assert_eq!(to_text(&json!({"e": 2.0}), pretty), "{\n  \"e\": 2\n}\n");
        // An empty container still closes on its own line, as the hand-written files did.
        assert_eq!(
            to_text(&json!({"m": {}}), pretty),
            "{\n  \"m\": {\n  }\n}\n"
        );
    }

    #[test]
    fn a_layout_picks_a_containers_form_by_depth_and_key() {
        fn rows(depth: usize, key: Option<&str>) -> Entries {
            match (depth, key) {
                (1, _) => Entries::pretty(1),
                (3, Some("lines")) => Entries::Lines {
                    indent: 4,
                    close: None,
                },
                _ => Entries::Inline,
            }
        }
        let v = json!([
            {"inline": {"a": 1, "b": 2}, "lines": {"c": {"n": 1}, "d": {"n": 2}}},
            {"inline": {}, "lines": {}}
        ]);
        assert_eq!(
            to_text(&v, rows),
            "[\n  {\"inline\": {\"a\": 1, \"b\": 2}, \"lines\": {\n    \"c\": {\"n\": 1},\n    \"d\": {\"n\": 2}}},\n  {\"inline\": {}, \"lines\": {}}\n]\n"
        );
    }

    #[test]
    fn pairs_keep_their_order() {
        let pairs = [("z", 1.0), ("a", 0.5)];
        assert_eq!(
            to_text(&Pairs(pairs.to_vec()), compact),
            "{\"z\":1,\"a\":0.5}\n"
        );
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let s = "tab\t \"q\" back\\ é \u{1}";
        assert_eq!(
            to_text(&s, compact),
            format!("{}\n", serde_json::Value::String(s.into()))
        );
    }
}
