//! Prometheus's text exposition format (0.0.4, and the OpenMetrics lines it shares) read into
//! samples, each with the line it was written on: `# TYPE` and `# UNIT` lines are kept,
//! `# HELP` and other comments skipped, label values unescaped (`\\`, `\"`, `\n`), an
//! OpenMetrics exemplar (` # {…} v`) after a value dropped. Every malformed line is an error
//! naming file, line and column.

use super::tree::error_at;
use crate::error::Error;

/// One sample line: `name{labels} value [timestamp_ms]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    /// In the order written.
    pub labels: Vec<(String, String)>,
    pub value: f64,
    /// Milliseconds since the epoch, when the line gives one.
    pub timestamp_ms: Option<i64>,
    pub line: usize,
}

impl Sample {
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A `# TYPE` or `# UNIT` line: the family it names, what it says, its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    pub family: String,
    pub value: String,
    pub line: usize,
}

/// A whole file: its samples in order, and what its comments declare.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Exposition {
    pub samples: Vec<Sample>,
    pub types: Vec<Declared>,
    pub units: Vec<Declared>,
}

pub fn parse(file: &str, text: &str) -> Result<Exposition, Error> {
    let mut out = Exposition::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim_start_matches([' ', '\t']);
        if l.trim().is_empty() {
            continue;
        }
        if let Some(comment) = l.strip_prefix('#') {
            let mut words = comment.split_whitespace();
            let (kind, family, value) = (words.next(), words.next(), words.next());
            let list = match kind {
                Some("TYPE") => &mut out.types,
                Some("UNIT") => &mut out.units,
                _ => continue,
            };
            let (Some(family), Some(value)) = (family, value) else {
                return Err(error_at(
                    file,
                    line,
                    1,
                    "",
                    format!("`# {}` needs a metric name and a value", kind.unwrap_or("")),
                ));
            };
            list.push(Declared {
                family: family.to_string(),
                value: value.to_string(),
                line,
            });
            continue;
        }
        out.samples.push(sample(file, line, raw)?);
    }
    Ok(out)
}

/// Reads one sample line.
fn sample(file: &str, line: usize, raw: &str) -> Result<Sample, Error> {
    let chars: Vec<char> = raw.chars().collect();
    let err = |at: usize, field: &str, msg: String| error_at(file, line, at + 1, field, msg);
    let mut at = 0;
    while at < chars.len() && matches!(chars[at], ' ' | '\t') {
        at += 1;
    }
    let start = at;
    while at < chars.len() && (chars[at].is_ascii_alphanumeric() || matches!(chars[at], '_' | ':'))
    {
        at += 1;
    }
    let name: String = chars[start..at].iter().collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(err(
            start,
            "",
            "expected a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)".into(),
        ));
    }
    let mut labels = Vec::new();
    skip_blank(&chars, &mut at);
    if chars.get(at) == Some(&'{') {
        at += 1;
        loop {
            skip_blank(&chars, &mut at);
            if chars.get(at) == Some(&'}') {
                at += 1;
                break;
            }
            let key_at = at;
            while at < chars.len() && (chars[at].is_ascii_alphanumeric() || chars[at] == '_') {
                at += 1;
            }
            let key: String = chars[key_at..at].iter().collect();
            if key.is_empty() {
                return Err(err(at, &name, "expected a label name or `}`".into()));
            }
            skip_blank(&chars, &mut at);
            if chars.get(at) != Some(&'=') {
                return Err(err(at, &format!("{name}.{key}"), "expected `=`".into()));
            }
            at += 1;
            skip_blank(&chars, &mut at);
            if chars.get(at) != Some(&'"') {
                return Err(err(
                    at,
                    &format!("{name}.{key}"),
                    "expected a quoted label value".into(),
                ));
            }
            at += 1;
            let mut value = String::new();
            loop {
                match chars.get(at) {
                    None => {
                        return Err(err(
                            at,
                            &format!("{name}.{key}"),
                            "the label value has no closing `\"`".into(),
                        ));
                    }
                    Some('"') => break,
                    Some('\\') => {
                        match chars.get(at + 1) {
                            Some('\\') => value.push('\\'),
                            Some('"') => value.push('"'),
                            Some('n') => value.push('\n'),
                            other => {
                                return Err(err(
                                    at,
                                    &format!("{name}.{key}"),
                                    format!(
                                        "unknown escape `\\{}` (the format knows \\\\, \\\" and \\n)",
                                        other.map(|c| c.to_string()).unwrap_or_default()
                                    ),
                                ));
                            }
                        }
                        at += 2;
                        continue;
                    }
                    Some(c) => value.push(*c),
                }
                at += 1;
            }
            at += 1;
            if labels.iter().any(|(k, _)| *k == key) {
                return Err(err(
                    key_at,
                    &format!("{name}.{key}"),
                    "a label given twice".into(),
                ));
            }
            labels.push((key, value));
            skip_blank(&chars, &mut at);
            match chars.get(at) {
                Some(',') => at += 1,
                Some('}') => {}
                _ => return Err(err(at, &name, "expected `,` or `}`".into())),
            }
        }
    }
    let rest: String = chars[at..].iter().collect();
    // An OpenMetrics exemplar follows ` # `: not part of the sample.
    let rest = rest.split(" # ").next().unwrap_or("");
    let value_at = at + rest.len() - rest.trim_start().len();
    let mut words = rest.split_whitespace();
    let value_text = words
        .next()
        .ok_or_else(|| err(value_at, &name, "expected a value after the name".into()))?;
    let value = number(value_text).ok_or_else(|| {
        err(
            value_at,
            &name,
            format!("cannot read the value `{value_text}` as a number"),
        )
    })?;
    let timestamp_ms = match words.next() {
        None => None,
        Some(t) => Some(t.parse::<i64>().map_err(|_| {
            err(
                value_at,
                &name,
                format!(
                    "cannot read the timestamp `{t}`: milliseconds since the epoch, a whole number"
                ),
            )
        })?),
    };
    if let Some(extra) = words.next() {
        return Err(err(
            value_at,
            &name,
            format!("unexpected `{extra}` after the value and timestamp"),
        ));
    }
    Ok(Sample {
        name,
        labels,
        value,
        timestamp_ms,
        line,
    })
}

