//! A result directory, read: one run with its variants (it has summary.json) or one sweep (it
//! has points.csv). Charts and the report start here.

use super::read_run::{self, RunData};
use super::read_sweep::{self, SweepData};
use crate::error::{Error, Result};
use std::path::Path;

/// A directory of results: one run (with its variants) or one sweep.
#[derive(Debug, Clone)]
pub enum Results {
    /// The base run first, then its variants.
    Run(Vec<RunData>),
    Sweep(Box<SweepData>),
}

/// Reads a run's or a sweep's directory; anything else is a clear error (exit code 2).
pub fn read_results(dir: &Path) -> Result<Results> {
    if read_run::is_run_dir(dir) {
        Ok(Results::Run(read_run::read_run_with_variants(dir)?))
    } else if read_sweep::is_sweep_dir(dir) {
        Ok(Results::Sweep(Box::new(read_sweep::read_sweep(dir)?)))
    } else if !dir.is_dir() {
        Err(Error::Usage(format!(
            "`{}` is not a directory: give the directory `cascade run --out` or `cascade sweep --out` wrote",
            dir.display()
        )))
    } else {
        Err(Error::Usage(format!(
            "`{}` is neither a run's directory (no summary.json) nor a sweep's (no points.csv)",
            dir.display()
        )))
    }
}
