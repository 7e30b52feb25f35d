//! The README's scenario library table: every row names an existing file that starts with a
//! `# source:` comment and carries at least one `[[expect]]`, or says it is pending and names
//! the issue; and every gated scenario in scenarios/ has a row.

use std::path::Path;

fn rows() -> Vec<Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find("<!-- library:start -->")
        .expect("library table start");
    let end = readme
        .find("<!-- library:end -->")
        .expect("library table end");
    readme[start..end]
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| file"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn every_library_row_names_a_sourced_gated_file_or_a_pending_issue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rows = rows();
    assert!(rows.len() >= 10, "{} rows", rows.len());
    for row in &rows {
        assert_eq!(
            row.len(),
            4,
            "a row has file, source, claim, shown: {row:?}"
        );
        let shown = &row[3];
        if let Some(file) = row[0].strip_prefix('`').and_then(|f| f.strip_suffix('`')) {
            let text =
                std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(
                text.starts_with("# source:"),
                "{file} does not start with # source:"
            );
            assert!(text.contains("\n[[expect]]"), "{file} has no [[expect]]");
            assert!(
                !shown.starts_with("pending"),
                "{file} exists but is marked pending"
            );
        } else {
            assert!(
                shown.starts_with("pending (issue "),
                "a row without a file must say `pending (issue N…)`: {row:?}"
            );
        }
    }
}

#[test]
fn every_gated_scenario_has_a_library_row() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed: Vec<String> = rows().iter().map(|r| r[0].clone()).collect();
    for entry in std::fs::read_dir(root.join("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if path.extension().is_some_and(|x| x == "toml") && text.contains("\n[[expect]]") {
            let name = format!(
                "`scenarios/{}`",
                path.file_name().unwrap().to_string_lossy()
            );
            assert!(
                listed.contains(&name),
                "{name} is gated but not in the library table"
            );
        }
    }
}
