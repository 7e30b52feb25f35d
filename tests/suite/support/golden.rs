//! Golden files: outputs compared byte for byte with committed copies under `tests/golden/`.
//!
//! After an intended change of output, `CASCADE_BLESS=1 cargo test --release golden` rewrites
//! every golden file (and every marked output block of README.md and docs/) from what the build
//! now prints; `git diff` then shows exactly what changed, for review.

use std::path::{Path, PathBuf};

/// The environment variable that turns comparison into rewriting.
pub const BLESS: &str = "CASCADE_BLESS";

/// The command that regenerates every golden file, for messages.
pub const REGENERATE: &str = "CASCADE_BLESS=1 cargo test --release golden";

/// True when golden files are to be rewritten rather than compared.
pub fn blessing() -> bool {
    std::env::var_os(BLESS).is_some_and(|v| v == "1")
}

/// The repository's root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn golden_path(name: &str) -> PathBuf {
    repo().join("tests/golden").join(name)
}

/// Compares `actual` with the golden file `tests/golden/<name>`, or rewrites it when blessing.
pub fn assert_golden(name: &str, actual: &str) {
    let path = golden_path(name);
    if blessing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "golden file {}: {e}; create it with `{REGENERATE}`",
            path.display()
        )
    });
    if let Some(difference) = first_difference(&expected, actual) {
        panic!(
            "output differs from the golden file {}\n{difference}\nIf the change is intended, \
             regenerate with `{REGENERATE}` and review `git diff`.",
            path.display()
        );
    }
}

/// Where two texts first differ, with a few lines of context; None when they are equal.
pub fn first_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let want: Vec<&str> = expected.split('\n').collect();
    let got: Vec<&str> = actual.split('\n').collect();
    let at = want
        .iter()
        .zip(&got)
        .position(|(w, g)| w != g)
        .unwrap_or(want.len().min(got.len()));
    let from = at.saturating_sub(2);
    let mut text = format!("first difference at line {}:\n", at + 1);
    for (i, line) in want.iter().enumerate().skip(from).take(at - from + 3) {
        text.push_str(&format!("  golden {:>4} | {line}\n", i + 1));
    }
    for (i, line) in got.iter().enumerate().skip(from).take(at - from + 3) {
        text.push_str(&format!("  now    {:>4} | {line}\n", i + 1));
    }
    Some(text)
}

/// The SHA-256 of `bytes` as `sha256sum` prints it, so a golden hash can be checked by hand.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Wall-clock figures vary from run to run: each is replaced by `…` so the rest of the line
/// is compared. The lines that hold them: `run`'s closing line ("N events in 0.123s wall
/// (…M events/s, …x real time); results in DIR") and `sweep`'s header ("…: ran N runs on T
/// threads in 1.04s").
pub fn mask_wall_clock(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            if let (Some(a), Some(b)) = (line.find(" events in "), line.find("); results in ")) {
                format!("{} events in …{}", &line[..a], &line[b..])
            } else if let (Some(_), Some(t)) = (line.find(": ran "), line.rfind(" threads in ")) {
                let end = line.trim_end_matches('\n');
                let newline = &line[end.len()..];
                format!("{} threads in …{newline}", &end[..t])
            } else {
                line.to_string()
            }
        })
        .collect()
}
