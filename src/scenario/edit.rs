//! Editing a scenario document by field path, as `--set` and a variant's `set` do: tables
//! are followed or created, arrays of tables are addressed by element name, and a path that
//! cannot be followed is an error that says which segment and what it could have been.

use super::document::element_name;
use crate::error::did_you_mean;
use toml_edit::{DocumentMut, Item, TableLike, Value};

/// Sets the field at `path` to `value`. Arrays of tables are addressed by element name.
pub(super) fn set_path(doc: &mut DocumentMut, path: &str, value: Value) -> Result<(), String> {
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
