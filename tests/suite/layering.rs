//! The layers of ARCHITECTURE.md, enforced: every `crate::<module>` token in a module's
//! non-test code (a `use` line or a path anywhere in the code, comments aside) names only a
//! module that its row of `LAYERS` allows, and every module a row allows comes earlier in the
//! table, so the layers cannot form a cycle. The command line (`main.rs`, `cli/`) sits on top
//! and may use everything.
//!
//! The policy stack is a crate of its own (crates/cascade-policy), so cargo keeps it from naming
//! the simulator (a path dependency cannot form a cycle); what cargo cannot check is that it
//! stays small, so the last test holds its dependencies to the ones it is meant to have.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The foundations: each uses nothing in the crate but what its own row says.
const FOUNDATION: &[&str] = &[
    "error", "time", "wildcard", "number", "stats", "atomic", "json",
];

/// Each module and the modules it may name, in order: a module may name only modules above
/// its own row. Keep in step with ARCHITECTURE.md's table.
const LAYERS: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("time", &[]),
    ("wildcard", &[]),
    ("number", &[]),
    ("stats", &[]),
    ("atomic", &["error"]),
    ("json", &["number"]),
    ("model", &["+"]),
    ("metrics", &["model", "+"]),
    ("lint", &["model", "+"]),
    ("scenario", &["lint", "metrics", "model", "+"]),
    ("import", &["+"]),
    ("export", &["import", "scenario", "model", "+"]),
    ("engine", &["model", "metrics", "+"]),
    ("alert", &["model", "metrics", "+"]),
    ("trace_export", &["engine", "model", "+"]),
    ("check", &["scenario", "metrics", "+"]),
    ("sweep", &["engine", "scenario", "model", "metrics", "+"]),
    (
        "output",
        &["sweep", "alert", "scenario", "metrics", "model", "+"],
    ),
    ("baseline", &["output", "metrics", "+"]),
    (
        "tune",
        &[
            "output", "sweep", "check", "scenario", "export", "import", "lint", "metrics", "+",
        ],
    ),
    (
        "margin",
        &[
            "output", "sweep", "check", "scenario", "metrics", "model", "+",
        ],
    ),
    ("chart", &["output", "scenario", "metrics", "model", "+"]),
    (
        "report",
        &[
            "chart", "output", "check", "scenario", "metrics", "model", "+",
        ],
    ),
];

/// The crate root's re-exports, as the module each comes from.
const ROOT_NAMES: &[(&str, &str)] = &[
    ("Error", "error"),
    ("Result", "error"),
    ("Model", "model"),
    ("RunResult", "engine"),
    ("Measured", "engine"),
    ("judge", "engine"),
    ("Simulation", "engine"),
    ("simulate", "engine"),
];

/// What `module` may name: its row, `+` standing for the foundations.
fn allowed(module: &str) -> Option<Vec<&'static str>> {
    let (_, row) = LAYERS.iter().find(|(m, _)| *m == module)?;
    Some(
        row.iter()
            .flat_map(|m| match *m {
                "+" => FOUNDATION.to_vec(),
                m => vec![m],
            })
            .collect(),
    )
}

/// The code of a source file without its comments and its `#[cfg(test)]` items.
fn non_test_code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let code = line.split("//").next().unwrap_or("");
        if code.trim() == "#[cfg(test)]" {
            // Skip the item the attribute guards: up to its `;`, or its braces balanced.
            let mut depth = 0i64;
            for item in lines.by_ref() {
                let item = item.split("//").next().unwrap_or("");
                depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
                let opened = item.contains('{') || depth > 0;
                if (opened && depth <= 0) || (!opened && item.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The crate modules that `code` names, by `crate::<name>` tokens (`crate::{a, b}` too).
fn named_modules(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `cascade::` or `my_crate::` are not this crate's `crate::`.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let group = if let Some(inner) = rest.strip_prefix('{') {
            inner[..inner.find('}').unwrap_or(inner.len())].to_string()
        } else {
            rest.to_string()
        };
        for item in group.split(',') {
            let name: String = item
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.push(name);
            }
            if !rest.starts_with('{') {
                break;
            }
        }
    }
    names
        .into_iter()
        .map(|n| match ROOT_NAMES.iter().find(|(root, _)| *root == n) {
            Some((_, module)) => module.to_string(),
            None => n,
        })
        .collect()
}

/// Every forbidden name in one module's file: `file: crate::<name>`.
fn violations(module: &str, file: &str, text: &str) -> Vec<String> {
    let allowed = allowed(module).unwrap_or_else(|| panic!("`{module}` has no row in LAYERS"));
    named_modules(&non_test_code(text))
        .into_iter()
        .filter(|n| n != module && !allowed.contains(&n.as_str()))
        .map(|n| format!("{file}: crate::{n}"))
        .collect()
}

/// The module a file under src/ belongs to (`model` for src/model/fault.rs), or None for the
/// crate root and the command line.
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    let module = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(module, "lib" | "main" | "cli")).then(|| module.to_string())
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_names_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&src).unwrap();
        let Some(module) = module_of(rel) else {
            continue;
        };
        *seen.entry(module.clone()).or_default() += 1;
        let text = std::fs::read_to_string(path).unwrap();
        wrong.extend(violations(&module, &rel.display().to_string(), &text));
    }
    assert!(
        wrong.is_empty(),
        "names against the layers (see ARCHITECTURE.md):\n{}",
        wrong.join("\n")
    );
    // Every module of the crate has a row, and every row is a module of the crate.
    let rows: Vec<&str> = LAYERS.iter().map(|(m, _)| *m).collect();
    let modules: Vec<&str> = seen.keys().map(String::as_str).collect();
    let mut sorted_rows = rows.clone();
    sorted_rows.sort();
    assert_eq!(
        modules, sorted_rows,
        "LAYERS lists exactly the crate's modules"
    );
}

