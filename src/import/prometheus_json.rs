//! The JSON the Prometheus HTTP API answers a query with (`/api/v1/query`): an instant
//! vector, read through the import tree so every error names its line. Each element is one of
//! * a sample of a classic histogram (`x_bucket` with `le`, `x_sum`, `x_count`: counters since
//!   the process started, as a plain selector returns them);
//! * a bucket without a metric name (the output of `rate(x_bucket[5m])`, a function dropping
//!   the name): per-second rates;
//! * a native histogram (`histogram`: `count`, `sum` and `buckets` of
//!   `[boundary_rule, lower, upper, count]`), with a name (counters) or without (a rate);
//! * a value without a name or `le` (the output of `histogram_quantile`): a quantile, which
//!   the JSON does not name, so it is taken from a `quantile` label or `--quantile`.
//!
//! A range query's matrix, a scalar or a string is refused.

use super::prometheus_hist::Bucket;
use super::prometheus_text::{Sample, number};
use super::tree::{self, Node, Syntax, Value};
use crate::error::Error;

/// A native histogram's sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Native {
    pub name: Option<String>,
    pub labels: Vec<(String, String)>,
    pub timestamp_ms: Option<i64>,
    pub sum: f64,
    pub buckets: Vec<Bucket>,
    pub line: usize,
}

/// What one answer holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    /// Named samples (classic histograms' buckets, sums and counts, and any other metric).
    pub samples: Vec<Sample>,
    /// Nameless buckets: a `rate()` of buckets.
    pub rates: Vec<Sample>,
    pub natives: Vec<Native>,
    /// Nameless values without `le`: `histogram_quantile` results, each sample's `le`-free
    /// labels and value (its quantile label, if any, kept among the labels).
    pub quantiles: Vec<Sample>,
}

pub fn parse(file: &str, text: &str) -> Result<Answer, Error> {
    let root = tree::parse(file, text, Syntax::Json)?;
    let err = |n: &Node, key: &str, msg: String| tree::error_at(file, n.line, n.col, key, msg);
    // The whole response, or its `data`.
    let data = get(&root, "data").unwrap_or(&root);
    if let Some(status) = get(&root, "status")
        && status.value != Value::Text("success".into())
    {
        return Err(err(
            status,
            "status",
            format!("the query failed ({}): nothing to import", status.shown()),
        ));
    }
    let kind = get(data, "resultType").ok_or_else(|| {
        err(
            data,
            "data.resultType",
            "expected a query response: `{\"status\": \"success\", \"data\": {\"resultType\": \"vector\", \"result\": [...]}}`".into(),
        )
    })?;
    if kind.value != Value::Text("vector".into()) {
        return Err(err(
            kind,
            "data.resultType",
            format!(
                "{}: give an instant query's vector (a range query's matrix holds a series of points, not one reading)",
                kind.shown()
            ),
        ));
    }
    let result = get(data, "result")
        .ok_or_else(|| err(data, "data.result", "missing: the vector's samples".into()))?;
    let Value::List(items) = &result.value else {
        return Err(err(
            result,
            "data.result",
            format!("expected a list, found {}", result.kind()),
        ));
    };
    let mut answer = Answer::default();
    for (i, item) in items.iter().enumerate() {
        let at = format!("data.result.{i}");
        let metric = get(item, "metric").ok_or_else(|| {
            err(
                item,
                &format!("{at}.metric"),
                "missing: the sample's labels".into(),
            )
        })?;
        let mut name = None;
        let mut labels = Vec::new();
        for (k, v) in metric.entries() {
            let Value::Text(text) = &v.value else {
                return Err(err(
                    v,
                    &format!("{at}.metric.{}", k.text),
                    format!("a label value is text, found {}", v.kind()),
                ));
            };
            if k.text == "__name__" {
                name = Some(text.clone());
            } else {
                labels.push((k.text.clone(), text.clone()));
            }
        }
        if let Some(h) = get(item, "histogram") {
            let (timestamp_ms, body) = pair(file, h, &format!("{at}.histogram"))?;
            answer.natives.push(native(
                file,
                body,
                &at,
                name,
                labels,
                timestamp_ms,
                item.line,
            )?);
            continue;
        }
        let value = get(item, "value").ok_or_else(|| {
            err(
                item,
                &format!("{at}.value"),
                "missing: an instant sample has `value` (or `histogram`)".into(),
            )
        })?;
        let (timestamp_ms, v) = pair(file, value, &format!("{at}.value"))?;
        let value = text_number(file, v, &format!("{at}.value.1"))?;
        let has_le = labels.iter().any(|(k, _)| k == "le");
        let sample = Sample {
            name: name.clone().unwrap_or_default(),
            labels,
            value,
            timestamp_ms,
            line: item.line,
        };
        match (name, has_le) {
            (Some(_), _) => answer.samples.push(sample),
            (None, true) => answer.rates.push(sample),
            (None, false) => answer.quantiles.push(sample),
        }
    }
    Ok(answer)
}

