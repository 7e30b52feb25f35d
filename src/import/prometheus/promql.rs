//! A PromQL expression read into a tree, as far as an alerting rule's `expr` needs to be
//! understood to say what it computes: numbers, selectors (`name{label="v"}`, a range `[5m]`,
//! `offset`, `@`), function calls, aggregations (`sum by (le) (…)`) and binary operators with
//! PromQL's precedence (`or` < `and`/`unless` < comparisons < `+ -` < `* / %` < `^`), their
//! `bool` and vector-matching modifiers kept as written. The grammar is Prometheus'
//! (promql/parser/generated_parser.y); anything else is an error that `alert_map` reports as
//! the reason a rule is not imported.

/// One node of an expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    Sel(Selector),
    /// `name(args…)`.
    Call(String, Vec<Expr>),
    /// `op [by|without (labels)] (args…)`; `by` is `Some((without, labels))`.
    Agg {
        op: String,
        grouping: Option<(bool, Vec<String>)>,
        args: Vec<Expr>,
    },
    /// `lhs op rhs`; `modified` when `bool`, `on`, `ignoring` or `group_*` was written.
    Bin {
        op: String,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        modified: bool,
    },
    /// `-x`.
    Neg(Box<Expr>),
}

impl Expr {
    /// Appends the key of every selector in the expression to `keys`.
    pub fn selectors(&self, keys: &mut Vec<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Sel(s) => keys.push(s.key()),
            Expr::Call(_, args) | Expr::Agg { args, .. } => {
                args.iter().for_each(|a| a.selectors(keys));
            }
            Expr::Bin { lhs, rhs, .. } => {
                lhs.selectors(keys);
                rhs.selectors(keys);
            }
            Expr::Neg(inner) => inner.selectors(keys),
        }
    }
}

/// `name{matchers}[range] offset d`.
#[derive(Debug, Clone, PartialEq)]
pub struct Selector {
    pub name: String,
    /// (label, operator, value), in the order written.
    pub matchers: Vec<(String, String, String)>,
    pub range_ns: Option<u64>,
    /// `offset`, `@` or a subquery `[w:r]` written.
    pub shifted: Option<&'static str>,
}

impl Selector {
    /// The selector's identity, labels sorted: `name{a="1",b=~"2"}`; two selectors that choose
    /// the same series by the same matchers have one key.
    pub fn key(&self) -> String {
        let mut m: Vec<String> = self
            .matchers
            .iter()
            .map(|(l, op, v)| format!("{l}{op}{v:?}"))
            .collect();
        m.sort();
        if m.is_empty() {
            self.name.clone()
        } else {
            format!("{}{{{}}}", self.name, m.join(","))
        }
    }
}

const AGGREGATIONS: [&str; 13] = [
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "group",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
    "limitk",
];

/// Operators by precedence, loosest first; `^` binds right.
const LEVELS: [&[&str]; 5] = [
    &["or"],
    &["and", "unless"],
    &["==", "!=", ">=", "<=", ">", "<"],
    &["+", "-"],
    &["*", "/", "%", "atan2"],
];

/// Reads `text` as one PromQL expression.
pub fn parse(text: &str) -> Result<Expr, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
        depth: 0,
        operators: 0,
    };
    let e = p.expr(0)?;
    p.blank();
    if p.at < p.s.len() {
        return Err(format!("unexpected `{}`", p.rest_word()));
    }
    Ok(e)
}

/// A Prometheus duration: units `ms`, `s`, `m`, `h`, `d`, `w`, `y` (365 days), largest first
/// and each at most once (`1h30m`), in nanoseconds.
pub fn duration(text: &str) -> Option<u64> {
    const UNITS: [(&str, u64); 7] = [
        ("y", 365 * 86_400_000),
        ("w", 7 * 86_400_000),
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
        ("ms", 1),
    ];
    if text == "0" {
        return Some(0);
    }
    if text.is_empty() {
        return None;
    }
    let mut rest = text;
    let mut ms: u64 = 0;
    let mut next = 0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = if rest.starts_with("ms") {
            2
        } else {
            rest.chars().next().map_or(0, char::len_utf8)
        };
        let unit = &rest[..unit_len];
        let at = UNITS[next..].iter().position(|(u, _)| *u == unit)? + next;
        ms = ms.checked_add(n.checked_mul(UNITS[at].1)?)?;
        next = at + 1;
        rest = &rest[unit_len..];
    }
    ms.checked_mul(1_000_000)
}

/// How deep parentheses, calls and operators may nest: a bound on the parser's recursion.
const MAX_DEPTH: usize = 200;
/// How many binary operators one expression may hold: a bound on the tree's depth (a chain
/// `a + a + …` nests to the left), which dropping and walking it recurse through.
const MAX_OPERATORS: usize = 1000;

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    depth: usize,
    operators: usize,
}

