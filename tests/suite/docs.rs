//! The outputs README.md and docs/ quote are produced, not typed: each quoted block carries a
//! marker naming the command that prints it, and this test runs the command and compares.
//!
//! A marker is an HTML comment on the line before the fenced block:
//!
//! ```text
//! <!-- output: cascade run scenarios/quickstart.toml | lines 1-21 -->
//! ```
//!
//! * Commands are separated by ` && `; each is `cascade …` (the binary under test) or
//!   `cat FILE`. A command written `$ cascade …` is echoed into the block as `$ cascade …`
//!   before its output.
//! * Each command's output is its stdout, then its stderr. Commands run in a fresh directory in
//!   which `scenarios/`, `docs/` and `tests/` are the repository's, so `results/` and baselines
//!   land there and never in the checkout.
//! * Filters after ` | `: `lines A-B,C-D` keeps those lines (from 1; `...` stands for the lines
//!   left out between ranges), `grep TEXT` keeps the lines that contain TEXT, `from TEXT` the
//!   lines from the first that contains TEXT on.
//! * Wall-clock figures are not compared (`golden::mask_wall_clock`).
//!
//! `CASCADE_BLESS=1 cargo test --profile test-release` rewrites the blocks from the commands.

use crate::support::golden::{
    BLESS, REGENERATE, blessing, first_difference, mask_wall_clock, repo,
};
use crate::support::scratch;
use rayon::prelude::*;
use std::path::Path;
use std::process::Command;

/// The documents whose quoted outputs are checked.
pub const DOCUMENTS: [&str; 17] = [
    "README.md",
    "docs/guide.md",
    "docs/scenario.md",
    "docs/policies.md",
    "docs/gates.md",
    "docs/sweeps.md",
    "docs/tune.md",
    "docs/baselines.md",
    "docs/charts.md",
    "docs/commands.md",
    "docs/metrics.md",
    "docs/validation.md",
    "docs/performance.md",
    "docs/sharding.md",
    "docs/layout.md",
    "docs/import.md",
    "docs/lints.md",
];

const MARKER: &str = "<!-- output: ";

/// A marked block: where it is and what produces it.
struct Block {
    /// 0-based index of the marker line.
    marker: usize,
    /// 0-based indexes of the first content line and of the closing fence.
    content: std::ops::Range<usize>,
    indent: String,
    spec: String,
}

/// The marked blocks of a document; panics on a marker not followed by a fenced block.
fn blocks(name: &str, lines: &[&str]) -> Vec<Block> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix(MARKER) else {
            continue;
        };
        let spec = rest
            .strip_suffix("-->")
            .unwrap_or_else(|| panic!("{name}:{}: a marker ends with -->", i + 1))
            .trim()
            .to_string();
        let fence = lines.get(i + 1).copied().unwrap_or("");
        let indent = fence[..fence.len() - fence.trim_start().len()].to_string();
        assert!(
            fence.trim_start().starts_with("```"),
            "{name}:{}: a marker must stand right before a fenced block",
            i + 1
        );
        let end = (i + 2..lines.len())
            .find(|&j| lines[j].trim_start() == "```" && lines[j].starts_with(&indent))
            .unwrap_or_else(|| panic!("{name}:{}: the block is never closed", i + 2));
        found.push(Block {
            marker: i,
            content: i + 2..end,
            indent,
            spec,
        });
    }
    found
}

/// What the marker's commands print, filtered as it says.
fn produce(spec: &str, name: &str, line: usize) -> String {
    let mut parts = spec.split(" | ");
    let commands = parts.next().unwrap();
    let dir = scratch(&format!("docs-{}-{line}", name.replace('/', "-")));
    for shared in ["scenarios", "docs", "tests"] {
        std::os::unix::fs::symlink(repo().join(shared), dir.join(shared)).unwrap();
    }
    let mut text = String::new();
    for command in commands.split(" && ") {
        let (echo, command) = match command.strip_prefix("$ ") {
            Some(c) => (true, c),
            None => (false, command),
        };
        if echo {
            text.push_str(&format!("$ {command}\n"));
        }
        text.push_str(&run(command, &dir, name, line));
    }
    for filter in parts {
        text = apply(filter, &text, name, line);
    }
    text
}

fn run(command: &str, dir: &Path, name: &str, line: usize) -> String {
    let words = split_words(command);
    match words.first().map(String::as_str) {
        Some("cascade") => {
            let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
                .args(&words[1..])
                .current_dir(dir)
                .env_remove(BLESS)
                .output()
                .unwrap();
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                crate::support::golden::without_progress(&String::from_utf8_lossy(&out.stderr))
            )
        }
        Some("cat") if words.len() == 2 => std::fs::read_to_string(dir.join(&words[1]))
            .unwrap_or_else(|e| panic!("{name}:{line}: cat {}: {e}", words[1])),
        _ => panic!("{name}:{line}: a marker runs `cascade …` or `cat FILE`, not `{command}`"),
    }
}

/// Splits a command line into words: blanks separate, single or double quotes group.
fn split_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

