//! The scenario text as a TOML document: parsing, `--set` overrides by path, and the map from
//! byte offsets to field paths (and back) that lets every error name its line and field.

use super::messages::{explain, first_line};
use crate::error::ScenarioError;
use std::collections::HashMap;
use std::ops::Range;
use toml_edit::{DocumentMut, Item, TableLike, Value};

/// One `--set PATH=VALUE` override.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    pub path: String,
    pub value: String,
}

impl Override {
    /// Parses `PATH=VALUE`.
    pub fn parse(text: &str) -> Result<Override, String> {
        match text.split_once('=') {
            Some((path, value)) if !path.trim().is_empty() => Ok(Override {
                path: path.trim().to_string(),
                value: value.trim().to_string(),
            }),
            _ => Err(format!(
                "--set expects PATH=VALUE (like service.api.workers=40), got `{text}`"
            )),
        }
    }

    /// The value as TOML; text that is not valid TOML is taken as a string, so `timeout=300ms`
    /// needs no quotes.
    fn toml_value(&self) -> Value {
        self.value
            .parse::<Value>()
            .unwrap_or_else(|_| Value::from(self.value.as_str()))
    }
}

/// A parsed scenario text, with the file name its errors should carry.
pub struct Source {
    pub file: String,
    /// The document after the overrides, laid out as the user wrote it.
    pub text: String,
    spans: SpanIndex,
    /// The text as written, when overrides changed it: errors are located there, so a line
    /// that `--set` added never shifts the line numbers of the ones after it.
    original: Option<(String, SpanIndex)>,
    overrides: Vec<(Override, Origin)>,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

/// Who wrote an override: its errors name it as the user wrote it, and a variant's point at its
/// `set` entry in the file.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// `--set` (or `--seed`) on the command line.
    CommandLine,
    /// The `set` of the `[[variant]]` of this name.
    Variant(String),
    /// A point of a sweep's grid: one value of a `--param` or of the file's `[sweep]`.
    Sweep,
}

impl Origin {
    /// How an error names the override: `--set PATH=VALUE`, `variant `v` set PATH=VALUE` or
    /// `the sweep's value PATH=VALUE`.
    fn label(&self, o: &Override) -> String {
        match self {
            Origin::CommandLine => format!("--set {}={}", o.path, o.value),
            Origin::Variant(name) => format!("variant `{name}` set {}={}", o.path, o.value),
            Origin::Sweep => format!("the sweep's value {}={}", o.path, o.value),
        }
    }
}

/// Scenario errors are boxed: they are rare and large, and results stay small on the happy path.
pub type Located<T> = Result<T, Box<ScenarioError>>;

impl Source {
    /// Parses `text` and applies `overrides` (from the command line) in order.
    pub fn parse(file: &str, text: &str, overrides: &[Override]) -> Located<Source> {
        let tagged: Vec<(Override, Origin)> = overrides
            .iter()
            .map(|o| (o.clone(), Origin::CommandLine))
            .collect();
        Source::parse_tagged(file, text, &tagged)
    }

    /// Parses `text` and applies `overrides` in order, each with who wrote it.
    pub fn parse_tagged(
        file: &str,
        text: &str,
        overrides: &[(Override, Origin)],
    ) -> Located<Source> {
        if text.trim().is_empty() {
            let mut e = ScenarioError::new(file, "the scenario is empty");
            e.help = Some(
                "a scenario needs at least [scenario] with name and duration, one [[client]] and one [[service]]".into(),
            );
            return Err(Box::new(e));
        }
        // Spans live only in the parsed (immutable) document; the mutable one drops them.
        let parsed = toml_edit::Document::parse(text).map_err(|e: toml_edit::TomlError| {
            let mut err = ScenarioError::new(file, first_line(e.message()));
            err.help = super::messages::syntax_help(e.message());
            if let Some(span) = e.span() {
                locate_offset(&mut err, text, span.start);
            }
            Box::new(err)
        })?;
        let original = (text.to_string(), SpanIndex::of(parsed.as_table(), text));
        let mut doc: DocumentMut = parsed.into_mut();
        for (o, origin) in overrides {
            super::edit::set_path(&mut doc, &o.path, o.toml_value()).map_err(|msg| {
                let mut e = ScenarioError::new(file, format!("{}: {msg}", origin.label(o)));
                e.field = Some(o.path.clone());
                if let Origin::Variant(name) = origin {
                    locate_set_entry(&mut e, text, &original.1, name, &o.path);
                }
                Box::new(e)
            })?;
        }
        let (text, spans, original) = if overrides.is_empty() {
            let (text, spans) = original;
            (text, spans, None)
        } else {
            let text = doc.to_string();
            let parsed: toml_edit::Document<String> =
                text.parse().map_err(|e: toml_edit::TomlError| {
                    Box::new(ScenarioError::new(
                        file,
                        format!("after --set: {}", first_line(e.message())),
                    ))
                })?;
            let spans = SpanIndex::of(parsed.as_table(), &text);
            (text, spans, Some(original))
        };
        Ok(Source {
            file: file.to_string(),
            text,
            spans,
            original,
            overrides: overrides.to_vec(),
        })
    }

