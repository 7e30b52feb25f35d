//! `cascade margin --map DIR`: each fault's probability map along its boundary
//! (`cascade::margin::map`), written as `margin-map-fault-<i>.csv` (one row a probed cell) and
//! drawn as a heatmap (`charts/margin-map-fault-<i>.svg`) the way a sweep's metastability map
//! is: the share of runs that recovered, a cell per load × trigger probed, the rest blank.

use cascade::Result;
use cascade::chart::axis::ParamAxis;
use cascade::chart::format::AxisUnit;
use cascade::chart::heatmap::Heatmap;
use cascade::chart::{Chart, Kind, write_charts};
use cascade::margin::map::ProbabilityMap;
use cascade::margin::scale;
use cascade::model::Model;
use cascade::number::sig3;
use std::path::{Path, PathBuf};

/// Writes `map`'s CSV and chart into `dir`; the paths written.
pub fn write(model: &Model, map: &ProbabilityMap, dir: &Path) -> Result<Vec<PathBuf>> {
    let name = format!("margin-map-fault-{}", map.fault);
    let trigger_s = scale::trigger_s(model, map.fault);
    let mut csv = String::from("trigger_multiplier,trigger_s,load_multiplier,recovered,runs\n");
    for c in &map.cells {
        let t = map.triggers[c.trigger];
        csv.push_str(&format!(
            "{},{},{},{},{}\n",
            sig3(t),
            sig3(t * trigger_s),
            sig3(map.loads[c.load]),
            c.recovered,
            c.runs
        ));
    }
    let csv_path = dir.join(format!("{name}.csv"));
    cascade::atomic::write_atomic(&csv_path, csv.as_bytes())?;
    let f = &model.faults[map.fault];
    // Only the rows probed are drawn: the rest of the grid is far from the boundary.
    let rows = (map.cells.iter().map(|c| c.load).min().unwrap_or(0))
        ..=(map.cells.iter().map(|c| c.load).max().unwrap_or(0));
    let labels = |values: &[f64], unit: &dyn Fn(f64) -> String| -> Vec<String> {
        values.iter().map(|&v| unit(v)).collect()
    };
    let chart = Chart {
        file: name.clone(),
        caption: format!(
            "the share of runs recovered from fault {} over load × trigger, probed along its boundary",
            map.fault
        ),
        kind: Kind::Heatmap(Heatmap {
            title: format!(
                "fault {} ({}): recovered along the boundary",
                map.fault,
                cascade::output::describe::fault_label(model, f)
            ),
            subtitle: format!(
                "{} cells probed of {} · {} runs · {} s as written",
                map.cells.len(),
                map.triggers.len() * map.loads.len(),
                map.runs(),
                sig3(trigger_s)
            ),
            x: ParamAxis::categorical(
                "trigger (its duration)",
                &labels(&map.triggers, &|t| format!("{} s", sig3(t * trigger_s))),
            ),
            y: ParamAxis::categorical(
                "load (× today's)",
                &labels(&map.loads[rows.clone()], &|l| format!("{}×", sig3(l))),
            ),
            unit: AxisUnit::Percent,
            metric: "runs recovered".into(),
            cells: (map.cells.iter())
                .map(|c| (c.trigger, c.load - rows.start(), c.fraction()))
                .collect(),
            domain: (0.0, 1.0),
            marks: Vec::new(),
            mark_note: None,
            failing: Vec::new(),
            fail_note: None,
        }),
    };
    let mut written = vec![csv_path];
    written.extend(write_charts(&[chart], &dir.join("charts"), None)?);
    Ok(written)
}
