//! The timeline's panels per client: its success ratio with each operation of its mix as a
//! line beside the client's total, and its goodput by operation. Each has an axis of its own, so
//! the collapse of an operation that is a tenth of the traffic shows as a line falling to 0,
//! not as a dip on the load panel's axis of the client's whole rate.

use super::format::AxisUnit;
use super::gates::client_gates;
use super::palette;
use super::style::Dash;
use super::timeline::{Line, Panel};
use crate::metrics::names;
use crate::output::read_run::RunData;
use crate::output::units;

/// The points of a time series at bucket midpoints, scaled by `scale`.
pub fn midpoints(run: &RunData, values: &[f64], scale: f64) -> Vec<(f64, f64)> {
    run.times
        .iter()
        .zip(values)
        .map(|(t, v)| (t + run.bucket_s / 2.0, v * scale))
        .collect()
}

/// For each client: a success panel (the total dashed in the text colour, then one line per
/// operation), and for a client with operations a goodput panel of one line per operation.
/// Buckets in which no request finished have no success ratio and are left out of its line.
pub fn panels(run: &RunData, clients: &[String]) -> Vec<Panel> {
    let mut out = Vec::new();
    for c in clients {
        let ops = run.client_operations(c);
        let total = names::client(c);
        let mut success = Vec::new();
        if let Some(line) = success_line(run, &total, format!("{c} (all operations)")) {
            success.push(Line {
                color: palette::TEXT,
                dash: Dash::Dashed,
                ..line
            });
        }
        let mut goodput = Vec::new();
        for (i, o) in ops.iter().enumerate() {
            let prefix = names::client_op(c, o);
            if let Some(line) = success_line(run, &prefix, o.clone()) {
                success.push(Line {
                    color: palette::series(i),
                    ..line
                });
            }
            if let Some(v) = run.series(&names::metric(&prefix, "goodput_rps")) {
                goodput.push(Line {
                    label: o.clone(),
                    color: palette::series(i),
                    dash: Dash::Solid,
                    points: midpoints(run, v, 1.0),
                });
            }
        }
        if !success.is_empty() {
            out.push(Panel {
                heading: format!("Success of {c}"),
                y_desc: "success (%)".into(),
                unit: AxisUnit::Percent,
                lines: success,
                folded: Vec::new(),
                gates: client_gates(run, c, "success_ratio", units::ratio),
            });
        }
        if !goodput.is_empty() {
            out.push(Panel {
                heading: format!("Goodput of {c} by operation"),
                y_desc: "goodput (/s)".into(),
                unit: AxisUnit::PerSecond,
                lines: goodput,
                folded: Vec::new(),
                // The client's total goodput is on the load panel, not here.
                gates: (client_gates(run, c, "goodput_rps", units::per_second).into_iter())
                    .filter(|g| g.operation.is_some())
                    .collect(),
            });
        }
    }
    out
}

/// The success ratio of `prefix` (`client.<c>` or `client.<c>.op.<o>`) bucket by bucket, its
/// buckets without a finished request left out.
fn success_line(run: &RunData, prefix: &str, label: String) -> Option<Line> {
    let v = run.series(&names::metric(prefix, "success_ratio"))?;
    let points = midpoints(run, v, 1.0)
        .into_iter()
        .filter(|p| p.1.is_finite())
        .collect();
    Some(Line {
        label,
        color: palette::TEXT,
        dash: Dash::Solid,
        points,
    })
}