fn get<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    node.entries()
        .iter()
        .find(|(k, _)| k.text == key)
        .map(|(_, v)| v)
}

/// `[unix_seconds, X]`: the timestamp in milliseconds, and X.
fn pair<'a>(file: &str, node: &'a Node, key: &str) -> Result<(Option<i64>, &'a Node), Error> {
    match &node.value {
        Value::List(two) if two.len() == 2 => {
            let ts = match &two[0].value {
                Value::Int(s) => *s as f64,
                Value::Float(s) => *s,
                _ => {
                    return Err(tree::error_at(
                        file,
                        two[0].line,
                        two[0].col,
                        &format!("{key}.0"),
                        format!("expected a Unix time in seconds, found {}", two[0].shown()),
                    ));
                }
            };
            Ok((Some((ts * 1000.0).round() as i64), &two[1]))
        }
        _ => Err(tree::error_at(
            file,
            node.line,
            node.col,
            key,
            format!("expected [time, value], found {}", node.shown()),
        )),
    }
}

/// A number the API writes as text (`"0.25"`, `"+Inf"`, `"NaN"`).
fn text_number(file: &str, node: &Node, key: &str) -> Result<f64, Error> {
    let bad = || {
        tree::error_at(
            file,
            node.line,
            node.col,
            key,
            format!(
                "expected a number as text (\"0.25\"), found {}",
                node.shown()
            ),
        )
    };
    match &node.value {
        Value::Text(t) => number(t).ok_or_else(bad),
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        _ => Err(bad()),
    }
}

