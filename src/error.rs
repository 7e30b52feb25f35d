//! Errors of the library. Library code returns these; only `main` turns them into exit codes.

use std::fmt;
use std::path::PathBuf;

/// Everything that can stop a command. Every variant is the user's to fix (exit code 2).
#[derive(Debug)]
pub enum Error {
    /// A scenario file, or an override of one, is not valid.
    Scenario(Box<ScenarioError>),
    /// A command line that cannot be carried out.
    Usage(String),
    /// A run stopped because simulated time stopped moving (`engine::watchdog`).
    NoProgress {
        run: Box<RunPlace>,
        at_ns: u64,
        events: u64,
    },
    /// A run stopped because a closed-loop client asked more often than its model allows
    /// (`engine::work_bound`).
    WorkBound(Box<WorkBound>),
    /// A file could not be read or written.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

/// Which run an error of a run is about: its scenario and seed (the engine knows these), and
/// where the command placed it (a variant, a sweep point, a replication), which the command
/// adds with `Error::in_run`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunPlace {
    pub scenario: String,
    pub variant: Option<String>,
    /// The sweep point: its number (from 1) and its values (`service.api.queue = 0`).
    pub point: Option<(usize, String)>,
    pub replication: Option<u32>,
    pub seed: u64,
}

impl fmt::Display for RunPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.scenario)?;
        if let Some(v) = &self.variant {
            write!(f, ", variant `{v}`")?;
        }
        if let Some((k, values)) = &self.point {
            write!(f, ", sweep point {k} ({values})")?;
        }
        if let Some(r) = self.replication {
            write!(f, ", replication {r}")?;
        }
        write!(f, ", seed {}", self.seed)
    }
}

/// A closed-loop client past its work bound (`engine::work_bound`, docs/scenario.md, "The work
/// bound"): what it asked, what the bound allowed, and the key to change.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkBound {
    pub run: RunPlace,
    pub client: String,
    /// The field to change: `client.<c>.pace` or `client.<c>.think`.
    pub key: String,
    /// Its value, as written back (`1ns`).
    pub value: String,
    /// The client's requests from the start to `at_ns`, and the most the bound allows by then.
    pub requests: u64,
    pub allowed: u64,
    pub at_ns: u64,
    /// The bound's formula with the client's numbers (`1,000,000 + 1,000 × 2 users × (1 + t /
    /// 1ms)`), and what sets its least time between one user's requests (`api's work 1ms`).
    pub formula: String,
    pub gap_from: String,
}

/// A problem in a scenario, located as precisely as it can be: file, line, column and field.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub file: String,
    /// 1-based line and column, where known.
    pub position: Option<(usize, usize)>,
    /// The field's path, as `--set` would name it (`service.api.workers`).
    pub field: Option<String>,
    pub message: String,
    /// A suggestion, e.g. the closest valid key.
    pub help: Option<String>,
    /// The offending source line, shown under the message.
    pub source_line: Option<String>,
}

impl ScenarioError {
    pub fn new(file: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: file.to_string(),
            position: None,
            field: None,
            message: message.into(),
            help: None,
            source_line: None,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, col)) = self.position {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        write!(f, "{}", self.message)?;
        if let (Some(src), Some((line, col))) = (&self.source_line, self.position) {
            let gutter = line.to_string().len();
            let (excerpt, caret) = excerpt(src, col);
            // The caret is padded by hand: a format width past 65,535 panics.
            let pad = " ".repeat(caret - 1);
            write!(f, "\n {line} | {excerpt}\n {:gutter$} | {pad}^", "")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n help: {help}")?;
        }
        Ok(())
    }
}

/// Longest source line shown whole under an error; a longer one is cut around the column.
const SHOWN_CHARS: usize = 120;

