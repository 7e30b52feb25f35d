//! An imported configuration file as one tree of nodes, each with the line and column it was
//! written at, whatever the format: YAML (saphyr), JSON (checked by serde_json, then read by
//! the same YAML reader, JSON being YAML 1.2) or Java `.properties` (read here). The importers
//! read this tree only, so every error and every skipped key can name its line.

use crate::error::{Error, ScenarioError};
use saphyr::{LoadableYamlNode, MarkedYamlOwned, ScalarOwned, YamlDataOwned};

/// One value of the file, where it was written (1-based line and column).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub line: usize,
    pub col: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Keys in the file's order, each with its own position.
    Map(Vec<(Key, Node)>),
    List(Vec<Node>),
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
}

/// A map key as written, with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub text: String,
    pub line: usize,
    pub col: usize,
}

/// The syntax a file is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Yaml,
    Json,
    Properties,
}

impl Syntax {
    /// By the file's extension; YAML (a superset of JSON) for any other.
    pub fn of_path(path: &str) -> Syntax {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Syntax::Json
        } else if lower.ends_with(".properties") {
            Syntax::Properties
        } else {
            Syntax::Yaml
        }
    }
}

/// An error at a position of file `file`, naming the source key `key` (empty: none).
pub fn error_at(file: &str, line: usize, col: usize, key: &str, message: String) -> Error {
    let mut e = ScenarioError::new(file, message);
    if line > 0 {
        e.position = Some((line, col.max(1)));
    }
    if !key.is_empty() {
        e.field = Some(key.to_string());
    }
    Error::Scenario(Box::new(e))
}

/// Reads `text` (the file `file`) as `syntax` into a tree.
pub fn parse(file: &str, text: &str, syntax: Syntax) -> Result<Node, Error> {
    match syntax {
        Syntax::Yaml => parse_yaml(file, text),
        Syntax::Json => {
            // serde_json is the judge of what is JSON (a YAML reader accepts more); its error
            // names line and column.
            if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
                return Err(error_at(
                    file,
                    e.line(),
                    e.column(),
                    "",
                    format!("not valid JSON: {e}"),
                ));
            }
            parse_yaml(file, text)
        }
        Syntax::Properties => parse_properties(file, text),
    }
}

fn parse_yaml(file: &str, text: &str) -> Result<Node, Error> {
    let docs = MarkedYamlOwned::load_from_str(text).map_err(|e| {
        let m = e.marker();
        error_at(
            file,
            m.line(),
            m.col() + 1,
            "",
            format!("not valid YAML: {}", e.info()),
        )
    })?;
    match docs.len() {
        0 => Ok(Node {
            value: Value::Map(Vec::new()),
            line: 1,
            col: 1,
        }),
        1 => convert(file, docs.into_iter().next().expect("one document")),
        // Several documents (`---`), as Envoy resources often come: a list of them.
        _ => Ok(Node {
            value: Value::List(
                docs.into_iter()
                    .map(|d| convert(file, d))
                    .collect::<Result<_, _>>()?,
            ),
            line: 1,
            col: 1,
        }),
    }
}

fn convert(file: &str, y: MarkedYamlOwned) -> Result<Node, Error> {
    let (line, col) = (y.span.start.line(), y.span.start.col() + 1);
    let value = match y.data {
        YamlDataOwned::Value(s) => scalar(s),
        YamlDataOwned::Representation(text, _, _) => Value::Text(text),
        YamlDataOwned::Sequence(items) => Value::List(
            items
                .into_iter()
                .map(|i| convert(file, i))
                .collect::<Result<_, _>>()?,
        ),
        YamlDataOwned::Mapping(map) => {
            let mut entries = Vec::with_capacity(map.len());
            for (k, v) in map {
                let key = Key {
                    line: k.span.start.line(),
                    col: k.span.start.col() + 1,
                    text: match k.data {
                        YamlDataOwned::Value(ScalarOwned::String(s)) => s,
                        YamlDataOwned::Value(ScalarOwned::Integer(i)) => i.to_string(),
                        YamlDataOwned::Value(ScalarOwned::Boolean(b)) => b.to_string(),
                        _ => {
                            return Err(error_at(
                                file,
                                k.span.start.line(),
                                k.span.start.col() + 1,
                                "",
                                "a map key must be a plain string".into(),
                            ));
                        }
                    },
                };
                entries.push((key, convert(file, v)?));
            }
            Value::Map(entries)
        }
        YamlDataOwned::Tagged(_, inner) => return convert(file, *inner),
        YamlDataOwned::Alias(_) => {
            return Err(error_at(
                file,
                line,
                col,
                "",
                "YAML aliases (`*name`) are not read by import: write the value out".into(),
            ));
        }
        YamlDataOwned::BadValue => {
            return Err(error_at(
                file,
                line,
                col,
                "",
                "not a valid YAML value".into(),
            ));
        }
    };
    Ok(Node { value, line, col })
}

