//! A Prometheus alerting rules file (YAML: `groups:` of `name`, `interval`, `rules:` of
//! `alert`, `expr`, `for`, `keep_firing_for`, `labels`, `annotations`; the format of
//! prometheus.io/docs/prometheus/latest/configuration/alerting_rules/ and recording_rules/)
//! into `[[alert]]` tables: each rule whose `expr` maps (`alert_map`) becomes one, the others
//! are listed on stderr with their file, line and reason. Keys Prometheus does not know, and
//! values of the wrong type, are errors naming file, line and field.

use super::alert_map::{Mapped, Recorded, Target, map, prom_duration};
use super::promql::{self, Expr};
use crate::error::Error;
use crate::import::out::{Fragment, Imported, Toml};
use crate::import::read::{Ctx, duration_text, policy_name};
use crate::import::tree::{self, Node, Syntax, Value};

/// What the rules are mapped onto.
pub struct Rules<'a> {
    pub maps: &'a [(String, String)],
    pub series: &'a [Recorded],
    pub bucket_ns: u64,
    /// Prometheus' global `evaluation_interval`, for a group without `interval`.
    pub evaluation_ns: u64,
}

const GROUP_KEYS: [&str; 6] = [
    "name",
    "interval",
    "query_offset",
    "limit",
    "labels",
    "rules",
];
const RULE_KEYS: [&str; 7] = [
    "alert",
    "record",
    "expr",
    "for",
    "keep_firing_for",
    "labels",
    "annotations",
];

/// What the files read so far used: the alert names given (unique across files) and the
/// selectors the rules' expressions name.
#[derive(Default)]
pub struct Seen {
    pub names: Vec<String>,
    pub selectors: Vec<String>,
}

/// Reads the rules file `file` into `out`; the number of alerting rules it holds.
pub fn read_rules(
    file: &str,
    text: &str,
    rules: &Rules,
    out: &mut Imported,
    seen: &mut Seen,
) -> Result<usize, Error> {
    let root = tree::parse(file, text, Syntax::Yaml)?;
    let mut ctx = Ctx::new(file);
    let groups = match &root.value {
        Value::Map(entries) => {
            for (k, _) in entries {
                if k.text != "groups" {
                    return Err(tree::error_at(
                        file,
                        k.line,
                        k.col,
                        &k.text,
                        "unknown key: a rules file holds `groups` alone".into(),
                    ));
                }
            }
            match entries.first() {
                Some((_, g)) => list(&ctx, g, "groups")?,
                None => &[],
            }
        }
        _ => {
            return Err(ctx.error(
                &root,
                "",
                format!("expected a map with `groups`, found {}", root.kind()),
            ));
        }
    };
    let mut count = 0;
    for (gi, g) in groups.iter().enumerate() {
        count += group(&mut ctx, g, &format!("groups[{gi}]"), rules, out, seen)?;
    }
    out.skipped.append(&mut ctx.skipped);
    Ok(count)
}

fn list<'a>(ctx: &Ctx, node: &'a Node, path: &str) -> Result<&'a [Node], Error> {
    match &node.value {
        Value::List(items) => Ok(items),
        Value::Null => Ok(&[]),
        _ => Err(ctx.error(
            node,
            path,
            format!("expected a list, found {}", node.kind()),
        )),
    }
}

/// The entries of map `node`, each key one of `known`.
fn keys<'a>(
    ctx: &Ctx,
    node: &'a Node,
    path: &str,
    known: &[&str],
) -> Result<Vec<(&'a str, &'a Node)>, Error> {
    let Value::Map(entries) = &node.value else {
        return Err(ctx.error(node, path, format!("expected a map, found {}", node.kind())));
    };
    let mut out = Vec::new();
    for (k, v) in entries {
        if !known.contains(&k.text.as_str()) {
            return Err(tree::error_at(
                &ctx.file,
                k.line,
                k.col,
                &format!("{path}.{}", k.text),
                format!("unknown key; Prometheus' are {}", known.join(", ")),
            ));
        }
        out.push((k.text.as_str(), v));
    }
    Ok(out)
}

fn get<'a>(entries: &[(&str, &'a Node)], key: &str) -> Option<&'a Node> {
    entries.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

fn duration(ctx: &Ctx, node: &Node, path: &str) -> Result<u64, Error> {
    let text = ctx.text(node, path)?;
    promql::duration(text).ok_or_else(|| {
        ctx.error(
            node,
            path,
            format!("cannot read \"{text}\" as a Prometheus duration (\"30s\", \"5m\", \"1h30m\")"),
        )
    })
}

