//! The scenario text as a TOML document: parsing, `--set` overrides by path, and the map from
//! byte offsets to field paths (and back) that lets every error name its line and field.

use crate::error::{ScenarioError, closest, did_you_mean};
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
    overrides: Vec<Override>,
}

/// Scenario errors are boxed: they are rare and large, and results stay small on the happy path.
pub type Located<T> = Result<T, Box<ScenarioError>>;

impl Source {
    /// Parses `text` and applies `overrides` in order.
    pub fn parse(file: &str, text: &str, overrides: &[Override]) -> Located<Source> {
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
            if let Some(span) = e.span() {
                locate_offset(&mut err, text, span.start);
            }
            Box::new(err)
        })?;
        let original = (text.to_string(), SpanIndex::of(parsed.as_table()));
        let mut doc: DocumentMut = parsed.into_mut();
        for o in overrides {
            set_path(&mut doc, &o.path, o.toml_value()).map_err(|msg| {
                let mut e = ScenarioError::new(file, format!("--set {}: {msg}", o.path));
                e.field = Some(o.path.clone());
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
            (text, SpanIndex::of(parsed.as_table()), Some(original))
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
            self.blame_override(err)
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
            None => locate_offset(err, &self.text, offset),
            Some((text, spans)) => {
                let path = err.field.clone().or_else(|| self.spans.path_at(offset));
                if let Some(start) = path.and_then(|p| spans.span_of(&p)) {
                    locate_offset(err, text, start);
                }
            }
        }
    }

    /// An error in a value that `--set` wrote is the command line's, not the file's: name the
    /// override instead of a line the user never wrote.
    fn blame_override(&self, mut err: ScenarioError) -> Box<ScenarioError> {
        if let Some(field) = err.field.clone() {
            let culprit = self
                .overrides
                .iter()
                .rev()
                .find(|o| field == o.path || field.starts_with(&format!("{}.", o.path)));
            if let Some(o) = culprit {
                err.position = None;
                err.source_line = None;
                err.message = format!("--set {}={}: {}", o.path, o.value, err.message);
            }
        }
        Box::new(err)
    }
}

/// The span of every key and table in a document, by field path.
struct SpanIndex {
    spans: Vec<(Range<usize>, String)>,
}

impl SpanIndex {
    fn of(root: &toml_edit::Table) -> SpanIndex {
        let mut spans = Vec::new();
        collect(root, "", &mut spans);
        SpanIndex { spans }
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
            if let Some((r, _)) = self.spans.iter().find(|(_, q)| q == p) {
                return Some(r.start);
            }
            p = &p[..p.rfind('.')?];
        }
    }
}

fn first_line(msg: &str) -> String {
    msg.lines().next().unwrap_or("").trim().to_string()
}

/// Turns serde's "unknown field `x`, expected one of ..." into a short message and a suggestion.
fn explain(message: &str) -> (String, Option<String>) {
    let message = first_line(message);
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((field, expected)) = rest.split_once('`')
    {
        let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let mut help = match closest(field, valid.iter().copied()) {
            Some(best) => format!("did you mean `{best}`? "),
            None => String::new(),
        };
        if !valid.is_empty() {
            help.push_str(&format!("valid keys here: {}", valid.join(", ")));
        }
        return (format!("unknown key `{field}`"), Some(help));
    }
    if let Some(rest) = message.strip_prefix("unknown variant `")
        && let Some((variant, expected)) = rest.split_once('`')
    {
        let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let help = closest(variant, valid.iter().copied())
            .map(|best| format!("did you mean `{best}`? valid values: {}", valid.join(", ")))
            .or_else(|| Some(format!("valid values: {}", valid.join(", "))));
        return (format!("unknown value `{variant}`"), help);
    }
    // serde names the Rust type it expected; the user wrote (or should write) a table.
    let message = match message.find("expected struct Raw") {
        Some(i) => format!("{}expected a table", &message[..i]),
        None => message,
    };
    (message, None)
}

/// Fills in the 1-based line and column of byte `offset` and the line's text.
pub(super) fn locate_offset(err: &mut ScenarioError, text: &str, offset: usize) {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count() + 1;
    let col = text[line_start..offset].chars().count() + 1;
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    err.position = Some((line, col));
    err.source_line = Some(text[line_start..line_end].trim_end().to_string());
}

