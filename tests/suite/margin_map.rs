//! `cascade margin --map DIR`: the share of runs recovered over load × trigger, probed along the
//! boundary (`margin/map.rs`). On scenarios/retry-collapse-margin.toml, whose load boundary is
//! 1.25× once the stall is long enough to fill the queue past the timeout (tests/suite/margin.rs
//! derives it), every column from the written 1 s stall up flips between the rows 1.19× and
//! 1.41× that hold 1.25× between them, and the map costs far fewer cells than the grid.

use cascade::margin::map::{load_rows, map};
use cascade::margin::runs::Runs;
use std::path::Path;
use std::process::Command;

const SCENARIO: &str = "scenarios/retry-collapse-margin.toml";

#[test]
fn each_column_flips_at_the_closed_form_boundary_and_probes_only_near_it() {
    let scenario = cascade::scenario::load(Path::new(SCENARIO), &[]).unwrap();
    let m = map(&scenario.model, 0, 1, &mut Runs::new(2)).unwrap();
    let rows = load_rows();
    let (below, above) = (
        rows.iter().position(|&l| (l - 1.189).abs() < 1e-3).unwrap(),
        rows.iter().position(|&l| (l - 1.414).abs() < 1e-3).unwrap(),
    );
    let written = m.triggers.iter().position(|&t| t == 1.0).unwrap();
    for t in written..m.triggers.len() {
        let cell = |row| {
            (m.cells.iter())
                .find(|c| (c.trigger, c.load) == (t, row))
                .unwrap_or_else(|| panic!("column {t} did not probe row {row}: {:?}", m.cells))
        };
        assert_eq!(cell(below).recovered, 1, "trigger {}", m.triggers[t]);
        assert_eq!(cell(above).recovered, 0, "trigger {}", m.triggers[t]);
    }
    let grid = m.triggers.len() * rows.len();
    assert!(m.cells.len() * 3 < grid, "{} of {grid}", m.cells.len());
}

#[test]
fn the_map_is_written_as_csv_and_a_heatmap_whatever_jobs_is() {
    let written = |jobs: &str| {
        let dir = std::env::temp_dir().join(format!("cascade-map-{}-{jobs}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
            .args([
                "margin", SCENARIO, "--axis", "load", "--reps", "1", "--jobs", jobs,
            ])
            .arg("--map")
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let csv = std::fs::read_to_string(dir.join("margin-map-fault-0.csv")).unwrap();
        let svg = std::fs::read_to_string(dir.join("charts/margin-map-fault-0.svg")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (csv, svg)
    };
    let (csv, svg) = written("1");
    assert_eq!((csv.clone(), svg.clone()), written("2"));
    assert!(
        csv.starts_with("trigger_multiplier,trigger_s,load_multiplier,recovered,runs\n"),
        "{csv}"
    );
    assert!(csv.contains("\n1.00,1.00,1.19,1,1\n") && csv.contains("\n1.00,1.00,1.41,0,1\n"));
    assert!(svg.contains("recovered along the boundary"), "{svg}");
}
