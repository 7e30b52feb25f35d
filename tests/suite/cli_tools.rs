//! The commands for tools around cascade: `completions` (clap_complete), `man` (clap_mangen)
//! and `metrics --json`. Every subcommand is taken from `cascade --help`, so a new one is
//! checked here without editing this file.

use crate::support::cascade;

fn stdout(args: &[&str]) -> String {
    String::from_utf8(cascade(args, 0).stdout).expect("UTF-8 output")
}

/// The subcommands `cascade --help` lists, but `help`.
fn subcommands() -> Vec<String> {
    let help = stdout(&["--help"]);
    let listed: Vec<String> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|name| name != "help")
        .collect();
    // The list is read, not assumed: it must at least hold the commands this file is about.
    for known in ["run", "sweep", "metrics", "diff", "completions", "man"] {
        assert!(listed.iter().any(|n| n == known), "{known} in {listed:?}");
    }
    listed
}

/// Whether `word` occurs in `text` with no letter, digit, `_` or `-` right before or after it.
fn has_word(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

#[test]
fn every_shell_gets_a_completion_script_naming_every_subcommand() {
    let commands = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {} bytes", script.len());
        for c in &commands {
            assert!(has_word(&script, c), "{shell} completion lacks `{c}`");
        }
        // Options are completed too, down to a subcommand's own.
        assert!(
            script.contains("all-metrics"),
            "{shell}: diff's --all-metrics"
        );
        assert!(
            script.contains("trace-limit"),
            "{shell}: run's --trace-limit"
        );
    }
    // The scripts are the shells' own languages, not one text relabelled.
    assert!(stdout(&["completions", "bash"]).contains("complete -F"));
    assert!(stdout(&["completions", "fish"]).contains("complete -c cascade"));
    assert!(stdout(&["completions", "zsh"]).starts_with("#compdef cascade"));
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = cascade(&["completions", "tcsh"], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn the_man_page_has_a_page_for_every_subcommand() {
    let roff = stdout(&["man"]);
    assert!(roff.contains(".TH cascade 1 "), "the main page first");
    assert!(roff.contains(".SH SUBCOMMANDS"));
    for c in subcommands() {
        // Listed on cascade(1), and a page of its own with its synopsis.
        assert!(roff.contains(&format!("cascade\\-{c}(1)")), "{c} listed");
        assert!(roff.contains(&format!(".TH cascade-{c} 1 ")), "{c}'s page");
        assert!(
            roff.contains(&format!("\\fBcascade {c}\\fR")),
            "{c}'s synopsis"
        );
    }
    // A subcommand's page carries its options with their defaults.
    assert!(roff.contains("\\fB\\-\\-trace\\-limit\\fR \\fI<ROWS>\\fR [default: 1000000]"));
    assert!(!roff.contains(".TH cascade-help"), "help gets no page");
}

#[test]
fn metrics_json_holds_every_catalogue_entry() {
    let text = stdout(&["metrics", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let entries = json["metrics"].as_array().expect("a metrics array");
    let catalogue = cascade::metrics::catalogue::CATALOGUE;
    assert_eq!(entries.len(), catalogue.len());
    for (e, d) in entries.iter().zip(catalogue) {
        assert_eq!(e["pattern"], d.pattern);
        assert_eq!(e["unit"], d.unit);
        assert_eq!(e["meaning"], d.meaning);
        assert_eq!(e.as_object().unwrap().len(), 3, "{e}");
    }
    let kinds: Vec<&str> = json["kinds"]
        .as_array()
        .expect("a kinds array")
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let failures: Vec<&str> = cascade::model::Outcome::failures()
        .iter()
        .map(|o| o.name())
        .collect();
    assert_eq!(kinds, failures);
    // One metric per line, as the table prints them.
    assert_eq!(text.lines().count(), catalogue.len() + 5);
}

#[test]
fn metrics_text_is_the_catalogue_table() {
    // --json is opt-in: the table for people keeps its form (the README quotes it in full).
    let text = stdout(&["metrics"]);
    let first = &cascade::metrics::catalogue::CATALOGUE[0];
    let line = text.lines().next().unwrap();
    assert!(
        line.starts_with(first.pattern) && line.ends_with(first.meaning),
        "{line}"
    );
    assert!(serde_json::from_str::<serde_json::Value>(&text).is_err());
}