    /// Deserializes the document into the raw scenario types, locating any error.
    pub fn deserialize<T: serde::de::DeserializeOwned>(&self) -> Located<T> {
        toml_edit::de::from_str(&self.text).map_err(|e| {
            let (message, help) = explain(e.message());
            let mut err = ScenarioError::new(&self.file, message);
            err.help = help;
            if let Some(span) = e.span() {
                err.field = self.spans.path_at(span.start);
                self.locate(&mut err, span.start);
            }
            // Who wrote the value, for a fix in the same form.
            let origin = err.field.as_deref().and_then(|f| self.culprit(f));
            let origin = origin.map(|(_, origin)| origin.clone());
            let mut err = self.blame_override(err);
            if let Some(field) = err.field.clone() {
                let hint = super::messages::duration_hint(&field, e.message(), origin.as_ref());
                err.help = hint.or(err.help.take());
            }
            err
        })
    }

    /// An error about the field at `path`, located at that field (or its nearest written parent).
    pub fn error_at(&self, path: &str, message: impl Into<String>) -> Box<ScenarioError> {
        let mut err = ScenarioError::new(&self.file, message);
        err.field = Some(path.to_string());
        if let Some(start) = self.spans.span_of(path) {
            self.locate(&mut err, start);
        }
        self.blame_override(err)
    }

    /// Sets the error's line and column from an offset into the final text, translated to the
    /// text as written when overrides changed it.
    fn locate(&self, err: &mut ScenarioError, offset: usize) {
        match &self.original {
            None => self.spans.lines.locate(err, &self.text, offset),
            Some((text, spans)) => {
                let path = err.field.clone().or_else(|| self.spans.path_at(offset));
                if let Some(start) = path.and_then(|p| spans.span_of(&p)) {
                    spans.lines.locate(err, text, start);
                }
            }
        }
    }

    /// An error about the `n`-th field (0-based, in file order) written at `path`: when two
    /// elements of an array share a name, the second one is the one to point at.
    pub fn error_at_nth(
        &self,
        path: &str,
        n: usize,
        message: impl Into<String>,
    ) -> Box<ScenarioError> {
        let mut err = ScenarioError::new(&self.file, message);
        err.field = Some(path.to_string());
        let (text, spans) = self
            .original
            .as_ref()
            .map_or((&self.text, &self.spans), |(t, s)| (t, s));
        if let Some(start) = spans.nth_start(path, n) {
            spans.lines.locate(&mut err, text, start);
        }
        self.blame_override(err)
    }

    /// An error in a value that an override wrote is the override's, not the file's: name it
    /// instead of a line the user never wrote. A variant's override points at its `set` entry.
    /// An error in a table that an override created (`--set policy.p.limit.max=5` makes
    /// `policy.p.limit`) is that override's too.
    fn blame_override(&self, mut err: ScenarioError) -> Box<ScenarioError> {
        let Some(field) = err.field.clone() else {
            return Box::new(err);
        };
        if let Some((o, origin)) = self.culprit(&field) {
            err.position = None;
            err.source_line = None;
            err.message = format!("{}: {}", origin.label(o), err.message);
            if let (Origin::Variant(name), Some((text, spans))) = (origin, &self.original) {
                locate_set_entry(&mut err, text, spans, name, &o.path);
            }
        }
        Box::new(err)
    }
}

impl Source {
    /// The override that wrote `field` (the last, when several did), or the table holding it.
    fn culprit(&self, field: &str) -> Option<&(Override, Origin)> {
        let written = |p: &str| {
            self.original
                .as_ref()
                .is_none_or(|(_, spans)| spans.first_start(p).is_some())
        };
        self.overrides.iter().rev().find(|(o, _)| {
            field == o.path
                || field.starts_with(&format!("{}.", o.path))
                || (o.path.starts_with(&format!("{field}.")) && !written(field))
        })
    }
}