/// The part of `line` to show and the 1-based column of the caret in it: the whole line when
/// it is short, else `SHOWN_CHARS` characters around `col` with `…` where it was cut.
fn excerpt(line: &str, col: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let col = col.max(1);
    if chars.len() <= SHOWN_CHARS {
        return (line.to_string(), col);
    }
    let start = (col - 1).saturating_sub(SHOWN_CHARS / 2).min(chars.len());
    let end = (start + SHOWN_CHARS).min(chars.len());
    let mut shown = String::new();
    let mut caret = col - start;
    if start > 0 {
        shown.push('…');
        caret += 1;
    }
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push('…');
    }
    (shown, caret)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Usage(msg) => write!(f, "{msg}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::NoProgress { run, at_ns, events } => write!(
                f,
                "{run}: the run makes no progress: {events} events at t = {} s without the \
                 clock moving. A closed-loop client whose requests are answered at once (think \
                 and work of zero, an outage, queue = 0) asks again at the same instant forever: \
                 give `think` or the services' `work` a duration",
                *at_ns as f64 / 1e9
            ),
            Error::WorkBound(b) => write!(
                f,
                "{}: client `{}` asked {} times by t = {} s, more than the {} its model allows \
                 ({}; {}). Its requests are answered at once (refused, an outage, a failure \
                 without work) and each user asks again {} later: give `{}` the interval a \
                 real client keeps, 1µs at the very least (docs/scenario.md, \"The work bound\")",
                b.run,
                b.client,
                b.requests,
                b.at_ns as f64 / 1e9,
                b.allowed,
                b.formula,
                b.gap_from,
                b.value,
                b.key,
            ),
        }
    }
}

impl Error {
    /// A run's error placed in its command (a variant, a sweep point, a replication); any
    /// other error unchanged.
    pub fn in_run(mut self, place: impl FnOnce(&mut RunPlace)) -> Error {
        match &mut self {
            Error::NoProgress { run, .. } => place(run),
            Error::WorkBound(b) => place(&mut b.run),
            _ => {}
        }
        self
    }
}

impl std::error::Error for Error {}

impl From<Box<ScenarioError>> for Error {
    fn from(e: Box<ScenarioError>) -> Error {
        Error::Scenario(e)
    }
}

/// The closest valid name to a typo, and the " (did you mean `x`?)" made of it: the policy
/// crate's, which its tables report their names with too.
pub use cascade_policy::table::{closest, did_you_mean};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let keys = ["workers", "instances", "queue"];
        assert_eq!(closest("wrkers", keys), Some("workers"));
        assert_eq!(closest("instance", keys), Some("instances"));
        assert_eq!(closest("zzzzzzzz", keys), None);
        assert_eq!(closest("medain", ["mean", "median"]), Some("median"));
    }

    #[test]
    fn a_column_past_65535_is_shown_cut_around_the_caret() {
        let mut e = ScenarioError::new("s.toml", "bad");
        let line = format!("workers = {}\"x\"", " ".repeat(70_000));
        e.position = Some((3, 70_011));
        e.source_line = Some(line);
        let text = e.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "s.toml:3:70011: bad");
        let (src, caret) = (lines[1], lines[2]);
        assert!(src.ends_with("\"x\"") && src.starts_with(" 3 | …"), "{src}");
        assert!(src.chars().count() < 140, "cut to a readable length");
        // The caret sits under the `"` the column names.
        let at = caret.chars().count() - 1;
        assert_eq!(src.chars().nth(at), Some('"'), "{src}\n{caret}");
    }

    #[test]
    fn a_short_line_is_shown_whole() {
        let mut e = ScenarioError::new("s.toml", "bad");
        e.position = Some((1, 3));
        e.source_line = Some("a = 1".into());
        assert_eq!(e.to_string(), "s.toml:1:3: bad\n 1 | a = 1\n   |   ^");
    }

    #[test]
    fn the_distance_counts_characters_and_a_transposition_as_two_edits() {
        // Levenshtein over characters, as the hand-written distance was: `é` is one edit, and
        // swapping two letters costs two (Damerau would say one and suggest more).
        assert_eq!(strsim::levenshtein("kitten", "sitting"), 3);
        assert_eq!(strsim::levenshtein("", "abc"), 3);
        assert_eq!(strsim::levenshtein("café", "cafe"), 1);
        assert_eq!(strsim::levenshtein("ab", "ba"), 2);
        // Limit 2 for a short word: a swap in a 5-letter word is still suggested...
        assert_eq!(closest("qeueu", ["queue"]), Some("queue"));
        // ...but a 3-letter word three edits away is not.
        assert_eq!(closest("abc", ["xyz"]), None);
    }
}
