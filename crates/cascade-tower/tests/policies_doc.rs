//! docs/policies.md section 15 names each layer's table keys as the scenario language spells
//! them: every key a "Keys:" sentence names is a row of section 0's key table, and every row
//! of that table is named somewhere in section 15 (itself, or its table: `failure_accrual`).

use std::collections::BTreeSet;

fn policies_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/policies.md");
    std::fs::read_to_string(path).expect("docs/policies.md")
}

/// The text between a heading that starts with `from` and the next heading of its level.
fn section<'a>(text: &'a str, from: &str) -> &'a str {
    let start = text.find(from).unwrap_or_else(|| panic!("no {from:?}"));
    let rest = &text[start + from.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The names in backticks of `text` that read as a key path (`retry.budget.ratio`).
fn key_paths(text: &str) -> Vec<String> {
    let is_key = |s: &str| {
        !s.is_empty()
            && s.split('.').all(|part| {
                !part.is_empty()
                    && part.starts_with(|c: char| c.is_ascii_lowercase())
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            })
    };
    (text.split('`').skip(1).step_by(2))
        .filter(|s| is_key(s))
        .map(str::to_string)
        .collect()
}

/// Section 0's policy keys: the first cell of each row of its first table, a `.x` short for
/// the first name's parent table (`retry.budget.ratio`, `.min_per_s`).
fn section_0_keys(text: &str) -> BTreeSet<String> {
    let table = section(text, "## 0. All keys at a glance");
    let rows = (table.lines())
        .skip_while(|l| !l.starts_with("| Key |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'));
    let mut keys = BTreeSet::new();
    for row in rows {
        let cell = row.split('|').nth(1).unwrap();
        let names: Vec<&str> = (cell.split('`').skip(1).step_by(2)).collect();
        let parent = names[0].rsplit_once('.').map_or("", |(p, _)| p);
        for name in names {
            keys.insert(match name.strip_prefix('.') {
                Some(short) => format!("{parent}.{short}"),
                None => name.to_string(),
            });
        }
    }
    keys
}

#[test]
fn section_15_names_every_key_as_the_scenario_language_spells_it() {
    let text = policies_md();
    let keys = section_0_keys(&text);
    assert!(keys.contains("retry.budget.min_per_s") && keys.contains("hedge.period"));
    let tower = section(&text, "## 15. The same tables in a Rust service");
    let sentences: Vec<&str> = (tower.split("Keys: ").skip(1))
        .map(|s| {
            &s[..s
                .find("(section")
                .expect("a Keys: sentence ends on its section")]
        })
        .collect();
    assert_eq!(sentences.len(), 10, "one per layer");
    let named: Vec<String> = sentences.iter().flat_map(|s| key_paths(s)).collect();
    let unknown: Vec<&String> = named.iter().filter(|k| !keys.contains(*k)).collect();
    assert!(unknown.is_empty(), "not keys of section 0: {unknown:?}");
    let mentioned: BTreeSet<String> = key_paths(tower).into_iter().collect();
    let unnamed: Vec<&String> = (keys.iter())
        .filter(|k| {
            // `failure_accrual`'s keys go with their table, which a layer refuses whole.
            let refused_whole = k.starts_with("failure_accrual.");
            !(mentioned.contains(*k) || refused_whole && mentioned.contains("failure_accrual"))
        })
        .collect();
    assert!(unnamed.is_empty(), "section 15 does not name: {unnamed:?}");
}
