//! The candidates a search never runs, decided before the first run from the grid alone: those
//! that break a constraint the user wrote (`[sweep] constraint`, `--constraint`), and those
//! whose retry cannot fit in the time its call has (the `retry-cannot-fit` lint, its own rule:
//! such a retry's later attempts never start, so the candidate is one with fewer attempts run
//! again). Each pruned candidate is counted once, by the first reason it meets, in the order
//! of `reasons`.

use crate::lint::{self, RETRY_CANNOT_FIT};
use crate::scenario::constraint::Resolved;
use crate::sweep::{Plan, RunKey};

/// Why candidates were pruned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// A user's constraint, as written.
    Constraint(String),
    /// The `retry-cannot-fit` lint.
    RetryCannotFit,
}

impl Reason {
    pub fn label(&self) -> String {
        match self {
            Reason::Constraint(text) => text.clone(),
            Reason::RetryCannotFit => format!(
                "lint {RETRY_CANNOT_FIT}: a retry whose later attempts cannot start in the time its call has"
            ),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruning {
    /// The constraints in their order, then the lint if it pruned anything.
    pub reasons: Vec<Reason>,
    /// Per point of the grid, the index in `reasons` of the first it meets.
    pub by_point: Vec<Option<usize>>,
}

impl Pruning {
    /// The candidates left to search.
    pub fn kept(&self) -> usize {
        self.by_point.iter().filter(|b| b.is_none()).count()
    }

    pub fn pruned(&self) -> usize {
        self.by_point.len() - self.kept()
    }

    /// The points `reason` pruned, ascending.
    pub fn points_of(&self, reason: usize) -> Vec<usize> {
        (0..self.by_point.len())
            .filter(|&p| self.by_point[p] == Some(reason))
            .collect()
    }
}

/// Prunes the grid of `plan`: first by `constraints`, then, unless the scenario allows the
/// lint (`lint_allowed`), by `retry-cannot-fit` on each remaining candidate's base run. A
/// finding every candidate shares is the scenario's, not the grid's: it is warned about as
/// any lint is, and prunes nothing.
pub fn prune(plan: &Plan, constraints: &[Resolved], lint_allowed: bool) -> Pruning {
    let values = crate::scenario::grid::points(&plan.params);
    let mut reasons: Vec<Reason> = constraints
        .iter()
        .map(|c| Reason::Constraint(c.text.clone()))
        .collect();
    let mut by_point: Vec<Option<usize>> = values
        .iter()
        .map(|point| {
            let texts: Vec<String> = point.iter().map(|o| o.value.clone()).collect();
            constraints.iter().position(|c| !c.holds(&texts))
        })
        .collect();
    if !lint_allowed {
        let fields: Vec<Vec<String>> = (0..plan.points())
            .map(|point| {
                let key = RunKey {
                    point,
                    variant: 0,
                    rep: 0,
                };
                let model = plan.model(key.index(plan.variants.len(), plan.reps));
                lint::retry_cannot_fit(&model)
                    .into_iter()
                    .map(|f| f.field)
                    .collect()
            })
            .collect();
        let shared = |field: &String| fields.iter().all(|f| f.contains(field));
        let lint = reasons.len();
        let mut any = false;
        for (point, found) in fields.iter().enumerate() {
            if by_point[point].is_none() && found.iter().any(|f| !shared(f)) {
                by_point[point] = Some(lint);
                any = true;
            }
        }
        if any {
            reasons.push(Reason::RetryCannotFit);
        }
    }
    Pruning { reasons, by_point }
}
