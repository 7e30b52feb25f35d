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
    /// TOML text the importer wrote itself (an inline table such as a distribution).
    Raw(String),
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
            Toml::Raw(text) => text.clone(),
        }
    }
}

/// `s` as a one-line TOML basic string: `"` and `\` escaped, and every control character
/// (`\n`, `\t`, `\r`, `\b`, `\f` by name, the rest as `\uXXXX`), so that it parses back to
/// `s` and the key keeps its one line with its comment. (toml_edit's own writer would print a
/// string holding a newline as a multi-line string, over several lines.)
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` made fit for a TOML comment, which may hold no control character but the tab: each
/// other one is written as Rust escapes it (`\n`, `\r`, `\u{7}`), so a name from the source
/// file prints as it is spelled there and the comment still ends at its own line.
fn comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
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

/// A scenario table other than a policy (`[[service]]`, `[[service.operation]]`,
/// `[[expect]]`), each key with where it came from, under an optional comment line.
#[derive(Debug, Clone, PartialEq)]
pub struct Fragment {
    pub note: Option<String>,
    /// The header as written, brackets included: `[[expect]]`.
    pub header: String,
    pub entries: Vec<Entry>,
}

impl Fragment {
    pub fn new(header: &str, note: Option<String>) -> Fragment {
        Fragment {
            note,
            header: header.to_string(),
            entries: Vec::new(),
        }
    }

    pub fn set(&mut self, key: &str, value: Toml, from: impl Into<String>) {
        self.entries.push(Entry {
            key: key.to_string(),
            value,
            from: from.into(),
        });
    }
}

/// Everything one import produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Imported {
    pub policies: Vec<PolicyOut>,
    /// Tables of the scenario beside the policies, printed after them.
    pub fragments: Vec<Fragment>,
    pub elsewhere: Vec<Elsewhere>,
    /// Comment lines printed last (what the import measured but nothing in a scenario holds
    /// as written: an operation's share of a client's rate).
    pub notes: Vec<String>,
    pub skipped: Vec<Skipped>,
}

impl Imported {
    /// The policies as TOML (`[policy.NAME]` tables, a comment on every line), followed by the
    /// settings that belong elsewhere as commented `--set` arguments.
    pub fn toml(&self, command: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# {}", comment(command));
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
                write_entries(&mut out, entries, usize::MAX);
            }
        }
        for f in &self.fragments {
            out.push('\n');
            if let Some(note) = &f.note {
                let _ = writeln!(out, "# {}", comment(note));
            }
            let _ = writeln!(out, "{}", f.header);
            // A distribution's long line does not push every other comment out of sight.
            write_entries(&mut out, &f.entries, 48);
        }
        if !self.elsewhere.is_empty() {
            let _ = writeln!(
                out,
                "\n# Not part of a policy: give these to `cascade run` (or write them in the scenario),\n# with <CLIENT> the client that calls through this config."
            );
            let width = self
                .elsewhere
                .iter()
                .map(|e| comment(&e.set).chars().count() + 9)
                .max()
                .unwrap_or(0);
            for e in &self.elsewhere {
                let arg = format!("--set '{}'", comment(&e.set));
                let _ = writeln!(out, "#   {arg:width$}  # {}", comment(&e.from));
            }
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for n in &self.notes {
                let _ = writeln!(out, "# {}", comment(n));
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

/// Keys one a line, `key = value`, their comments aligned past the longest line of at most
/// `cap` characters.
fn write_entries(out: &mut String, entries: &[Entry], cap: usize) {
    let width = entries
        .iter()
        .map(|e| e.key.len() + 3 + e.value.text().chars().count())
        .filter(|w| *w <= cap)
        .max()
        .unwrap_or(0);
    for e in entries {
        let line = format!("{} = {}", e.key, e.value.text());
        let _ = writeln!(out, "{line:width$}  # {}", comment(&e.from));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names as a source file may spell them (YAML and JSON keys and strings take escapes).
    const NAMES: [&str; 14] = [
        "plain",
        "new\nline",
        "tab\there",
        "cr\r\nlf",
        "bell\u{7}nul\0del\u{7f}",
        "c1 \u{85}\u{9f}",
        "quote \" and backslash \\",
        "'single' and '''three'''",
        "\"\"\"",
        "trailing backslash \\",
        "unicodé ✓ 日本語 🚀",
        "",
        " # not a comment",
        "key = \"value\"",
    ];

    fn imported() -> Imported {
        let mut p = PolicyOut::new("p");
        for (i, name) in NAMES.iter().enumerate() {
            p.set(
                "",
                &format!("k{i}"),
                Toml::Str(name.to_string()),
                format!("source.{name} (a.yml:{i})"),
            );
        }
        let list = NAMES.iter().map(|s| s.to_string()).collect();
        p.set("retry", "on", Toml::List(list), "source.list\nnext");
        Imported {
            policies: vec![p],
            elsewhere: NAMES
                .iter()
                .map(|name| Elsewhere {
                    set: format!("service.{name}.balancer=random"),
                    from: format!("cluster {name}"),
                })
                .collect(),
            ..Imported::default()
        }
    }

    #[test]
    fn every_string_and_comment_survives_a_parse_by_toml_edit() {
        // Regression: strings escaped only `\` and `"`, and comments nothing, so a newline or a
        // control character in a name gave TOML that does not parse (or parses as other keys).
        let text = imported().toml("cascade import resilience4j dir/a\nb\u{7}.yml");
        let doc: toml_edit::DocumentMut = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
        let top: Vec<&str> = doc.iter().map(|(k, _)| k).collect();
        assert_eq!(top, ["policy"], "{text}");
        let p = doc["policy"]["p"].as_table().expect("[policy.p]");
        // The policy's keys and its `retry` table, nothing a comment let out.
        assert_eq!(p.len(), NAMES.len() + 1, "{text}");
        for (i, name) in NAMES.iter().enumerate() {
            assert_eq!(p[&format!("k{i}")].as_str(), Some(*name), "{text}");
        }
        let on: Vec<&str> = p["retry"]["on"]
            .as_array()
            .expect("an array")
            .iter()
            .map(|v| v.as_str().expect("strings"))
            .collect();
        assert_eq!(on, NAMES, "{text}");
        // Every key keeps one line with its comment, which shows the name as the source spells it.
        for line in text.lines() {
            if !(line.is_empty() || line.starts_with('#') || line.starts_with('[')) {
                assert!(line.contains(" = ") && line.contains("  # "), "{line}");
            }
        }
        assert!(text.starts_with("# cascade import resilience4j dir/a\\nb\\u{7}.yml\n"));
        assert!(text.contains("  # source.new\\nline (a.yml:1)\n"), "{text}");
        assert!(text.contains("  # source.tab\there (a.yml:2)\n"), "{text}");
        assert!(
            text.contains("--set 'service.cr\\r\\nlf.balancer=random'"),
            "{text}"
        );
        assert!(text.contains("# cluster unicodé ✓ 日本語 🚀\n"), "{text}");
    }

    #[test]
    fn plain_strings_print_as_before() {
        assert_eq!(Toml::Str("500ms".into()).text(), "\"500ms\"");
        let kinds = Toml::List(vec!["timeout".into(), "unavailable".into()]);
        assert_eq!(kinds.text(), "[\"timeout\", \"unavailable\"]");
        assert_eq!(Toml::Str("unicodé ✓".into()).text(), "\"unicodé ✓\"");
    }

    #[test]
    fn a_string_escapes_quotes_backslashes_and_control_characters() {
        assert_eq!(quoted("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quoted("\n\t\r\u{8}\u{c}"), r#""\n\t\r\b\f""#);
        assert_eq!(
            quoted("\0\u{7}\u{1b}\u{7f}\u{85}"),
            r#""\u0000\u0007\u001B\u007F\u0085""#
        );
        assert_eq!(quoted("é ✓ 日本語 🚀 '"), "\"é ✓ 日本語 🚀 '\"");
    }

    #[test]
    fn a_comment_escapes_control_characters_but_the_tab() {
        assert_eq!(comment("plain text"), "plain text");
        assert_eq!(
            comment("a\nb\tc\r\u{7}\0\u{7f}\u{85} é ✓"),
            "a\\nb\tc\\r\\u{7}\\u{0}\\u{7f}\\u{85} é ✓"
        );
    }
}
