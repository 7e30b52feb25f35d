use crate::error::Result;
use std::path::{Path, PathBuf};
pub enum Format { Html, Markdown }
pub fn report_dir(_dir: &Path, _f: Format, _out: Option<&Path>) -> Result<Vec<PathBuf>> { Err(crate::Error::Usage("wip".into())) }
