//! Golden files: outputs compared byte for byte with committed copies under `tests/golden/`.
//!
//! After an intended change of output, `CASCADE_BLESS=1 cargo test --profile test-release` rewrites every
//! golden file (and every marked output block of README.md and docs/) from what the build
//! now prints; `git diff` then shows exactly what changed, for review.

use std::path::{Path, PathBuf};

/// The environment variable that turns comparison into rewriting.
pub const BLESS: &str = "CASCADE_BLESS";

/// The command that regenerates every golden file, for messages.
pub const REGENERATE: &str = "CASCADE_BLESS=1 cargo test --profile test-release";

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
/// (2.81M events/s, 3057x real time); results in DIR") and `sweep`'s header ("…: ran N runs on
/// T threads in 1.04s", T being --jobs, whose default is the machine's cores).
pub fn mask_wall_clock(text: &str) -> String {
    without_progress(text)
        .split_inclusive('\n')
        .map(|line| {
            let ran = line.find(": ran ");
            if let (Some(a), Some(b)) = (line.find(" events in "), line.find("; results in ")) {
                format!("{} events in … wall (…){}", &line[..a], &line[b..])
            } else if let (Some(_), Some(t)) = (ran, line.rfind(" threads in ")) {
                let on = line[..t].rfind(" on ").unwrap_or(t);
                let end = line.trim_end_matches('\n');
                format!("{} on … threads in …{}", &line[..on], &line[end.len()..])
            } else {
                line.to_string()
            }
        })
        .collect()
}

/// JUnit XML with every `time="…"` attribute (the wall seconds of the runs judged) written
/// `time="…"`, so the rest of the file is compared.
pub fn mask_junit_times(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(at) = rest.find(" time=\"") {
        let value = at + " time=\"".len();
        let Some(end) = rest[value..].find('"') else {
            break;
        };
        out.push_str(&rest[..value]);
        out.push('…');
        rest = &rest[value + end..];
    }
    out.push_str(rest);
    out
}

/// `text` without the plain progress lines a long command prints on a non-terminal stderr
/// (`check: 82/145 runs (56%), 10 s elapsed`, every 10 s of wall clock: whether one appears
/// depends on the machine's speed, never on the scenario).
pub fn without_progress(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|line| {
            let line = line.trim_end_matches('\n');
            let word = line.split(": ").next().unwrap_or("");
            !(matches!(word, "check" | "sweep" | "run" | "tune")
                && line.ends_with(" s elapsed")
                && line.contains("%), "))
        })
        .collect()
}

/// Every file under `dir` (run.json aside: wall-clock facts) against `tests/golden/<name>/`:
/// the files named in `texts` byte for byte as text, and every file, those included, by its
/// SHA-256 in `<name>/SHA256SUMS` (so a change anywhere, a chart or a time series, is caught,
/// and `sha256sum -c` can check a directory by hand). Occurrences of `dir`'s own path are
/// written `$DIR`. A golden file that the directory no longer produces is an error too.
pub fn assert_golden_dir(name: &str, dir: &Path, texts: &[&str]) {
    let files = super::snapshot(dir);
    let mut sums = String::new();
    for (rel, bytes) in &files {
        sums.push_str(&format!("{}  {}\n", sha256_hex(bytes), rel.display()));
    }
    let mut expected: Vec<String> = texts.iter().map(|t| format!("{name}/{t}")).collect();
    expected.push(format!("{name}/SHA256SUMS"));
    if blessing() {
        let _ = std::fs::remove_dir_all(golden_path(name));
    } else {
        let mut present = Vec::new();
        list_files(&golden_path(name), name, &mut present);
        present.sort();
        let mut wanted = expected.clone();
        wanted.sort();
        assert_eq!(
            present, wanted,
            "the golden files of {name} are not the ones the test writes; regenerate with `{REGENERATE}`"
        );
    }
    for text in texts {
        let (_, bytes) = files
            .iter()
            .find(|(rel, _)| rel == Path::new(text))
            .unwrap_or_else(|| panic!("{} has no {text}", dir.display()));
        let content = String::from_utf8(bytes.clone()).expect("a text file");
        assert_golden(&format!("{name}/{text}"), &placeholders(&content, dir));
    }
    assert_golden(&format!("{name}/SHA256SUMS"), &sums);
}

fn list_files(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let e = e.unwrap();
        let rel = format!("{prefix}/{}", e.file_name().to_string_lossy());
        if e.path().is_dir() {
            list_files(&e.path(), &rel, out);
        } else {
            out.push(rel);
        }
    }
}

/// A command's stdout, stderr and exit code as one golden text, with `dir`'s path written
/// `$DIR` and wall-clock figures masked.
pub fn command_text(out: &std::process::Output, dir: &Path) -> String {
    let text = format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    mask_wall_clock(&placeholders(&text, dir))
}

/// `text` with the paths that differ between checkouts and runs written as placeholders: the
/// test's scratch directory `$DIR`, the repository `$REPO`.
pub fn placeholders(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "$DIR")
        .replace(&repo().display().to_string(), "$REPO")
}

#[test]
fn wall_clock_figures_are_masked_and_nothing_else() {
    assert_eq!(
        mask_wall_clock(
            "10111 events in 0.004s wall (2.81M events/s, 3057x real time); results in x\n"
        ),
        "10111 events in … wall (…); results in x\n"
    );
    assert_eq!(
        mask_wall_clock("2 points x 1 variants x 3 replications: ran 6 runs on 2 threads in 0.01s"),
        "2 points x 1 variants x 3 replications: ran 6 runs on … threads in …"
    );
    assert_eq!(mask_wall_clock("a 1.5s line\n"), "a 1.5s line\n");
    assert_eq!(
        mask_junit_times(r#"<testsuite name="s" time="0.015"><testcase time="12.500"/>"#),
        r#"<testsuite name="s" time="…"><testcase time="…"/>"#
    );
    assert_eq!(
        mask_junit_times(r#"<a timeout="1"/>"#),
        r#"<a timeout="1"/>"#
    );
}