/// A map of label names to text (`labels`, `annotations`): its keys.
fn label_map(ctx: &Ctx, node: &Node, path: &str) -> Result<Vec<String>, Error> {
    match &node.value {
        Value::Null => Ok(Vec::new()),
        Value::Map(entries) => {
            for (k, v) in entries {
                if !matches!(
                    v.value,
                    Value::Text(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_)
                ) {
                    return Err(ctx.error(
                        v,
                        &format!("{path}.{}", k.text),
                        format!("expected text, found {}", v.kind()),
                    ));
                }
            }
            Ok(entries.iter().map(|(k, _)| k.text.clone()).collect())
        }
        _ => Err(ctx.error(
            node,
            path,
            format!("expected a map of names to text, found {}", node.kind()),
        )),
    }
}

fn group(
    ctx: &mut Ctx,
    g: &Node,
    path: &str,
    rules: &Rules,
    out: &mut Imported,
    seen: &mut Seen,
) -> Result<usize, Error> {
    let entries = keys(ctx, g, path, &GROUP_KEYS)?;
    let name_node = get(&entries, "name").ok_or_else(|| {
        ctx.error(
            g,
            &format!("{path}.name"),
            "missing: every group has a name",
        )
    })?;
    let name = ctx.text(name_node, &format!("{path}.name"))?.to_string();
    let interval = match get(&entries, "interval") {
        Some(n) => Some((duration(ctx, n, &format!("{path}.interval"))?, n.line)),
        None => None,
    };
    let offset = match get(&entries, "query_offset") {
        Some(n) => duration(ctx, n, &format!("{path}.query_offset"))?,
        None => 0,
    };
    if let Some(n) = get(&entries, "limit") {
        ctx.uint(n, &format!("{path}.limit"))?;
    }
    let group_labels = match get(&entries, "labels") {
        Some(n) => label_map(ctx, n, &format!("{path}.labels"))?,
        None => Vec::new(),
    };
    let empty = Node {
        value: Value::Null,
        line: g.line,
        col: g.col,
    };
    let items = list(
        ctx,
        get(&entries, "rules").unwrap_or(&empty),
        &format!("{path}.rules"),
    )?;
    let every = match interval {
        Some((ns, line)) => (
            ns,
            format!("group `{name}`'s interval ({}:{line})", ctx.file),
        ),
        None => (
            rules.evaluation_ns,
            format!(
                "--evaluation-interval (group `{name}` has no interval; Prometheus' default is 1m)"
            ),
        ),
    };
    let mut count = 0;
    for (ri, r) in items.iter().enumerate() {
        let rpath = format!("{path}.rules[{ri}]");
        let Some(rule) = read_rule(ctx, r, &rpath)? else {
            continue;
        };
        count += 1;
        let mut labels = rule.labels.clone();
        labels.extend(group_labels.iter().cloned());
        let at = format!("{}:{}", ctx.file, r.line);
        let refuse = |why: String| (at.clone(), rule.name.clone(), why);
        let mapped = if offset > 0 {
            Err(refuse(format!(
                "the group's query_offset ({}) evaluates every rule over data that old: cascade reads the last bucket before each evaluation",
                prom_duration(offset)
            )))
        } else if every.0 == 0 || !every.0.is_multiple_of(rules.bucket_ns) {
            Err(refuse(format!(
                "evaluated every {} ({}), not a whole number of the scenario's bucket ({}): cascade evaluates an alert at whole buckets",
                prom_duration(every.0),
                every.1,
                prom_duration(rules.bucket_ns)
            )))
        } else {
            let target = Target {
                maps: rules.maps,
                series: rules.series,
                bucket_ns: rules.bucket_ns,
            };
            promql::parse(&rule.expr)
                .map_err(|e| format!("cannot read the expression: {e}"))
                .and_then(|e: Expr| {
                    e.selectors(&mut seen.selectors);
                    map(&e, &target)
                })
                .map_err(refuse)
        };
        match mapped {
            Ok(m) => {
                let f = fragment(&ctx.file, r.line, &rule, &m, &every, &mut seen.names);
                out.fragments.push(f);
                unrouted(ctx, at, &rule, &labels);
            }
            Err((at, name, why)) => ctx.skip_at(at, &name, why),
        }
    }
    Ok(count)
}

/// A mapped rule's labels (its group's too) and annotations, said on stderr: nothing is
/// dropped silently.
fn unrouted(ctx: &mut Ctx, at: String, rule: &Rule, labels: &[String]) {
    let mut said = Vec::new();
    if !labels.is_empty() {
        said.push(format!("labels ({})", labels.join(", ")));
    }
    if !rule.annotations.is_empty() {
        said.push(format!("annotations ({})", rule.annotations.join(", ")));
    }
    if !said.is_empty() {
        ctx.skip_at(
            at,
            &format!("{}: {}", rule.name, said.join(" and ")),
            "cascade's alerts carry none: they route and describe a page, they do not change when it fires",
        );
    }
}

/// An alerting rule as written.
struct Rule {
    name: String,
    expr: String,
    hold: Option<(u64, usize)>,
    keep: Option<(u64, usize)>,
    labels: Vec<String>,
    annotations: Vec<String>,
}

