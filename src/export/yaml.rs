//! The little YAML export writes: nested maps, lists of maps and scalars, every text value
//! double-quoted (so `5xx,reset` or `"on"` can never be read as another type).

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

/// `y` as YAML lines at `indent` spaces.
pub fn write(out: &mut String, y: &Y, indent: usize) {
    let pad = " ".repeat(indent);
    match y {
        Y::Map(entries) => {
            for (k, v) in entries {
                match v {
                    Y::Map(_) => {
                        let _ = writeln!(out, "{pad}{k}:");
                        write(out, v, indent + 2);
                    }
                    Y::List(items) => {
                        let _ = writeln!(out, "{pad}{k}:");
                        for item in items {
                            list_item(out, item, indent + 2);
                        }
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}{k}: {}", scalar(v));
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
            let _ = writeln!(out, "{pad}{}", scalar(y));
        }
    }
}

fn list_item(out: &mut String, item: &Y, indent: usize) {
    let pad = " ".repeat(indent);
    match item {
        Y::Map(_) => {
            let mut inner = String::new();
            write(&mut inner, item, indent + 2);
            // The first key goes on the dash's line.
            let inner = inner.trim_start();
            let _ = write!(out, "{pad}- {inner}");
        }
        _ => {
            let _ = writeln!(out, "{pad}- {}", scalar(item));
        }
    }
}

fn scalar(y: &Y) -> String {
    match y {
        Y::Plain(s) => s.clone(),
        Y::Text(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
        _ => unreachable!("maps and lists are written by `write`"),
    }
}
