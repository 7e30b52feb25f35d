//! The same mutations over the import fixtures (tests/fixtures/import/): lines deleted,
//! duplicated, swapped, values made extreme or of the wrong type, truncation, garbage and
//! invalid UTF-8 in Envoy and resilience4j YAML, gRPC and Envoy JSON and `.properties`. Each
//! case runs `cascade import`, bounded as the scenario cases are: exit 0 or 2 only, never a
//! panic, a signal or a hang, and nothing on stdout on exit 2.
//!
//! `CASCADE_FUZZ_IMPORT_CASES=N` runs N cases instead of `CASES`.

use super::{bounded, judge, mutate};
use crate::support::pick::Pick;
use crate::support::scratch;
use std::path::Path;

const CASES: u64 = 200;

#[test]
fn fuzz_import_files() {
    let dir = scratch("fuzz-import");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import");
    let cases = crate::support::env_u64("CASCADE_FUZZ_IMPORT_CASES").unwrap_or(CASES);
    let mut exits = [0u64; 3];
    for i in 0..cases {
        let mut p = Pick::new(i ^ 0x1a_f022);
        let (library, name) = *p.one(&crate::support::IMPORT_FIXTURES);
        let bytes = std::fs::read(root.join(name)).unwrap();
        let (mutated, what) = mutate::mutate(&mut p, &bytes);
        // The extension decides the syntax: keep the fixture's.
        let path = dir.join(format!("case-{i}-{name}"));
        std::fs::write(&path, &mutated).unwrap();
        let (status, stderr) = bounded(&dir, &["import", library, path.to_str().unwrap()]);
        if let Some(why) = judge(status, &stderr) {
            panic!(
                "fuzz import case {i} failed: `cascade import {library}`: {why}\nmutations of {name}: {}",
                what.join("; ")
            );
        }
        let code = status.and_then(|s| s.code()).unwrap_or(1);
        assert!(code == 0 || code == 2, "case {i}: exit {code}: {stderr}");
        exits[code as usize] += 1;
    }
    // Both ends are reached: most mutations still import, and some are refused.
    assert!(exits[0] > 0 && exits[2] > 0, "exits 0/1/2: {exits:?}");
    println!("fuzz import: exits 0/1/2 {exits:?}");
}

/// The trace fixtures (tests/fixtures/traces/) under the same mutations, through
/// `cascade import traces`: exit 0 or 2, never a panic, a signal or a hang.
#[test]
fn fuzz_trace_files() {
    let dir = scratch("fuzz-traces");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let cases = crate::support::env_u64("CASCADE_FUZZ_IMPORT_CASES").unwrap_or(CASES / 2);
    let mut exits = [0u64; 3];
    for i in 0..cases {
        let mut p = Pick::new(i ^ 0x0007_ace5);
        let name = *p.one(&crate::support::TRACE_FIXTURES);
        let bytes = std::fs::read(root.join(name)).unwrap();
        let (mutated, what) = mutate::mutate(&mut p, &bytes);
        let path = dir.join(format!("case-{i}-{name}"));
        std::fs::write(&path, &mutated).unwrap();
        let (status, stderr) = bounded(&dir, &["import", "traces", path.to_str().unwrap()]);
        if let Some(why) = judge(status, &stderr) {
            panic!(
                "fuzz trace case {i} failed: `cascade import traces`: {why}\nmutations of {name}: {}",
                what.join("; ")
            );
        }
        let code = status.and_then(|s| s.code()).unwrap_or(1);
        assert!(code == 0 || code == 2, "case {i}: exit {code}: {stderr}");
        exits[code as usize] += 1;
    }
    assert!(exits[0] > 0 && exits[2] > 0, "exits 0/1/2: {exits:?}");
    println!("fuzz traces: exits 0/1/2 {exits:?}");
}
