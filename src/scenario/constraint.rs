//! A constraint between the parameters of a grid (`[sweep] constraint`, `tune --constraint`):
//! one comparison of two arithmetic expressions over parameter names, numbers and durations,
//! `attempts * timeout <= 900ms`. A candidate whose values break it is pruned before anything
//! runs (docs/tune.md, "Constraints").
//!
//! Each value carries its power of time, so that `timeout <= 900` (a duration against a bare
//! number) is refused instead of read in some unit: durations are nanoseconds (exact in an
//! f64 up to 104 days, so `3 * 300ms <= 900ms` holds exactly), `attempts * timeout` is a
//! duration, `timeout / base` a number, and both sides of `+`, `-` and the comparison must have
//! the same power.

use super::grid::Param;
use crate::time::parse_duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    /// A number (power 0) or a duration in ns (power 1).
    Literal(f64, i32),
    /// A parameter as written; its index once resolved.
    Name(String),
    Param(usize),
    Neg(Box<Expr>),
    Binary(Box<Expr>, char, Box<Expr>),
}

/// A constraint as written, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    pub text: String,
    left: Expr,
    cmp: Cmp,
    right: Expr,
}

/// A constraint whose names are the grid's parameters, each read as a number or a duration.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub text: String,
    left: Expr,
    cmp: Cmp,
    right: Expr,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(f64, i32),
    Name(String),
    Op(&'static str),
}

/// The tokens of `text`, each with its column (from 1).
fn tokens(text: &str) -> Result<Vec<(Token, usize)>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            let unit_start = i;
            while i < chars.len() && (chars[i].is_alphabetic()) {
                i += 1;
            }
            let unit: String = chars[unit_start..i].iter().collect();
            let token = if unit.is_empty() {
                let v: f64 = number
                    .parse()
                    .map_err(|_| format!("column {col}: `{number}` is not a number"))?;
                Token::Num(v, 0)
            } else {
                let ns = parse_duration(&format!("{number}{unit}"))
                    .map_err(|_| format!("column {col}: `{number}{unit}` is neither a number nor a duration (units ns, us, ms, s, m, h)"))?;
                Token::Num(ns as f64, 1)
            };
            out.push((token, col));
        } else if c.is_alphabetic() || c == '_' {
            // A path may hold `-` (`policy.web-api.timeout`): a minus sign needs a space
            // before it when it follows a name.
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '.'
                    || (chars[i] == '-' && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric())))
            {
                i += 1;
            }
            out.push((Token::Name(chars[start..i].iter().collect()), col));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let op = ["<=", ">=", "==", "!="]
                .into_iter()
                .find(|o| *o == two)
                .or_else(|| {
                    ["<", ">", "+", "-", "*", "/", "(", ")"]
                        .into_iter()
                        .find(|o| o.starts_with(c))
                })
                .ok_or_else(|| {
                    format!("column {col}: `{c}` is not part of a constraint (names, numbers, durations, + - * / ( ), and one of < <= > >= == !=)")
                })?;
            i += op.chars().count();
            out.push((Token::Op(op), col));
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(Token, usize)>,
    at: usize,
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn column(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |(_, c)| *c)
    }

    fn eat(&mut self, op: &str) -> bool {
        let hit = matches!(self.peek(), Some(Token::Op(o)) if *o == op);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut left = self.product()?;
        loop {
            let op = if self.eat("+") {
                '+'
            } else if self.eat("-") {
                '-'
            } else {
                return Ok(left);
            };
            left = Expr::Binary(Box::new(left), op, Box::new(self.product()?));
        }
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat("*") {
                '*'
            } else if self.eat("/") {
                '/'
            } else {
                return Ok(left);
            };
            left = Expr::Binary(Box::new(left), op, Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        let col = self.column();
        match self.peek().cloned() {
            Some(Token::Num(v, power)) => {
                self.at += 1;
                Ok(Expr::Literal(v, power))
            }
            Some(Token::Name(n)) => {
                self.at += 1;
                Ok(Expr::Name(n))
            }
            Some(Token::Op("(")) => {
                self.at += 1;
                let inner = self.sum()?;
                if !self.eat(")") {
                    return Err(format!("column {}: expected `)`", self.column()));
                }
                Ok(inner)
            }
            Some(Token::Op(op)) => Err(format!(
                "column {col}: expected a name, a number or a duration, got `{op}`"
            )),
            None => Err(format!(
                "column {col}: expected a name, a number or a duration at the end"
            )),
        }
    }
}

