//! Compiles `[[expect]]`: the comparison checked, and a window of its own when it has one
//! (measured like any `[[window]]`, under the name `expect-<i>`).

use super::document::{Located, Source};
use super::schema::{RawExpect, RawWindow};
use crate::check::{Expect, OPS, Op};
use crate::fault::Fault;
use crate::model::Window;

pub fn compile_expects(
    src: &Source,
    raw: &[RawExpect],
    faults: &[Fault],
    warmup: u64,
    end: u64,
    windows: &mut Vec<Window>,
) -> Located<Vec<Expect>> {
    raw.iter()
        .enumerate()
        .map(|(i, e)| {
            let at = |k: &str| format!("expect.{i}.{k}");
            let op = Op::parse(e.op.trim()).ok_or_else(|| {
                src.error_at(
                    &at("op"),
                    format!("unknown comparison `{}`; valid: {}", e.op, OPS.join(" ")),
                )
            })?;
            if !e.value.is_finite() {
                return Err(src.error_at(&at("value"), "must be a finite number"));
            }
            let read_from = match &e.window {
                None => e.metric.clone(),
                Some(w) => {
                    let name = format!("expect-{i}");
                    let raw = RawWindow {
                        name: name.clone(),
                        start: w.start,
                        end: w.end,
                        fault: w.fault,
                        phase: w.phase.clone(),
                    };
                    let window = super::window::compile_window(
                        src,
                        &at("window"),
                        &raw,
                        faults,
                        warmup,
                        end,
                    )?;
                    windows.push(window);
                    format!("window.{name}.{}", e.metric)
                }
            };
            Ok(Expect {
                metric: e.metric.clone(),
                read_from,
                op,
                value: e.value,
                at: src.error_at(&at("metric"), ""),
            })
        })
        .collect()
}
