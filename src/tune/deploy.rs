//! The winner ready to take out: its setting as `--set` arguments, the `cascade run` that
//! reproduces its replication 0 (on the scenario's own seed), and the `cascade export` command
//! for each library that can express each policy a parameter set, with what that library
//! cannot say. The commands name the scenario and the `--set`s the search was given, so they
//! reproduce it as run.

use crate::error::Result;
use crate::export::expressible;
use crate::import::Format;
use crate::scenario::{Override, load_policy};
use std::path::Path;

/// One library's export of one policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub command: String,
    /// `key: reason`, one per setting the library cannot express.
    pub unexpressed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    /// `--set PATH=VALUE`, the search's own first, then the winner's.
    pub sets: Vec<String>,
    pub run: String,
    pub exports: Vec<Export>,
    /// Policies a parameter set that no library can express.
    pub not_exportable: Vec<String>,
}

/// A word as a POSIX shell reads it back: quoted only when it must be.
fn shell_word(w: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._-:/=,+@%".contains(c);
    match !w.is_empty() && w.chars().all(plain) {
        true => w.to_string(),
        false => format!("'{}'", w.replace('\'', r"'\''")),
    }
}

/// The winner `setting` (parameter path and value) of a search of `scenario` run with
/// `overrides`.
pub fn ready(scenario: &Path, overrides: &[Override], setting: &[(&str, String)]) -> Result<Ready> {
    let mut all: Vec<Override> = overrides.to_vec();
    all.extend(setting.iter().map(|(path, value)| Override {
        path: path.to_string(),
        value: value.clone(),
    }));
    let sets: Vec<String> = (all.iter())
        .map(|o| format!("--set {}", shell_word(&format!("{}={}", o.path, o.value))))
        .collect();
    let file = shell_word(&scenario.display().to_string());
    let args = sets.join(" ");
    let mut policies: Vec<&str> = Vec::new();
    for (path, _) in setting {
        let name = path
            .strip_prefix("policy.")
            .and_then(|p| p.split('.').next());
        if let Some(name) = name.filter(|n| !policies.contains(n)) {
            policies.push(name);
        }
    }
    let mut exports = Vec::new();
    let mut not_exportable = Vec::new();
    for name in policies {
        let policy = load_policy(scenario, &all, name)?;
        let before = exports.len();
        for format in [Format::Envoy, Format::Grpc, Format::Resilience4j] {
            let restricted = expressible(format, &policy);
            if restricted.nothing_left {
                continue;
            }
            exports.push(Export {
                command: format!(
                    "cascade export {} {file} --policy {} {args}",
                    format.name(),
                    shell_word(name)
                ),
                unexpressed: restricted.unexpressed,
            });
        }
        if exports.len() == before {
            not_exportable.push(name.to_string());
        }
    }
    Ok(Ready {
        run: format!("cascade run {file} {args}"),
        sets,
        exports,
        not_exportable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_the_shell_needs_it() {
        assert_eq!(
            shell_word("policy.web-api.timeout=30ms"),
            "policy.web-api.timeout=30ms"
        );
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