impl Constraint {
    /// Parses `LEFT OP RIGHT`, OP one of `<`, `<=`, `>`, `>=`, `==`, `!=`.
    pub fn parse(text: &str) -> Result<Constraint, String> {
        let mut p = Parser {
            tokens: tokens(text)?,
            at: 0,
            end: text.chars().count() + 1,
        };
        if p.tokens.is_empty() {
            return Err("is empty: write a comparison like `attempts * timeout <= 900ms`".into());
        }
        let left = p.sum()?;
        let cmp = match p.peek() {
            Some(Token::Op("<")) => Cmp::Lt,
            Some(Token::Op("<=")) => Cmp::Le,
            Some(Token::Op(">")) => Cmp::Gt,
            Some(Token::Op(">=")) => Cmp::Ge,
            Some(Token::Op("==")) => Cmp::Eq,
            Some(Token::Op("!=")) => Cmp::Ne,
            _ => {
                return Err(format!(
                    "column {}: expected one of < <= > >= == != (a constraint is one comparison)",
                    p.column()
                ));
            }
        };
        p.at += 1;
        let right = p.sum()?;
        if p.at < p.tokens.len() {
            return Err(format!(
                "column {}: unexpected text after the comparison",
                p.column()
            ));
        }
        Ok(Constraint {
            text: text.trim().to_string(),
            left,
            cmp,
            right,
        })
    }

    /// Binds each name to the parameter whose path it is, or ends with after a `.`
    /// (`attempts` for `policy.pay.retry.attempts`) when one alone does; checks that each
    /// parameter named takes numbers or durations throughout and that the powers of time
    /// agree.
    pub fn resolve(&self, params: &[Param]) -> Result<Resolved, String> {
        let mut kinds: Vec<Option<i32>> = vec![None; params.len()];
        let left = bind(&self.left, params, &mut kinds)?;
        let right = bind(&self.right, params, &mut kinds)?;
        let (l, r) = (power(&left, &kinds)?, power(&right, &kinds)?);
        if l != r {
            return Err(format!("compares {} with {}", power_name(l), power_name(r)));
        }
        Ok(Resolved {
            text: self.text.clone(),
            left,
            cmp: self.cmp,
            right,
        })
    }
}

impl Resolved {
    /// Whether the values of a point (each parameter's value as TOML text, in the grid's
    /// order) satisfy it. A comparison with an undefined side (0 / 0) does not hold.
    pub fn holds(&self, values: &[String]) -> bool {
        let (l, r) = (eval(&self.left, values), eval(&self.right, values));
        match self.cmp {
            Cmp::Lt => l < r,
            Cmp::Le => l <= r,
            Cmp::Gt => l > r,
            Cmp::Ge => l >= r,
            Cmp::Eq => l == r,
            Cmp::Ne => l != r && !l.is_nan() && !r.is_nan(),
        }
    }
}

/// A parameter's value as a number (power 0) or a duration in ns (power 1).
fn quantity(value: &str) -> Option<(f64, i32)> {
    let v = value.trim().trim_matches('"');
    if let Ok(x) = v.parse::<f64>() {
        return Some((x, 0));
    }
    parse_duration(v).ok().map(|ns| (ns as f64, 1))
}

fn bind(e: &Expr, params: &[Param], kinds: &mut [Option<i32>]) -> Result<Expr, String> {
    Ok(match e {
        Expr::Name(name) => {
            let matches: Vec<usize> = (0..params.len())
                .filter(|&i| {
                    let path = &params[i].path;
                    path == name
                        || path
                            .strip_suffix(name.as_str())
                            .is_some_and(|head| head.ends_with('.'))
                })
                .collect();
            let i = match matches[..] {
                [i] => i,
                [] => {
                    let paths: Vec<&str> = params.iter().map(|p| p.path.as_str()).collect();
                    return Err(format!(
                        "`{name}` is no parameter of the grid{}; its parameters are {} (a name is a path, or its end after a `.`)",
                        crate::error::did_you_mean(name, paths.iter().copied()),
                        paths.join(", ")
                    ));
                }
                _ => {
                    let paths: Vec<&str> =
                        matches.iter().map(|&i| params[i].path.as_str()).collect();
                    return Err(format!(
                        "`{name}` could be any of {}: write more of the path",
                        paths.join(", ")
                    ));
                }
            };
            let p = &params[i];
            let mut kind = None;
            for v in &p.values {
                let Some((_, power)) = quantity(v) else {
                    return Err(format!(
                        "`{}` takes the value {v}, neither a number nor a duration",
                        p.path
                    ));
                };
                if kind.is_some_and(|k| k != power) {
                    return Err(format!("`{}` takes both numbers and durations", p.path));
                }
                kind = Some(power);
            }
            kinds[i] = kind;
            Expr::Param(i)
        }
        Expr::Neg(inner) => Expr::Neg(Box::new(bind(inner, params, kinds)?)),
        Expr::Binary(a, op, b) => Expr::Binary(
            Box::new(bind(a, params, kinds)?),
            *op,
            Box::new(bind(b, params, kinds)?),
        ),
        other => other.clone(),
    })
}

