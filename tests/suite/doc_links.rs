//! Every relative link of README.md and docs/*.md resolves: the file it names exists, and an
//! `#anchor` names a heading of that file (GitHub's slugs). Moving a section cannot leave a
//! link pointing at where it used to be.

use crate::support::golden::repo;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The documents whose links are checked: the README and every page of docs/.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut found = vec![root.join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    found.extend(pages);
    found
}

/// The lines of a Markdown text outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut kept = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            kept.push(line);
        }
    }
    kept
}

/// GitHub's anchor for a heading: lower case, letters, digits, `-` and `_` kept, spaces
/// made `-`, everything else dropped; a repeated slug gets `-1`, `-2`, ….
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors a Markdown file defines (its headings').
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut found = BTreeSet::new();
    for line in prose(text) {
        let level = line.chars().take_while(|&c| c == '#').count();
        if level == 0 || level > 6 || !line[level..].starts_with(' ') {
            continue;
        }
        let base = slug(line[level..].trim());
        let n = seen.entry(base.clone()).or_insert(0);
        found.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    found
}

/// The targets of the inline links `[text](target)` and images of a line, code spans left out.
fn targets(line: &str) -> Vec<String> {
    let mut outside = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 0 {
            outside.push_str(part);
        }
    }
    let mut found = Vec::new();
    let mut rest = outside.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        found.push(target.to_string());
        rest = &rest[end..];
    }
    found
}

/// What is wrong with one link of `document`, if anything.
fn broken(document: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        document.to_path_buf()
    } else {
        document.parent().unwrap().join(path)
    };
    if !file.exists() {
        return Some(format!("`{target}`: no file {}", file.display()));
    }
    if anchor.is_empty() || file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&file).unwrap();
    (!anchors(&text).contains(anchor))
        .then(|| format!("`{target}`: {} has no heading `#{anchor}`", file.display()))
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_resolves() {
    let mut problems = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let name = document.strip_prefix(repo()).unwrap().display().to_string();
        let mut fenced = false;
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            if fenced || line.trim_start().starts_with("```") {
                continue;
            }
            for target in targets(line) {
                if let Some(problem) = broken(&document, &target) {
                    problems.push(format!("{name}:{}: {problem}", i + 1));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_link_check_sees_what_github_sees() {
    assert_eq!(
        slug("Sweeps: a grid × variants × replications"),
        "sweeps-a-grid--variants--replications"
    );
    assert_eq!(slug("CI gates: `cascade check`"), "ci-gates-cascade-check");
    let text = "# A\n```\n# not a heading\n```\n## A\n";
    assert_eq!(anchors(text).into_iter().collect::<Vec<_>>(), ["a", "a-1"]);
    assert_eq!(
        targets("see [x](a.md#b) and `[y](c.md)` ![z](d.svg)"),
        ["a.md#b", "d.svg"]
    );
    let readme = repo().join("README.md");
    assert!(broken(&readme, "docs/guide.md#commands").is_none());
    assert!(broken(&readme, "docs/guide.md#no-such-heading").is_some());
    assert!(broken(&readme, "docs/no-such-page.md").is_some());
}
