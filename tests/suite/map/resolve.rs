//! The repository a check reads: its source files, resolving a file span to one of them (the
//! module doc's **Files**), and what each defines.

use super::definitions::{Defs, definitions};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The prefixes of paths from the repository's root.
const REPOSITORY_PATHS: [&str; 7] = [
    "src/",
    "crates/",
    "tests/",
    "benches/",
    "docs/",
    "scenarios/",
    "results/",
];

/// Whether a span is a path from the repository's root.
pub(super) fn from_root(span: &str) -> bool {
    REPOSITORY_PATHS.iter().any(|p| span.starts_with(p))
}

/// A repository (the real one, or a small one a unit test builds) and what its files define.
pub(super) struct Tree {
    pub(super) root: PathBuf,
    defs: RefCell<BTreeMap<PathBuf, Rc<Defs>>>,
}

impl Tree {
    pub(super) fn new(root: &Path) -> Tree {
        Tree {
            root: root.to_path_buf(),
            defs: RefCell::new(BTreeMap::new()),
        }
    }

    pub(super) fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Paths from the root, for a message, joined by `separator`.
    pub(super) fn relatives(&self, paths: &[PathBuf], separator: &str) -> String {
        paths
            .iter()
            .map(|p| self.relative(p))
            .collect::<Vec<_>>()
            .join(separator)
    }

    /// The candidates for a span, in the order the module doc gives them.
    fn candidates(&self, span: &str, scope: Option<&Path>) -> Vec<PathBuf> {
        let r = &self.root;
        if from_root(span) {
            return vec![r.join(span)];
        }
        if span.starts_with("cascade-policy/") {
            return vec![r.join("crates").join(span)];
        }
        match scope {
            Some(dir) if span.trim_end_matches('/').contains('/') => {
                vec![dir.join(span), r.join("src").join(span)]
            }
            Some(dir) => vec![dir.join(span)],
            None => vec![
                r.join("src").join(span),
                r.join("src/engine").join(span),
                r.join("crates/cascade-policy/src").join(span),
            ],
        }
    }

    pub(super) fn resolve(
        &self,
        span: &str,
        scope: Option<&Path>,
        dir: bool,
    ) -> Result<PathBuf, String> {
        let mut found: Vec<PathBuf> = self
            .candidates(span, scope)
            .into_iter()
            .filter(|p| if dir { p.is_dir() } else { p.is_file() })
            .collect();
        found.dedup();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(format!(
                "`{span}`: no such {} (looked for {})",
                if dir { "directory" } else { "file" },
                self.relatives(&self.candidates(span, scope), ", ")
            )),
            _ => Err(format!(
                "`{span}` is ambiguous: {}",
                self.relatives(&found, ", ")
            )),
        }
    }

    /// The module path of a file: `cascade::engine::rng` for src/engine/rng.rs.
    fn module_of(&self, path: &Path) -> Vec<String> {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        let (krate, rest) = match parts.first().map(String::as_str) {
            Some("src") => ("cascade", &parts[1..]),
            Some("crates") if parts.len() > 2 => {
                (parts[1].as_str(), parts.get(3..).unwrap_or_default())
            }
            _ => ("", parts.get(1..).unwrap_or_default()),
        };
        let mut module = vec![krate.replace('-', "_")];
        module.extend(
            rest.iter()
                .filter(|p| !matches!(p.as_str(), "mod" | "lib" | "main"))
                .cloned(),
        );
        module
    }

    pub(super) fn defs(&self, path: &Path) -> Rc<Defs> {
        if let Some(d) = self.defs.borrow().get(path) {
            return d.clone();
        }
        let source = std::fs::read_to_string(path).unwrap_or_default();
        let d = Rc::new(definitions(&source, self.module_of(path)));
        self.defs.borrow_mut().insert(path.to_path_buf(), d.clone());
        d
    }

    /// Every `.rs` file under the given trees.
    pub(super) fn sources(&self, trees: &[&str]) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        for tree in trees {
            walk(&self.root.join(tree), &mut out);
        }
        out.sort();
        out
    }

    /// Where a name is defined, for a message: the files under src/ and crates/ defining it.
    pub(super) fn defined_where(&self, name: &str) -> Vec<PathBuf> {
        self.sources(&["src", "crates"])
            .into_iter()
            .filter(|p| self.defs(p).defines(name))
            .collect()
    }
}
