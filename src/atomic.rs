//! Writing files atomically: each is written whole to a temporary name and renamed, so a
//! reader (or a killed run) never sees half a file. What is already at the path decides how: a
//! symlink is written through (its target replaced, the link kept), and a FIFO, a character
//! device or `/dev/stdout` is streamed to, since it cannot be renamed over. A foundation: it
//! uses nothing in the crate but `crate::error`, so every layer that writes a file (sweep
//! records, result files, charts, reports, baselines, the command line) can use it.

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

/// Writes `bytes` to `path` atomically (temporary file in the same directory, then rename),
/// through a symlink to its target, or streamed to a FIFO or device (see the module's doc).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// As `write_atomic`, for what `write` produces into a buffered writer: a large file (a long
/// run's time series) goes to its temporary name as it is made, never held whole in memory.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    match destination(path).map_err(io_error(path))? {
        Destination::Stream => stream(path, write).map_err(io_error(path)),
        Destination::File(target) => replace(&target, write).map_err(io_error(path)),
    }
}

/// How a path is written.
#[derive(Debug, PartialEq)]
enum Destination {
    /// Opened and written in place: a FIFO, a character or block device, a socket.
    Stream,
    /// Replaced by a rename: the path itself, or the file a symlink at it leads to.
    File(PathBuf),
}

/// Most symlinks followed from one path, as the kernel's own limit (ELOOP).
const MAX_LINKS: usize = 40;

fn destination(path: &Path) -> std::io::Result<Destination> {
    // `/dev/stdout` and its kin lead to a file descriptor: even when that is a regular file
    // (`> out.txt`), renaming over it would leave the shell's descriptor on a deleted file.
    if path.starts_with("/dev/") || path.starts_with("/proc/") {
        return Ok(Destination::Stream);
    }
    // `metadata` follows links as `open` would.
    if let Ok(m) = std::fs::metadata(path) {
        if m.is_dir() {
            return Err(std::io::Error::other("is a directory, not a file"));
        }
        if !m.is_file() {
            return Ok(Destination::Stream);
        }
    }
    // A regular file, or nothing yet: find the path at the end of any chain of symlinks.
    let mut target = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&target)?;
                target = match target.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(Destination::File(target)),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Writes into what is already there (no truncation is needed for a FIFO or a device, and a
/// rename would replace the device with a file).
fn stream(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let f = std::fs::OpenOptions::new().write(true).open(path)?;
    let mut w = std::io::BufWriter::new(f);
    write(&mut w)?;
    w.flush()
}

/// A temporary file beside `path`, renamed over it; never left behind on an error.
fn replace(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = temp_beside(path).map_err(|e| match e {
        Error::Io { source, .. } => source,
        other => std::io::Error::other(other.to_string()),
    })?;
    let result = (|| {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        write(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Refuses, before anything is written, an output file the user named (`--trace`, `--junit`,
/// `--export-*`) whose directory does not exist or that is a directory: the command would
/// otherwise fail only after writing its other files, or make directories nobody asked for.
pub fn check_destination(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir.filter(|d| !d.is_dir()) {
        return Err(Error::Usage(format!(
            "{}: the directory {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    if path.is_dir() {
        return Err(Error::Usage(format!(
            "{}: is a directory, not a file",
            path.display()
        )));
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cascade-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_symlink_is_written_through_and_kept() {
        let d = scratch("link");
        std::fs::create_dir(d.join("real")).unwrap();
        std::fs::write(d.join("real/t.csv"), "old").unwrap();
        std::os::unix::fs::symlink("real/t.csv", d.join("t.csv")).unwrap();
        write_atomic(&d.join("t.csv"), b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(d.join("t.csv"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(d.join("real/t.csv")).unwrap(),
            "new"
        );
        // A dangling link gets its target created.
        std::os::unix::fs::symlink("real/new.csv", d.join("n.csv")).unwrap();
        write_atomic(&d.join("n.csv"), b"made").unwrap();
        assert_eq!(
            std::fs::read_to_string(d.join("real/new.csv")).unwrap(),
            "made"
        );
        assert_eq!(
            std::fs::read_dir(d.join("real")).unwrap().count(),
            2,
            "no .tmp left"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_device_is_streamed_to_not_replaced() {
        assert_eq!(
            destination(Path::new("/dev/null")).unwrap(),
            Destination::Stream
        );
        write_atomic(Path::new("/dev/null"), b"x").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    }

    #[test]
    fn a_directory_is_not_a_destination() {
        let d = scratch("dir");
        assert!(write_atomic(&d, b"x").is_err());
        assert!(check_destination(&d).is_err());
        assert!(check_destination(&d.join("missing/t.csv")).is_err());
        assert!(check_destination(&d.join("t.csv")).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_streamed_write_that_fails_half_way_leaves_the_old_file_and_no_temporary() {
        let d = scratch("half");
        std::fs::write(d.join("t.csv"), "old").unwrap();
        let failed = write_atomic_with(&d.join("t.csv"), |w| {
            w.write_all(b"half of the new")?;
            Err(std::io::Error::other("the run's writer failed"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(d.join("t.csv")).unwrap(), "old");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1, "no .tmp left");
        write_atomic_with(&d.join("t.csv"), |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(d.join("t.csv")).unwrap(), "new");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
