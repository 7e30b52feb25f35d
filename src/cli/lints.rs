//! Lint warnings before a command runs (docs/lints.md): printed to stderr, once for the base
//! scenario and once for each variant that has warnings of its own; `--deny-warnings` makes
//! any of them an error (exit 2), for CI.

use cascade::scenario::{Override, Scenario, Warning};
use cascade::{Error, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct LintArgs {
    /// Treat lint warnings as errors: print them and exit 2 before running anything.
    #[arg(long)]
    deny_warnings: bool,
}

impl LintArgs {
    /// Warns about each compiled scenario in `scenarios` (the base first, then its variants,
    /// as `load_with_variants` gives them).
    pub fn warn(&self, scenarios: &[(Option<String>, Scenario)]) -> Result<()> {
        self.deny(print_warnings(scenarios))
    }

    /// `warn` for scenario files, each with every one of its variants; with
    /// `--deny-warnings`, an error after all of them are printed.
    pub fn warn_files(&self, paths: &[PathBuf], overrides: &[Override]) -> Result<()> {
        let mut count = 0;
        for path in paths {
            count += print_warnings(&cascade::scenario::load_with_variants(path, overrides)?);
        }
        self.deny(count)
    }

    fn deny(&self, count: usize) -> Result<()> {
        if count > 0 && self.deny_warnings {
            return Err(Error::Usage(format!(
                "{count} lint warning{} and --deny-warnings: fix the setting, or allow the lint \
                 by id in [scenario] allow = [...] with a comment saying why",
                if count == 1 { "" } else { "s" }
            )));
        }
        Ok(())
    }
}

/// Prints the warnings of the base and, for each variant, those the base does not have;
/// returns how many it printed.
fn print_warnings(scenarios: &[(Option<String>, Scenario)]) -> usize {
    let base: Vec<Warning> = scenarios
        .first()
        .map(|(_, s)| s.warnings())
        .unwrap_or_default();
    let mut count = 0;
    for w in &base {
        eprintln!("{w}");
        count += 1;
    }
    for (name, s) in scenarios.iter().skip(1) {
        for w in s.warnings().into_iter().filter(|w| !base.contains(w)) {
            let name = name.as_deref().unwrap_or_default();
            eprintln!("in variant `{name}`: {w}");
            count += 1;
        }
    }
    count
}