impl Parser<'_> {
    fn blank(&mut self) {
        while self.at < self.s.len() {
            match self.s[self.at] {
                b' ' | b'\t' | b'\n' | b'\r' => self.at += 1,
                b'#' => {
                    while self.at < self.s.len() && self.s[self.at] != b'\n' {
                        self.at += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.blank();
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, token: &str) -> bool {
        self.blank();
        if self.s[self.at..].starts_with(token.as_bytes()) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        if self.eat(token) {
            Ok(())
        } else if self.at >= self.s.len() {
            Err(format!("expected `{token}`, found the end"))
        } else {
            Err(format!("expected `{token}`, found `{}`", self.rest_word()))
        }
    }

    fn rest_word(&self) -> String {
        let rest = String::from_utf8_lossy(&self.s[self.at..]);
        rest.chars().take(12).collect()
    }

    /// An identifier (metric names may hold `:`), or `None` without consuming anything.
    fn ident(&mut self) -> Option<String> {
        self.blank();
        let start = self.at;
        while self.at < self.s.len() {
            let c = self.s[self.at];
            let ok = c.is_ascii_alphabetic()
                || c == b'_'
                || c == b':'
                || (self.at > start && c.is_ascii_digit());
            if !ok {
                break;
            }
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
    }

    /// The operator at the cursor among `ops` (a word operator only as a whole word).
    fn operator(&mut self, ops: &[&str]) -> Option<String> {
        self.blank();
        for op in ops {
            if self.s[self.at..].starts_with(op.as_bytes()) {
                let end = self.at + op.len();
                let word = op.as_bytes()[0].is_ascii_alphabetic();
                let boundary = self
                    .s
                    .get(end)
                    .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
                // `<` is not the start of `<=` and so on: longer operators come first in LEVELS.
                if !word || boundary {
                    self.at = end;
                    return Some(op.to_string());
                }
            }
        }
        None
    }

    fn expr(&mut self, level: usize) -> Result<Expr, String> {
        if level == 0 {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(format!("nested more than {MAX_DEPTH} deep"));
            }
            let e = self.level(0);
            self.depth -= 1;
            return e;
        }
        self.level(level)
    }

    fn level(&mut self, level: usize) -> Result<Expr, String> {
        if level == LEVELS.len() {
            return self.power();
        }
        let mut lhs = self.expr(level + 1)?;
        while let Some(op) = self.operator(LEVELS[level]) {
            self.counted()?;
            let modified = self.modifiers()?;
            let rhs = self.expr(level + 1)?;
            lhs = Expr::Bin {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
                modified,
            };
        }
        Ok(lhs)
    }

    fn power(&mut self) -> Result<Expr, String> {
        let base = self.unary()?;
        if self.eat("^") {
            self.counted()?;
            let modified = self.modifiers()?;
            let exp = self.power()?;
            return Ok(Expr::Bin {
                op: "^".into(),
                lhs: Box::new(base),
                rhs: Box::new(exp),
                modified,
            });
        }
        Ok(base)
    }

    fn counted(&mut self) -> Result<(), String> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            return Err(format!("more than {MAX_OPERATORS} operators"));
        }
        Ok(())
    }

    /// `bool`, `on (…)`, `ignoring (…)`, `group_left (…)`, `group_right (…)`: read, and said.
    fn modifiers(&mut self) -> Result<bool, String> {
        let mut any = false;
        loop {
            let save = self.at;
            match self.ident().as_deref() {
                Some("bool") => any = true,
                Some("on" | "ignoring" | "group_left" | "group_right") => {
                    any = true;
                    if self.peek() == Some(b'(') {
                        self.labels()?;
                    }
                }
                _ => {
                    self.at = save;
                    return Ok(any);
                }
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep"));
        }
        let e = self.unary_inner();
        self.depth -= 1;
        e
    }

    fn unary_inner(&mut self) -> Result<Expr, String> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.eat("+") {
            return self.unary();
        }
        let e = self.primary()?;
        self.postfix(e)
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.peek() {
            None => Err("the expression ends too early".into()),
            Some(b'(') => {
                self.at += 1;
                let e = self.expr(0)?;
                self.expect(")")?;
                Ok(e)
            }
            Some(b'{') => self.selector(String::new()),
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(_) => {
                let Some(name) = self.ident() else {
                    return Err(format!("unexpected `{}`", self.rest_word()));
                };
                let lower = name.to_ascii_lowercase();
                if lower == "inf" || lower == "nan" {
                    return Ok(Expr::Num(if lower == "inf" {
                        f64::INFINITY
                    } else {
                        f64::NAN
                    }));
                }
                if AGGREGATIONS.contains(&name.as_str()) {
                    return self.aggregation(name);
                }
                if self.peek() == Some(b'(') {
                    self.at += 1;
                    let args = self.args()?;
                    return Ok(Expr::Call(name, args));
                }
                self.selector(name)
            }
        }
    }

    fn args(&mut self) -> Result<Vec<Expr>, String> {
        let mut args = Vec::new();
        if self.eat(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr(0)?);
            if self.eat(")") {
                return Ok(args);
            }
            self.expect(",")?;
        }
    }

    fn aggregation(&mut self, op: String) -> Result<Expr, String> {
        let mut grouping = self.grouping()?;
        self.expect("(")?;
        let args = self.args()?;
        if grouping.is_none() {
            grouping = self.grouping()?;
        }
        Ok(Expr::Agg { op, grouping, args })
    }

    fn grouping(&mut self) -> Result<Option<(bool, Vec<String>)>, String> {
        let save = self.at;
        match self.ident().as_deref() {
            Some(w @ ("by" | "without")) => {
                let without = w == "without";
                Ok(Some((without, self.labels()?)))
            }
            _ => {
                self.at = save;
                Ok(None)
            }
        }
    }

    fn labels(&mut self) -> Result<Vec<String>, String> {
        self.expect("(")?;
        let mut out = Vec::new();
        loop {
            if self.eat(")") {
                return Ok(out);
            }
            out.push(self.ident().ok_or("expected a label name")?);
            if !self.eat(",") {
                self.expect(")")?;
                return Ok(out);
            }
        }
    }

    fn number(&mut self) -> Result<Expr, String> {
        let start = self.at;
        while self.at < self.s.len()
            && (self.s[self.at].is_ascii_alphanumeric()
                || self.s[self.at] == b'.'
                || ((self.s[self.at] == b'+' || self.s[self.at] == b'-')
                    && matches!(self.s[self.at - 1], b'e' | b'E')))
        {
            self.at += 1;
        }
        let text = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
        if let Some(hex) = text.strip_prefix("0x") {
            return i64::from_str_radix(hex, 16)
                .map(|n| Expr::Num(n as f64))
                .map_err(|_| format!("cannot read the number `{text}`"));
        }
        if let Ok(n) = text.parse::<f64>() {
            return Ok(Expr::Num(n));
        }
        // A number literal may be a duration (`5m`), which PromQL reads as seconds.
        duration(&text)
            .map(|ns| Expr::Num(ns as f64 / 1e9))
            .ok_or_else(|| format!("cannot read the number `{text}`"))
    }

    fn selector(&mut self, name: String) -> Result<Expr, String> {
        let mut sel = Selector {
            name,
            matchers: Vec::new(),
            range_ns: None,
            shifted: None,
        };
        if self.eat("{") {
            loop {
                if self.eat("}") {
                    break;
                }
                let label = self.ident().ok_or("expected a label name in `{…}`")?;
                let op = self
                    .operator(&["=~", "!~", "!=", "="])
                    .ok_or_else(|| format!("expected `=`, `!=`, `=~` or `!~` after `{label}`"))?;
                let value = self.string()?;
                if label == "__name__" && op == "=" && sel.name.is_empty() {
                    sel.name = value;
                } else {
                    sel.matchers.push((label, op, value));
                }
                if !self.eat(",") {
                    self.expect("}")?;
                    break;
                }
            }
        }
        if sel.name.is_empty() && sel.matchers.is_empty() {
            return Err("a selector needs a metric name or a label matcher".into());
        }
        if self.eat("[") {
            let start = self.at;
            while self.at < self.s.len() && !matches!(self.s[self.at], b']' | b':') {
                self.at += 1;
            }
            let text = String::from_utf8_lossy(&self.s[start..self.at])
                .trim()
                .to_string();
            let ns = duration(&text).ok_or_else(|| format!("cannot read the range `[{text}]`"))?;
            if self.eat(":") {
                while self.at < self.s.len() && self.s[self.at] != b']' {
                    self.at += 1;
                }
                sel.shifted = Some("a subquery `[range:resolution]`");
            }
            self.expect("]")?;
            sel.range_ns = Some(ns);
        }
        Ok(Expr::Sel(sel))
    }

    /// `offset d` and `@ t` after a selector or subquery.
    fn postfix(&mut self, mut e: Expr) -> Result<Expr, String> {
        loop {
            let save = self.at;
            let what = if self.ident().as_deref() == Some("offset") {
                self.eat("-");
                let start = self.at;
                while self.at < self.s.len() && self.s[self.at].is_ascii_alphanumeric() {
                    self.at += 1;
                }
                let text = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
                duration(&text).ok_or_else(|| format!("cannot read the offset `{text}`"))?;
                "`offset`"
            } else {
                self.at = save;
                if !self.eat("@") {
                    return Ok(e);
                }
                self.unary()?;
                "`@`"
            };
            match &mut e {
                Expr::Sel(s) => s.shifted = Some(what),
                _ => return Err(format!("{what} applies to a selector")),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.peek().ok_or("expected a quoted label value")?;
        if !matches!(quote, b'"' | b'\'' | b'`') {
            return Err(format!(
                "expected a quoted label value, found `{}`",
                self.rest_word()
            ));
        }
        self.at += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.at) {
            self.at += 1;
            if c == quote {
                return Ok(String::from_utf8_lossy(&out).into_owned());
            }
            if c == b'\\' && quote != b'`' {
                let Some(&n) = self.s.get(self.at) else { break };
                self.at += 1;
                out.push(match n {
                    b'n' => b'\n',
                    b't' => b'\t',
                    other => other,
                });
            } else {
                out.push(c);
            }
        }
        Err("a label value's quote is not closed".into())
    }
}

#[cfg(test)]
mod tests;
