//! Progress of long work on stderr: an indicatif bar on a terminal; without one (a CI log) a
//! plain line every `LINE_EVERY`, so the log is not silent for minutes; nothing with
//! `--quiet`. Progress is shown, never recorded: no output file depends on it.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often a plain progress line is printed when stderr is not a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(10);

pub struct Progress {
    shown: Shown,
    len: u64,
    /// `runs`, `replications`, `s simulated`.
    unit: &'static str,
}

enum Shown {
    Hidden,
    Bar(ProgressBar),
    Lines {
        what: String,
        started: Instant,
        last: Mutex<Instant>,
        pos: AtomicU64,
    },
}

impl Progress {
    /// Progress over `len` units of `what` (`sweep`, `check`, `run`).
    pub fn new(what: &str, len: u64, unit: &'static str, quiet: bool) -> Progress {
        let shown = if quiet || len == 0 {
            Shown::Hidden
        } else if std::io::stderr().is_terminal() {
            Shown::Bar(bar(len, unit))
        } else {
            let now = Instant::now();
            Shown::Lines {
                what: what.to_string(),
                started: now,
                last: Mutex::new(now),
                pos: AtomicU64::new(0),
            }
        };
        Progress { shown, len, unit }
    }

    /// One more unit done.
    pub fn inc(&self) {
        match &self.shown {
            Shown::Hidden => {}
            Shown::Bar(b) => b.inc(1),
            Shown::Lines { pos, .. } => {
                let p = pos.fetch_add(1, Ordering::Relaxed) + 1;
                self.maybe_line(p);
            }
        }
    }

    /// Now at `pos` units (a run's simulated seconds).
    pub fn set(&self, pos: u64) {
        match &self.shown {
            Shown::Hidden => {}
            Shown::Bar(b) => b.set_position(pos),
            Shown::Lines { pos: p, .. } => {
                p.store(pos, Ordering::Relaxed);
                self.maybe_line(pos);
            }
        }
    }

    /// The work is over: the bar is cleared (the command's own summary line follows).
    pub fn finish(&self) {
        if let Shown::Bar(b) = &self.shown {
            b.finish_and_clear();
        }
    }

    fn maybe_line(&self, pos: u64) {
        let Shown::Lines {
            what,
            started,
            last,
            ..
        } = &self.shown
        else {
            return;
        };
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if last.elapsed() < LINE_EVERY {
            return;
        }
        *last = Instant::now();
        eprintln!(
            "{}",
            line(what, pos, self.len, self.unit, started.elapsed())
        );
    }
}

/// `sweep: 120/480 runs (25%), 31 s elapsed`.
fn line(what: &str, pos: u64, len: u64, unit: &str, elapsed: Duration) -> String {
    let pct = (100 * pos).checked_div(len).unwrap_or(100);
    format!(
        "{what}: {pos}/{len} {unit} ({pct}%), {} s elapsed",
        elapsed.as_secs()
    )
}

fn bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} [{{elapsed_precise}}] [{{wide_bar}}] {{pos}}/{{len}} {unit} (ETA {{eta}})"
        ))
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_how_far_and_how_long() {
        assert_eq!(
            line("sweep", 120, 480, "runs", Duration::from_secs(31)),
            "sweep: 120/480 runs (25%), 31 s elapsed"
        );
    }

    #[test]
    fn quiet_or_empty_work_shows_nothing_and_counts_harmlessly() {
        for p in [
            Progress::new("sweep", 10, "runs", true),
            Progress::new("sweep", 0, "runs", false),
        ] {
            assert!(matches!(p.shown, Shown::Hidden));
            p.inc();
            p.set(5);
            p.finish();
        }
    }
}
