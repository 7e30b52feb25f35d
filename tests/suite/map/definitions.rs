//! What a Rust file defines (the module doc's **Defined**): its items at any depth, fields,
//! variants, methods and associated items, read from its tokens.

use super::lexer::rust_tokens;
use super::spans::is_ident;
use std::collections::BTreeSet;

#[derive(Debug, Default)]
pub(super) struct Defs {
    /// Items, fields, variants, methods and associated items, by their own name.
    names: BTreeSet<String>,
    /// `Type::member` for fields, variants, methods and associated items.
    qualified: BTreeSet<String>,
    /// The file's module path, its crate first (`cascade_policy::limit`).
    module: Vec<String>,
}

impl Defs {
    pub(super) fn defines(&self, name: &str) -> bool {
        let segments: Vec<&str> = name.split("::").collect();
        let n = segments.len();
        if n == 1 {
            return self.names.contains(name);
        }
        let module_ends_with = |path: &[&str]| {
            path.len() <= self.module.len()
                && self.module[self.module.len() - path.len()..]
                    .iter()
                    .zip(path)
                    .all(|(a, b)| a == b)
        };
        let member = segments[n - 2..].join("::");
        (self.qualified.contains(&member) && module_ends_with(&segments[..n - 2]))
            || (module_ends_with(&segments[..n - 1]) && self.names.contains(segments[n - 1]))
    }

    /// A member of `ty`: a field, variant, method or associated item.
    fn member(&mut self, ty: &str, name: &str) {
        self.names.insert(name.to_string());
        self.qualified.insert(format!("{ty}::{name}"));
    }
}

#[derive(Clone, Debug)]
enum Scope {
    Struct(String),
    Enum(String),
    Impl(String),
    Trait(String),
    Other,
}

/// How a header's token `k` changes the depth of its angle brackets (`->` is none).
fn angle_step(header: &[String], k: usize) -> i32 {
    match header[k].as_str() {
        "<" => 1,
        ">" if k > 0 && header[k - 1] == "-" => 0,
        ">" => -1,
        _ => 0,
    }
}

/// The type an `impl` header (the tokens between `impl` and its `{`) is for.
fn impl_type(header: &[String]) -> Option<String> {
    let mut start = 0;
    // Skip the generics right after `impl`.
    if header.first().is_some_and(|t| t == "<") {
        let mut angle = 0;
        for k in 0..header.len() {
            let step = angle_step(header, k);
            angle += step;
            if step < 0 && angle == 0 {
                start = k + 1;
                break;
            }
        }
    }
    let mut angle = 0;
    let mut after_for = None;
    for (k, t) in header.iter().enumerate().skip(start) {
        angle += angle_step(header, k);
        match t.as_str() {
            "for" if angle == 0 => after_for = Some(k + 1),
            "where" if angle == 0 => break,
            _ => {}
        }
    }
    let from = after_for.unwrap_or(start);
    let mut name = None;
    for t in &header[from..] {
        match t.as_str() {
            "<" | "where" => break,
            "&" | "::" | "mut" | "dyn" => {}
            t if is_ident(t) => name = Some(t.to_string()),
            _ => break,
        }
    }
    name
}

pub(super) fn definitions(source: &str, module: Vec<String>) -> Defs {
    let toks = rust_tokens(source);
    let mut defs = Defs {
        module,
        ..Defs::default()
    };
    let t = |k: usize| toks.get(k).map(String::as_str).unwrap_or("");
    // Each open brace: what it opened, the bracket depth inside it, whether an item may start.
    let mut stack: Vec<(Scope, i32, bool)> = vec![(Scope::Other, 0, true)];
    let mut depth = 0i32;
    let mut pending: Option<Scope> = None;
    let mut i = 0;
    while i < toks.len() {
        let word = t(i);
        let (scope, scope_depth, item_start) = stack.last().cloned().unwrap();
        let direct = depth == scope_depth;
        let mut starts_item = false;
        match word {
            "#" if t(i + 1) == "[" || (t(i + 1) == "!" && t(i + 2) == "[") => {
                // An attribute: skipped whole, an item may still start after it.
                let mut k = i + if t(i + 1) == "!" { 2 } else { 1 };
                let mut d = 0;
                while k < toks.len() {
                    match t(k) {
                        "[" => d += 1,
                        "]" => {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    k += 1;
                }
                i = k + 1;
                continue;
            }
            "pub" => {
                // Visibility, `pub(crate)` too: an item may still start after it.
                i += 1;
                if t(i) == "(" {
                    while i < toks.len() && t(i) != ")" {
                        i += 1;
                    }
                    i += 1;
                }
                continue;
            }
            "{" => {
                stack.push((pending.take().unwrap_or(Scope::Other), depth, true));
                i += 1;
                continue;
            }
            "}" => {
                if stack.len() > 1 {
                    stack.pop();
                }
                pending = None;
                i += 1;
                continue;
            }
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            ";" if direct => pending = None,
            "," if direct => starts_item = true,
            "fn" | "mod" | "static" | "type" | "const" if is_ident(t(i + 1)) => {
                let mut name = t(i + 1);
                if word == "static" && name == "mut" {
                    name = t(i + 2);
                }
                if !(word == "const" && matches!(name, "fn" | "unsafe" | "async" | "_")) {
                    match &scope {
                        Scope::Impl(ty) | Scope::Trait(ty) => defs.member(ty, name),
                        _ => {
                            defs.names.insert(name.to_string());
                        }
                    }
                }
            }
            "struct" | "enum" | "union" | "trait" if is_ident(t(i + 1)) => {
                let name = t(i + 1).to_string();
                defs.names.insert(name.clone());
                pending = Some(match word {
                    "enum" => Scope::Enum(name),
                    "trait" => Scope::Trait(name),
                    _ => Scope::Struct(name),
                });
                i += 2;
                continue;
            }
            "macro_rules" if t(i + 1) == "!" => {
                defs.names.insert(t(i + 2).to_string());
            }
            "impl"
                if i == 0 || matches!(t(i - 1), "}" | ";" | "{" | "]" | "unsafe" | "default") =>
            {
                let mut k = i + 1;
                let mut d = 0;
                while k < toks.len() && !(d == 0 && matches!(t(k), "{" | ";")) {
                    match t(k) {
                        "(" | "[" => d += 1,
                        ")" | "]" => d -= 1,
                        _ => {}
                    }
                    k += 1;
                }
                if let Some(ty) = impl_type(&toks[i + 1..k]) {
                    pending = Some(Scope::Impl(ty));
                }
            }
            w if is_ident(w) && direct && item_start => match &scope {
                Scope::Struct(ty) if t(i + 1) == ":" => defs.member(ty, w),
                Scope::Enum(ty) => {
                    defs.member(ty, w);
                    if t(i + 1) == "{" {
                        pending = Some(Scope::Struct(w.to_string()));
                    }
                }
                _ => {}
            },
            _ => {}
        }
        if let (true, Some(top)) = (direct, stack.last_mut()) {
            top.2 = starts_item;
        }
        i += 1;
    }
    defs
}
