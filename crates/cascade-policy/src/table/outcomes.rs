//! A list of outcome kinds as a table writes it (`on`, `count`): names of `Outcome`, with the
//! kinds a key may never name refused.

use super::error::{Checked, TableError};
use super::names::did_you_mean;
use crate::outcome::Outcome;

/// The kinds named in `names`, refusing the `forbidden` ones (`why` says why), every error at
/// `path`.
pub fn outcomes(
    path: &str,
    names: &[String],
    forbidden: &[Outcome],
    why: &str,
) -> Checked<Vec<Outcome>> {
    names
        .iter()
        .map(|n| match Outcome::from_name(n) {
            Some(o) if forbidden.contains(&o) => Err(TableError::at(path, format!("`{n}` {why}"))),
            Some(o) => Ok(o),
            None => {
                let valid: Vec<&str> = Outcome::ALL
                    .iter()
                    .filter(|o| !forbidden.contains(o))
                    .map(|o| o.name())
                    .collect();
                let hint = did_you_mean(n, valid.iter().copied());
                Err(TableError::at(
                    path,
                    format!("unknown outcome `{n}`{hint}; valid: {}", valid.join(", ")),
                ))
            }
        })
        .collect()
}
