//! `[[service.operation]]`: a service's named operations (each its own work, calls,
//! criticality and worker partition), and a caller's choice of one (`operation = "..."` on a
//! call step or a client).

use super::compile::{Ctx, Res, check_name, positive_u32};
use super::document::Source;
use super::schema::{Overflow, RawService};
use crate::error::did_you_mean;
use crate::model::{Operation, Partition};

impl Ctx<'_> {
    /// The operations of service `s` (whose instances have `workers` workers each), or `None`
    /// when it declares none and does its own work and calls.
    pub(super) fn operations(
        &mut self,
        s: &RawService,
        workers: u32,
    ) -> Res<Option<Vec<Operation>>> {
        let Some(raw) = &s.operation else {
            return Ok(None);
        };
        let service = format!("service.{}", s.name);
        if raw.is_empty() {
            return Err(self.src.error_at(
                &format!("{service}.operation"),
                "declares no operation: give at least one, or leave `operation` out",
            ));
        }
        let own = [
            ("work", s.work.is_some()),
            ("calls", s.calls.is_some()),
            ("after_work", s.after_work.is_some()),
            ("after_work_on_failure", s.after_work_on_failure.is_some()),
        ];
        for (key, set) in own {
            if set {
                return Err(self.src.error_at(
                    &format!("{service}.{key}"),
                    format!("a service with operations has no `{key}` of its own: give each operation its `{key}`"),
                ));
            }
        }
        let mut out: Vec<Operation> = Vec::new();
        for op in raw {
            let path = format!("{service}.operation.{}", op.name);
            check_name(self.src, &format!("{path}.name"), &op.name)?;
            if out.iter().any(|o| o.name == op.name) {
                return Err(self.src.error_at_nth(
                    &format!("{path}.name"),
                    1,
                    format!("two operations of `{}` are named `{}`", s.name, op.name),
                ));
            }
            if op.label.as_deref().is_some_and(|l| l.trim().is_empty()) {
                return Err(self.src.error_at(
                    &format!("{path}.label"),
                    "is empty: give a label, or leave it out",
                ));
            }
            let partition = match (op.workers, op.overflow) {
                (None, None) => None,
                (None, Some(_)) => {
                    return Err(self.src.error_at(
                        &format!("{path}.overflow"),
                        "says what a request does when the operation's partition is full: give the partition's `workers` too",
                    ));
                }
                (Some(w), overflow) => {
                    let w = positive_u32(self.src, &format!("{path}.workers"), w)?;
                    if w > workers {
                        return Err(self.src.error_at(
                            &format!("{path}.workers"),
                            format!("a partition of {w} workers is larger than the pool: each instance of `{}` has {workers}", s.name),
                        ));
                    }
                    Some(Partition {
                        workers: w,
                        refuse: overflow == Some(Overflow::Refuse),
                    })
                }
            };
            let mut plan = self.plan(
                &s.name,
                &path,
                &format!("operation.{}.", op.name),
                op.work.as_ref(),
                op.calls.as_deref().unwrap_or_default(),
            )?;
            plan.after =
                self.after_work(&path, op.after_work.as_ref(), op.after_work_on_failure)?;
            out.push(Operation {
                name: op.name.clone(),
                label: op.label.clone(),
                plan,
                criticality: op.criticality,
                partition,
            });
        }
        if out.len() >= usize::from(u16::MAX) {
            return Err(self
                .src
                .error_at(&format!("{service}.operation"), "has too many operations"));
        }
        Ok(Some(out))
    }

    /// The number (from 1) of the operation `name` of service `to`, as a call written at
    /// `path` names it; 0 for a service without operations, which a call names none of.
    pub(super) fn callee_operation(&self, path: &str, to: usize, name: Option<&str>) -> Res<u16> {
        let callee = &self.raw.service[to];
        let ops: Vec<&str> = (callee.operation.iter().flatten())
            .map(|o| o.name.as_str())
            .collect();
        match name {
            None if ops.is_empty() => Ok(0),
            None => Err(self.src.error_at(
                path.strip_suffix(".operation").unwrap_or(path),
                format!(
                    "`{}` has operations: name the one called with `operation` ({})",
                    callee.name,
                    ops.join(", ")
                ),
            )),
            Some(n) if ops.is_empty() => Err(self.src.error_at(
                path,
                format!(
                    "`{}` has no operations, so a call to it names none (`{n}`)",
                    callee.name
                ),
            )),
            Some(n) => operation_number(self.src, path, &callee.name, &ops, n),
        }
    }
}

/// The number (from 1) of the operation `wanted` among `ops`, the operations of `service`, as
/// `path` names it; else the error listing the ones it has.
pub(super) fn operation_number(
    src: &Source,
    path: &str,
    service: &str,
    ops: &[&str],
    wanted: &str,
) -> Res<u16> {
    match ops.iter().position(|o| *o == wanted) {
        Some(i) => Ok(i as u16 + 1),
        None => {
            let hint = did_you_mean(wanted, ops.iter().copied());
            Err(src.error_at(
                path,
                format!(
                    "`{service}` has no operation `{wanted}`{hint}; it has: {}",
                    ops.join(", ")
                ),
            ))
        }
    }
}
