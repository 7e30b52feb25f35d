//! How a swept parameter is written in a sweep's tables (`runs.csv`, `points.csv`, their JSON,
//! the CSV and JSON exports), so that the columns sort and plot: a parameter whose values are
//! all numbers keeps them; one whose values are all durations (`"100ms"`, `"1.5s"`) becomes
//! milliseconds, its header naming the unit (`policy.api.timeout_ms`); anything else
//! (`fifo`/`lifo`, distributions, booleans) stays text. The manifest keeps the values as
//! written; the readers map it through the same function to find the columns again.

use crate::time::{NANOS_PER_MS, parse_duration};

/// What a parameter's cells hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cells {
    Number,
    /// Milliseconds, from values written as durations.
    Milliseconds,
    Text,
}

/// A parameter as the tables write it.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The header: the path, with `_ms` for durations.
    pub header: String,
    pub cells: Cells,
    /// Each of the parameter's values, in its order, as written in a cell.
    pub values: Vec<String>,
}

/// The suffix of a duration parameter's header.
pub const MS_SUFFIX: &str = "_ms";

fn is_number(v: &str) -> bool {
    v.parse::<f64>().is_ok_and(f64::is_finite)
}

/// The column of the parameter at `path` with these values (as the manifest holds them: TOML
/// text, strings unquoted).
pub fn column(path: &str, values: &[String]) -> Column {
    let text = || Column {
        header: path.to_string(),
        cells: Cells::Text,
        values: values.to_vec(),
    };
    if values.is_empty() {
        return text();
    }
    if values.iter().all(|v| is_number(v)) {
        return Column {
            cells: Cells::Number,
            ..text()
        };
    }
    // Durations: each parses as one, and at least one has a unit (a bare `0` alone is a
    // number, above).
    let ms: Option<Vec<String>> = values
        .iter()
        .map(|v| {
            let ns = parse_duration(v).ok()?;
            Some(crate::number::exact(ns as f64 / NANOS_PER_MS as f64))
        })
        .collect();
    match ms {
        Some(ms) => Column {
            header: format!("{path}{MS_SUFFIX}"),
            cells: Cells::Milliseconds,
            values: ms,
        },
        None => text(),
    }
}

impl Column {
    /// A cell as JSON: a number for a numeric or duration column (an integer as written
    /// without a fraction), else a string.
    pub fn json(&self, cell: &str) -> serde_json::Value {
        if self.cells == Cells::Text {
            return cell.into();
        }
        if let Ok(i) = cell.parse::<i64>() {
            return i.into();
        }
        cell.parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| cell.into(), serde_json::Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[&str]) -> Column {
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        column("policy.api.timeout", &values)
    }

    #[test]
    fn durations_become_milliseconds_named_in_the_header() {
        let c = of(&["100ms", "1.5s", "250us", "0"]);
        assert_eq!(c.header, "policy.api.timeout_ms");
        assert_eq!(c.cells, Cells::Milliseconds);
        assert_eq!(c.values, ["100", "1500", "0.25", "0"]);
        assert_eq!(c.json("0.25"), serde_json::json!(0.25));
        assert_eq!(of(&["2m"]).values, ["120000"]);
    }

    #[test]
    fn numbers_stay_and_text_stays_text() {
        let n = of(&["0.05", "10", "0"]);
        assert_eq!(
            (n.header.as_str(), n.cells),
            ("policy.api.timeout", Cells::Number)
        );
        assert_eq!(n.values, ["0.05", "10", "0"]);
        assert_eq!(n.json("10"), serde_json::json!(10));
        assert_eq!(n.json("0.05"), serde_json::json!(0.05));
        for text in [
            &["fifo", "lifo"][..],
            &["100ms", "exp(10ms)"],
            &["true", "false"],
        ] {
            let t = of(text);
            assert_eq!(
                (t.header.as_str(), t.cells),
                ("policy.api.timeout", Cells::Text)
            );
            assert_eq!(t.values, text);
            assert_eq!(t.json(text[0]), serde_json::json!(text[0]));
        }
    }
}