/// How an element of an array of tables is addressed: by its `name`, else its `to`, else index.
fn element_name(t: &dyn TableLike, index: usize) -> String {
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

/// Sets the field at `path` to `value`. Arrays of tables are addressed by element name.
fn set_path(doc: &mut DocumentMut, path: &str, value: Value) -> Result<(), String> {
    let segments: Vec<&str> = path.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(format!(
            "`{path}` is not a field path (like service.api.workers)"
        ));
    }
    let (last, parents) = segments
        .split_last()
        .expect("split produced at least one segment");
    let mut node = Node::Item(doc.as_item_mut());
    let mut walked = String::new();
    for seg in parents {
        node = node.step_into(seg, &walked)?;
        walked = if walked.is_empty() {
            seg.to_string()
        } else {
            format!("{walked}.{seg}")
        };
    }
    match node.table_like() {
        Some(t) => {
            t.insert(last, Item::Value(value));
            Ok(())
        }
        None => Err(format!(
            "`{walked}` is not a table, so it has no field `{last}`"
        )),
    }
}

/// A place in the document being walked: toml_edit hands out array elements as tables or
/// values rather than items, so the walk keeps whichever it has.
enum Node<'a> {
    Item(&'a mut Item),
    Table(&'a mut toml_edit::Table),
    Value(&'a mut Value),
}

impl<'a> Node<'a> {
    fn table_like(self) -> Option<&'a mut dyn TableLike> {
        match self {
            Node::Item(i) => i.as_table_like_mut(),
            Node::Table(t) => Some(t),
            Node::Value(v) => v.as_inline_table_mut().map(|t| t as &mut dyn TableLike),
        }
    }

    /// Descends one segment, creating a table where the path names one that is not written.
    fn step_into(self, seg: &str, walked: &str) -> Result<Node<'a>, String> {
        let what = if walked.is_empty() {
            "the scenario"
        } else {
            walked
        };
        let array_holder = match self {
            Node::Item(i) if i.is_array_of_tables() => {
                let arr = i.as_array_of_tables_mut().expect("checked above");
                let names: Vec<String> = arr
                    .iter()
                    .enumerate()
                    .map(|(i, t)| element_name(t, i))
                    .collect();
                let pos = find_element(&names, seg, what)?;
                return Ok(Node::Table(
                    arr.get_mut(pos).expect("position came from this array"),
                ));
            }
            Node::Item(Item::Value(v)) => Node::Value(v),
            other => other,
        };
        if let Node::Value(Value::Array(arr)) = array_holder {
            let names: Vec<String> = arr
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_inline_table()
                        .map_or(i.to_string(), |t| element_name(t, i))
                })
                .collect();
            let pos = find_element(&names, seg, what)?;
            return Ok(Node::Value(
                arr.get_mut(pos).expect("position came from this array"),
            ));
        }
        let inline_parent = matches!(array_holder, Node::Value(_));
        let Some(table) = array_holder.table_like() else {
            return Err(format!(
                "`{what}` is not a table, so it has no field `{seg}`"
            ));
        };
        if table.get(seg).is_none() {
            let fresh = if inline_parent {
                Item::Value(Value::InlineTable(toml_edit::InlineTable::new()))
            } else {
                toml_edit::table()
            };
            table.insert(seg, fresh);
        }
        Ok(Node::Item(table.get_mut(seg).expect("inserted above")))
    }
}

/// An element by its name, else by its index, so that two calls to the same service can both
/// be addressed (`calls.0`, `calls.1`) when their `to` is the same.
fn find_element(names: &[String], seg: &str, what: &str) -> Result<usize, String> {
    names
        .iter()
        .position(|n| n == seg)
        .or_else(|| seg.parse::<usize>().ok().filter(|i| *i < names.len()))
        .ok_or_else(|| no_element(what, seg, names))
}

fn no_element(what: &str, seg: &str, names: &[String]) -> String {
    let hint = did_you_mean(seg, names.iter().map(String::as_str));
    format!(
        "`{what}` has no entry named `{seg}`{hint}; it has: {}",
        names.join(", ")
    )
}