/// Points `err` at the entry `path` of variant `name`'s `set` (or its nearest written parent).
fn locate_set_entry(
    err: &mut ScenarioError,
    text: &str,
    spans: &SpanIndex,
    name: &str,
    path: &str,
) {
    if let Some(start) = spans.span_of(&format!("variant.{name}.set.{path}")) {
        spans.lines.locate(err, text, start);
    }
}

/// The span of every key and table in a document, by field path.
struct SpanIndex {
    spans: Vec<(Range<usize>, String)>,
    /// Where each path starts, every time it is written, in file order: one lookup per error
    /// located, so compiling n `[[expect]]` (each keeps its location) stays linear in n.
    starts: HashMap<String, Vec<usize>>,
    /// The lines of the text the spans are offsets into.
    lines: Lines,
}

impl SpanIndex {
    fn of(root: &toml_edit::Table, text: &str) -> SpanIndex {
        let mut spans = Vec::new();
        collect(root, "", &mut spans);
        let mut starts: HashMap<String, Vec<usize>> = HashMap::with_capacity(spans.len());
        for (r, p) in &spans {
            starts.entry(p.clone()).or_default().push(r.start);
        }
        SpanIndex {
            spans,
            starts,
            lines: Lines::of(text),
        }
    }

    /// Where `path` is first written, if it is.
    fn first_start(&self, path: &str) -> Option<usize> {
        self.nth_start(path, 0)
    }

    /// Where `path` is written for the `n`-th time (0-based), if it is.
    fn nth_start(&self, path: &str, n: usize) -> Option<usize> {
        self.starts.get(path).and_then(|s| s.get(n)).copied()
    }

    /// The innermost field whose span holds `offset`, else the last one starting before it.
    fn path_at(&self, offset: usize) -> Option<String> {
        let containing = self
            .spans
            .iter()
            .filter(|(r, _)| r.start <= offset && offset < r.end.max(r.start + 1))
            .min_by_key(|(r, _)| r.end - r.start);
        containing
            .or_else(|| {
                self.spans
                    .iter()
                    .filter(|(r, _)| r.start <= offset)
                    .max_by_key(|(r, _)| r.start)
            })
            .map(|(_, p)| p.clone())
    }

    /// Where `path` (or, failing that, its nearest written parent) starts.
    fn span_of(&self, path: &str) -> Option<usize> {
        let mut p = path;
        loop {
            if let Some(start) = self.first_start(p) {
                return Some(start);
            }
            p = &p[..p.rfind('.')?];
        }
    }
}

/// The text of a scenario file's bytes; the first byte that is not UTF-8 is an error at its
/// line and column (counted in the valid text before it).
pub fn decode(file: &str, bytes: Vec<u8>) -> Located<String> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let mut err = ScenarioError::new(
            file,
            format!(
                "the file is not valid UTF-8 (byte 0x{:02x}): save it as UTF-8",
                bytes[at]
            ),
        );
        let shown = String::from_utf8_lossy(bytes);
        // The lossy text has one replacement character per bad sequence, so the valid prefix
        // keeps its offsets and the column of the bad byte is the next one.
        locate_offset(&mut err, &shown, at);
        Box::new(err)
    })
}

/// Fills in the 1-based line and column of byte `offset` and the line's text.
fn locate_offset(err: &mut ScenarioError, text: &str, offset: usize) {
    Lines::of(text).locate(err, text, offset);
}

/// Where each line of a text starts, so that locating an offset is a binary search rather
/// than a count from the top (which made n located `[[expect]]` cost n² bytes read).
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Lines {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines(starts.collect())
    }

    /// Fills in the 1-based line and column of byte `offset` in `text` and the line's text.
    fn locate(&self, err: &mut ScenarioError, text: &str, offset: usize) {
        let offset = offset.min(text.len());
        let index = self.0.partition_point(|&start| start <= offset) - 1;
        let line_start = self.0[index];
        let col = text[line_start..offset].chars().count() + 1;
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        err.position = Some((index + 1, col));
        err.source_line = Some(text[line_start..line_end].trim_end().to_string());
    }
}

