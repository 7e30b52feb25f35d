//! Writing result files: each is written whole to a temporary name and renamed, so a reader
//! (or a killed run) never sees half a file.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A temporary name beside `path`, in its directory (created if need be), to write to and
/// then rename. Hidden, and ending in the real name, so encoders that go by the extension
/// still see it.
pub fn temp_beside(path: &Path) -> Result<PathBuf> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    Ok(path.with_file_name(format!(".tmp{}.{name}", unique_suffix())))
}

/// Writes `bytes` to `path` atomically (temporary file in the same directory, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_beside(path)?;
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io_error(path))
}

/// Unique among writers to one directory, even across machines sharing it (containers often
/// all run as pid 1): the pid, the wall clock's nanoseconds, the host, and a per-process count.
fn unique_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let host: String = host
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    format!(
        "{}-{host}-{nanos}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A number as JSON or CSV text: integral values without a fraction, others in Rust's shortest
/// round-trip form, so the same value always prints the same way.
///
/// Every metric is defined where it is computed, finite even with nothing to measure (README,
/// "Metrics"), so a NaN or infinity here is a bug at its source. It stops a debug build (every
/// test) and, in a release build, prints as `NaN` / `inf` so that a reader fails on it rather
/// than take it for a measured 0.
pub fn number(v: f64) -> String {
    debug_assert!(
        v.is_finite(),
        "non-finite value {v} written: define it where it is computed"
    );
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
