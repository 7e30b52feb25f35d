//! What compiling a table refuses: the field's path relative to the table and why.

use std::fmt;

/// A table refused by its validation: `path` names the field relative to the table compiled
/// (`retry.backoff_ratio`, or empty for the table itself), `message` says why, in the words a
/// scenario's error prints after the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    pub path: String,
    pub message: String,
}

impl TableError {
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> TableError {
        TableError {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The same error as seen from the table holding this one under `key`.
    pub fn under(self, key: &str) -> TableError {
        TableError {
            path: self.path_under(key),
            message: self.message,
        }
    }

    /// The field's path under `prefix` (`policy.api` and `retry.base` make
    /// `policy.api.retry.base`; an empty path is `prefix` itself).
    pub fn path_under(&self, prefix: &str) -> String {
        match (prefix.is_empty(), self.path.is_empty()) {
            (_, true) => prefix.to_string(),
            (true, false) => self.path.clone(),
            (false, false) => format!("{prefix}.{}", self.path),
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "field `{}`: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TableError {}

/// A table's result.
pub type Checked<T> = Result<T, TableError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_grows_by_the_tables_around_it() {
        let e = TableError::at("base", "must be 1 or more").under("retry");
        assert_eq!(e.path, "retry.base");
        assert_eq!(e.path_under("policy.api"), "policy.api.retry.base");
        assert_eq!(TableError::at("", "m").path_under("hedge"), "hedge");
        assert_eq!(e.to_string(), "field `retry.base`: must be 1 or more");
    }
}
