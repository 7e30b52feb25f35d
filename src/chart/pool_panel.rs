//! The timeline's panel of named pools (`bulkhead.pool`, a shared connection pool): each
//! pool's permits in use (solid) and callers waiting for one (dashed, same colour), summed over
//! its caller's instances, for the pools whose series move; a pool flat throughout says
//! nothing a summary does not.

use super::client_panels::midpoints;
use super::format::AxisUnit;
use super::palette;
use super::style::Dash;
use super::timeline::{Line, Panel};
use crate::metrics::names;
use crate::output::read_run::RunData;

/// The pools panel, if some pool's series move.
pub fn panel(run: &RunData) -> Option<Panel> {
    let [in_use, waiting] = names::POOL_METRICS;
    let suffix = format!(".{in_use}");
    let prefixes = (run.series.keys())
        .filter_map(|n| n.strip_suffix(&suffix))
        .filter(|p| p.contains(".pool."));
    let mut lines = Vec::new();
    let mut drawn = 0;
    for prefix in prefixes {
        let series = [in_use, waiting].map(|m| run.series(&names::metric(prefix, m)));
        if !series.iter().flatten().any(|v| moves(v)) {
            continue;
        }
        let color = palette::series(drawn);
        drawn += 1;
        let label = prefix.split_once('.').map_or(prefix, |(_, rest)| rest);
        for (values, (what, dash)) in series
            .iter()
            .zip([("in use", Dash::Solid), ("waiting", Dash::Dashed)])
        {
            if let Some(v) = values {
                lines.push(Line {
                    label: format!("{} {what}", label.replacen(".pool.", " pool ", 1)),
                    color,
                    dash,
                    points: midpoints(run, v, 1.0),
                });
            }
        }
    }
    (!lines.is_empty()).then(|| Panel {
        heading: "Pools (mean per bucket, all instances)".into(),
        y_desc: "permits or callers".into(),
        unit: AxisUnit::Plain,
        lines,
        folded: Vec::new(),
        gates: Vec::new(),
    })
}

/// Not the same value throughout.
fn moves(v: &[f64]) -> bool {
    v.windows(2).any(|w| w[0] != w[1])
}