#[test]
fn the_table_allows_only_modules_above_each_row() {
    for (i, (module, _)) in LAYERS.iter().enumerate() {
        let above: Vec<&str> = LAYERS[..i].iter().map(|(m, _)| *m).collect();
        for dep in allowed(module).unwrap() {
            assert!(
                above.contains(&dep),
                "`{module}` may use `{dep}`, which is not above it"
            );
        }
    }
}

#[test]
fn architecture_md_has_the_same_table() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .unwrap();
    // The modules a cell names in backticks: `model/` is `model`, `check.rs` is `check`.
    let spans = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(|s| s.trim_end_matches('/').trim_end_matches(".rs").to_string())
            .collect()
    };
    let rows: Vec<(Vec<String>, BTreeSet<String>)> = text
        .lines()
        .skip_while(|l| !l.starts_with("| module | what it is | may use |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(crate::map::cells)
        // The command line may use everything.
        .filter(|cells| !spans(&cells[0]).iter().any(|m| m == "cli"))
        .map(|cells| {
            let mut uses: BTreeSet<String> = spans(&cells[2]).into_iter().collect();
            if cells[2].contains("foundations") {
                uses.extend(FOUNDATION.iter().map(|m| m.to_string()));
            }
            (spans(&cells[0]), uses)
        })
        .collect();
    assert!(!rows.is_empty(), "ARCHITECTURE.md has no layers table");
    let table: BTreeMap<String, BTreeSet<String>> = rows
        .iter()
        .flat_map(|(modules, uses)| modules.iter().map(move |m| (m.clone(), uses.clone())))
        .collect();
    let code: BTreeMap<String, BTreeSet<String>> = LAYERS
        .iter()
        .map(|(m, _)| {
            let uses = allowed(m).unwrap().into_iter().map(String::from).collect();
            (m.to_string(), uses)
        })
        .collect();
    assert_eq!(
        table, code,
        "ARCHITECTURE.md's layers table and LAYERS differ"
    );
    // The document's own order allows only rows above, as it says.
    for (i, (modules, uses)) in rows.iter().enumerate() {
        for used in uses {
            assert!(
                rows[..i].iter().any(|(above, _)| above.contains(used)),
                "ARCHITECTURE.md: {modules:?} may use `{used}`, which is not above them"
            );
        }
    }
}

#[test]
fn the_checker_finds_a_path_anywhere_in_code_but_not_in_tests_or_comments() {
    // The engine named inside the model, in a use line, a path in an expression and a group.
    let model = "use cascade_policy::outcome::Outcome;\n\
                 fn f() { let _ = crate::engine::rng::stream(1, \"a\", \"b\"); }\n\
                 use crate::{stats::summary, metrics};\n\
                 // crate::report in a comment is no dependency\n\
                 #[cfg(test)]\nmod tests {\n    use crate::sweep;\n}\n";
    assert_eq!(
        violations("model", "model/x.rs", model),
        ["model/x.rs: crate::engine", "model/x.rs: crate::metrics"]
    );
    // Re-exports at the root count as the module they come from; `cascade::` is not `crate::`.
    assert_eq!(
        violations(
            "stats",
            "stats/x.rs",
            "fn f() -> crate::Result<()> { cascade::sweep }"
        ),
        ["stats/x.rs: crate::error"]
    );
    assert!(
        violations(
            "scenario",
            "s.rs",
            "use crate::Result; use crate::model::Model;"
        )
        .is_empty()
    );
}

#[test]
fn the_policy_crate_depends_on_rand_humantime_strsim_and_optional_serde_and_schemars_alone() {
    // No engine, no I/O, no CLI, charts, threads, CSV or TOML: what a service embedding the
    // policies would have to build. humantime reads a table's durations, strsim says "did you
    // mean"; serde reads the tables and schemars derives their schema, each behind a feature.
    // A dependency added here is a decision for ARCHITECTURE.md.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/cascade-policy/Cargo.toml");
    let doc: toml_edit::DocumentMut = std::fs::read_to_string(&manifest).unwrap().parse().unwrap();
    let names = |table: &str| -> Vec<String> {
        doc.get(table)
            .and_then(|t| t.as_table_like())
            .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
            .unwrap_or_default()
    };
    assert_eq!(
        names("dependencies"),
        ["rand", "humantime", "strsim", "serde", "schemars"]
    );
    for optional in ["serde", "schemars"] {
        let dependency = &doc["dependencies"][optional];
        assert_eq!(
            dependency.get("optional").and_then(|o| o.as_bool()),
            Some(true),
            "{optional}"
        );
    }
    assert!(names("build-dependencies").is_empty());
}

#[test]
fn the_tower_crate_stands_apart_and_the_cli_never_builds_tokio() {
    // cascade-tower runs the policy stack in a tokio service; cascade itself must not depend
    // on it (nor on tokio), so the CLI's default build stays free of an async runtime. Its
    // own dependencies are the stack, tower's traits, tokio's clock and channel, http's types
    // and the seeded streams, and, behind the optional `grpc` feature alone, tonic's `Status`
    // without its transport or codegen: a dependency added here is a decision for
    // ARCHITECTURE.md.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = |path: &str| -> toml_edit::DocumentMut {
        std::fs::read_to_string(root.join(path))
            .unwrap()
            .parse()
            .unwrap()
    };
    let names = |doc: &toml_edit::DocumentMut, table: &str| -> Vec<String> {
        doc.get(table)
            .and_then(|t| t.as_table_like())
            .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
            .unwrap_or_default()
    };
    let cascade = manifest("Cargo.toml");
    for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
        let deps = names(&cascade, table);
        assert!(
            !deps.iter().any(|d| d == "cascade-tower" || d == "tokio"),
            "cascade's {table}: {deps:?}"
        );
    }
    let tower = manifest("crates/cascade-tower/Cargo.toml");
    assert_eq!(
        names(&tower, "dependencies"),
        [
            "cascade-policy",
            "tower",
            "tokio",
            "http",
            "rand",
            "rand_pcg",
            "tonic"
        ]
    );
    // The simulator is a dev-dependency only, for the replay tests' fixtures.
    assert!(names(&tower, "dev-dependencies").contains(&"cascade".to_string()));
    let tonic = &tower["dependencies"]["tonic"];
    assert_eq!(tonic["optional"].as_bool(), Some(true), "only with `grpc`");
    assert_eq!(
        tonic["default-features"].as_bool(),
        Some(false),
        "no transport, codegen or prost: no protoc, no system library"
    );
    assert_eq!(
        tower["features"]["grpc"].to_string().trim(),
        r#"["dep:tonic"]"#
    );
    let tokio = &tower["dependencies"]["tokio"];
    assert_eq!(tokio["default-features"].as_bool(), Some(false));
    let features: Vec<_> = (tokio["features"].as_array().unwrap().iter())
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(features, ["time", "sync"], "no runtime, no I/O");
}

