//! Every gate must bite: each scenario under scenarios/ (at any depth) with an `[[expect]]`
//! names, in a header comment `# bite: --set PATH=VALUE [--set ...]`, the settings that undo
//! its claim (the budget, the bulkhead, the hedge removed), and `cascade check` with them must
//! exit 1. A gate that cannot fail checks nothing.
//!
//! That the committed files pass is checked once, by the run that docs/gates.md quotes
//! (`cascade check scenarios/`, compared line by line by the docs test): this test reads that
//! block and asserts that it lists every gated scenario and passed whole, so a failing gate
//! can never be blessed into the docs, and the library is not run a second time for it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scenarios(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scenarios(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

/// The `--set` arguments of the file's `# bite:` line, before its first table; `None` without
/// one. Each must be `--set PATH=VALUE`.
fn bite(path: &Path, text: &str) -> Option<Vec<String>> {
    let header = text
        .lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty());
    let line = header.filter_map(|l| l.strip_prefix("# bite:")).next()?;
    let words: Vec<String> = line.split_whitespace().map(String::from).collect();
    assert!(
        !words.is_empty() && words.len().is_multiple_of(2),
        "{}: `# bite:` takes `--set PATH=VALUE` pairs, got `{line}`",
        path.display()
    );
    for pair in words.chunks(2) {
        assert!(
            pair[0] == "--set" && pair[1].contains('='),
            "{}: `# bite:` takes `--set PATH=VALUE` pairs, got `{} {}`",
            path.display(),
            pair[0],
            pair[1]
        );
    }
    Some(words)
}

fn check(path: &Path, args: &[String]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("check")
        .arg(path)
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn every_gated_scenario_names_the_setting_that_undoes_it_and_then_fails() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files = Vec::new();
    scenarios(&root, &mut files);
    let mut gated = 0;
    let mut missing = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        if !text.lines().any(|l| l.trim() == "[[expect]]") {
            continue;
        }
        gated += 1;
        let Some(args) = bite(path, &text) else {
            missing.push(path.display().to_string());
            continue;
        };
        let (code, out) = check(path, &args);
        assert_eq!(
            code,
            Some(1),
            "{} with `{}` must fail its gate:\n{out}",
            path.display(),
            args.join(" ")
        );
    }
    assert!(
        missing.is_empty(),
        "scenarios with [[expect]] and no `# bite: --set PATH=VALUE` header line: {}",
        missing.join(", ")
    );
    assert!(
        gated >= 6,
        "only {gated} gated scenarios found under {}",
        root.display()
    );
}

/// The lines of docs/gates.md's quoted `cascade check scenarios/` block.
fn quoted_library_check() -> Vec<String> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/gates.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    text.lines()
        .skip_while(|l| *l != "<!-- output: $ cascade check scenarios/ -->")
        .skip(2)
        .take_while(|l| *l != "```")
        .map(String::from)
        .collect()
}

#[test]
fn the_quoted_library_check_lists_every_gated_scenario_and_passed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files = Vec::new();
    scenarios(&root, &mut files);
    let lines = quoted_library_check();
    let last = lines.last().cloned().unwrap_or_default();
    assert!(
        last.contains(" passed, 0 failed"),
        "docs/gates.md's `cascade check scenarios/` block must close on a run with no failure: {last:?}"
    );
    let failed: Vec<&String> = lines.iter().filter(|l| l.starts_with('✗')).collect();
    assert!(failed.is_empty(), "rows that did not pass: {failed:?}");
    let mut gated = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        if !text.lines().any(|l| l.trim() == "[[expect]]") {
            continue;
        }
        gated += 1;
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.split('"').next())
            .unwrap_or_else(|| panic!("{}: no scenario name", path.display()));
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with('✓') && l.split_whitespace().nth(1) == Some(name)),
            "{} (scenario `{name}`) has expectations but no passing row in docs/gates.md's \
             library check: bless the docs (CASCADE_BLESS=1) and read the diff",
            path.display()
        );
    }
    assert!(gated >= 6, "only {gated} gated scenarios found");
}