fn scalar(s: ScalarOwned) -> Value {
    match s {
        ScalarOwned::Null => Value::Null,
        ScalarOwned::Boolean(b) => Value::Bool(b),
        ScalarOwned::Integer(i) => Value::Int(i),
        ScalarOwned::FloatingPoint(f) => Value::Float(f.into_inner()),
        ScalarOwned::String(s) => Value::Text(s),
    }
}

/// Java `.properties` (as Spring Boot reads `application.properties`): `key=value`,
/// `key: value` or `key value`; `#` and `!` comments; a trailing `\` continues the line. Dotted
/// keys become nested maps and `name[0]` list items; every value is text, as Spring binds it.
fn parse_properties(file: &str, text: &str) -> Result<Node, Error> {
    let mut root = Node {
        value: Value::Map(Vec::new()),
        line: 1,
        col: 1,
    };
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let trimmed = raw.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('!') {
            continue;
        }
        let col = raw.len() - trimmed.len() + 1;
        let mut logical = trimmed.to_string();
        while logical.ends_with('\\') && !logical.ends_with("\\\\") {
            logical.pop();
            match lines.next() {
                Some((_, next)) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        let split = logical.find(['=', ':', ' ', '\t']).unwrap_or(logical.len());
        let key = logical[..split].trim();
        let rest = logical[split..].trim_start();
        let rest = rest
            .strip_prefix(['=', ':'])
            .map_or(rest, str::trim_start)
            .trim_end();
        let value_col = col + logical.len() - logical[split..].trim_start().len();
        insert_property(&mut root, key, rest, i + 1, col, value_col)
            .map_err(|m| error_at(file, i + 1, col, key, m))?;
    }
    Ok(root)
}

/// The highest `name[i]` index a `.properties` file may use: the list is allocated up to it.
const MAX_LIST_INDEX: usize = 10_000;

fn insert_property(
    root: &mut Node,
    key: &str,
    value: &str,
    line: usize,
    col: usize,
    vcol: usize,
) -> Result<(), String> {
    let mut node = root;
    for part in key.split('.') {
        let (name, index) = match part.find('[') {
            Some(at) if part.ends_with(']') => (
                &part[..at],
                part[at + 1..part.len() - 1].parse::<usize>().ok(),
            ),
            _ => (part, None),
        };
        node = child(node, name, line, col);
        if let Some(index) = index {
            if index > MAX_LIST_INDEX {
                return Err(format!("list index {index} is past {MAX_LIST_INDEX}"));
            }
            if !matches!(node.value, Value::List(_)) {
                node.value = Value::List(Vec::new());
            }
            let Value::List(items) = &mut node.value else {
                unreachable!("made a list above")
            };
            while items.len() <= index {
                items.push(Node {
                    value: Value::Null,
                    line,
                    col,
                });
            }
            node = &mut items[index];
        }
    }
    *node = Node {
        value: Value::Text(value.to_string()),
        line,
        col: vcol,
    };
    Ok(())
}

/// The child `name` of a map node (made a map if it was not one), created if absent.
fn child<'a>(node: &'a mut Node, name: &str, line: usize, col: usize) -> &'a mut Node {
    if !matches!(node.value, Value::Map(_)) {
        node.value = Value::Map(Vec::new());
    }
    let Value::Map(entries) = &mut node.value else {
        unreachable!("made a map above")
    };
    let at = match entries.iter().position(|(k, _)| k.text == name) {
        Some(at) => at,
        None => {
            entries.push((
                Key {
                    text: name.to_string(),
                    line,
                    col,
                },
                Node {
                    value: Value::Map(Vec::new()),
                    line,
                    col,
                },
            ));
            entries.len() - 1
        }
    };
    &mut entries[at].1
}

/// Merges map `from` into map `into` (later keys win); any other value replaces.
fn merge(into: &mut Node, from: Node) {
    match (&mut into.value, from.value) {
        (Value::Map(a), Value::Map(b)) => {
            for (k, v) in b {
                match a.iter_mut().find(|(ak, _)| ak.text == k.text) {
                    Some((_, existing)) => merge(existing, v),
                    None => a.push((k, v)),
                }
            }
        }
        (_, value) => {
            *into = Node {
                value,
                line: from.line,
                col: from.col,
            }
        }
    }
}