#[test]
fn the_mesh_crate_stands_apart_and_nothing_depends_on_it() {
    // cascade-mesh runs scenarios as real services: it depends on cascade, the policy crate
    // and the tower crate, never the other way, so neither the CLI nor the tower crate ever
    // builds hyper's server. Its own dependencies are a decision for ARCHITECTURE.md.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = |path: &str| -> Vec<String> {
        let doc: toml_edit::DocumentMut = std::fs::read_to_string(root.join(path))
            .unwrap()
            .parse()
            .unwrap();
        doc.get("dependencies")
            .and_then(|t| t.as_table_like())
            .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
            .unwrap_or_default()
    };
    for other in [
        "Cargo.toml",
        "crates/cascade-policy/Cargo.toml",
        "crates/cascade-tower/Cargo.toml",
    ] {
        assert!(
            !names(other)
                .iter()
                .any(|d| d == "cascade-mesh" || d == "hyper"),
            "{other}"
        );
    }
    assert_eq!(
        names("crates/cascade-mesh/Cargo.toml"),
        [
            "cascade",
            "cascade-policy",
            "cascade-tower",
            "tokio",
            "hyper",
            "hyper-util",
            "http",
            "http-body-util",
            "bytes",
            "tower",
            "clap",
            "serde_json",
            "toml_edit"
        ]
    );
}
