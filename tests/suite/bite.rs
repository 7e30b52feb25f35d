//! Every gate must bite: each scenario under scenarios/ (at any depth) with an `[[expect]]`
//! names, in a header comment `# bite: --set PATH=VALUE [--set ...]`, the settings that undo
//! its claim (the budget, the bulkhead, the hedge removed), and `cascade check` with them must
//! exit 1, while the committed file exits 0. A gate that cannot fail checks nothing.

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
        let (code, out) = check(path, &[]);
        assert_eq!(code, Some(0), "{} as committed:\n{out}", path.display());
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