/// The rule at `r`; a recording rule is noted and gives `None`.
fn read_rule(ctx: &mut Ctx, r: &Node, path: &str) -> Result<Option<Rule>, Error> {
    let entries = keys(ctx, r, path, &RULE_KEYS)?;
    let expr_node = get(&entries, "expr").ok_or_else(|| {
        ctx.error(
            r,
            &format!("{path}.expr"),
            "missing: every rule has an expr",
        )
    })?;
    let expr = match &expr_node.value {
        Value::Text(s) => s.trim().to_string(),
        Value::Int(_) | Value::Float(_) => expr_node.shown(),
        _ => {
            return Err(ctx.error(
                expr_node,
                &format!("{path}.expr"),
                format!("expected a PromQL expression, found {}", expr_node.kind()),
            ));
        }
    };
    match (get(&entries, "alert"), get(&entries, "record")) {
        (Some(_), Some(_)) | (None, None) => Err(ctx.error(
            r,
            path,
            "a rule has exactly one of `alert` (an alerting rule) and `record` (a recording rule)",
        )),
        (None, Some(rec)) => {
            let name = ctx.text(rec, &format!("{path}.record"))?.to_string();
            for key in ["for", "keep_firing_for", "annotations"] {
                if get(&entries, key).is_some() {
                    return Err(ctx.error(
                        r,
                        &format!("{path}.{key}"),
                        "belongs to an alerting rule, not to a recording rule",
                    ));
                }
            }
            ctx.skip(
                r,
                &format!("record: {name}"),
                "a recording rule, not an alert: it makes a series, and an alert over that series maps when --map names it",
            );
            Ok(None)
        }
        (Some(a), None) => {
            let name = ctx.text(a, &format!("{path}.alert"))?.to_string();
            let at = |key: &str| -> Result<Option<(u64, usize)>, Error> {
                match get(&entries, key) {
                    Some(n) => Ok(Some((duration(ctx, n, &format!("{path}.{key}"))?, n.line))),
                    None => Ok(None),
                }
            };
            let (hold, keep) = (at("for")?, at("keep_firing_for")?);
            let labels = match get(&entries, "labels") {
                Some(n) => label_map(ctx, n, &format!("{path}.labels"))?,
                None => Vec::new(),
            };
            let annotations = match get(&entries, "annotations") {
                Some(n) => label_map(ctx, n, &format!("{path}.annotations"))?,
                None => Vec::new(),
            };
            Ok(Some(Rule {
                name,
                expr,
                hold,
                keep,
                labels,
                annotations,
            }))
        }
    }
}

/// The `[[alert]]` table of a mapped rule, its name made valid and unique.
fn fragment(
    file: &str,
    line: usize,
    rule: &Rule,
    m: &Mapped,
    every: &(u64, String),
    names: &mut Vec<String>,
) -> Fragment {
    let base = policy_name(&rule.name);
    let mut name = base.clone();
    let mut n = 2;
    while names.contains(&name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    names.push(name.clone());
    let mut renamed = Vec::new();
    if base != rule.name {
        renamed.push("cascade's names are letters, digits, `-` and `_`".to_string());
    }
    if name != base {
        renamed.push(format!("`{base}` is taken by an earlier rule"));
    }
    let named = if renamed.is_empty() {
        format!("alert: {} ({file}:{line})", rule.name)
    } else {
        format!(
            "alert: {} ({file}:{line}), renamed: {}",
            rule.name,
            renamed.join("; ")
        )
    };
    let mut f = Fragment::new(
        "[[alert]]",
        Some(format!(
            "alert `{}` ({file}:{line}): {}",
            rule.name,
            one_line(&rule.expr)
        )),
    );
    f.set("name", Toml::Str(name), named);
    match m.metrics.as_slice() {
        [one] => f.set("metric", Toml::Str(one.clone()), m.reads.clone()),
        pair => f.set("ratio", Toml::List(pair.to_vec()), m.reads.clone()),
    }
    f.set("op", Toml::Str(m.op.into()), "the rule's comparison");
    f.set("value", Toml::Float(round(m.value)), m.converted.clone());
    f.set("every", Toml::Str(duration_text(every.0)), every.1.clone());
    if let Some((ns, l)) = rule.hold {
        f.set(
            "for",
            Toml::Str(duration_text(ns)),
            format!("for: {} ({file}:{l})", prom_duration(ns)),
        );
    }
    if let Some((ns, l)) = rule.keep {
        f.set(
            "keep_firing_for",
            Toml::Str(duration_text(ns)),
            format!("keep_firing_for: {} ({file}:{l})", prom_duration(ns)),
        );
    }
    f
}

/// A converted value, rid of the float noise a product leaves (`0.1 · 60` is 6.000000000000001).
fn round(v: f64) -> f64 {
    format!("{v:.12e}").parse().unwrap_or(v)
}

/// An expression on one line, for a comment.
fn one_line(expr: &str) -> String {
    expr.split_whitespace().collect::<Vec<_>>().join(" ")
}
