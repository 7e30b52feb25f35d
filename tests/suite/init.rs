//! `cascade init`: every template it lists is written, prints the same text, and passes
//! `cascade check` with expectations of its own; the commands its comments suggest to break it
//! do break it; an existing file is never overwritten.

use crate::support::{cascade, read, scratch};

fn stdout(args: &[&str]) -> String {
    String::from_utf8(cascade(args, 0).stdout).expect("UTF-8 output")
}

/// The template names, as `cascade init --list` gives them (so a new one is checked too).
fn templates() -> Vec<String> {
    let names: Vec<String> = stdout(&["init", "--list"])
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect();
    for known in ["basic", "retry-storm", "overload", "cache-aside"] {
        assert!(names.iter().any(|n| n == known), "{known} in {names:?}");
    }
    names
}

#[test]
fn every_template_is_written_and_passes_its_own_checks() {
    let dir = scratch("init-templates");
    for name in templates() {
        let file = dir.join(format!("{name}.toml"));
        let file = file.to_str().unwrap();
        cascade(&["init", &name, file], 0);
        let text = read(file.as_ref());
        assert_eq!(text, stdout(&["init", &name]), "{name}: file and stdout");
        assert!(text.starts_with("# "), "{name} opens with its comment");
        cascade(&["validate", file], 0);
        let out = cascade(&["check", file], 0);
        let report = String::from_utf8_lossy(&out.stdout);
        // Each has expectations of its own, and every one of them held.
        let passed = report
            .lines()
            .last()
            .and_then(|l| l.split(": ").nth(1))
            .unwrap_or_default()
            .to_string();
        assert!(
            passed.ends_with(" passed, 0 failed") && !passed.starts_with("0 "),
            "{name}: {report}"
        );
    }
    // Without a name, the basic one.
    assert_eq!(stdout(&["init"]), stdout(&["init", "basic"]));
}

#[test]
fn the_breakages_the_templates_suggest_fail_their_checks() {
    let dir = scratch("init-breakages");
    for (name, set) in [
        ("retry-storm", "policy.clients.retry.budget=1"),
        ("overload", "service.checkout.queue=5000"),
        ("cache-aside", "policy.db.retry.budget=1"),
    ] {
        let file = dir.join(format!("{name}.toml"));
        let file = file.to_str().unwrap();
        cascade(&["init", name, file], 0);
        assert!(
            read(file.as_ref()).contains(&format!("--set {set}")),
            "{name}"
        );
        let out = cascade(&["check", file, "--set", set], 1);
        assert!(String::from_utf8_lossy(&out.stdout).contains("✗"), "{name}");
    }
}

#[test]
fn an_existing_file_is_never_overwritten() {
    let dir = scratch("init-overwrite");
    let file = dir.join("mine.toml");
    std::fs::write(&file, "# my own scenario\n").unwrap();
    let out = cascade(&["init", "overload", file.to_str().unwrap()], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mine.toml already exists"), "{err}");
    assert!(err.contains("never overwrites"), "{err}");
    assert_eq!(read(&file), "# my own scenario\n");
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unknown_template_is_refused_with_the_closest_name() {
    let out = cascade(&["init", "retry_storm"], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean `retry-storm`?"), "{err}");
    assert!(out.stdout.is_empty());
    // A file name given alone is taken for a template; the message says how to write one.
    let err = String::from_utf8_lossy(&cascade(&["init", "mine.toml"], 2).stderr).to_string();
    assert!(err.contains("cascade init basic mine.toml"), "{err}");
}