fn native(
    file: &str,
    body: &Node,
    at: &str,
    name: Option<String>,
    labels: Vec<(String, String)>,
    timestamp_ms: Option<i64>,
    line: usize,
) -> Result<Native, Error> {
    let key = format!("{at}.histogram.1");
    let field = |k: &str| {
        get(body, k).ok_or_else(|| {
            tree::error_at(
                file,
                body.line,
                body.col,
                &format!("{key}.{k}"),
                "missing".into(),
            )
        })
    };
    let sum = text_number(file, field("sum")?, &format!("{key}.sum"))?;
    let count = text_number(file, field("count")?, &format!("{key}.count"))?;
    let mut buckets = Vec::new();
    if let Some(list) = get(body, "buckets") {
        let Value::List(items) = &list.value else {
            return Err(tree::error_at(
                file,
                list.line,
                list.col,
                &format!("{key}.buckets"),
                format!("expected a list, found {}", list.kind()),
            ));
        };
        for (j, b) in items.iter().enumerate() {
            let bkey = format!("{key}.buckets.{j}");
            let bad = |msg: String| tree::error_at(file, b.line, b.col, &bkey, msg);
            let Value::List(four) = &b.value else {
                return Err(bad(format!(
                    "expected [boundary_rule, lower, upper, count], found {}",
                    b.shown()
                )));
            };
            if four.len() != 4 {
                return Err(bad(format!(
                    "expected [boundary_rule, lower, upper, count], found {} items",
                    four.len()
                )));
            }
            let lo = text_number(file, &four[1], &format!("{bkey}.1"))?;
            let hi = text_number(file, &four[2], &format!("{bkey}.2"))?;
            let n = text_number(file, &four[3], &format!("{bkey}.3"))?;
            if !(lo.is_finite() && hi.is_finite() && lo < hi) || n.is_nan() || n < 0.0 {
                return Err(bad(format!(
                    "a bucket from {lo} to {hi} holding {n}: bounds must be finite and increase, the count at least 0"
                )));
            }
            if hi <= 0.0 && n > 0.0 {
                return Err(bad(format!(
                    "{n} observations at or below 0 ({lo} to {hi}): a latency is not negative"
                )));
            }
            if hi <= 0.0 {
                continue;
            }
            // The zero bucket straddles 0; a latency in it is at least 0.
            buckets.push(Bucket {
                lo: lo.max(0.0),
                hi,
                count: n,
            });
        }
    }
    buckets.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    if let Some(w) = buckets.windows(2).find(|w| w[1].lo < w[0].hi) {
        return Err(tree::error_at(
            file,
            body.line,
            body.col,
            &format!("{key}.buckets"),
            format!(
                "buckets overlap: ({}, {}] and ({}, {}]",
                w[0].lo, w[0].hi, w[1].lo, w[1].hi
            ),
        ));
    }
    let total: f64 = buckets.iter().map(|b| b.count).sum();
    if (total - count).abs() > 1e-9 * count.max(1.0) {
        return Err(tree::error_at(
            file,
            body.line,
            body.col,
            &format!("{key}.count"),
            format!("the count is {count} but the buckets hold {total}"),
        ));
    }
    Ok(Native {
        name,
        labels,
        timestamp_ms,
        sum,
        buckets,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTOR: &str = r#"{"status":"success","data":{"resultType":"vector","result":[
  {"metric":{"__name__":"h_bucket","le":"0.1","route":"/a"},"value":[1700000000.5,"3"]},
  {"metric":{"le":"+Inf","route":"/a"},"value":[1700000000,"0.25"]},
  {"metric":{"route":"/a","quantile":"0.99"},"value":[1700000000,"0.3"]},
  {"metric":{"route":"/b"},"histogram":[1700000000,{"count":"5","sum":"0.6",
     "buckets":[[3,"-0.001","0.001","1"],[0,"0.125","0.25","4"]]}]}
]}}"#;

    #[test]
    fn each_kind_of_sample() {
        let a = parse("q.json", VECTOR).unwrap();
        assert_eq!(a.samples.len(), 1);
        assert_eq!(a.samples[0].name, "h_bucket");
        assert_eq!(a.samples[0].timestamp_ms, Some(1_700_000_000_500));
        assert_eq!(a.samples[0].line, 2);
        assert_eq!(a.rates[0].value, 0.25);
        assert_eq!(a.quantiles[0].label("quantile"), Some("0.99"));
        let n = &a.natives[0];
        assert_eq!(n.name, None);
        assert_eq!(
            n.buckets,
            vec![
                Bucket {
                    lo: 0.0,
                    hi: 0.001,
                    count: 1.0
                },
                Bucket {
                    lo: 0.125,
                    hi: 0.25,
                    count: 4.0
                }
            ]
        );
        assert_eq!(n.sum, 0.6);
    }

    #[test]
    fn refusals_name_the_field() {
        let matrix = r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#;
        let e = parse("q.json", matrix).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "q.json:1:42: field `data.resultType`: \"matrix\": give an instant query's vector"
            ),
            "{e}"
        );
        let bad = VECTOR.replace("\"0.25\"", "\"fast\"");
        let e = parse("q.json", &bad).unwrap_err().to_string();
        assert!(e.starts_with("q.json:3:"), "{e}");
        assert!(
            e.contains("field `data.result.1.value.1`: expected a number as text"),
            "{e}"
        );
        let bad = VECTOR.replace("\"count\":\"5\"", "\"count\":\"6\"");
        let e = parse("q.json", &bad).unwrap_err().to_string();
        assert!(e.contains("the count is 6 but the buckets hold 5"), "{e}");
    }
}