fn apply(filter: &str, text: &str, name: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let (verb, argument) = filter.trim().split_once(' ').unwrap_or((filter.trim(), ""));
    let kept: Vec<String> = match verb {
        "grep" => lines
            .iter()
            .filter(|l| l.contains(argument))
            .map(|l| l.to_string())
            .collect(),
        "from" => lines
            .iter()
            .skip_while(|l| !l.contains(argument))
            .map(|l| l.to_string())
            .collect(),
        "lines" => {
            let mut kept = Vec::new();
            let mut last = 0;
            for range in argument.split(',') {
                let (a, b) = range.split_once('-').unwrap_or((range, range));
                let bound = |s: &str| -> usize {
                    s.trim()
                        .parse()
                        .unwrap_or_else(|_| panic!("{name}:{line}: bad range `{range}`"))
                };
                let (a, b) = (bound(a), bound(b).min(lines.len()));
                if last != 0 && a > last + 1 {
                    kept.push("...".to_string());
                }
                kept.extend(lines[a - 1..b].iter().map(|l| l.to_string()));
                last = b;
            }
            kept
        }
        _ => {
            panic!("{name}:{line}: unknown filter `{filter}` (lines A-B,…, grep TEXT or from TEXT)")
        }
    };
    kept.iter().map(|l| format!("{l}\n")).collect()
}

/// Checks (or, when blessing, rewrites) every marked block of one document; returns the
/// differences found.
fn check_document(name: &str) -> Vec<String> {
    let path = repo().join(name);
    let original = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    let found = blocks(name, &lines);
    let produced: Vec<String> = found
        .par_iter()
        .map(|b| produce(&b.spec, name, b.marker + 1))
        .collect();
    let quoted: Vec<String> = found
        .iter()
        .map(|b| {
            lines[b.content.clone()]
                .iter()
                .map(|l| format!("{}\n", l.strip_prefix(b.indent.as_str()).unwrap_or(l)))
                .collect()
        })
        .collect();
    let same = |quoted: &str, text: &str| {
        first_difference(&mask_wall_clock(quoted), &mask_wall_clock(text)).is_none()
    };
    if blessing() {
        let mut out: Vec<String> = Vec::new();
        let mut at = 0;
        for ((b, text), quoted) in found.iter().zip(&produced).zip(&quoted) {
            out.extend(lines[at..b.content.start].iter().map(|l| l.to_string()));
            // A block that differs only in wall-clock figures keeps the figures it quotes.
            if same(quoted, text) {
                out.extend(lines[b.content.clone()].iter().map(|l| l.to_string()));
                at = b.content.end;
                continue;
            }
            out.extend(text.lines().map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{}{l}", b.indent)
                }
            }));
            at = b.content.end;
        }
        out.extend(lines[at..].iter().map(|l| l.to_string()));
        let mut rewritten = out.join("\n");
        rewritten.push('\n');
        std::fs::write(&path, rewritten).unwrap();
        return Vec::new();
    }
    let mut differences = Vec::new();
    for ((b, text), quoted) in found.iter().zip(&produced).zip(&quoted) {
        if let Some(d) = first_difference(&mask_wall_clock(quoted), &mask_wall_clock(text)) {
            differences.push(format!(
                "{name}:{}: `{}` prints otherwise\n{d}",
                b.marker + 1,
                b.spec
            ));
        }
    }
    differences
}

#[test]
fn golden_quoted_outputs_are_what_the_commands_print() {
    let differences: Vec<String> = DOCUMENTS.iter().flat_map(|d| check_document(d)).collect();
    assert!(
        differences.is_empty(),
        "{}\nIf the change is intended, regenerate with `{REGENERATE}` and review `git diff`.",
        differences.join("\n")
    );
}

#[test]
fn every_quoted_cascade_command_is_marked() {
    let mut unmarked = Vec::new();
    for name in DOCUMENTS {
        let text = std::fs::read_to_string(repo().join(name)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut open: Option<usize> = None;
        for (i, line) in lines.iter().enumerate() {
            if !line.trim_start().starts_with("```") {
                if let Some(start) = open
                    && line.trim_start().starts_with("$ cascade")
                    && !(start > 0 && lines[start - 1].trim_start().starts_with(MARKER))
                {
                    unmarked.push(format!("{name}:{}: {}", i + 1, line.trim()));
                }
                continue;
            }
            open = match open {
                None => Some(i),
                Some(_) => None,
            };
        }
    }
    assert!(
        unmarked.is_empty(),
        "quoted `$ cascade` commands without an `<!-- output: … -->` marker, so nothing checks \
         what they print:\n{}",
        unmarked.join("\n")
    );
}

#[test]
fn filters_keep_what_they_say() {
    let text = "a\nb\nc\nd\ne\n";
    assert_eq!(apply("lines 1-2,4-4", text, "t", 1), "a\nb\n...\nd\n");
    assert_eq!(apply("lines 2-3,4-9", text, "t", 1), "b\nc\nd\ne\n");
    assert_eq!(apply("grep d", text, "t", 1), "d\n");
    assert_eq!(apply("from d", text, "t", 1), "d\ne\n");
    assert_eq!(
        split_words("cascade run 'a b' --set \"x=1\""),
        ["cascade", "run", "a b", "--set", "x=1"]
    );
}
