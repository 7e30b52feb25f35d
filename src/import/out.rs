//! What an import produces: cascade policies whose every key remembers the source key it came
//! from, settings that belong elsewhere in a scenario (as `--set` arguments), and the source
//! keys cascade does not simulate, each with its reason. Printed as TOML that parses as
//! `[policy.NAME]` tables, comments included.

use std::fmt::Write as _;

/// A TOML value of an imported key.
#[derive(Debug, Clone, PartialEq)]
pub enum Toml {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    List(Vec<String>),
}

impl Toml {
    pub fn text(&self) -> String {
        match self {
            Toml::Str(s) => quoted(s),
            Toml::Int(i) => i.to_string(),
            Toml::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
            Toml::Float(f) => f.to_string(),
            Toml::Bool(b) => b.to_string(),
            Toml::List(items) => {
                let items: Vec<String> = items.iter().map(|s| quoted(s)).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One key of a policy, with the source key (and line) it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub value: Toml,
    pub from: String,
}

/// One `[policy.NAME]` and its sub-tables, in the order they were first set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyOut {
    pub name: String,
    /// Sub-table path (`""` for the policy itself, `retry`, `retry.budget`) and its keys.
    pub tables: Vec<(String, Vec<Entry>)>,
}

impl PolicyOut {
    pub fn new(name: &str) -> PolicyOut {
        PolicyOut {
            name: name.to_string(),
            tables: Vec::new(),
        }
    }

    /// Sets `table.key`; a later value replaces an earlier one (an instance over its base).
    pub fn set(&mut self, table: &str, key: &str, value: Toml, from: impl Into<String>) {
        let at = match self.tables.iter().position(|(t, _)| t == table) {
            Some(at) => at,
            None => {
                self.tables.push((table.to_string(), Vec::new()));
                self.tables.len() - 1
            }
        };
        let entries = &mut self.tables[at].1;
        let entry = Entry {
            key: key.to_string(),
            value,
            from: from.into(),
        };
        match entries.iter_mut().find(|e| e.key == key) {
            Some(e) => *e = entry,
            None => entries.push(entry),
        }
    }

    /// Takes `table.key` out, if set.
    pub fn remove(&mut self, table: &str, key: &str) -> Option<Entry> {
        let (_, entries) = self.tables.iter_mut().find(|(t, _)| t == table)?;
        let at = entries.iter().position(|e| e.key == key)?;
        Some(entries.remove(at))
    }

    pub fn get(&self, table: &str, key: &str) -> Option<&Toml> {
        self.tables
            .iter()
            .find(|(t, _)| t == table)
            .and_then(|(_, e)| e.iter().find(|e| e.key == key))
            .map(|e| &e.value)
    }

    pub fn has_table(&self, table: &str) -> bool {
        self.tables.iter().any(|(t, e)| t == table && !e.is_empty())
    }
}

/// A setting that lives outside the policy: a `--set PATH=VALUE` argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Elsewhere {
    pub set: String,
    pub from: String,
}

/// A source key cascade does not simulate, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// `file:line`.
    pub at: String,
    pub key: String,
    pub reason: String,
}

/// Everything one import produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Imported {
    pub policies: Vec<PolicyOut>,
    pub elsewhere: Vec<Elsewhere>,
    pub skipped: Vec<Skipped>,
}

impl Imported {
    /// The policies as TOML (`[policy.NAME]` tables, a comment on every line), followed by the
    /// settings that belong elsewhere as commented `--set` arguments.
    pub fn toml(&self, command: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# {command}");
        let _ = writeln!(
            out,
            "# Each key names the source key (and line) it came from; keys not written keep cascade's defaults."
        );
        for p in &self.policies {
            let _ = writeln!(out, "\n[policy.{}]", p.name);
            let mut tables: Vec<&(String, Vec<Entry>)> = p.tables.iter().collect();
            // The policy's own keys first, under its header; then each sub-table.
            tables.sort_by_key(|(t, _)| !t.is_empty());
            for (table, entries) in tables {
                if entries.is_empty() {
                    continue;
                }
                if !table.is_empty() {
                    let _ = writeln!(out, "\n[policy.{}.{table}]", p.name);
                }
                let width = entries
                    .iter()
                    .map(|e| e.key.len() + 3 + e.value.text().len())
                    .max()
                    .unwrap_or(0);
                for e in entries {
                    let line = format!("{} = {}", e.key, e.value.text());
                    let _ = writeln!(out, "{line:width$}  # {}", e.from);
                }
            }
        }
        if !self.elsewhere.is_empty() {
            let _ = writeln!(
                out,
                "\n# Not part of a policy: give these to `cascade run` (or write them in the scenario),\n# with <CLIENT> the client that calls through this config."
            );
            let width = self
                .elsewhere
                .iter()
                .map(|e| e.set.len() + 9)
                .max()
                .unwrap_or(0);
            for e in &self.elsewhere {
                let arg = format!("--set '{}'", e.set);
                let _ = writeln!(out, "#   {arg:width$}  # {}", e.from);
            }
        }
        out
    }

    /// The skipped source keys, one line each, for stderr.
    pub fn skipped_text(&self) -> String {
        let mut out = String::new();
        for s in &self.skipped {
            let _ = writeln!(out, "{}: not imported: `{}`: {}", s.at, s.key, s.reason);
        }
        out
    }
}
