//! Reading a scenario file, or a config `cascade import` reads: at most `MAX_SCENARIO_BYTES`,
//! so that `validate /dev/zero`, `import envoy /dev/zero` or a runaway generator's output is
//! refused at once instead of filling memory; text that is not UTF-8 is named by its line and
//! column like any other error (`document::decode`).

use super::document::decode;
use crate::error::{Error, Result, ScenarioError};
use std::io::Read;
use std::path::Path;

/// The largest scenario file read: 16 MiB, thousands of times the largest real scenario. The
/// configs `cascade import` reads get the same cap: the largest real one is a few KiB too.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// The text of the scenario file at `path`.
pub fn read_scenario(path: &Path) -> Result<String> {
    read_text(path, "scenario")
}

/// The text of the file at `path`, a `what` (named in the message when it is too large): at
/// most one byte past the cap is read, so an endless device costs 16 MiB, not all memory.
pub fn read_text(path: &Path, what: &str) -> Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_SCENARIO_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let file = path.display().to_string();
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(Error::Scenario(Box::new(ScenarioError::new(
            &file,
            format!(
                "the file is larger than {} MiB, the most a {what} may be",
                MAX_SCENARIO_BYTES >> 20
            ),
        ))));
    }
    Ok(decode(&file, bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("cascade-read-{name}-{}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn invalid_utf8_is_located_by_line_and_column() {
        let path = scratch("utf8", b"[scenario]\nname = \"a\xffb\"\n");
        let Err(Error::Scenario(e)) = read_scenario(&path) else {
            panic!("accepted invalid UTF-8")
        };
        assert_eq!(e.position, Some((2, 10)), "the column of the bad byte");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_file_past_the_limit_is_refused_after_reading_only_the_limit() {
        let path = scratch("big", &vec![b'#'; MAX_SCENARIO_BYTES as usize + 1]);
        let Err(Error::Scenario(e)) = read_scenario(&path) else {
            panic!("read a file past the limit")
        };
        assert!(e.message.contains("larger than 16 MiB"), "{}", e.message);
        std::fs::remove_file(&path).unwrap();
        let at_limit = scratch("limit", &vec![b'#'; MAX_SCENARIO_BYTES as usize]);
        assert!(read_scenario(&at_limit).is_ok());
        std::fs::remove_file(at_limit).unwrap();
    }

    #[test]
    fn an_endless_device_is_refused() {
        let Err(Error::Scenario(e)) = read_scenario(Path::new("/dev/zero")) else {
            panic!("read /dev/zero")
        };
        assert!(e.message.contains("larger than"), "{}", e.message);
    }
}