fn power(e: &Expr, kinds: &[Option<i32>]) -> Result<i32, String> {
    Ok(match e {
        Expr::Literal(_, p) => *p,
        Expr::Param(i) => kinds[*i].unwrap_or(0),
        Expr::Name(_) => 0,
        Expr::Neg(inner) => power(inner, kinds)?,
        Expr::Binary(a, op, b) => {
            let (x, y) = (power(a, kinds)?, power(b, kinds)?);
            match op {
                '*' => x + y,
                '/' => x - y,
                _ if x == y => x,
                _ => {
                    return Err(format!(
                        "`{op}` between {} and {}",
                        power_name(x),
                        power_name(y)
                    ));
                }
            }
        }
    })
}

fn power_name(p: i32) -> String {
    match p {
        0 => "a number".into(),
        1 => "a duration".into(),
        p => format!("a duration to the power {p}"),
    }
}

fn eval(e: &Expr, values: &[String]) -> f64 {
    match e {
        Expr::Literal(v, _) => *v,
        Expr::Param(i) => quantity(&values[*i]).map_or(f64::NAN, |(v, _)| v),
        Expr::Name(_) => f64::NAN,
        Expr::Neg(inner) => -eval(inner, values),
        Expr::Binary(a, op, b) => {
            let (x, y) = (eval(a, values), eval(b, values));
            match op {
                '+' => x + y,
                '-' => x - y,
                '*' => x * y,
                _ => x / y,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Vec<Param> {
        vec![
            Param::parse("policy.web-api.retry.attempts=1..5:1").unwrap(),
            Param::parse("policy.web-api.timeout=100ms,300ms").unwrap(),
            Param::parse("client.web.deadline=1s").unwrap(),
        ]
    }

    fn holds(text: &str, values: &[&str]) -> bool {
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        Constraint::parse(text)
            .unwrap()
            .resolve(&params())
            .unwrap()
            .holds(&values)
    }

    #[test]
    fn arithmetic_over_names_numbers_and_durations() {
        let at = ["3", "\"300ms\"", "\"1s\""];
        // 3 × 300 ms = 900 ms exactly, in nanoseconds.
        assert!(holds("attempts * timeout <= 900ms", &at));
        assert!(!holds("attempts * timeout < 900ms", &at));
        assert!(holds("attempts * timeout + 100ms <= deadline", &at));
        assert!(!holds("attempts * timeout + 101ms <= deadline", &at));
        assert!(holds("deadline / timeout > attempts", &at));
        assert!(holds("(attempts - 1) * 2 == 4", &at));
        assert!(holds("-attempts < 0", &at));
        assert!(holds("policy.web-api.retry.attempts != 2", &at));
        assert!(holds("1.5s >= deadline", &at));
        // 0 / 0 is undefined: no comparison with it holds, `!=` neither.
        assert!(!holds("(attempts - 3) / (attempts - 3) != 1", &at));
    }

    #[test]
    fn bad_syntax_names_and_units_are_refused_with_the_column() {
        let parse = |t: &str| Constraint::parse(t).unwrap_err();
        assert!(parse("attempts * timeout").contains("expected one of < <= > >= == !="));
        assert!(parse("attempts <= ").contains("at the end"));
        assert!(parse("attempts <= 3 <= 4").contains("column 15: unexpected text"));
        assert!(parse("attempts ^ 2 < 9").contains("column 10: `^`"));
        assert!(parse("(attempts < 3").contains("expected `)`"));
        assert!(parse("timeout < 9parsecs").contains("neither a number nor a duration"));
        assert!(parse("  ").contains("is empty"));
        let resolve = |t: &str| {
            Constraint::parse(t)
                .unwrap()
                .resolve(&params())
                .unwrap_err()
        };
        assert!(resolve("tries < 3").contains("`tries` is no parameter of the grid"));
        assert!(resolve("timeout <= 900").contains("compares a duration with a number"));
        assert!(resolve("timeout + attempts < 1s").contains("`+` between a duration and a number"));
        let two = vec![
            Param::parse("policy.a.timeout=1ms").unwrap(),
            Param::parse("policy.b.timeout=1ms").unwrap(),
        ];
        let e = Constraint::parse("timeout < 1s")
            .unwrap()
            .resolve(&two)
            .unwrap_err();
        assert!(e.contains("could be any of policy.a.timeout, policy.b.timeout"));
        let words = vec![Param::parse("policy.a.preset=\"fast\",\"slow\"").unwrap()];
        let e = Constraint::parse("preset < 1")
            .unwrap()
            .resolve(&words)
            .unwrap_err();
        assert!(e.contains("neither a number nor a duration"), "{e}");
    }
}