impl Node {
    /// The entries of a map node; none for any other.
    pub fn entries(&self) -> &[(Key, Node)] {
        match &self.value {
            Value::Map(e) => e,
            _ => &[],
        }
    }

    /// The same tree with dotted map keys (`resilience4j.retry: …`, as Spring Boot allows in
    /// YAML) split into nested maps, merged with any map already there.
    pub fn expand_dotted(&self) -> Node {
        let Value::Map(entries) = &self.value else {
            return match &self.value {
                Value::List(items) => Node {
                    value: Value::List(items.iter().map(Node::expand_dotted).collect()),
                    ..self.clone()
                },
                _ => self.clone(),
            };
        };
        let mut out = Node {
            value: Value::Map(Vec::new()),
            ..self.clone()
        };
        for (k, v) in entries {
            let v = v.expand_dotted();
            let parts: Vec<&str> = k.text.split('.').collect();
            let mut node = &mut out;
            for part in &parts[..parts.len() - 1] {
                node = child(node, part, k.line, k.col);
            }
            let last = parts[parts.len() - 1];
            let Value::Map(es) = &mut node.value else {
                unreachable!("`child` makes maps")
            };
            match es.iter_mut().find(|(ek, _)| ek.text == last) {
                Some((_, existing)) => merge(existing, v),
                None => es.push((
                    Key {
                        text: last.to_string(),
                        line: k.line,
                        col: k.col,
                    },
                    v,
                )),
            }
        }
        out
    }

    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Map(_) => "a map",
            Value::List(_) => "a list",
            Value::Text(_) => "text",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Null => "empty",
        }
    }

    /// The value as written, for messages and comments.
    pub fn shown(&self) -> String {
        match &self.value {
            Value::Text(s) => format!("\"{s}\""),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => "null".into(),
            Value::List(_) => "[…]".into(),
            Value::Map(_) => "{…}".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(n: &'a Node, key: &str) -> &'a Node {
        &n.entries().iter().find(|(k, _)| k.text == key).unwrap().1
    }

    #[test]
    fn yaml_nodes_carry_their_lines() {
        let n = parse("f.yaml", "a:\n  b: 3\n  c: \"10s\"\n", Syntax::Yaml).unwrap();
        let a = get(&n, "a");
        assert_eq!(get(a, "b").value, Value::Int(3));
        assert_eq!((get(a, "b").line, get(a, "b").col), (2, 6));
        assert_eq!(get(a, "c").value, Value::Text("10s".into()));
        assert_eq!(a.entries()[1].0.line, 3);
    }

    #[test]
    fn json_is_checked_by_serde_json_and_read_with_lines() {
        let n = parse("f.json", "{\n  \"x\": {\"y\": 1.5}\n}\n", Syntax::Json).unwrap();
        let y = get(get(&n, "x"), "y");
        assert_eq!((y.value.clone(), y.line), (Value::Float(1.5), 2));
        let e = parse("f.json", "{\n  \"x\": 1,\n}\n", Syntax::Json).unwrap_err();
        assert!(
            e.to_string().starts_with("f.json:3:1: not valid JSON"),
            "{e}"
        );
    }

    #[test]
    fn bad_yaml_names_its_line() {
        let e = parse("f.yaml", "a:\n  b: [1, 2\nc: 3\n", Syntax::Yaml).unwrap_err();
        assert!(e.to_string().starts_with("f.yaml:3:"), "{e}");
        assert!(e.to_string().contains("not valid YAML"), "{e}");
    }

    #[test]
    fn properties_nest_by_dots_and_index_lists() {
        let text = "# c\nr.a.b=1\nr.a.c : 2s\nr.list[1]=y\nr.list[0]=x\nlong = a\\\n  b\n";
        let n = parse("f.properties", text, Syntax::Properties).unwrap();
        let a = get(get(&n, "r"), "a");
        assert_eq!(get(a, "b").value, Value::Text("1".into()));
        assert_eq!(
            (get(a, "c").value.clone(), get(a, "c").line),
            (Value::Text("2s".into()), 3)
        );
        let Value::List(items) = &get(get(&n, "r"), "list").value else {
            panic!()
        };
        let texts: Vec<_> = items.iter().map(|i| i.value.clone()).collect();
        assert_eq!(texts, [Value::Text("x".into()), Value::Text("y".into())]);
        assert_eq!(get(&n, "long").value, Value::Text("ab".into()));
        let e = parse("f.properties", "a.b[99999999]=1\n", Syntax::Properties).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("f.properties:1:1: field `a.b[99999999]`: list index"),
            "{e}"
        );
    }
}