/// How an element of an array of tables is addressed: by its `name`, else its `to`, else index.
pub(super) fn element_name(t: &dyn TableLike, index: usize) -> String {
    ["name", "to"]
        .iter()
        .find_map(|k| t.get(k).and_then(|i| i.as_str()).map(str::to_string))
        .unwrap_or_else(|| index.to_string())
}

/// Records the span of every key and table with its path.
fn collect(t: &dyn TableLike, prefix: &str, out: &mut Vec<(Range<usize>, String)>) {
    for (k, item) in t.iter() {
        let path = if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        };
        let key_span = t.get_key_value(k).and_then(|(key, _)| key.span());
        let item_span = item.span();
        if let Some(r) = match (key_span, item_span) {
            (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
            (a, b) => a.or(b),
        } {
            out.push((r, path.clone()));
        }
        match item {
            Item::Table(sub) => collect(sub, &path, out),
            Item::ArrayOfTables(arr) => {
                for (i, sub) in arr.iter().enumerate() {
                    let p = format!("{path}.{}", element_name(sub, i));
                    if let Some(r) = sub.span() {
                        out.push((r, p.clone()));
                    }
                    collect(sub, &p, out);
                }
            }
            Item::Value(v) => collect_value(v, &path, out),
            Item::None => {}
        }
    }
}

fn collect_value(v: &Value, path: &str, out: &mut Vec<(Range<usize>, String)>) {
    match v {
        Value::InlineTable(t) => collect(t, path, out),
        Value::Array(arr) => {
            for (i, elem) in arr.iter().enumerate() {
                let p = match elem.as_inline_table() {
                    Some(t) => format!("{path}.{}", element_name(t, i)),
                    None => format!("{path}.{i}"),
                };
                if let Some(r) = elem.span() {
                    out.push((r, p.clone()));
                }
                collect_value(elem, &p, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(text: &str) -> SpanIndex {
        let doc = toml_edit::Document::parse(text).unwrap();
        SpanIndex::of(doc.as_table(), text)
    }

    #[test]
    fn the_span_index_finds_each_writing_of_a_path_by_lookup() {
        let text = "[[v]]\nname = \"a\"\n\n[[v]]\nname = \"a\"\nx = 1\n";
        let spans = index(text);
        let second = text.rfind("name").unwrap();
        assert_eq!(spans.first_start("v.a.name"), text.find("name"));
        assert_eq!(spans.nth_start("v.a.name", 1), Some(second));
        assert_eq!(spans.nth_start("v.a.name", 2), None);
        // A path not written falls back to its nearest written parent.
        assert_eq!(spans.span_of("v.a.x.deeper"), text.find("x = 1"));
        assert_eq!(spans.span_of("nothing.here"), None);
    }

    #[test]
    fn the_span_index_holds_one_entry_per_key_for_many_expectations() {
        let n = 2_000;
        let text: String = (0..n)
            .map(|i| format!("[[expect]]\nmetric = \"m{i}\"\nop = \">\"\nvalue = 1\n"))
            .collect();
        let spans = index(&text);
        // Every expectation's metric is found directly, the last as well as the first.
        let last = text.rfind("metric").unwrap();
        assert_eq!(
            spans.first_start(&format!("expect.{}.metric", n - 1)),
            Some(last)
        );
    }

    #[test]
    fn lines_locate_offsets_by_search() {
        let text = "ab\ncd\n\nxé z\n";
        let lines = Lines::of(text);
        let at = |offset| {
            let mut e = ScenarioError::new("f", "m");
            lines.locate(&mut e, text, offset);
            (e.position.unwrap(), e.source_line.unwrap())
        };
        assert_eq!(at(0), ((1, 1), "ab".to_string()));
        assert_eq!(at(4), ((2, 2), "cd".to_string()));
        assert_eq!(at(6), ((3, 1), String::new()));
        // Columns count characters, not bytes.
        assert_eq!(at(text.find('z').unwrap()), ((4, 4), "xé z".to_string()));
        assert_eq!(at(text.len()), ((5, 1), String::new()));
    }

    #[test]
    fn invalid_utf8_is_an_error_at_its_line_and_column() {
        let err = decode("f.toml", b"a = 1\nb = \"x\xffy\"\n".to_vec()).unwrap_err();
        assert_eq!(err.position, Some((2, 7)));
        assert!(err.message.contains("0xff"), "{}", err.message);
        assert_eq!(decode("f.toml", b"a = 1".to_vec()).unwrap(), "a = 1");
    }
}