fn skip_blank(chars: &[char], at: &mut usize) {
    while *at < chars.len() && matches!(chars[*at], ' ' | '\t') {
        *at += 1;
    }
}

/// A sample value or `le` bound as Go's `strconv.ParseFloat` reads it, the spellings the
/// format uses included: `+Inf`, `-Inf`, `NaN`.
pub fn number(text: &str) -> Option<f64> {
    match text {
        "+Inf" | "Inf" | "+inf" | "inf" => Some(f64::INFINITY),
        "-Inf" | "-inf" => Some(f64::NEG_INFINITY),
        "NaN" | "nan" => Some(f64::NAN),
        _ => text.parse::<f64>().ok().filter(|v| v.is_finite()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_labels_escapes_timestamps_and_declarations() {
        let text = "# HELP h Latency \\n in seconds.\n# TYPE h histogram\n# UNIT h seconds\n\
            h_bucket{le=\"0.1\",path=\"/a \\\"b\\\" \\\\ c\\nd\"} 3 1700000000000\n\
            \th_bucket { le = \"+Inf\" , path=\"x\", } 5.5e1\n\
            h_count 55 # {trace_id=\"abc\"} 0.07\n\
            up 1\n";
        let e = parse("m.prom", text).unwrap();
        assert_eq!(e.types[0].family, "h");
        assert_eq!(e.types[0].value, "histogram");
        assert_eq!(e.units[0].value, "seconds");
        assert_eq!(e.samples.len(), 4);
        let s = &e.samples[0];
        assert_eq!(s.line, 4);
        assert_eq!(s.label("le"), Some("0.1"));
        assert_eq!(s.label("path"), Some("/a \"b\" \\ c\nd"));
        assert_eq!(s.value, 3.0);
        assert_eq!(s.timestamp_ms, Some(1_700_000_000_000));
        assert_eq!(e.samples[1].label("le"), Some("+Inf"));
        assert_eq!(e.samples[1].value, 55.0);
        assert_eq!(e.samples[2].value, 55.0, "the exemplar is dropped");
        assert_eq!(e.samples[3].name, "up");
    }

    #[test]
    fn malformed_lines_name_line_and_column() {
        let cases = [
            (
                "h_bucket{le=\"0.1\" 3\n",
                "m.prom:1:19: field `h_bucket`: expected `,` or `}`",
            ),
            (
                "\nh_bucket{le=0.1} 3\n",
                "m.prom:2:13: field `h_bucket.le`: expected a quoted label value",
            ),
            (
                "h_count three\n",
                "m.prom:1:9: field `h_count`: cannot read the value `three` as a number",
            ),
            (
                "h_count 3 noon\n",
                "m.prom:1:9: field `h_count`: cannot read the timestamp `noon`",
            ),
            (
                "h{a=\"\\t\"} 1\n",
                "m.prom:1:6: field `h.a`: unknown escape `\\t`",
            ),
            (
                "h{a=\"1\",a=\"2\"} 1\n",
                "m.prom:1:9: field `h.a`: a label given twice",
            ),
            ("9h 1\n", "m.prom:1:1: expected a metric name"),
            (
                "h_count\n",
                "m.prom:1:8: field `h_count`: expected a value after the name",
            ),
        ];
        for (text, want) in cases {
            let e = parse("m.prom", text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn numbers_in_go_spelling() {
        assert_eq!(number("+Inf"), Some(f64::INFINITY));
        assert!(number("NaN").unwrap().is_nan());
        assert_eq!(number("2.5e-3"), Some(0.0025));
        assert_eq!(number("x"), None);
    }
}
