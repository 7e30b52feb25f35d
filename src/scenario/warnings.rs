//! Lint warnings (`crate::lint`) located in the scenario's text, less the ids its
//! `[scenario] allow` names.

use super::Scenario;
use super::document::{Located, Source};
use super::expectation::Op;
use crate::error::{ScenarioError, did_you_mean};
use crate::lint;
use std::fmt;

/// A lint's finding, located at the field it names (file, line, column, field, message).
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub id: &'static str,
    pub at: ScenarioError,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "warning[{}]: {}", self.id, self.at)
    }
}

impl Scenario {
    /// What the lints find in this scenario's model, except the ids it allows.
    pub fn warnings(&self) -> Vec<Warning> {
        let gates: Vec<lint::Gate> = (self.expects.iter().enumerate())
            .filter(|(_, e)| e.variant == self.run)
            .map(|(i, e)| lint::Gate {
                metric: &e.metric,
                // A comparison of two runs asks another question than the load sent.
                upper_bound: matches!(e.op, Op::Lt | Op::Le) && e.against.is_none(),
                field: format!("expect.{i}.metric"),
            })
            .collect();
        lint::lint(&self.model, &gates)
            .into_iter()
            .filter(|f| !self.allow.iter().any(|a| a == f.id))
            .map(|f| Warning {
                id: f.id,
                at: *self.source.error_at(&f.field, f.message),
            })
            .collect()
    }
}

/// `[scenario] allow`, each id a known lint.
pub(super) fn allowed(src: &Source, ids: &[String]) -> Located<Vec<String>> {
    let known = || lint::LINTS.iter().map(|l| l.id);
    for (i, id) in ids.iter().enumerate() {
        if !lint::known(id) {
            let mut e = src.error_at(
                &format!("scenario.allow.{i}"),
                format!("no lint is named `{id}`{}", did_you_mean(id, known())),
            );
            e.help = Some(format!(
                "the lints are: {}",
                known().collect::<Vec<_>>().join(", ")
            ));
            return Err(e);
        }
    }
    Ok(ids.to_vec())
}
