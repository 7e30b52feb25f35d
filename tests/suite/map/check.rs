//! Checking documents against a tree: every reference's names defined in its files, every
//! file span resolved, and (the module doc's **On the map**) every source file mapped.

use super::markdown::{Body, blocks, codes};
use super::references::block_references;
use super::resolve::{Tree, from_root};
use super::spans::{Kind, is_ident, kind};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// What checking the documents found.
#[derive(Debug, Default)]
pub(super) struct Checked {
    pub(super) errors: Vec<String>,
    /// The files ARCHITECTURE.md puts on the map.
    mapped: BTreeSet<PathBuf>,
}

impl Tree {
    /// Checks one document; with `map`, its file spans (and the layers table's modules) are
    /// the map.
    pub(super) fn check(&self, doc: &str, text: &str, map: bool, checked: &mut Checked) {
        let mut err = |line: usize, message: String| {
            checked.errors.push(format!("{doc}:{line}: {message}"));
        };
        let mut mapped = BTreeSet::new();
        for block in blocks(text) {
            let found = block_references(&block);
            let line = block.line();
            // The scope, resolved only for a block that has a relative file to resolve in it.
            let relative = found.files.iter().any(|(f, _)| !from_root(f));
            let scope = match &block.scope {
                Some(dir) if relative => match self.resolve(dir, None, true) {
                    Ok(path) => Some(path),
                    Err(e) => {
                        err(line, format!("scope {e}"));
                        continue;
                    }
                },
                _ => None,
            };
            for (line, message) in found.errors {
                err(line, message);
            }
            let mut resolved = BTreeMap::new();
            for (span, line) in &found.files {
                match self.resolve(span, scope.as_deref(), false) {
                    Ok(path) => {
                        mapped.insert(path.clone());
                        resolved.insert(span.clone(), path);
                    }
                    Err(e) => err(*line, e),
                }
            }
            for reference in &found.references {
                let Some(files) = reference
                    .files
                    .iter()
                    .map(|f| resolved.get(f).cloned())
                    .collect::<Option<Vec<PathBuf>>>()
                else {
                    continue; // the unresolved file is reported already
                };
                for name in &reference.names {
                    if kind(name) == Kind::Pattern
                        || files.iter().any(|f| self.defs(f).defines(name))
                    {
                        continue;
                    }
                    let held = self.relatives(&files, " or ");
                    let elsewhere = self.defined_where(name);
                    let hint = if elsewhere.is_empty() {
                        "defined nowhere in src/ or crates/".to_string()
                    } else {
                        format!("defined in {}", self.relatives(&elsewhere, ", "))
                    };
                    err(
                        reference.line,
                        format!("`{name}` is not defined in {held} ({hint})"),
                    );
                }
            }
            // The layers table: its first cells name modules, each its root file.
            if let Body::Row { header, cells } = &block.body
                && header.first().is_some_and(|h| h == "module")
            {
                for c in cells.first().into_iter().flat_map(|cell| codes(cell)) {
                    let m = c.trim_end_matches('/');
                    if !is_ident(m) {
                        continue;
                    }
                    for root in [format!("src/{m}.rs"), format!("src/{m}/mod.rs")] {
                        let path = self.root.join(root);
                        if path.is_file() {
                            mapped.insert(path);
                        }
                    }
                }
            }
        }
        if map {
            checked.mapped.extend(mapped);
        }
    }

    /// Checks the documents and the map; every error, one a line.
    pub(super) fn check_all(
        &self,
        docs: &[(&str, &str)],
        map: &str,
        trees: &[&str],
    ) -> Vec<String> {
        let mut checked = Checked::default();
        for (doc, text) in docs {
            self.check(doc, text, *doc == map, &mut checked);
        }
        for file in self.sources(trees) {
            if !checked.mapped.contains(&file) {
                checked.errors.push(format!(
                    "{map}: {} is not on the map (name it in its module's row or table)",
                    self.relative(&file)
                ));
            }
        }
        checked.errors
    }
}
