//! Which charts a sweep gets (issue 20): the expectations' metrics first, `--metric` to
//! choose the rest, heatmap cells whose interval the expectation's threshold falls in
//! outlined, cells whose mean fails it crossed, the gated value drawn on sweep lines, and a
//! colour scale that fits the data unless `--range` fixes it.

use crate::support::*;
use std::path::Path;

/// scenarios/metastability-map.toml on a 2 x 2 grid, 4 replications: its expectations are
/// `fault.0.recovered == 1` (base) and `== 0` (no-budget).
fn small_map(dir: &Path) {
    cascade(
        &[
            "sweep",
            "scenarios/metastability-map.toml",
            "--param",
            "client.app.rate=500,800",
            "--param",
            "fault.0.end=30.1s,30.3s",
            "--reps",
            "4",
            "--out",
            dir.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
}

fn charts_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_sweep_charts_its_expectations_first_and_at_most_six_metrics() {
    let dir = scratch("sweep-charts-default");
    small_map(&dir);
    let out = cascade(&["chart", dir.to_str().unwrap()], 0);
    let printed = String::from_utf8(out.stdout).unwrap();
    let first = printed.lines().next().unwrap();
    assert!(
        first.contains("sweep-fault.0.recovered-base.svg"),
        "{first}"
    );
    // 6 metrics x 2 variants x (a line and a heatmap).
    assert_eq!(charts_in(&dir).len(), 24, "{:?}", charts_in(&dir));
}

#[test]
fn metric_narrows_the_charts_and_keeps_the_expectations() {
    let dir = scratch("sweep-charts-metric");
    small_map(&dir);
    cascade(
        &[
            "chart",
            dir.to_str().unwrap(),
            "--metric",
            "client.*.success_ratio",
            "--quiet",
        ],
        0,
    );
    let names = charts_in(&dir);
    assert_eq!(names.len(), 8, "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.contains("client.app.success_ratio") || n.contains("fault.0.recovered"))
    );
    let err = cascade(
        &["chart", dir.to_str().unwrap(), "--metric", "nothing.*"],
        2,
    );
    let text = String::from_utf8(err.stderr).unwrap();
    assert!(text.contains("--metric nothing.*"), "{text}");
}

#[test]
fn cells_the_replications_cannot_settle_are_outlined() {
    let dir = scratch("sweep-charts-marks");
    small_map(&dir);
    cascade(&["chart", dir.to_str().unwrap(), "--quiet"], 0);
    // Without a budget some cells recover in part of their 4 runs: an interval holding 0.
    let no_budget = read(&dir.join("charts/heatmap-fault.0.recovered-no-budget.svg"));
    assert!(no_budget.contains("outlined: interval holds == 0"));
    // With the budget every cell recovers every time: nothing is in doubt.
    let base = read(&dir.join("charts/heatmap-fault.0.recovered-base.svg"));
    assert!(!base.contains("outlined"));
}

/// A heatmap crosses each cell whose mean fails the expectation, whether or not its interval
/// holds the threshold, and a sweep line draws the gated value (issue 41).
#[test]
fn failing_cells_are_crossed_and_sweep_lines_draw_the_gate() {
    let dir = scratch("sweep-charts-gates");
    small_map(&dir);
    cascade(&["chart", dir.to_str().unwrap(), "--quiet"], 0);
    // Without a budget the cells that recover in some of their runs fail `== 0`.
    let no_budget = read(&dir.join("charts/heatmap-fault.0.recovered-no-budget.svg"));
    assert!(no_budget.contains("crossed: the mean fails == 0"));
    // With the budget every cell recovers every time: `== 1` holds everywhere.
    let base = read(&dir.join("charts/heatmap-fault.0.recovered-base.svg"));
    assert!(!base.contains("crossed"));
    for (variant, gate) in [("base", "gate == 1"), ("no-budget", "gate == 0")] {
        let line = read(&dir.join(format!("charts/sweep-fault.0.recovered-{variant}.svg")));
        assert!(
            line.contains(&format!(">\n{gate}\n<")),
            "{variant}: no {gate}"
        );
    }
}

#[test]
fn the_colour_scale_fits_the_data_unless_a_range_is_given() {
    let dir = scratch("sweep-charts-range");
    small_map(&dir);
    let scale_ends = |file: &str| -> Vec<String> {
        let svg = read(&dir.join("charts").join(file));
        let after = svg
            .split("Mean over replications")
            .nth(1)
            .unwrap()
            .to_string();
        after
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next())
            .map(|t| t.trim().to_string())
            .filter(|t| t.ends_with('%'))
            .collect()
    };
    cascade(&["chart", dir.to_str().unwrap(), "--quiet"], 0);
    let fitted = scale_ends("heatmap-client.app.success_ratio-base.svg");
    assert!(!fitted.contains(&"0%".to_string()), "{fitted:?}");
    cascade(
        &["chart", dir.to_str().unwrap(), "--quiet", "--range", "0..1"],
        0,
    );
    let fixed = scale_ends("heatmap-client.app.success_ratio-base.svg");
    assert_eq!(fixed, ["100%", "50%", "0%"], "{fixed:?}");
    cascade(&["chart", dir.to_str().unwrap(), "--range", "1..0"], 2);
}
